package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/discovery"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// newDiscoverer is discovery (package discovery's Discover) over fetcher f, which carries
// robots.txt, the host turns and the egress policy: what `sources discover` and the crawl workers
// run.
func newDiscoverer(f *pipeline.Fetcher) sources.Discoverer {
	return func(ctx context.Context, c discovery.Company) (discovery.Result, error) {
		return discovery.Discover(ctx, f, c, discovery.Options{}), nil
	}
}

// discoveryFlags are the flags of a discovery fetch: the crawl's real-host flags, under the
// same variables.
type discoveryFlags struct {
	connectTo    *[]string
	caFile       *string
	userAgent    *string
	hostRate     *float64
	timeout      *time.Duration
	allowPrivate *bool
}

func addDiscoveryFlags(fs *flagenv.Set) *discoveryFlags {
	f := &discoveryFlags{}
	fs.EnvName("connect-to", "HS_CRAWL_CONNECT_TO")
	f.connectTo = fs.List("connect-to", nil, "route a host's requests elsewhere, as the crawl's --connect-to: HOST:PORT=ADDR:PORT (an empty HOST or PORT matches any); TLS still verifies HOST")
	fs.EnvName("ca-file", "HS_CRAWL_CA_FILE")
	f.caFile = fs.String("ca-file", "", "PEM bundle of certificates trusted for TLS besides the system roots, as the crawl's --ca-file")
	f.userAgent = fs.String("user-agent", pipeline.DefaultUserAgent, "User-Agent of every request, as the crawl's; reaching real hosts needs a real one (product token, URL and contact)")
	f.hostRate = fs.Float("fetch-host-rate", 1, "requests per second to one host, shared with every crawl worker through Postgres; 0: unlimited")
	f.timeout = fs.Duration("fetch-timeout", 10*time.Second, "timeout of one request attempt")
	f.allowPrivate = fs.Bool("allow-private-egress", false, "let discovery dial loopback and private addresses (a simulated world on this machine); off, a site or redirect that leads to one is refused at dial time")
	return f
}

// check refuses flags that cannot work, as the crawl's checkRealHosts does.
func (f *discoveryFlags) check() error {
	if _, err := pipeline.ParseConnectTo(*f.connectTo); err != nil {
		return fmt.Errorf("--connect-to (HS_CRAWL_CONNECT_TO): %w", err)
	}
	if *f.hostRate < 0 {
		return fmt.Errorf("--fetch-host-rate (HS_FETCH_HOST_RATE) is %g: give requests per second, or 0 for unlimited", *f.hostRate)
	}
	if *f.userAgent == pipeline.DefaultUserAgent && len(*f.connectTo) == 0 && !*f.allowPrivate {
		return fmt.Errorf("--user-agent (HS_USER_AGENT) is the placeholder %q; discovery reads companies' own sites and needs a product token, URL and contact, "+
			"e.g. \"HiringSignalBot/1.0 (+https://example.com/bot; crawler@example.com)\"", *f.userAgent)
	}
	return nil
}

func runSourcesDiscover(ctx context.Context, _ *slog.Logger, c *sourcesCtx, args []string) error {
	// --apply has no HS_* fallback: an environment must not turn a dry run into writes.
	apply := c.fs.FlagSet.Bool("apply", false, "write what each run found to the registry; without it nothing is written and the report says what would be")
	allowHTTP := c.fs.FlagSet.Bool("allow-http", false, "keep careers sites served over http (a simulated world); https otherwise")
	df := addDiscoveryFlags(c.fs)
	domains, err := c.parse(args, -1)
	if err != nil {
		return err
	}
	if err := df.check(); err != nil {
		return err
	}
	if err := c.open(ctx); err != nil {
		return err
	}
	defer c.close()
	fetcher, err := pipeline.NewFetcher(pipeline.FetchConfig{ConnectTo: *df.connectTo, CAFile: *df.caFile, UserAgent: *df.userAgent,
		HostRate: *df.hostRate, HostTurns: oltp.HostTurns{Pool: c.pool}, Timeout: *df.timeout, AllowPrivate: *df.allowPrivate})
	if err != nil {
		return err
	}
	defer fetcher.CloseIdle()
	runs, err := sources.DiscoverNow(ctx, c.pool, c.discoverer(fetcher), domains,
		sources.StoreOptions{By: *c.by, RequestedBy: oltp.DiscoveryByCLI, AllowHTTP: *allowHTTP, Apply: *apply})
	if err != nil {
		return err
	}
	if *c.json {
		if err := writeJSON(c.out, struct {
			Runs []sources.Discovered `json:"runs"`
		}{runs}); err != nil {
			return err
		}
	} else {
		for i, d := range runs {
			if i > 0 {
				fmt.Fprintln(c.out)
			}
			printDiscovered(c.out, d)
		}
	}
	failed := 0
	for _, d := range runs {
		if d.Err != "" {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d domains could not be discovered (see above)", failed, len(runs))
	}
	return nil
}

// printDiscovered prints one run for an operator: its outcome, each source found (kept or not,
// with its evidence), what was tried, and what storing it does or did.
func printDiscovered(out io.Writer, d sources.Discovered) {
	if d.Err != "" {
		fmt.Fprintf(out, "%s: error: %s\n", d.Domain, d.Err)
		return
	}
	r := d.Result
	status := r.Outcome
	if d.Store != nil {
		status = d.Store.Status
	}
	name := ""
	if r.Company.Name != "" {
		name = fmt.Sprintf(" (%s)", r.Company.Name)
	}
	fmt.Fprintf(out, "%s%s: %s, %d requests in %s\n", d.Domain, name, status, r.Requests, r.Took.Round(time.Millisecond))
	if r.Reason != "" {
		fmt.Fprintf(out, "  reason: %s\n", r.Reason)
	}
	for _, f := range r.Found {
		what := f.Vendor + " " + f.Tenant
		if f.Tenant == "" {
			what = f.Vendor + " " + f.URL
		}
		verdict := "candidate"
		switch {
		case f.Rejected != "":
			verdict = "rejected: " + f.Rejected
		case f.Active:
			verdict = "active"
		}
		summary := "no evidence"
		if f.Evidence != (discovery.Evidence{}) {
			ev, _ := json.Marshal(f.Evidence)
			summary = evidenceSummary(ev)
		}
		fmt.Fprintf(out, "  found %s (%s): %s\n", what, verdict, summary)
	}
	if len(r.Found) == 0 {
		fmt.Fprintln(out, "  found nothing")
	}
	if d.Store != nil {
		for _, l := range d.Store.Left {
			if !strings.Contains(l, ": rejected by discovery: ") { // listed with what was found
				fmt.Fprintf(out, "  left out: %s\n", l)
			}
		}
	}
	if len(r.Tried) > 0 {
		const shown = 8
		fmt.Fprintf(out, "  tried %d requests:\n", len(r.Tried))
		for i, s := range r.Tried {
			if i == shown {
				fmt.Fprintf(out, "    ... and %d more (--json lists them)\n", len(r.Tried)-shown)
				break
			}
			st := "no answer"
			if s.Status != 0 {
				st = fmt.Sprint(s.Status)
			}
			note := ""
			if s.Note != "" {
				note = " (" + s.Note + ")"
			}
			fmt.Fprintf(out, "    %s %s%s\n", st, s.URL, note)
		}
	}
	if d.Store == nil {
		return
	}
	for _, m := range d.Store.Moves {
		verb := "would retire"
		if d.Store.Applied {
			verb = "retires"
		}
		fmt.Fprintf(out, "  moved: %s %s once a window has read %s\n", verb, m.From, m.To)
	}
	fmt.Fprintf(out, "  registry: %s\n", appliedWords(d.Store.Applied))
	printRegistryReport(out, d.Store.Registry)
}

// evidenceSummary is one line of a source's evidence, whichever wrote it: discovery (how it was
// found and what its vendor answered), `sources add` (the validating fetch) or an import (the file
// and line).
func evidenceSummary(raw json.RawMessage) string {
	var e struct {
		discovery.Evidence
		At          string `json:"at"`
		Source      string `json:"source"`      // an import's csv:FILE:LINE
		URL         string `json:"url"`         // add's fetch
		Count       *int   `json:"count"`       // add's postings
		VendorName  string `json:"vendor_name"` // add's company name
		NameMatches *bool  `json:"name_matches"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &e) != nil {
		return "-"
	}
	var parts []string
	switch {
	case e.Via != "":
		p := "via " + e.Via
		if e.FoundOn != "" {
			p += " on " + e.FoundOn
		}
		parts = append(parts, p, fmt.Sprintf("%s answered %d with %d jobs", dash(e.CheckedURL), e.Status, e.Jobs))
		if e.DetectedName != "" {
			m := "does not match"
			if e.NameMatches != nil && *e.NameMatches {
				m = "matches"
			}
			parts = append(parts, fmt.Sprintf("names %q (%s)", e.DetectedName, m))
		}
	case e.Count != nil:
		parts = append(parts, fmt.Sprintf("%s answered %d with %d postings", dash(e.URL), e.Status, *e.Count))
		if e.VendorName != "" {
			parts = append(parts, fmt.Sprintf("names %q", e.VendorName))
		}
	case e.Source != "":
		parts = append(parts, e.Source)
	default:
		s := string(raw)
		if len(s) > 120 {
			s = s[:120] + "…"
		}
		return s
	}
	if e.At != "" {
		parts = append(parts, e.At)
	}
	return strings.Join(parts, "; ")
}
