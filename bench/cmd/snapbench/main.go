// Command snapbench measures how long a commit takes to become visible in the read snapshot, as
// `serve` makes it visible: the commit applied to the current snapshot (snapshot.Update) against
// a full rebuild of the same watermark (snapshot.Build), in the same run, with the heap each
// holds at its peak beside the current snapshot. A simulated world of --companies companies is
// crawled in process into a throwaway ClickHouse database (every region at --ticks ticks, a
// crawl window of 8 cycles apart), then two commits are measured: an on-demand crawl of one
// company, and the next window of one region, each --rounds times. It prints the figures as Markdown rows for
// bench/README.md and drops its database. It is never run by `make test`.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/read/snapshot"
	"github.com/planehq/hiringsignal/sim"
)

func main() {
	companies := flag.Int("companies", 10000, "companies in the simulated world")
	ticks := flag.Int("ticks", 2, "windows crawled (every region) before the measured commits")
	rounds := flag.Int("rounds", 3, "times each commit is applied and rebuilt, alternating (the fastest of each is reported, with the spread)")
	region := flag.String("region", "", "the region of the measured window (default: the directory's first)")
	chAddr := flag.String("clickhouse-addr", flagenv.Env("HS_CLICKHOUSE_ADDR", "127.0.0.1:59000"), "ClickHouse native address (env HS_CLICKHOUSE_ADDR)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := run(context.Background(), log, *companies, *ticks, *rounds, *region, *chAddr); err != nil {
		fmt.Fprintln(os.Stderr, "snapbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger, companies, ticks, rounds int, region, addr string) error {
	var b [4]byte
	_, _ = rand.Read(b[:])
	db := "hs_bench_snap_" + hex.EncodeToString(b[:])
	opts := analytics.Options{Addr: addr, Database: db}
	if err := analytics.EnsureDatabase(ctx, opts); err != nil {
		return fmt.Errorf("cannot create %s (start ClickHouse with `bin/hiringsignal stores up`): %w", db, err)
	}
	admin, err := analytics.Open(analytics.Options{Addr: addr, Database: "default"})
	if err != nil {
		return err
	}
	defer func() { _ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db); admin.Close() }()
	ch, err := analytics.Open(opts)
	if err != nil {
		return err
	}
	defer ch.Close()
	if err := analytics.Migrate(ctx, ch, opts, nil); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	world := sim.New(sim.Config{Seed: 1, Companies: companies, BaseURL: base, NoGzip: true})
	srv := &http.Server{Handler: world.Handler()}
	go srv.Serve(ln) //nolint:errcheck
	defer srv.Close()
	crawler, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: slog.New(slog.DiscardHandler), Fetch: pipeline.FetchConfig{AllowPrivate: true}})
	if err != nil {
		return err
	}
	const first = 300
	tick := first
	for i := 0; i < ticks; i, tick = i+1, tick+8 {
		t0 := time.Now()
		world.Pin(tick)
		if _, err := crawler.RunTick(ctx, base, tick); err != nil {
			return err
		}
		log.Info("crawled a window", "tick", tick, "took", time.Since(t0).Round(time.Millisecond))
	}
	cur, err := snapshot.Update(ctx, ch, nil, snapshot.Policy{})
	if err != nil {
		return err
	}
	st := cur.Index.Stats()
	log.Info("first build", "companies", cur.Model.Companies(), "reqs", st.Reqs, "live", st.LiveReqs, "took", cur.BuildTook.Round(time.Millisecond))

	dir, err := pipeline.FetchDirectory(ctx, http.DefaultClient, base, tick-8)
	if err != nil {
		return err
	}
	co := dir.Companies[len(dir.Companies)/2]
	if _, err := crawler.RunCompany(ctx, dir, co.Domain, world.CycleTime(tick-8).Add(time.Hour)); err != nil {
		return err
	}
	fmt.Printf("| commit | companies touched | applied: commit → visible, fastest (spread) | heap peak above the current snapshot | baseline: full rebuild, fastest (spread) | its heap peak | ratio |\n|---|---:|---:|---:|---:|---:|---:|\n")
	if cur, err = measure(ctx, ch, cur, "on-demand crawl of one company", rounds); err != nil {
		return err
	}

	world.Pin(tick)
	dir, err = pipeline.FetchDirectory(ctx, http.DefaultClient, base, tick)
	if err != nil {
		return err
	}
	if region == "" {
		region = dir.Regions[0]
	}
	t0 := time.Now()
	if _, err := crawler.RunRegions(ctx, dir, []string{region}); err != nil {
		return err
	}
	log.Info("crawled the measured window", "region", region, "took", time.Since(t0).Round(time.Millisecond))
	_, err = measure(ctx, ch, cur, "window of region "+region, rounds)
	return err
}

// measure times Update over cur and Build of the same watermark, each with cur held (as the
// service holds the snapshot it serves), rounds times each, alternating (the machine is shared:
// the fastest of each is the one least disturbed), and prints one row. Update does not modify
// cur, so every round applies the same commit.
func measure(ctx context.Context, ch driver.Conn, cur *snapshot.Snapshot, what string, rounds int) (*snapshot.Snapshot, error) {
	var applied *snapshot.Snapshot
	var ta, tf []time.Duration
	var ha, hf uint64
	var phases string
	for i := 0; i < rounds; i++ {
		took, heap, err := peak(func() (err error) {
			applied, err = snapshot.Update(ctx, ch, cur, snapshot.Policy{})
			return err
		})
		if err != nil {
			return nil, err
		}
		if applied.Kind != snapshot.KindDelta {
			return nil, fmt.Errorf("%s was rebuilt whole: %s", what, applied.Reason)
		}
		if len(ta) == 0 || took < slices.Min(ta) {
			phases = applied.Phases
		}
		ta, ha = append(ta, took), max(ha, heap)
		var full *snapshot.Snapshot
		took, heap, err = peak(func() (err error) {
			full, err = snapshot.Build(ctx, ch)
			return err
		})
		if err != nil {
			return nil, err
		}
		if full.Watermark != applied.Watermark {
			return nil, fmt.Errorf("the watermark moved during the run (%d, %d)", applied.Watermark, full.Watermark)
		}
		tf, hf = append(tf, took), max(hf, heap)
	}
	span := func(d []time.Duration) string {
		return fmt.Sprintf("%s (%s–%s)", slices.Min(d).Round(time.Millisecond), slices.Min(d).Round(100*time.Millisecond), slices.Max(d).Round(100*time.Millisecond))
	}
	fmt.Printf("| %s | %d | **%s**; phases of the fastest: %s | %d MiB | %s | %d MiB | %.2f |\n", what, applied.Touched, span(ta),
		phases, ha>>20, span(tf), hf>>20, slices.Min(ta).Seconds()/slices.Min(tf).Seconds())
	return applied, nil
}

// peak runs fn and returns how long it took and the highest heap it reached above the heap
// before it (after a collection), sampled every 5 ms.
func peak(fn func() error) (time.Duration, uint64, error) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	var top atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > top.Load() {
					top.Store(m.HeapAlloc)
				}
			}
		}
	}()
	t0 := time.Now()
	err := fn()
	took := time.Since(t0)
	close(done)
	wg.Wait()
	runtime.ReadMemStats(&ms)
	p := max(top.Load(), ms.HeapAlloc)
	if p < before {
		p = before
	}
	return took, p - before, err
}
