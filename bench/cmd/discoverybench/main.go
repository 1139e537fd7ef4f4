// Command discoverybench measures discovery from a domain (pipeline/discovery) on a host-mode
// simulated world whose companies' own sites are served over TLS on loopback with an injected
// latency per request: the requests it makes per company and its time per 1,000 domains, first
// with no host rate (what the work itself costs), then under the crawl's default politeness (one
// request per second per host, `crawl --fetch-host-rate 1`) on a sample of the companies. Beside
// them, in the same run: plain net/http GETs of the very URLs the unlimited run asked, and the
// run's precision and recall against the world's discovery truth. See bench/README.md.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/testca"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/discovery"
	"github.com/planehq/hiringsignal/sim"
)

func main() {
	companies := flag.Int("companies", 1000, "companies in the world, all discovered in the unlimited run")
	sample := flag.Int("sample", 200, "companies discovered under --host-rate (the first of the world)")
	seed := flag.Int64("seed", 42, "the world's seed")
	tick := flag.Int("tick", 2000, "the tick the world is pinned at")
	latency := flag.Duration("latency", 50*time.Millisecond, "time the world waits before answering each request (see bench/README.md)")
	workers := flag.Int("workers", 64, "companies discovered at once; also the plain GETs' concurrency")
	hostRate := flag.Float64("host-rate", 1, "requests per second per host in the polite run, as `crawl --fetch-host-rate` (its default: 1)")
	flag.Parse()
	if err := run(*companies, *sample, *seed, *tick, *latency, *workers, *hostRate); err != nil {
		fmt.Fprintln(os.Stderr, "discoverybench:", err)
		os.Exit(1)
	}
}

// served counts what the world answered, by host, and records the URLs asked.
type served struct {
	mu     sync.Mutex
	byHost map[string]int
	urls   []string
	robots int
	total  atomic.Int64
}

func (s *served) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byHost, s.urls, s.robots = map[string]int{}, nil, 0
	s.total.Store(0)
}

func (s *served) add(r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	s.total.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byHost[host]++
	s.urls = append(s.urls, "https://"+host+r.URL.RequestURI())
	if r.URL.Path == "/robots.txt" {
		s.robots++
	}
}

// busiest is the host asked most and how often.
func (s *served) busiest() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	host, n := "", 0
	for h, c := range s.byHost {
		if c > n || c == n && h < host {
			host, n = h, c
		}
	}
	return host, n
}

func run(companies, sample int, seed int64, tick int, latency time.Duration, workers int, hostRate float64) error {
	w := sim.New(sim.Config{Seed: seed, Companies: companies, HostMode: true})
	w.Pin(tick)
	truth := w.DiscoveryTruth(tick)

	ca, err := testca.New()
	if err != nil {
		return err
	}
	leaf, err := ca.Leaf(sim.HostNames())
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "discoverybench-")
	if err != nil {
		return fmt.Errorf("cannot make a temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	caFile := filepath.Join(dir, "ca.pem")
	if err := ca.WritePEM(caFile); err != nil {
		return err
	}
	var srv served
	srv.reset()
	handler := w.Handler()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("cannot listen on loopback: %w", err)
	}
	hs := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		srv.add(r)
		time.Sleep(latency)
		handler.ServeHTTP(rw, r)
	}), TLSConfig: &tls.Config{Certificates: []tls.Certificate{leaf}, GetCertificate: ca.GetCertificate(w.ServesSite), MinVersion: tls.VersionTLS12}}
	go func() { _ = hs.ServeTLS(ln, "", "") }()
	defer hs.Close()
	fetchCfg := func(rate float64) pipeline.FetchConfig {
		return pipeline.FetchConfig{ConnectTo: []string{":443=" + ln.Addr().String()}, CAFile: caFile, HostRate: rate, Timeout: 10 * time.Second,
			UserAgent: "HiringSignalBot/1.0 (+https://hiringsignal.example/bot; crawler@hiringsignal.example)"}
	}

	fmt.Printf("World: %d companies, seed %d, tick %d, %s a request, %d companies at once.\n\n", companies, seed, tick, latency, workers)

	// Unlimited: what the work costs.
	f, err := pipeline.NewFetcher(fetchCfg(0))
	if err != nil {
		return err
	}
	start := time.Now()
	results := discoverAll(f, truth, workers)
	unlimited := time.Since(start)
	srv.mu.Lock()
	asked := slices.Clone(srv.urls)
	srv.mu.Unlock()
	servedAll, robots := srv.total.Load(), srv.robots
	busyHost, busyN := srv.busiest()
	f.CloseIdle()

	// Baseline: plain GETs of the same URLs, as many at once, through a transport built as the
	// fetcher's (same dial mapping, roots and connection limits), no robots.txt, gate or rate. As
	// discovery reads a site one request after another over one connection, the URLs go by host
	// in runs of up to 8 (a company's share), each run read in order by one goroutine, the runs
	// shuffled: a flat list would open a connection (a TLS handshake) per request.
	runs := hostRuns(asked, 8)
	rand.New(rand.NewPCG(uint64(seed), 1)).Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
	bf, err := pipeline.NewFetcher(fetchCfg(0))
	if err != nil {
		return err
	}
	client := bf.Client()
	srv.reset()
	start = time.Now()
	plainErrs := plainGets(client, runs, workers)
	plain := time.Since(start)
	bf.CloseIdle()

	// Polite: the first sample companies at the crawl's default host rate.
	sample = min(sample, companies)
	pf, err := pipeline.NewFetcher(fetchCfg(hostRate))
	if err != nil {
		return err
	}
	srv.reset()
	start = time.Now()
	politeResults := discoverAll(pf, truth[:sample], workers)
	polite := time.Since(start)
	politeServed := srv.total.Load()
	politeBusy, politeBusyN := srv.busiest()
	pf.CloseIdle()

	sc := score(results, truth)
	psc := score(politeResults, truth[:sample])
	perK := func(d time.Duration, n int) time.Duration {
		return time.Duration(float64(d) * 1000 / float64(n)).Round(time.Second)
	}

	fmt.Println("| run | companies | wall | per 1,000 domains | requests (server) | per company | discovery's own count per company | robots.txt reads |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	fmt.Printf("| discovery, no host rate | %d | %s | %s | %d | %.1f | %.1f | %d |\n", companies, unlimited.Round(time.Millisecond), perK(unlimited, companies),
		servedAll, float64(servedAll)/float64(companies), sc.requests/float64(companies), robots)
	fmt.Printf("| **baseline**: plain GETs of the same URLs | — | %s | — | %d | — | — | — |\n", plain.Round(time.Millisecond), len(asked))
	fmt.Printf("| discovery at %g request/s per host | %d | %s | **%s** | %d | %.1f | %.1f | — |\n\n", hostRate, sample, polite.Round(time.Second), perK(polite, sample),
		politeServed, float64(politeServed)/float64(sample), psc.requests/float64(sample))
	fmt.Printf("Ratio, no host rate ÷ plain GETs: %.2f× the time. Plain GETs that failed: %d.\n", float64(unlimited)/float64(plain), plainErrs)
	fmt.Printf("Busiest host, no host rate: %s, %d requests (%.0f%% of all); at %g request/s it alone takes %s per 1,000 domains.\n",
		busyHost, busyN, 100*float64(busyN)/float64(servedAll), hostRate, perK(time.Duration(float64(busyN)/hostRate*float64(time.Second)), companies))
	fmt.Printf("Busiest host, polite run: %s, %d requests: at %g request/s a floor of %s for the run's %s (the per-1,000 figure scales the run: fair when the two are close, the busiest host's queue setting the pace).\n\n",
		politeBusy, politeBusyN, hostRate, time.Duration(float64(politeBusyN)/hostRate*float64(time.Second)).Round(time.Second), polite.Round(time.Second))

	fmt.Println("| run | outcomes | active | wrong | discoverable covered |")
	fmt.Println("|---|---|---:|---:|---:|")
	fmt.Printf("| no host rate | %s | %d | %d | %d / %d |\n", sc.outcomes(), sc.active, sc.wrong, sc.covered, sc.discoverable)
	fmt.Printf("| at %g request/s per host | %s | %d | %d | %d / %d |\n", hostRate, psc.outcomes(), psc.active, psc.wrong, psc.covered, psc.discoverable)
	return nil
}

func discoverAll(g discovery.Getter, truth []sim.SiteTruth, workers int) []discovery.Result {
	out := make([]discovery.Result, len(truth))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				out[i] = discovery.Discover(context.Background(), g, discovery.Company{Domain: truth[i].Domain, Name: truth[i].Name}, discovery.Options{Timeout: 30 * time.Minute})
			}
		}()
	}
	for i := range truth {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

// hostRuns groups urls by host, in the order asked, in runs of at most n.
func hostRuns(urls []string, n int) [][]string {
	byHost := map[string][]string{}
	var hosts []string
	for _, u := range urls {
		host := strings.SplitN(strings.TrimPrefix(u, "https://"), "/", 2)[0]
		if _, ok := byHost[host]; !ok {
			hosts = append(hosts, host)
		}
		byHost[host] = append(byHost[host], u)
	}
	var out [][]string
	for _, h := range hosts {
		for us := byHost[h]; len(us) > 0; us = us[min(n, len(us)):] {
			out = append(out, us[:min(n, len(us))])
		}
	}
	return out
}

func plainGets(client *http.Client, runs [][]string, workers int) int {
	var failed atomic.Int64
	jobs := make(chan []string)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for run := range jobs {
				for _, u := range run {
					resp, err := client.Get(u)
					if err != nil {
						failed.Add(1)
						continue
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	for _, r := range runs {
		jobs <- r
	}
	close(jobs)
	wg.Wait()
	return int(failed.Load())
}

type scored struct {
	byOutcome                            map[string]int
	active, wrong, discoverable, covered int
	requests                             float64
}

func (s scored) outcomes() string {
	keys := make([]string, 0, len(s.byOutcome))
	for k := range s.byOutcome {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, s.byOutcome[k]))
	}
	return strings.Join(parts, ", ")
}

func score(results []discovery.Result, truth []sim.SiteTruth) scored {
	s := scored{byOutcome: map[string]int{}}
	for i, res := range results {
		s.byOutcome[res.Outcome]++
		s.requests += float64(res.Requests)
		covered := false
		for _, f := range res.Found {
			if !f.Active {
				continue
			}
			s.active++
			k := atsurl.SourceKey(f.Vendor, f.Tenant, f.Variant, "")
			if f.Kind == discovery.KindCareersSite {
				k = atsurl.SourceKey(f.Vendor, "", "", f.URL)
			}
			if slices.Contains(truth[i].Own, k) {
				covered = true
			} else {
				s.wrong++
			}
		}
		if truth[i].Discoverable {
			s.discoverable++
			if covered {
				s.covered++
			}
		}
	}
	return s
}
