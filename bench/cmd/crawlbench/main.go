// Command crawlbench measures the crawl: a full cycle of every region of a large simulated world
// (postings per second, peak RSS) side by side with plain decoding of the same pages in the same
// run, what the crawled ledger and its descriptions store per req once merged, then a backfill of
// a smaller world over many days. The simulator runs as a separate process
// (bin/hiringsignal simulate) so the RSS measured is the crawler's own. See bench/README.md.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/klauspost/compress/gzip"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/bench/profiling"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/pipeline"
)

func main() {
	var prof profiling.Profiles
	companies := flag.Int("companies", 100000, "companies in the large world (a full cycle is measured on it)")
	cycles := flag.Int("cycles", 2, "consecutive cycles on the large world (the first opens every req; later ones are steady state)")
	backfillCompanies := flag.Int("backfill-companies", 2000, "companies in the backfill world")
	backfillDays := flag.Int("backfill-days", 90, "days to backfill (8 cycles a day); 0 skips")
	chAddr := flag.String("clickhouse-addr", flagenv.Env("HS_CLICKHOUSE_ADDR", "127.0.0.1:59000"), "ClickHouse native address (env HS_CLICKHOUSE_ADDR)")
	bin := flag.String("bin", "bin/hiringsignal", "the hiringsignal binary (for the simulator process)")
	workers := flag.Int("workers", 32, "fetch workers (also used by the plain-decode baseline)")
	memLimit := flag.Int("memory-limit-mib", 1400, "soft memory limit, as `hiringsignal crawl --memory-limit-mib`")
	flag.StringVar(&prof.CPU, "cpuprofile", "", "write a CPU profile of the last large-world cycle to this file")
	flag.StringVar(&prof.Mem, "memprofile", "", "write allocation profiles to this file (after the last large-world cycle) and to FILE.base (before it): go tool pprof -diff_base FILE.base FILE")
	flag.Parse()
	if *memLimit > 0 {
		debug.SetMemoryLimit(int64(*memLimit) << 20)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx := context.Background()
	if err := run(ctx, log, prof, *companies, *cycles, *backfillCompanies, *backfillDays, *chAddr, *bin, *workers); err != nil {
		log.Error("crawlbench failed", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger, prof profiling.Profiles, companies, cycles, bfCompanies, bfDays int, chAddr, bin string, workers int) error {
	const tick = 2000
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers, DisableCompression: true}}
	if cycles > 0 {
		if err := largeWorld(ctx, log, prof, companies, cycles, chAddr, bin, workers, client, tick); err != nil {
			return err
		}
	}
	if bfDays <= 0 {
		return nil
	}
	simURL, stop2, err := startSim(log, bin, bfCompanies, "127.0.0.1:7182")
	if err != nil {
		return err
	}
	defer stop2()
	ch2, _, err := freshDB(ctx, chAddr, "hs_bench_backfill")
	if err != nil {
		return err
	}
	defer ch2.Close()
	c2, err := pipeline.NewCrawler(ctx, ch2, pipeline.Config{Log: log, Fetch: pipeline.FetchConfig{Workers: workers, PerHost: workers, AllowPrivate: true}}) // the simulator on loopback, HostRate 0
	if err != nil {
		return err
	}
	start := time.Now()
	first := 2000 - bfDays*8
	events, postings := 0, 0
	for t := first; t < 2000; t++ {
		if err := pipeline.PinSimTick(ctx, client, simURL, t); err != nil {
			return err
		}
		stats, err := c2.RunTick(ctx, simURL, t)
		if err != nil {
			return err
		}
		for _, s := range stats {
			events += s.Events
			postings += s.Postings
		}
		if (t-first+1)%(8*10) == 0 {
			log.Info("backfill", "days", (t-first+1)/8, "of", bfDays, "events", events, "elapsed", time.Since(start).Round(time.Second))
		}
	}
	took := time.Since(start)
	fmt.Printf("backfill: %d days (%d cycles x 7 regions) of %d companies in %.1fs (%.2fs per tick), %d postings, %d events, peak RSS %s\n",
		bfDays, bfDays*8, bfCompanies, took.Seconds(), took.Seconds()/float64(bfDays*8), postings, events, peakRSS())
	return nil
}

func startSim(log *slog.Logger, bin string, companies int, listen string) (string, func(), error) {
	if resp, err := http.Get("http://" + listen + "/_sim/healthz"); err == nil {
		resp.Body.Close()
		return "", nil, fmt.Errorf("something already answers on %s (a simulator left from an earlier run?): stop it first", listen)
	}
	cmd := exec.Command(bin, "simulate", "--sim-companies", strconv.Itoa(companies), "--sim-listen", listen)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("cannot start the simulator (%s; run `make build` first): %w", bin, err)
	}
	url := "http://" + listen
	var once sync.Once
	stop := func() { once.Do(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) }
	for i := 0; i < 200; i++ {
		if resp, err := http.Get(url + "/_sim/healthz"); err == nil {
			resp.Body.Close()
			return url, stop, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	return "", nil, fmt.Errorf("the simulator did not come up on %s", listen)
}

func freshDB(ctx context.Context, addr, db string) (driver.Conn, analytics.Options, error) {
	opts := analytics.Options{Addr: addr, Database: db}
	admin, err := analytics.Open(analytics.Options{Addr: addr, Database: "default"})
	if err != nil {
		return nil, opts, err
	}
	if err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
		return nil, opts, fmt.Errorf("cannot reach ClickHouse at %s (start it with `bin/hiringsignal stores up`): %w", addr, err)
	}
	admin.Close()
	if err := analytics.EnsureDatabase(ctx, opts); err != nil {
		return nil, opts, err
	}
	ch, err := analytics.Open(opts)
	if err != nil {
		return nil, opts, err
	}
	return ch, opts, analytics.Migrate(ctx, ch, opts, nil)
}

type baseline struct {
	pages, postings int
	bytes           int64
	took            time.Duration
}

// plainDecode fetches every page of every source and decodes it generically.
func plainDecode(ctx context.Context, client *http.Client, dir *pipeline.Directory, workers int) (baseline, error) {
	var pages, postings, nbytes atomic.Int64
	var firstErr atomic.Value
	jobs := make(chan *pipeline.Source)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for src := range jobs {
				url := src.URL
				for url != "" {
					body, err := fetchPlain(ctx, client, src.Vendor, url)
					if err != nil {
						firstErr.CompareAndSwap(nil, err)
						break
					}
					n, next := decodeGeneric(src.Vendor, body, url)
					pages.Add(1)
					postings.Add(int64(n))
					nbytes.Add(int64(len(body)))
					url = next
				}
			}
		}()
	}
	for i := range dir.Sources {
		jobs <- &dir.Sources[i]
	}
	close(jobs)
	wg.Wait()
	if e := firstErr.Load(); e != nil {
		return baseline{}, e.(error)
	}
	return baseline{pages: int(pages.Load()), postings: int(postings.Load()), bytes: nbytes.Load(), took: time.Since(start)}, nil
}

// fetchPlain reads one page: a GET, except Workday's list, a POST of the offset its URL's
// fragment carries (#offset=N, as the adapter keeps it).
func fetchPlain(ctx context.Context, client *http.Client, vendor, url string) ([]byte, error) {
	if vendor != "workday" {
		return get(ctx, client, url)
	}
	base, frag, _ := strings.Cut(url, "#")
	offset, _ := strconv.Atoi(strings.TrimPrefix(frag, "offset="))
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base,
		strings.NewReader(`{"appliedFacets":{},"limit":20,"offset":`+strconv.Itoa(offset)+`,"searchText":""}`))
	req.Header.Set("Content-Type", "application/json")
	return do(client, req)
}

func get(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	return do(client, req)
}

func do(client *http.Client, req *http.Request) ([]byte, error) {
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, err
		}
		r = zr
	}
	return io.ReadAll(r)
}

// decodeGeneric decodes a page into generic values and counts its postings the simplest way;
// the next-page rule is the vendor's, so both runs read the same pages.
func decodeGeneric(vendor string, body []byte, url string) (int, string) {
	switch vendor {
	case "workday":
		var v struct {
			JobPostings []any `json:"jobPostings"`
		}
		_ = json.Unmarshal(body, &v)
		if len(v.JobPostings) == 20 {
			base, frag, _ := strings.Cut(url, "#")
			offset, _ := strconv.Atoi(strings.TrimPrefix(frag, "offset="))
			return 20, base + "#offset=" + strconv.Itoa(offset+20)
		}
		return len(v.JobPostings), ""
	case "icims":
		next := ""
		if bytes.Contains(body, []byte("Next page of results")) {
			pr := 0
			if i := strings.Index(url, "&pr="); i >= 0 {
				pr, _ = strconv.Atoi(url[i+len("&pr="):])
				url = url[:i]
			}
			next = url + "&pr=" + strconv.Itoa(pr+1)
		}
		return bytes.Count(body, []byte(`class="iCIMS_JobCardItem"`)), next
	case "jobvite":
		next := ""
		if bytes.Contains(body, []byte("jv-pagination-next")) {
			p := 0
			if i := strings.Index(url, "?p="); i >= 0 {
				p, _ = strconv.Atoi(url[i+len("?p="):])
				url = url[:i]
			}
			next = url + "?p=" + strconv.Itoa(p+1)
		}
		return bytes.Count(body, []byte(`class="jv-job-list-name"`)), next
	case "jazzhr":
		return bytes.Count(body, []byte(`class="list-group-item-heading"`)), ""
	case "personio":
		var v struct {
			Positions []struct {
				ID string `xml:"id"`
			} `xml:"position"`
		}
		_ = xml.Unmarshal(body, &v)
		return len(v.Positions), ""
	case "teamtailor":
		var v struct {
			Items []struct {
				Link string `xml:"link"`
			} `xml:"channel>item"`
		}
		_ = xml.Unmarshal(body, &v)
		if len(v.Items) == 200 {
			return len(v.Items), bumpQuery(url, "offset", 200)
		}
		return len(v.Items), ""
	case "join":
		var v struct {
			Items      []any `json:"items"`
			Pagination struct {
				Page      int `json:"page"`
				PageCount int `json:"pageCount"`
			} `json:"pagination"`
		}
		_ = json.Unmarshal(body, &v)
		if v.Pagination.Page < v.Pagination.PageCount {
			return len(v.Items), bumpQuery(url, "page", 1)
		}
		return len(v.Items), ""
	case "jsonld":
		n := 0
		rest := body
		for {
			i := bytes.Index(rest, []byte(`application/ld+json">`))
			if i < 0 {
				break
			}
			rest = rest[i+len(`application/ld+json">`):]
			j := bytes.Index(rest, []byte("</script>"))
			if j < 0 {
				break
			}
			var v any
			if json.Unmarshal(rest[:j], &v) == nil {
				n++
			}
			rest = rest[j:]
		}
		next := ""
		if i := bytes.Index(body, []byte(`rel="next" href="`)); i >= 0 {
			s := body[i+len(`rel="next" href="`):]
			next = string(s[:bytes.IndexByte(s, '"')])
		}
		return n, next
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return 0, ""
	}
	switch t := v.(type) {
	case []any: // lever
		if len(t) == 100 {
			return len(t), bumpQuery(url, "skip", 100)
		}
		return len(t), ""
	case map[string]any:
		for _, k := range []string{"jobs", "offers", "content", "result", "data", "items"} {
			if arr, ok := t[k].([]any); ok {
				next := ""
				if k == "content" && len(arr) == 100 {
					next = bumpQuery(url, "offset", 100)
				}
				if page, ok := t["page"].(float64); ok && k == "items" {
					if pages, _ := t["totalPages"].(float64); page+1 < pages {
						next = bumpQuery(url, "page", 1)
					}
				}
				if c, ok := t["next_cursor"].(string); ok && c != "" {
					next = setQuery(url, "cursor", c)
				}
				return len(arr), next
			}
		}
	}
	return 0, ""
}

func bumpQuery(url, key string, by int) string {
	i := strings.Index(url, key+"=")
	if i < 0 {
		return ""
	}
	j := i + len(key) + 1
	k := j
	for k < len(url) && url[k] >= '0' && url[k] <= '9' {
		k++
	}
	n, _ := strconv.Atoi(url[j:k])
	return url[:j] + strconv.Itoa(n+by) + url[k:]
}

func setQuery(url, key, val string) string {
	if i := strings.Index(url, "&"+key+"="); i >= 0 {
		return url[:i] + "&" + key + "=" + val
	}
	return url + "&" + key + "=" + val
}

// cpuTime is the CPU time (user and system) this process has used so far: on a shared machine a
// phase's wall time is its CPU time over its share of the cores, so the CPU time is what compares
// between phases measured minutes apart (the simulator's own rendering is in neither).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			kb, _ := strconv.Atoi(f[1])
			return fmt.Sprintf("%.0f MiB", float64(kb)/1024)
		}
	}
	_ = runtime.NumCPU
	return "?"
}

// largeWorld measures the plain-decode baseline and full crawl cycles of the large world.
func largeWorld(ctx context.Context, log *slog.Logger, prof profiling.Profiles, companies, cycles int, chAddr, bin string, workers int, client *http.Client, tick int) error {
	simURL, stop, err := startSim(log, bin, companies, "127.0.0.1:7181")
	if err != nil {
		return err
	}
	defer stop()
	if err := pipeline.PinSimTick(ctx, client, simURL, tick); err != nil {
		return err
	}
	dir, err := pipeline.FetchDirectory(ctx, client, simURL, tick)
	if err != nil {
		return err
	}
	fmt.Printf("world: %d companies, %d sources, tick %d\n\n", companies, len(dir.Sources), tick)

	// Baseline: the same pages over the same HTTP, decoded with encoding/json (xml for Personio)
	// into generic values, no adapters, no pipeline.
	cpu0 := cpuTime()
	base, err := plainDecode(ctx, client, dir, workers)
	if err != nil {
		return err
	}
	baseCPU := cpuTime() - cpu0
	fmt.Printf("plain decode:   %8d pages %9d postings %7.1fs %9.0f postings/s  (%.0f MB)  CPU %.1fs %9.0f postings per CPU-second\n", base.pages, base.postings, base.took.Seconds(),
		float64(base.postings)/base.took.Seconds(), float64(base.bytes)/1e6, baseCPU.Seconds(), float64(base.postings)/baseCPU.Seconds())

	ch, opts, err := freshDB(ctx, chAddr, "hs_bench_crawl")
	if err != nil {
		return err
	}
	defer ch.Close()
	_ = opts
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Log: log, Fetch: pipeline.FetchConfig{Workers: workers, PerHost: workers, AllowPrivate: true}}) // the simulator on loopback, HostRate 0
	if err != nil {
		return err
	}
	for i := 0; i < cycles; i++ {
		t := tick + i
		if err := pipeline.PinSimTick(ctx, client, simURL, t); err != nil {
			return err
		}
		last := i == cycles-1
		if last {
			if err := prof.Begin(); err != nil {
				return err
			}
		}
		start, cpuStart := time.Now(), cpuTime()
		stats, err := c.RunTick(ctx, simURL, t)
		if err != nil {
			return err
		}
		took, cpu := time.Since(start), cpuTime()-cpuStart
		if last {
			if err := prof.End(); err != nil {
				return err
			}
		}
		var postings, events, failed, notModified int
		var emitTook, collectTook time.Duration
		for _, s := range stats {
			collectTook = max(collectTook, s.CollectTook) // one collect pass serves every region
			emitTook += s.EmitTook
			postings += s.Postings
			events += s.Events
			failed += s.SourcesFailed
			notModified += s.NotModified
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		cachePages, cacheBytes, _, cacheRefused := c.PageCacheStats()
		ps, pcpu := float64(postings)/took.Seconds(), float64(postings)/cpu.Seconds()
		fmt.Printf("crawl cycle %d:  %8d postings %7.1fs %9.0f postings/s  ratio %.2f  CPU %.1fs %9.0f postings per CPU-second  CPU ratio %.2f  events %d  failed sources %d  pages 304 %d  peak RSS %s  GCs %d (GC CPU %.0f%%)  collect %.1fs  emit %.1fs  page cache %d pages %d MiB (%d not kept so far)\n",
			i+1, postings, took.Seconds(), ps, ps/(float64(base.postings)/base.took.Seconds()), cpu.Seconds(), pcpu, pcpu/(float64(base.postings)/baseCPU.Seconds()),
			events, failed, notModified, peakRSS(),
			ms.NumGC, 100*ms.GCCPUFraction, collectTook.Seconds(), emitTook.Seconds(), cachePages, cacheBytes>>20, cacheRefused)
	}
	_, live := c.State().Reqs()
	fmt.Printf("live reqs after the cycles: %d\n\n", live)
	return storage(ctx, ch)
}

// factColumns are the events columns of a posting's facts (analytics migration 0004).
var factColumns = []string{"technologies", "technology_kinds", "seniority", "employment_type", "workplace_type", "remote_countries",
	"years_experience_min", "visa_sponsorship", "stated_pay_min", "stated_pay_max", "stated_pay_currency", "stated_pay_period",
	"stated_pay_text", "description_hash"}

// storage prints what the crawled ledger and its descriptions cost per req once merged (OPTIMIZE
// FINAL): the events columns without the facts, the facts columns, and req_descriptions,
// compressed on disk and uncompressed.
func storage(ctx context.Context, ch driver.Conn) error {
	for _, table := range []string{"events", "req_descriptions"} {
		if err := ch.Exec(ctx, "OPTIMIZE TABLE "+table+" FINAL"); err != nil {
			return fmt.Errorf("cannot merge %s: %w", table, err)
		}
	}
	var reqs, events, texts, named, described uint64
	if err := ch.QueryRow(ctx, "SELECT uniqExact(req_key), count() FROM events").Scan(&reqs, &events); err != nil {
		return err
	}
	if err := ch.QueryRow(ctx, "SELECT count() FROM req_descriptions").Scan(&texts); err != nil {
		return err
	}
	if err := ch.QueryRow(ctx, "SELECT uniqExact(req_key, description_hash), uniqExact(req_key) FROM events WHERE description_hash != 0").
		Scan(&named, &described); err != nil {
		return err
	}
	bytesOf := func(table, cond string) (compressed, raw uint64, err error) {
		err = ch.QueryRow(ctx, "SELECT sum(data_compressed_bytes), sum(data_uncompressed_bytes) FROM system.columns "+
			"WHERE database = currentDatabase() AND table = '"+table+"'"+cond).Scan(&compressed, &raw)
		return compressed, raw, err
	}
	list := "('" + strings.Join(factColumns, "','") + "')"
	oldC, oldR, err := bytesOf("events", " AND name NOT IN "+list)
	if err != nil {
		return err
	}
	factC, factR, err := bytesOf("events", " AND name IN "+list)
	if err != nil {
		return err
	}
	descC, descR, err := bytesOf("req_descriptions", "")
	if err != nil {
		return err
	}
	per := func(b uint64) string { return fmt.Sprintf("%.1f", float64(b)/float64(reqs)) }
	fmt.Printf("storage after OPTIMIZE FINAL: %d reqs (%d with a description), %d events, %d texts in req_descriptions (%d named by an event)\n\n",
		reqs, described, events, texts, named)
	fmt.Printf("| bytes per req | ledger before (events without facts) | facts columns | req_descriptions | after |\n|---|---:|---:|---:|---:|\n")
	fmt.Printf("| compressed on disk | %s | +%s | +%s | %s |\n", per(oldC), per(factC), per(descC), per(oldC+factC+descC))
	fmt.Printf("| uncompressed | %s | +%s | +%s | %s |\n\n", per(oldR), per(factR), per(descR), per(oldR+factR+descR))
	return nil
}
