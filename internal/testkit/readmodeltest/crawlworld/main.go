// Command crawlworld crawls one fixture world of readmodeltest into a ClickHouse database and
// exits. readmodeltest.Crawl builds it without the race detector and runs it, so that the read
// side's tests (which run under -race) get their crawled worlds at the crawl's normal speed: the
// crawl is the fixture there, not the code under test (package pipeline's tests crawl under
// -race). It serves the simulated world on the listener it inherits as file descriptor 3, so the
// world keeps the base URL (and the posting URLs built from it) of the test that runs it.
//
// It owns nothing else and must not be imported.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "crawlworld:", err)
		os.Exit(1)
	}
}

func run() error {
	world := flag.String("world", "", "the readmodeltest.Config to crawl, as JSON")
	addr := flag.String("clickhouse-addr", "", "ClickHouse native-protocol host:port")
	database := flag.String("clickhouse-database", "", "the migrated ClickHouse database to crawl into")
	flag.Parse()
	var cfg readmodeltest.Config
	if err := json.Unmarshal([]byte(*world), &cfg); err != nil {
		return fmt.Errorf("cannot read -world: %w", err)
	}
	ln, err := net.FileListener(os.NewFile(3, "listener"))
	if err != nil {
		return fmt.Errorf("cannot take the listener passed as file descriptor 3: %w", err)
	}
	base := "http://" + ln.Addr().String()
	sw := sim.New(readmodeltest.SimConfig(cfg, base))
	srv := &http.Server{Handler: sw.Handler()}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	crawlErr := crawl(cfg, sw, base, *addr, *database)
	srv.Close()
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return errors.Join(crawlErr, fmt.Errorf("cannot serve the world: %w", err))
	}
	return crawlErr
}

func crawl(cfg readmodeltest.Config, sw *sim.World, base, addr, database string) error {
	ctx := context.Background()
	ch, err := analytics.Open(analytics.Options{Addr: addr, Database: database})
	if err != nil {
		return err
	}
	defer ch.Close()
	c, err := pipeline.NewCrawler(ctx, ch, readmodeltest.CrawlerConfig())
	if err != nil {
		return err
	}
	for _, tick := range cfg.TickList() {
		if err := readmodeltest.CrawlTick(ctx, c, sw, base, cfg.Regions, tick); err != nil {
			return fmt.Errorf("cannot crawl tick %d: %w", tick, err)
		}
	}
	return nil
}
