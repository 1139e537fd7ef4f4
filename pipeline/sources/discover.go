package sources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline/discovery"
)

// Discoverer runs discovery for one company: discovery.Discover over the crawl's fetcher in
// production, a scripted one in tests. An error is a run that could not be made at all (its
// claim is released and retried); what the run found, or why not, is its Result.
type Discoverer func(ctx context.Context, c discovery.Company) (discovery.Result, error)

// DiscoverBy is who the registry records as writing what discovery found (added_by, status_by).
const DiscoverBy = "discovery"

// Bounds of discovery in the crawl workers.
const (
	// DiscoveryTimeout bounds one run, well inside oltp.DiscoveryLease.
	DiscoveryTimeout = 5 * time.Minute
	// SweepEvery is how often a worker queues coverage requests, broken sources' companies and the
	// monthly re-check (each sweep is idempotent; every worker sweeps).
	SweepEvery = 10 * time.Minute
	// MonthlySweep bounds the companies one sweep queues for their monthly re-check, so a registry
	// imported at once is re-checked over days, not in one burst.
	MonthlySweep = 500
	// retryFirst is the wait before a run that failed is tried again, doubled per attempt up to
	// retryMax.
	retryFirst = 15 * time.Minute
	retryMax   = 24 * time.Hour
)

// StoreOptions tune how a Result is written.
type StoreOptions struct {
	By          string // who writes (default DiscoverBy)
	Owner       string // the worker whose claim the run was ("" for an operator's run)
	RequestedBy string // for a domain not queued before (default oltp.DiscoveryByCLI)
	// AllowHTTP accepts a careers site over http (a simulated world); https otherwise.
	AllowHTTP bool
	// Apply writes; without it nothing is written and the report says what would be.
	Apply bool
}

// StoreReport is what storing a Result does (or did, when Applied).
type StoreReport struct {
	Domain string   `json:"domain"`
	Kept   []Kept   `json:"kept,omitempty"`
	Left   []string `json:"left,omitempty"` // each found source not kept, and why
	oltp.DiscoveryReport
}

// Kept is a found source the registry keeps, with the status it asks for.
type Kept struct {
	Key    string `json:"key"`
	Status string `json:"status"` // active or candidate (an operator's status stands: the registry report's notes)
}

// StoreResult writes what one discovery run found (oltp.StoreDiscovery): the company (its name
// when the registry has none: the name discovery was given, else the vendor's name of a source
// made active), each found source discovery did not reject as active (Found.Active) or candidate,
// its evidence discovery's Evidence and the run's time, and the run's answer. The registry renders
// every ATS tenant's URL itself (internal/atsurl) and keeps a careers site only on the company's
// own domain over https; a found source that fails those checks is left out, with why. The status
// follows what is kept: covered when a source is active, candidates when some wait on an
// operator, otherwise discovery's outcome (no_ats_found when what it found could not be kept).
func StoreResult(ctx context.Context, db *pgxpool.Pool, res discovery.Result, opts StoreOptions) (StoreReport, error) {
	var rep StoreReport
	domain, err := Domain(res.Company.Domain)
	if err != nil {
		return rep, fmt.Errorf("cannot store a discovery: %w", err)
	}
	rep.Domain = domain
	if opts.By == "" {
		opts.By = DiscoverBy
	}
	at := res.Started
	if at.IsZero() {
		at = time.Now()
	}
	at = at.UTC()
	name, nameSource := strings.TrimSpace(res.Company.Name), "discovery"
	if text("name", name, MaxName) != nil {
		name = ""
	}

	var ins []oltp.SourceInput
	index := map[string]int{}
	for _, f := range res.Found {
		if f.Rejected != "" {
			rep.Left = append(rep.Left, fmt.Sprintf("%s %s: rejected by discovery: %s", f.Vendor, firstOf(f.Tenant, f.URL), f.Rejected))
			continue
		}
		in, err := sourceOf(domain, f, at, opts.AllowHTTP)
		if err != nil {
			rep.Left = append(rep.Left, fmt.Sprintf("%s %s: %v", f.Vendor, firstOf(f.Tenant, f.URL), err))
			continue
		}
		if i, dup := index[in.Key]; dup {
			if in.Status == oltp.SourceActive && ins[i].Status != oltp.SourceActive {
				ins[i] = in // found twice: the validated sighting wins
			}
			continue
		}
		index[in.Key] = len(ins)
		ins = append(ins, in)
		if name == "" && f.Active && f.Evidence.DetectedName != "" && text("name", f.Evidence.DetectedName, MaxName) == nil {
			name, nameSource = strings.TrimSpace(f.Evidence.DetectedName), "vendor:"+in.Vendor
		}
	}
	status := res.Outcome
	if !knownOutcome(status) {
		return rep, fmt.Errorf("cannot store the discovery of %s: unknown outcome %q", domain, res.Outcome)
	}
	reason := res.Reason
	active, candidates := 0, 0
	for _, in := range ins {
		rep.Kept = append(rep.Kept, Kept{Key: in.Key, Status: in.Status})
		if in.Status == oltp.SourceActive {
			active++
		} else {
			candidates++
		}
	}
	switch {
	case active > 0:
		status, reason = oltp.DiscoveryCovered, ""
	case candidates > 0:
		status = oltp.DiscoveryCandidates
	case status == oltp.DiscoveryCovered || status == oltp.DiscoveryCandidates:
		status = oltp.DiscoveryNoATS
		if reason == "" {
			reason = "the job sources found could not be used"
		}
	}
	tried, found := res.Tried, res.Found
	if len(tried) > oltp.MaxDiscoverySteps {
		tried = tried[:oltp.MaxDiscoverySteps]
	}
	if len(found) > oltp.MaxDiscoveryFound {
		found = found[:oltp.MaxDiscoveryFound]
	}
	triedJSON, err := json.Marshal(tried)
	if err != nil {
		return rep, fmt.Errorf("cannot store the discovery of %s: %w", domain, err)
	}
	foundJSON, err := json.Marshal(found)
	if err != nil {
		return rep, fmt.Errorf("cannot store the discovery of %s: %w", domain, err)
	}
	rep.DiscoveryReport, err = oltp.StoreDiscovery(ctx, db, oltp.DiscoveryOutcome{Domain: domain, Name: name, NameSource: nameSource, Status: status,
		Reason: reason, Tried: triedJSON, Found: foundJSON, TriedAt: at, Sources: ins, By: opts.By, Owner: opts.Owner, RequestedBy: opts.RequestedBy}, opts.Apply)
	if err != nil {
		return rep, err
	}
	return rep, nil
}

func knownOutcome(o string) bool {
	for _, s := range oltp.DiscoveryOutcomes() {
		if s == o {
			return true
		}
	}
	return false
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// foundEvidence is a found source's evidence in the registry: discovery's Evidence and when the
// run saw it.
type foundEvidence struct {
	discovery.Evidence
	At string `json:"at"`
}

// sourceOf is the registry's source of f, found for the company at domain by a run at at.
func sourceOf(domain string, f discovery.Found, at time.Time, allowHTTP bool) (oltp.SourceInput, error) {
	vendor := strings.ToLower(strings.TrimSpace(f.Vendor))
	var in oltp.SourceInput
	switch f.Kind {
	case discovery.KindATSTenant:
		if !atsurl.Known(vendor) || !atsurl.Templated(vendor) {
			return in, fmt.Errorf("not an ATS vendor the crawl reads (%q)", f.Vendor)
		}
		tenant, err := atsurl.Tenant(vendor, strings.TrimSpace(f.Tenant))
		if err != nil {
			return in, err
		}
		variant := strings.ToLower(strings.TrimSpace(f.Variant))
		if err := atsurl.Variant(vendor, variant); err != nil {
			return in, err
		}
		first, err := atsurl.FirstPage(vendor, tenant, variant)
		if err != nil {
			return in, err
		}
		in = oltp.SourceInput{Key: atsurl.SourceKey(vendor, tenant, variant, ""), Vendor: vendor, Kind: oltp.SourceATSTenant, Tenant: tenant,
			Variant: variant, CompanyDomain: domain, URL: first}
	case discovery.KindCareersSite:
		if vendor != atsurl.JSONLD {
			return in, fmt.Errorf("a careers site is read as %s, not %q", atsurl.JSONLD, f.Vendor)
		}
		u, err := atsurl.SourceURL(atsurl.JSONLD, f.URL, allowHTTP)
		if err != nil {
			return in, err
		}
		if !onDomain(u, domain) {
			return in, fmt.Errorf("careers site %s is not on the company's domain %s", u, domain)
		}
		in = oltp.SourceInput{Key: atsurl.SourceKey(atsurl.JSONLD, "", "", u), Vendor: atsurl.JSONLD, Kind: oltp.SourceCareersSite,
			CompanyDomain: domain, URL: u}
	default:
		return in, fmt.Errorf("unknown kind %q", f.Kind)
	}
	ev, err := json.Marshal(foundEvidence{Evidence: f.Evidence, At: at.Format(time.RFC3339)})
	if err != nil {
		return in, err
	}
	in.Evidence = ev
	if f.Active {
		in.Status, in.Validated = oltp.SourceActive, true
	} else {
		in.Status, in.RefreshEvidence = oltp.SourceCandidate, true
	}
	return in, nil
}

// onDomain reports whether raw's host is domain or one of its subdomains.
func onDomain(raw, domain string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	return h == domain || strings.HasSuffix(h, "."+domain)
}

// EnqueueOnDemand queues the discovery of a company an on-demand read asked for while the
// registry holds no source of it, ahead of everything else (oltp.PriorityOnDemand); a run that
// finished within oltp.OnDemandRetryAfter stands.
func EnqueueOnDemand(ctx context.Context, db *pgxpool.Pool, domain, name string) error {
	d, err := Domain(domain)
	if err != nil {
		return fmt.Errorf("cannot queue the discovery of %q: %w", domain, err)
	}
	if text("name", name, MaxName) != nil {
		name = ""
	}
	_, err = oltp.EnqueueDiscoveries(ctx, db, []oltp.DiscoveryAsk{{Domain: d, Name: name, Priority: oltp.PriorityOnDemand,
		By: oltp.DiscoveryByOnDemand, StaleBefore: time.Now().Add(-oltp.OnDemandRetryAfter)}})
	return err
}

// Discovered is one domain `sources discover` ran: its Result and what storing it does, or the
// error that stopped it.
type Discovered struct {
	Domain string            `json:"domain"`
	Result *discovery.Result `json:"result,omitempty"`
	Store  *StoreReport      `json:"store,omitempty"`
	Err    string            `json:"error,omitempty"`
}

// DiscoverNow runs discovery for each domain now, one after another, with the best name the
// registry knows, and stores each Result (a dry run unless opts.Apply). A domain that is not a
// host name, or whose run or store fails, has its Err and the others still run; err is set only
// when ctx ends.
func DiscoverNow(ctx context.Context, db *pgxpool.Pool, discover Discoverer, domains []string, opts StoreOptions) ([]Discovered, error) {
	if opts.RequestedBy == "" {
		opts.RequestedBy = oltp.DiscoveryByCLI
	}
	out := make([]Discovered, 0, len(domains))
	for _, raw := range domains {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		d := Discovered{Domain: raw}
		domain, err := Domain(raw)
		if err != nil {
			d.Err = err.Error()
			out = append(out, d)
			continue
		}
		d.Domain = domain
		res, err := runOne(ctx, db, discover, domain, "")
		if err != nil {
			d.Err = err.Error()
			out = append(out, d)
			continue
		}
		d.Result = &res
		rep, err := StoreResult(ctx, db, res, opts)
		if err != nil {
			d.Err = err.Error()
		} else {
			d.Store = &rep
		}
		out = append(out, d)
	}
	return out, ctx.Err()
}

// runOne runs discover for domain, with name or else the best name the registry knows, bounded
// by DiscoveryTimeout.
func runOne(ctx context.Context, db *pgxpool.Pool, discover Discoverer, domain, name string) (discovery.Result, error) {
	if name == "" {
		n, err := oltp.KnownName(ctx, db, domain)
		if err != nil {
			return discovery.Result{}, err
		}
		name = n
	}
	ctx, cancel := context.WithTimeout(ctx, DiscoveryTimeout)
	defer cancel()
	res, err := discover(ctx, discovery.Company{Domain: domain, Name: name})
	if err != nil {
		return res, fmt.Errorf("cannot discover the sources of %s: %w", domain, err)
	}
	if res.Company.Domain == "" {
		res.Company = discovery.Company{Domain: domain, Name: name}
	}
	if d, err := Domain(res.Company.Domain); err != nil || d != domain {
		return res, fmt.Errorf("cannot discover the sources of %s: the run answered for %q", domain, res.Company.Domain)
	}
	return res, nil
}

// DiscoveryRunner runs queued discoveries in a crawl worker, as low-priority work between its
// feed reads (Crawl.ReadDue runs one whenever no feed source is due) and under the same
// politeness: Discover fetches through the worker's pipeline.Fetcher (robots.txt, the shared host
// turns, the egress policy). Budget bounds the runs of one window in this process.
type DiscoveryRunner struct {
	Pool     *pgxpool.Pool
	Discover Discoverer
	Owner    string // this worker's name in leases
	// Budget is the discoveries this process runs per crawl window (claims, whatever their end);
	// 0 runs none.
	Budget    int
	Lease     time.Duration // default oltp.DiscoveryLease
	AllowHTTP bool          // careers sites over http (a simulated world)
	Log       *slog.Logger  // default: discard

	mu        sync.Mutex
	tick      int
	used      int
	lastSweep time.Time
}

// Sweep queues the discoveries waiting to be asked for: coverage requests' domains without an
// active source (most-asked first), the companies of broken sources, and a bounded share of the
// monthly re-check. It runs at most every SweepEvery unless force.
func (r *DiscoveryRunner) Sweep(ctx context.Context, force bool) error {
	r.mu.Lock()
	if !force && time.Since(r.lastSweep) < SweepEvery {
		r.mu.Unlock()
		return nil
	}
	r.lastSweep = time.Now()
	r.mu.Unlock()
	now := time.Now()
	cov, err := oltp.EnqueueCoverageDiscoveries(ctx, r.Pool, now.Add(-oltp.CoverageRetryAfter))
	if err != nil {
		return err
	}
	re, err := oltp.EnqueueRediscoveries(ctx, r.Pool)
	if err != nil {
		return err
	}
	mon, err := oltp.EnqueueMonthlyDiscoveries(ctx, r.Pool, now.Add(-oltp.MonthlyRecheck), MonthlySweep)
	if err != nil {
		return err
	}
	if cov+re+mon > 0 {
		r.log().Info("discoveries queued", "coverage", cov, "rediscovery", re, "monthly", mon)
	}
	return nil
}

// Rediscover queues the companies of broken sources now (the sweep's oltp.EnqueueRediscoveries,
// without its wait): ReadDue calls it when a read answers 404 or 410. A runner that runs no
// discovery queues nothing.
func (r *DiscoveryRunner) Rediscover(ctx context.Context) error {
	if r == nil || r.Discover == nil || r.Budget <= 0 {
		return nil
	}
	n, err := oltp.EnqueueRediscoveries(ctx, r.Pool)
	if err != nil {
		return err
	}
	if n > 0 {
		r.log().Info("discoveries queued", "rediscovery", n)
	}
	return nil
}

func (r *DiscoveryRunner) log() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log
}

// take counts one run against window tick's budget; false when it is spent.
func (r *DiscoveryRunner) take(tick int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if tick != r.tick {
		r.tick, r.used = tick, 0
	}
	if r.used >= r.Budget {
		return false
	}
	r.used++
	return true
}

// giveBack returns an unused run to window tick's budget.
func (r *DiscoveryRunner) giveBack(tick int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if tick == r.tick && r.used > 0 {
		r.used--
	}
}

// RunOne sweeps when a sweep is due, then claims the most-asked due discovery, runs it and stores
// its Result, within window tick's budget. ran is false when the budget is spent or nothing is
// due. A run that fails is released, due again after a backoff; the error is returned only
// when the queue itself cannot be read or written.
func (r *DiscoveryRunner) RunOne(ctx context.Context, tick int) (ran bool, err error) {
	if r == nil || r.Discover == nil || r.Budget <= 0 {
		return false, nil
	}
	if err := r.Sweep(ctx, false); err != nil {
		r.log().Warn("cannot queue discoveries; will retry", "err", err)
	}
	if !r.take(tick) {
		return false, nil
	}
	lease := r.Lease
	if lease <= 0 {
		lease = oltp.DiscoveryLease
	}
	claimed, err := oltp.ClaimDiscoveries(ctx, r.Pool, r.Owner, 1, lease)
	if err != nil || len(claimed) == 0 {
		r.giveBack(tick)
		return false, err
	}
	d := claimed[0]
	start := time.Now()
	res, err := runOne(ctx, r.Pool, r.Discover, d.Domain, "")
	var rep StoreReport
	if err == nil {
		rep, err = StoreResult(ctx, r.Pool, res, StoreOptions{Owner: r.Owner, AllowHTTP: r.AllowHTTP, Apply: true})
	}
	if err != nil {
		if ctx.Err() != nil {
			return true, nil //nolint:nilerr // shutting down: the lease lapses and another worker runs it
		}
		wait := min(retryMax, retryFirst<<min(max(d.Attempts-1, 0), 10))
		r.log().Warn("discovery failed; will retry", "domain", d.Domain, "attempt", d.Attempts, "retry_in", wait, "err", err)
		if rerr := oltp.ReleaseDiscovery(context.WithoutCancel(ctx), r.Pool, d.Domain, r.Owner, time.Now().Add(wait)); rerr != nil {
			return true, errors.Join(err, rerr)
		}
		return true, nil
	}
	r.log().Info("discovered", "domain", d.Domain, "asked_by", d.RequestedBy, "priority", d.Priority, "status", rep.Status,
		"sources", len(rep.Kept), "moves", len(rep.Moves), "requests", res.Requests, "took", time.Since(start).Round(time.Millisecond))
	return true, nil
}
