package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/user"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/devstack"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// `hiringsignal sources`: the operator's commands on the source registry (the companies and
// sources the crawl reads). Writes are dry runs unless --apply; every change records who made it
// (--by).

type sourcesCommand struct {
	args    string // positional arguments, for the usage line
	summary string
	run     func(ctx context.Context, log *slog.Logger, c *sourcesCtx, args []string) error
}

func sourcesCommands() map[string]sourcesCommand {
	return map[string]sourcesCommand{
		"import": {"FILE.csv", "import companies and sources from a CSV file (- for stdin); a dry run unless --apply", runSourcesImport},
		"add":    {"", "validate an ATS tenant with one fetch of its feed, then add it and its company as active (--apply)", runSourcesAdd},
		"list":   {"", "list sources, by key, a page at a time, with their health (last read, failures in a row, cooldown)", runSourcesList},
		"show":   {"KEY", "show one source, its health and last read's reason, and its company", runSourcesShow},
		"pause":  {"KEY", "stop reading a source; its reqs stay open as unknown (--reason required)", runSourcesPause},
		"resume": {"KEY", "make a paused, retired, suspect or candidate source active again", runSourcesResume},
		"retire": {"KEY", "take a source out of the crawl's directory, so the reqs it alone carried close (--reason required)", runSourcesRetire},
		"discover": {"DOMAIN...", "find the job sources of companies from their domains now and print what each run found; a dry run unless --apply",
			runSourcesDiscover},
	}
}

func sourcesUsage() {
	fmt.Fprintln(os.Stderr, "Usage: hiringsignal sources <command> [args] [flags]\n\nThe source registry: the companies and sources the crawl reads.\n\nCommands:")
	cmds := sourcesCommands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-8s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun `hiringsignal sources <command> --help` for its flags and HS_* variables.")
}

func runSources(ctx context.Context, log *slog.Logger, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		sourcesUsage()
		return errHelp
	}
	cmd, ok := sourcesCommands()[args[0]]
	if !ok {
		sourcesUsage()
		return fmt.Errorf("unknown sources command %q", args[0])
	}
	name := "sources " + args[0]
	if cmd.args != "" {
		name += " " + cmd.args
	}
	c := newSourcesCtx(name, cmd.summary)
	return cmd.run(ctx, log, c, args[1:])
}

// sourcesCtx holds the flags every sources command has and opens the registry's store.
type sourcesCtx struct {
	fs          *flagenv.Set
	postgresURL *string
	by          *string
	json        *bool
	pool        *pgxpool.Pool
	out         io.Writer // where a command prints (os.Stdout)
	// discoverer builds `sources discover`'s discovery over a fetcher (newDiscoverer; tests
	// script it).
	discoverer func(*pipeline.Fetcher) sources.Discoverer
}

func newSourcesCtx(name, summary string) *sourcesCtx {
	fs := flagenv.New(name, summary)
	def := devstack.Stack{PostgresPort: devstack.DefaultPostgresPort}
	return &sourcesCtx{
		fs:          fs,
		postgresURL: fs.String("postgres-url", def.PostgresURL(), "Postgres URL of the registry (default: the private instance that make run starts)"),
		by:          fs.String("by", defaultOperator(), "who makes the change, recorded with it"),
		json:        fs.FlagSet.Bool("json", false, "print one JSON document instead of a table"),
		out:         os.Stdout,
		discoverer:  newDiscoverer,
	}
}

func defaultOperator() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "operator"
}

// parse parses flags given before, between and after the positional arguments and checks there
// are want of those (want < 0: at least one).
func (c *sourcesCtx) parse(args []string, want int) ([]string, error) {
	var pos []string
	for {
		if err := parse(c.fs, args); err != nil {
			return nil, err
		}
		args = c.fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if want < 0 && len(pos) == 0 {
		return nil, fmt.Errorf("hiringsignal %s takes one argument or more, got none: see --help", c.fs.Name())
	}
	if want >= 0 && len(pos) != want {
		return nil, fmt.Errorf("hiringsignal %s takes %d argument(s), got %d (%s): see --help", c.fs.Name(), want, len(pos), strings.Join(pos, " "))
	}
	return pos, nil
}

func (c *sourcesCtx) open(ctx context.Context) error {
	pool, err := oltp.Open(ctx, *c.postgresURL)
	if err != nil {
		return err
	}
	if err := oltp.Migrate(ctx, pool, nil); err != nil {
		pool.Close()
		return fmt.Errorf("postgres: %w", err)
	}
	c.pool = pool
	return nil
}

func (c *sourcesCtx) close() {
	if c.pool != nil {
		c.pool.Close()
	}
}

func printJSON(v any) error { return writeJSON(os.Stdout, v) }

func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runSourcesImport(ctx context.Context, _ *slog.Logger, c *sourcesCtx, args []string) error {
	// The flags of one call have no HS_* fallback: an environment must not turn a dry run into writes
	// or name a file's sources.
	apply := c.fs.FlagSet.Bool("apply", false, "write; without it nothing is written and the report says what would be")
	status := c.fs.FlagSet.String("status", oltp.SourceActive, "status of the sources the file adds: active (crawled from the next cycle) or candidate (not crawled until resumed)")
	allowHTTP := c.fs.FlagSet.Bool("allow-http", false, "accept http feed URLs (a simulated world); feeds are https otherwise")
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	var r io.Reader = os.Stdin
	file := pos[0]
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return fmt.Errorf("cannot open the import file: %w", err)
		}
		defer f.Close()
		r = f
	} else {
		file = ""
	}
	if err := c.open(ctx); err != nil {
		return err
	}
	defer c.close()
	rep, err := sources.Import(ctx, c.pool, r, sources.ImportOptions{File: file, By: *c.by, Status: *status, AllowHTTP: *allowHTTP, Apply: *apply})
	var ie *sources.ImportError
	if errors.As(err, &ie) {
		if *c.json {
			_ = printJSON(ie)
		} else {
			fmt.Fprintln(os.Stderr, ie.Error())
		}
		return fmt.Errorf("%s: %d bad rows, nothing written", ie.File, len(ie.Errors)+ie.More)
	}
	if err != nil {
		return err
	}
	if *c.json {
		return printJSON(rep)
	}
	rows := "rows"
	if rep.Rows == 1 {
		rows = "row"
	}
	fmt.Printf("%s: %d %s; %s\n", rep.File, rep.Rows, rows, appliedWords(rep.Applied))
	printRegistryReport(os.Stdout, rep.RegistryReport)
	return nil
}

func appliedWords(applied bool) string {
	if applied {
		return "written"
	}
	return "dry run: nothing written (--apply writes)"
}

func printRegistryReport(out io.Writer, rep oltp.RegistryReport) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	verb := "would be "
	if rep.Applied {
		verb = ""
	}
	fmt.Fprintf(w, "\t%sadded\t%schanged\tunchanged\t\n", verb, verb)
	fmt.Fprintf(w, "companies\t%d\t%d\t%d\t\n", rep.Companies.Added, rep.Companies.Changed, rep.Companies.Unchanged)
	fmt.Fprintf(w, "sources\t%d\t%d\t%d\t\n", rep.Sources.Added, rep.Sources.Changed, rep.Sources.Unchanged)
	_ = w.Flush()
	if rep.SourcesMoved > 0 {
		fmt.Fprintf(out, "%d other sources follow their company's new region\n", rep.SourcesMoved)
	}
	for _, ch := range rep.Changes {
		if ch.Action == "changed" {
			fmt.Fprintf(out, "  changed %s %s: %s\n", ch.What, ch.Key, strings.Join(ch.Fields, ", "))
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(out, "  note: %s\n", n)
	}
}

func runSourcesAdd(ctx context.Context, _ *slog.Logger, c *sourcesCtx, args []string) error {
	vendor := c.fs.FlagSet.String("vendor", "", "vendor: greenhouse, lever, ashby, workable, smartrecruiters, recruitee, personio, teamtailor, bamboohr, breezy, pinpoint, join, workday, icims, jobvite, jazzhr or rippling")
	tenant := c.fs.FlagSet.String("tenant", "", "the tenant: the board's name in its URL (boards.greenhouse.io/<tenant>, <tenant>.teamtailor.com, <tenant>.icims.com, jobs.jobvite.com/<tenant>); "+
		"for join, the company's number in its jobs API (join.com/api/public/companies/<tenant>/jobs); "+
		"for workday company/wdN/site as its careers URL names them (acme.wd5.myworkdayjobs.com/External is acme/wd5/External)")
	variant := c.fs.FlagSet.String("variant", "", "the vendor's other host: eu (Greenhouse, Lever), com (Personio) or na (Teamtailor); empty for the main host")
	domain := c.fs.FlagSet.String("domain", "", "the company's domain (acme.com)")
	name := c.fs.FlagSet.String("name", "", "the company's name (default: the name the vendor's feed gives, when it gives one)")
	allowEmpty := c.fs.FlagSet.Bool("allow-empty", false, "accept a feed with no postings (refused by default: some vendors answer an unknown tenant with an empty board)")
	apply := c.fs.FlagSet.Bool("apply", false, "write; without it the tenant is fetched and validated and nothing is written")
	timeout := c.fs.Duration("add-timeout", sources.AddTimeout, "bound of the validating fetch, connect to last byte")
	c.fs.EnvName("connect-to", "HS_CRAWL_CONNECT_TO")
	connectTo := c.fs.List("connect-to", nil, "route a host's request elsewhere, as the crawl's --connect-to: HOST:PORT=ADDR:PORT (an empty HOST or PORT matches any); TLS still verifies HOST")
	c.fs.EnvName("ca-file", "HS_CRAWL_CA_FILE")
	caFile := c.fs.String("ca-file", "", "PEM bundle of certificates trusted for TLS besides the system roots, as the crawl's --ca-file")
	userAgent := c.fs.String("user-agent", sources.DefaultUserAgent, "User-Agent of the validating fetch")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	if _, err := pipeline.ParseConnectTo(*connectTo); err != nil {
		return fmt.Errorf("--connect-to (HS_CRAWL_CONNECT_TO): %w", err)
	}
	// Real vendor hosts only: public addresses unless --connect-to maps the host, no redirects (a
	// redirect target was never checked).
	fetcher, err := pipeline.NewFetcher(pipeline.FetchConfig{ConnectTo: *connectTo, CAFile: *caFile, UserAgent: *userAgent, Timeout: *timeout})
	if err != nil {
		return err
	}
	if err := c.open(ctx); err != nil {
		return err
	}
	defer c.close()
	client := &http.Client{Transport: fetcher.Client().Transport, Timeout: *timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	defer client.CloseIdleConnections()
	rep, err := sources.Add(ctx, c.pool, client, sources.AddRequest{Vendor: *vendor, Tenant: *tenant, Variant: *variant, Domain: *domain,
		Name: *name, By: *c.by, AllowEmpty: *allowEmpty, Apply: *apply, UserAgent: *userAgent})
	if err != nil {
		return err
	}
	if *c.json {
		return printJSON(rep)
	}
	more := ""
	if rep.MorePages {
		more = " on its first page (it has more)"
	}
	fmt.Printf("%s: %s answered %d with %d postings%s; the feed names the company %q\n", rep.Key, rep.URL, rep.Status, rep.Count, more, rep.VendorName)
	for _, w := range rep.Warnings {
		fmt.Printf("  warning: %s\n", w)
	}
	fmt.Printf("company name: %s; %s\n", rep.Name, appliedWords(rep.Registry.Applied))
	printRegistryReport(os.Stdout, rep.Registry)
	return nil
}

func runSourcesList(ctx context.Context, _ *slog.Logger, c *sourcesCtx, args []string) error {
	vendor := c.fs.FlagSet.String("vendor", "", "only this vendor's sources")
	status := c.fs.FlagSet.String("status", "", "only sources of this status: "+strings.Join(oltp.SourceStatuses(), ", "))
	domain := c.fs.FlagSet.String("domain", "", "only this company's sources")
	limit := c.fs.FlagSet.Int("limit", oltp.DefaultSourceList, fmt.Sprintf("sources per page (at most %d)", oltp.MaxSourceList))
	after := c.fs.FlagSet.String("after", "", "start after this key (the next page's cursor a list prints)")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	f := oltp.SourceFilter{Vendor: strings.ToLower(*vendor), Status: strings.ToLower(*status), After: *after, Limit: *limit}
	if *domain != "" {
		d, err := sources.Domain(*domain)
		if err != nil {
			return err
		}
		f.CompanyDomain = d
	}
	if err := c.open(ctx); err != nil {
		return err
	}
	defer c.close()
	page, next, err := oltp.ListSources(ctx, c.pool, f)
	if err != nil {
		return err
	}
	if *c.json {
		if page == nil {
			page = []oltp.RegistrySource{}
		}
		return writeJSON(c.out, struct {
			Sources []oltp.RegistrySource `json:"sources"`
			Next    string                `json:"next,omitempty"`
		}{page, next})
	}
	w := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	if f.Status == oltp.SourceCandidate {
		// Candidates were never read: what decides them is why they were added.
		fmt.Fprintln(w, "KEY\tCOMPANY\tADDED BY\tADDED\tEVIDENCE")
		for _, s := range page {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", s.Key, dash(s.CompanyDomain), s.AddedBy, s.CreatedAt.UTC().Format(time.RFC3339), evidenceSummary(s.Evidence))
		}
	} else {
		fmt.Fprintln(w, "KEY\tSTATUS\tREGION\tCOMPANY\tLAST READ\tLAST OK\tFAILURES\tCOOLING UNTIL")
		now := time.Now()
		for _, s := range page {
			company := s.CompanyDomain
			if company == "" {
				company = s.Board + " (" + s.Kind + ")"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", s.Key, s.Status, dash(s.Region), company, dash(s.LastStatus), timeOrDash(s.LastOKAt),
				s.Failures, timeOrDash(cooling(s, now)))
		}
	}
	_ = w.Flush()
	if next != "" {
		fmt.Fprintf(c.out, "more: --after %s\n", next)
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// cooling is when s's cooldown ends if it is cooling down at now (the crawl does not read it
// until then), else nil.
func cooling(s oltp.RegistrySource, now time.Time) *time.Time {
	if s.CooldownUntil == nil || !s.CooldownUntil.After(now) {
		return nil
	}
	return s.CooldownUntil
}

func runSourcesShow(ctx context.Context, _ *slog.Logger, c *sourcesCtx, args []string) error {
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	if err := c.open(ctx); err != nil {
		return err
	}
	defer c.close()
	s, co, err := oltp.GetSource(ctx, c.pool, pos[0])
	if err != nil {
		return err
	}
	chain, err := oltp.GetChain(ctx, c.pool, s.Key)
	if err != nil {
		return err
	}
	if *c.json {
		return printJSON(struct {
			Source  oltp.RegistrySource   `json:"source"`
			Company *oltp.RegistryCompany `json:"company"`
			Chain   *oltp.CrawlChain      `json:"carried_chain,omitempty"`
		}{s, co, chain})
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%s\t%s\n", k, v)
		}
	}
	row("key", s.Key)
	row("vendor", s.Vendor)
	row("kind", s.Kind)
	row("tenant", s.Tenant)
	row("variant", s.Variant)
	row("board", s.Board)
	row("url", s.URL)
	row("region", dash(s.Region))
	status := s.Status
	if s.StatusReason != "" {
		status += ": " + s.StatusReason
	}
	row("status", fmt.Sprintf("%s (by %s, %s)", status, dash(s.StatusBy), s.StatusAt.UTC().Format(time.RFC3339)))
	row("schedule", fmt.Sprintf("every %s, next due %s", time.Duration(s.IntervalS)*time.Second, s.NextDueAt.UTC().Format(time.RFC3339)))
	if s.LastStatus != "" {
		last := s.LastStatus
		if s.LastReason != "" {
			last += ": " + s.LastReason
		}
		row("last read", last)
	}
	health := fmt.Sprintf("last ok %s, %d failures in a row", timeOrDash(s.LastOKAt), s.Failures)
	if until := cooling(s, time.Now()); until != nil {
		health += fmt.Sprintf("; cooling down until %s (not read until then)", timeOrDash(until))
	}
	row("health", health)
	if s.LastCount != nil {
		row("last count", strconv.Itoa(*s.LastCount))
	}
	if chain != nil {
		row("carried chain", fmt.Sprintf("%d pages, %d postings read since window %d (%s); goes on at %s; last part by %s, %s",
			chain.Pages, chain.Postings, chain.StartedTick, chain.StartedAt.UTC().Format(time.RFC3339), chain.Next, chain.Worker,
			chain.UpdatedAt.UTC().Format(time.RFC3339)))
	}
	row("evidence", string(s.Evidence))
	row("added", fmt.Sprintf("by %s, %s", s.AddedBy, s.CreatedAt.UTC().Format(time.RFC3339)))
	if co != nil {
		row("company", co.Domain)
		row("  name", co.Name)
		row("  hq_country", co.HQCountry)
		row("  region", co.Region)
		row("  industry", co.Industry)
		row("  headcount_band", co.HeadcountBand)
		row("  agency_kind", co.AgencyKind)
		fields := make([]string, 0, len(co.Facts))
		for f := range co.Facts {
			fields = append(fields, f)
		}
		sort.Strings(fields)
		for _, f := range fields {
			row("  fact "+f, co.Facts[f].Source+", "+co.Facts[f].At.UTC().Format(time.RFC3339))
		}
	}
	return w.Flush()
}

func runSourcesPause(ctx context.Context, _ *slog.Logger, c *sourcesCtx, args []string) error {
	return setSourceStatus(ctx, c, args, oltp.SourcePaused, true)
}

func runSourcesResume(ctx context.Context, _ *slog.Logger, c *sourcesCtx, args []string) error {
	return setSourceStatus(ctx, c, args, oltp.SourceActive, false)
}

func runSourcesRetire(ctx context.Context, _ *slog.Logger, c *sourcesCtx, args []string) error {
	return setSourceStatus(ctx, c, args, oltp.SourceRetired, true)
}

func setSourceStatus(ctx context.Context, c *sourcesCtx, args []string, status string, needReason bool) error {
	var reason *string
	if needReason {
		reason = c.fs.FlagSet.String("reason", "", "why (required; kept with the status until it changes)")
	}
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	why := ""
	if reason != nil {
		why = *reason
	}
	if err := c.open(ctx); err != nil {
		return err
	}
	defer c.close()
	prev, err := oltp.SetSourceStatus(ctx, c.pool, pos[0], status, why, *c.by)
	if err != nil {
		return err
	}
	if *c.json {
		return printJSON(map[string]string{"key": pos[0], "status": status, "previous": prev})
	}
	switch prev {
	case status:
		fmt.Printf("%s: already %s\n", pos[0], status)
	case oltp.SourceRetired:
		fmt.Printf("%s: %s (was retired: the reqs it alone carried may have closed while it was out of the directory)\n", pos[0], status)
	default:
		fmt.Printf("%s: %s (was %s)\n", pos[0], status, prev)
	}
	return nil
}
