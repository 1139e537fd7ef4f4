package pipeline

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/pipeline/ats"
)

// FetchConfig tunes the fetch stage. Its zero value is fit for real hosts but for the rate
// (HostRate 0 is unlimited); runs against the simulator set AllowPrivate.
type FetchConfig struct {
	Workers      int           // sources fetched at once (default 32)
	PerHost      int           // requests in flight per host (default 32)
	Timeout      time.Duration // per attempt (default 10s)
	Attempts     int           // attempts per page for retryable failures (default 4)
	Backoff      time.Duration // first retry delay, doubled each time (default 200ms)
	MaxRetryWait time.Duration // cap on a Retry-After honoured (default 30s)
	// SourceDeadline bounds one source: all its pages, retries and backoff (default 2m), plus
	// PageBudget for every page read. A source past it fails for the cycle like any failed source.
	SourceDeadline time.Duration
	// PageBudget is the time each page read adds to its source's deadline (0: none, the deadline
	// is SourceDeadline), up to SourceDeadlineMax: a board whose pages chain one after another
	// goes on while its pages come, and a source whose pages stop coming still fails.
	// DefaultPageBudget is the crawl's.
	PageBudget time.Duration
	// SourceDeadlineMax bounds a source's deadline however many pages it read (default
	// DefaultSourceDeadlineMax when PageBudget is set; never below SourceDeadline).
	SourceDeadlineMax time.Duration
	// MaxBody is the most bytes one page may have once decoded (default 8 MiB); a larger page
	// fails its source.
	MaxBody int64
	// BodyBudget bounds the page bodies held in memory at once across all workers (default
	// 256 MiB): at most BodyBudget/MaxBody pages (at least one) are read and parsed at a time.
	BodyBudget int64
	// ChainDepth is how many pages of one source's chain are read at once where its pages are
	// numbered (ats.Numbered; chain.go): the page the chain is at and up to ChainDepth-1 asked
	// ahead, each on a fetch slot no source is using, through its host's gate and rate (default
	// DefaultChainDepth; 1: page after page).
	ChainDepth int
	// MaxPages bounds one source's chain of pages (default DefaultMaxPages): a source with more
	// fails for the cycle (its reqs unknown, never closed), is logged with this setting to raise
	// and told to OnPageCap.
	MaxPages int

	// UserAgent is sent on every request (default DefaultUserAgent); robots.txt groups are
	// chosen by its product token (the text before the first "/").
	UserAgent string
	// HostRate is the requests per second sent to one host across the fetcher (0: unlimited, the
	// simulator's). A 429 halves a host's rate, down to one request per 20 s; each success
	// raises it by a fiftieth of HostRate, never above it. A robots.txt Crawl-delay lowers the
	// host's ceiling (and sets one when HostRate is 0).
	HostRate float64
	// HostRates sets the rate of the hosts it names (lower-case host names, no port) in place of
	// HostRate, halved on 429s and lowered by a Crawl-delay alike: the vendors' shared API hosts,
	// each of which serves every tenant of its vendor (DefaultHostRates). A rate of 0 or less
	// leaves the host at HostRate.
	HostRates map[string]float64
	// HostTurns, when set, holds HostRate and HostRates across every process sharing it (crawl
	// workers): each host's requests take turns reserved there instead of this fetcher's own
	// limiter.
	HostTurns HostTurns
	// AllowPrivate dials any address (the simulator on loopback: dev, backfill and test runs).
	// False dials through internal/egress's Policy, which refuses loopback, private and other
	// non-public addresses at dial time: a source, redirect or next link naming one, or a name
	// resolving to one, is never reached.
	AllowPrivate bool
	// ConnectTo routes dials as curl's --connect-to does, each entry HOST:PORT=ADDR:PORT (or
	// HOST:PORT:ADDR:PORT): a request for HOST:PORT connects to ADDR:PORT instead and TLS still
	// verifies HOST; an empty HOST or PORT matches any; the first matching entry wins. A mapped
	// dial is the operator's explicit choice and goes to ADDR:PORT without the egress check (tests
	// and dev runs send the vendors' real URLs to a local server this way). See ParseConnectTo.
	ConnectTo []string
	// CAFile is a PEM bundle whose certificates TLS trusts besides the system roots.
	CAFile string
	// OnRequest, when set, is told the outcome and latency of every request the fetcher sends
	// (fetchreport.go), concurrently from the fetch workers: operator metrics per vendor and
	// host. It must be quick; it does not change what the fetcher does.
	OnRequest func(FetchOutcome)
	// OnPageCap, when set, is told each source whose chain of pages went past MaxPages, with its
	// vendor: operator metrics.
	OnPageCap func(source, vendor string)
}

// The crawl's per-page budget and its bound (FetchConfig.PageBudget, SourceDeadlineMax): a page
// every 2 s keeps a chain of pages going (a host paced at one request a second, twice over), and
// 30 minutes holds the 20,000 pages a source may have (DefaultMaxPages) at 90 ms a page.
const (
	DefaultPageBudget        = 2 * time.Second
	DefaultSourceDeadlineMax = 30 * time.Minute
)

// DefaultMaxPages is the longest chain of pages a source may have (FetchConfig.MaxPages): room
// for the largest board of the 100,000-company world (12,834 pages on 2026-11-27) and half as
// much again. DefaultChainDepth is the pages of one numbered chain read at once
// (FetchConfig.ChainDepth).
const (
	DefaultMaxPages   = 20_000
	DefaultChainDepth = 8
)

func (c *FetchConfig) defaults() {
	if c.Workers <= 0 {
		c.Workers = 32
	}
	if c.PerHost <= 0 {
		c.PerHost = 32
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Attempts <= 0 {
		c.Attempts = 4
	}
	if c.Backoff <= 0 {
		c.Backoff = 200 * time.Millisecond
	}
	if c.MaxRetryWait <= 0 {
		c.MaxRetryWait = 30 * time.Second
	}
	if c.SourceDeadline <= 0 {
		c.SourceDeadline = 2 * time.Minute
	}
	if c.PageBudget < 0 {
		c.PageBudget = 0
	}
	if c.PageBudget > 0 && c.SourceDeadlineMax <= 0 {
		c.SourceDeadlineMax = DefaultSourceDeadlineMax
	}
	c.SourceDeadlineMax = max(c.SourceDeadlineMax, c.SourceDeadline)
	if c.MaxBody <= 0 {
		c.MaxBody = 8 << 20
	}
	if c.BodyBudget <= 0 {
		c.BodyBudget = 256 << 20
	}
	if c.ChainDepth <= 0 {
		c.ChainDepth = DefaultChainDepth
	}
	if c.MaxPages <= 0 {
		c.MaxPages = DefaultMaxPages
	}
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if c.HostRate < 0 {
		c.HostRate = 0
	}
}

// Fetcher does HTTP for the crawl: robots.txt, per-host limits (requests in flight and a rate
// that backs off on 429s), timeouts, retries with backoff that honour Retry-After, redirects
// within the source's domain, conditional requests (ETag, Last-Modified, and a body hash for
// hosts that send neither), gzip bodies, and the request each adapter asks for (a POST with a
// body for ats.Requester, the time served for ats.ServedParser); every dial goes through the
// egress policy.
type Fetcher struct {
	cfg        FetchConfig
	client     *http.Client
	agentToken string // the User-Agent's product token, for robots.txt

	mu    sync.Mutex
	hosts map[string]*hostGate // by hostKey

	robotsCache

	bodies chan struct{} // one token per page body that may be held at once (BodyBudget/MaxBody)

	gzReaders sync.Pool // *gzip.Reader, reset for each gzipped body
	bodyBufs  sync.Pool // *[]byte, a body buffer to read the next page into

	// busy counts the sources being read and the pages read ahead of their chain (chain.go): a
	// page is read ahead only while busy is under Workers, on a slot no source is using.
	busy        atomic.Int64
	aheadUsed   atomic.Uint64 // pages read ahead and taken by their chain
	aheadWasted atomic.Uint64 // pages read (or asked) ahead and dropped: past a chain's end, or a guess disproved
}

// validators are what a conditional request sends for a page, from what was kept of it: its
// ETag, its Last-Modified, and the hash of its body (hashBody of the decoded bytes) for hosts
// that send neither.
type validators struct {
	etag, lastModified string
	hash               bodyHash // zero: none
}

// bodyHash is what a page's decoded body is known by in the page cache: 128 bits of
// hash/maphash under two seeds drawn when the process starts. The cache lives in memory only, so
// the hash need not be the same in another process, and a host cannot aim a collision at seeds
// it never sees; SHA-256 of every body was 2% of a cold cycle's CPU.
type bodyHash [16]byte

var bodySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func hashBody(b []byte) bodyHash {
	var h bodyHash
	binary.LittleEndian.PutUint64(h[:8], maphash.Bytes(bodySeeds[0], b))
	binary.LittleEndian.PutUint64(h[8:], maphash.Bytes(bodySeeds[1], b))
	return h
}

func (v validators) conditional() bool { return v.etag != "" || v.lastModified != "" }

// fetched is one page's outcome: parsed, or unchanged since the validators the caller sent.
type fetched struct {
	page ats.Page
	url  string     // where the page was read, after redirects
	val  validators // the page's current validators and body hash
	// notModified: a 304, or a 200 whose body hashes as the one kept (bodyUnchanged); page is
	// empty and the caller replays what it kept for this URL.
	notModified   bool
	bodyUnchanged bool
	throttled     int // 429s answered on the way, set on failure too
}

// NewFetcher builds a fetcher; it fails on a bad ConnectTo entry or an unusable CAFile.
func NewFetcher(cfg FetchConfig) (*Fetcher, error) {
	cfg.defaults()
	tr, err := newTransport(cfg)
	if err != nil {
		return nil, err
	}
	// Redirects are followed by the fetcher itself, hop by hop (robots.txt, rate, scope): the
	// client returns them as they are.
	return &Fetcher{cfg: cfg, client: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}, agentToken: productToken(cfg.UserAgent), hosts: map[string]*hostGate{}, robotsCache: robotsCache{robots: map[string]*robotsEntry{}},
		bodies: make(chan struct{}, max(1, cfg.BodyBudget/cfg.MaxBody))}, nil
}

// Client is the fetcher's HTTP client (for the directory).
func (f *Fetcher) Client() *http.Client { return f.client }

// Workers is how many sources the fetcher reads at once (FetchConfig.Workers).
func (f *Fetcher) Workers() int { return f.cfg.Workers }

// ChainPages reports the pages read ahead of their chain since the fetcher was made: those taken
// (used) and those dropped (wasted: requests past a chain's end, or a guess disproved).
func (f *Fetcher) ChainPages() (used, wasted uint64) { return f.aheadUsed.Load(), f.aheadWasted.Load() }

// takeSpare takes a fetch slot for a page read ahead when fewer than Workers sources and pages
// are being read; releaseSpare gives it back.
func (f *Fetcher) takeSpare() bool {
	for {
		b := f.busy.Load()
		if b >= int64(f.cfg.Workers) {
			return false
		}
		if f.busy.CompareAndSwap(b, b+1) {
			return true
		}
	}
}

func (f *Fetcher) releaseSpare() { f.busy.Add(-1) }

// SourceDeadline is the deadline of one source's read before its pages add to it
// (FetchConfig.SourceDeadline): the longest a source whose pages do not come may take.
func (f *Fetcher) SourceDeadline() time.Duration { return f.cfg.SourceDeadline }

// sourceDeadline is when a source whose read started at start and has read pages pages must end.
func (f *Fetcher) sourceDeadline(start time.Time, pages int) time.Time {
	d := f.cfg.SourceDeadline
	if f.cfg.PageBudget > 0 {
		d = min(d+time.Duration(pages)*f.cfg.PageBudget, f.cfg.SourceDeadlineMax)
	}
	return start.Add(d)
}

// CloseIdle releases idle connections.
func (f *Fetcher) CloseIdle() { f.client.CloseIdleConnections() }

// gate is u's host's gate (slots and rate).
func (f *Fetcher) gate(u *url.URL) *hostGate {
	key := hostKey(u)
	f.mu.Lock()
	defer f.mu.Unlock()
	g, ok := f.hosts[key]
	if !ok {
		g = newHostGate(key, f.cfg.PerHost, f.hostRate(u.Hostname()), f.cfg.HostTurns)
		f.hosts[key] = g
	}
	return g
}

// hostRate is the configured rate of host: its HostRates entry, else HostRate.
func (f *Fetcher) hostRate(host string) float64 {
	if r := f.cfg.HostRates[strings.ToLower(strings.TrimSuffix(host, "."))]; r > 0 {
		return r
	}
	return f.cfg.HostRate
}

// DefaultHostRates is the crawl's rate of the vendors' shared API hosts that need more than the
// polite 1 request a second (10,800 a 3-hour window), in requests per second across every
// worker: each serves every tenant of its vendor (14,105 Greenhouse tenants in the
// 100,000-company world). None of these public job-board endpoints publishes a limit; the
// vendors that publish one for their keyed APIs allow 10 requests a second per client (Lever,
// SmartRecruiters). Each rate gives the host at least twice the requests its tenants in that
// world take a window, and stays at or under 4. docs/decisions.md ("Fetching real hosts") gives
// each one's sums. Any other host keeps HostRate: the vendors' shared hosts whose tenants fit it
// (JOIN, Rippling, Jobvite, the EU hosts), a tenant's own host (Recruitee, Personio, Teamtailor,
// BambooHR, Breezy, Pinpoint, Workday, iCIMS, JazzHR subdomains), careers sites and any unknown
// host.
func DefaultHostRates() map[string]float64 {
	return map[string]float64{
		"boards-api.greenhouse.io": 4,
		"api.lever.co":             3,
		"api.smartrecruiters.com":  3,
		"apply.workable.com":       3,
		"api.ashbyhq.com":          2,
	}
}

// errPermanent marks a failure that retrying will not fix (4xx other than 429).
type errPermanent struct{ status int }

func (e errPermanent) Error() string { return fmt.Sprintf("status %d", e.status) }

// retryable is a failure worth another attempt; wait is a server-requested delay (Retry-After).
type retryable struct {
	err  error
	wait time.Duration
}

func (e retryable) Error() string { return e.err.Error() }

// final reports failures no retry fixes this cycle.
func final(err error) bool {
	var perm errPermanent
	var blocked errBlocked
	var refused errRefused
	return errors.As(err, &perm) || errors.As(err, &blocked) || errors.As(err, &refused) || errors.Is(err, errNoTurn)
}

// fetchPage fetches and parses one page. With prev's validators it asks If-None-Match and
// If-Modified-Since, and reports a 304, or a 200 whose body hashes as prev's, as notModified.
// Redirects may go to the registrable domains of scope (nil: pageURL's).
func (f *Fetcher) fetchPage(ctx context.Context, ad ats.Adapter, pageURL string, prev validators, scope []string) (fetched, error) {
	u, err := url.Parse(pageURL)
	if err != nil {
		return fetched{}, errRefused{reason: fmt.Sprintf("bad page URL %.200q: %v", pageURL, err)}
	}
	if scope == nil {
		scope = []string{registrable(u.Hostname())}
	}
	backoff := f.cfg.Backoff
	var lastErr error
	throttled, timeouts := 0, 0
	for attempt := 1; attempt <= f.cfg.Attempts; attempt++ {
		res, err := f.attempt(ctx, ad, u, prev, scope)
		throttled += res.throttled
		res.throttled = throttled
		if err == nil {
			return res, nil
		}
		lastErr = err
		if final(err) || ctx.Err() != nil {
			return fetched{throttled: throttled}, err
		}
		wait := backoff
		var r retryable
		if errors.As(err, &r) {
			if r.wait > 0 {
				wait = min(r.wait, f.cfg.MaxRetryWait)
			}
			var ne net.Error
			if errors.As(r.err, &ne) && ne.Timeout() {
				timeouts++
				if timeouts >= 2 { // a source slower than the timeout twice is down for this cycle
					break
				}
			}
		}
		if attempt == f.cfg.Attempts {
			break
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			// The source's deadline passes before the retry: give up now rather than hold a worker.
			return fetched{throttled: throttled}, fmt.Errorf("retry in %s is past the source deadline: %w", wait, lastErr)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return fetched{throttled: throttled}, ctx.Err()
		}
		backoff *= 2
	}
	return fetched{throttled: throttled}, fmt.Errorf("gave up after retries: %w", lastErr)
}

// pageRequest is what a page's request sends besides its URL: a GET without a body, unless
// the adapter says otherwise (ats.Requester: Workday's list is a POST with a JSON body).
type pageRequest struct {
	method, contentType string
	body                []byte
}

var getRequest = pageRequest{method: http.MethodGet}

// requestFor is the request of the page at pageURL for adapter ad.
func requestFor(ad ats.Adapter, pageURL string) pageRequest {
	r, ok := ad.(ats.Requester)
	if !ok {
		return getRequest
	}
	method, body, ctype := r.Request(pageURL)
	if method == "" {
		method = http.MethodGet
	}
	return pageRequest{method: method, contentType: ctype, body: body}
}

// attempt is one try at a page: robots.txt, then a request per hop while the answer redirects
// (within scope, at most maxRedirects), then the body. The page's request (requestFor) goes to
// every hop, except that a 301, 302 or 303 turns a POST into a GET without a body, as browsers
// and net/http do; a 307 or 308 repeats it.
func (f *Fetcher) attempt(ctx context.Context, ad ats.Adapter, u *url.URL, prev validators, scope []string) (fetched, error) {
	var out fetched
	rq := requestFor(ad, u.String())
	for hops := 0; ; hops++ {
		if err := f.robotsAllow(ctx, u); err != nil {
			return out, err
		}
		resp, done, err := f.sendRequest(ctx, u, rq, prev, true) //nolint:bodyclose // done closes it
		if err != nil {
			return out, err
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			out.throttled++
		}
		if isRedirect(resp.StatusCode) && resp.Header.Get("Location") != "" {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			done("")
			next, err := redirectTarget(u, resp.Header.Get("Location"), hops, scope)
			if err != nil {
				return out, err
			}
			switch resp.StatusCode {
			case http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			default:
				if rq.method != http.MethodGet && rq.method != http.MethodHead {
					rq = getRequest
				}
			}
			u = next
			continue
		}
		res, err := f.read(ad, u, prev, resp)
		switch {
		case err != nil && resp.StatusCode == http.StatusOK:
			done(OutcomeError) // a body cut short, too large or unparsable
		case res.bodyUnchanged:
			done(OutcomeBodyUnchanged)
		default:
			done("")
		}
		res.throttled = out.throttled
		return res, err
	}
}

// send sends one GET for u once u's host gives it a turn (slot and rate), with prev's
// validators and, when gzip, Accept-Encoding: gzip. The caller reads the response and calls
// done, which closes it, gives the turn back and reports the request (FetchConfig.OnRequest)
// with the outcome done is given, or its status's when "". An error is ctx's, errNoTurn, an
// errRefused (the egress policy refused the address), or a retryable transport failure; a
// request sent that failed is reported as OutcomeError.
func (f *Fetcher) send(ctx context.Context, u *url.URL, prev validators, gzip bool) (*http.Response, func(outcome string), error) {
	return f.sendRequest(ctx, u, getRequest, prev, gzip)
}

// sendRequest is send with the page's request r: its method and body (with its Content-Type,
// and Accept naming it when it is JSON). prev's validators go with a GET only: a conditional
// POST means nothing to a server, so a POSTed page is known unchanged by its body's hash.
func (f *Fetcher) sendRequest(ctx context.Context, u *url.URL, r pageRequest, prev validators, gzip bool) (*http.Response, func(outcome string), error) {
	g := f.gate(u)
	if err := g.acquire(ctx); err != nil {
		return nil, nil, err
	}
	actx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	method := r.method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequestWithContext(actx, method, u.String(), body)
	if err != nil {
		cancel()
		g.release()
		return nil, nil, errRefused{reason: fmt.Sprintf("cannot build a request for %.200q: %v", u.String(), err)}
	}
	if gzip {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	if r.body != nil && r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
		if strings.HasPrefix(r.contentType, "application/json") {
			req.Header.Set("Accept", "application/json")
		}
	}
	if method == http.MethodGet {
		if prev.etag != "" {
			req.Header.Set("If-None-Match", prev.etag)
		}
		if prev.lastModified != "" {
			req.Header.Set("If-Modified-Since", prev.lastModified)
		}
	}
	start := time.Now()
	resp, err := f.client.Do(req)
	took := time.Since(start)
	if err != nil {
		cancel()
		g.release()
		f.report(ctx, u, OutcomeError, took)
		var refusal *egress.Refusal
		if errors.As(err, &refusal) { // the egress policy's: no retry dials elsewhere
			return nil, nil, errRefused{reason: refusal.Msg}
		}
		return nil, nil, retryable{err: err}
	}
	g.observe(resp.StatusCode)
	return resp, func(outcome string) {
		resp.Body.Close()
		cancel()
		g.release()
		if outcome == "" {
			outcome = statusOutcome(resp.StatusCode)
		}
		f.report(ctx, u, outcome, took)
	}, nil
}

// read turns the final response for u into the page's outcome.
func (f *Fetcher) read(ad ats.Adapter, u *url.URL, prev validators, resp *http.Response) (fetched, error) {
	switch {
	case resp.StatusCode == http.StatusNotModified && prev.conditional():
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return fetched{url: u.String(), val: prev, notModified: true}, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return fetched{}, retryable{err: fmt.Errorf("status %d", resp.StatusCode), wait: retryAfter(resp.Header.Get("Retry-After"))}
	case resp.StatusCode != http.StatusOK:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return fetched{}, errPermanent{status: resp.StatusCode}
	}
	// The body is held from here until it is parsed: take one of the budget's tokens for it.
	ctx := resp.Request.Context()
	select {
	case f.bodies <- struct{}{}:
	case <-ctx.Done():
		return fetched{}, retryable{err: fmt.Errorf("cannot get memory for the body: %w", ctx.Err())}
	}
	defer func() { <-f.bodies }()
	body, release, err := f.decodeBody(resp.Body, resp.Header.Get("Content-Encoding") == "gzip")
	if errors.Is(err, errBodyTooLarge) {
		return fetched{}, errPermanent{status: http.StatusRequestEntityTooLarge}
	}
	if err != nil {
		return fetched{}, retryable{err: err}
	}
	defer release()
	val := validators{etag: resp.Header.Get("ETag"), lastModified: resp.Header.Get("Last-Modified"), hash: hashBody(body)}
	if prev.hash != (bodyHash{}) && val.hash == prev.hash {
		// The same bytes as the page kept: as good as a 304, for hosts that send no validator.
		return fetched{url: u.String(), val: val, notModified: true, bodyUnchanged: true}, nil
	}
	var page ats.Page
	if sp, ok := ad.(ats.ServedParser); ok {
		page, err = sp.ParseServed(body, u.String(), servedAt(resp.Header.Get("Date")))
	} else {
		page, err = ad.Parse(body, u.String())
	}
	if err != nil {
		// Retried: a body cut short in transit parses on the next attempt; one malformed at the source
		// fails every attempt and the source is unknown for this cycle.
		return fetched{}, retryable{err: fmt.Errorf("cannot parse %s body: %w", ad.Vendor(), err)}
	}
	return fetched{page: page, url: u.String(), val: val}, nil
}

var errBodyTooLarge = errors.New("body too large")

// servedAt is when a page was served: its Date header, else now (the clock a page's relative
// dates are read against; a simulated world sends its own).
func servedAt(date string) time.Time {
	if date != "" {
		if t, err := http.ParseTime(date); err == nil {
			return t
		}
	}
	return time.Now()
}

// decodeBody reads a response body whole (gunzipping it when gzipped), failing with
// errBodyTooLarge past MaxBody. Its buffer and gzip reader come from the fetcher's pools: the
// caller calls release once nothing uses body any more (parsers copy what they keep).
func (f *Fetcher) decodeBody(r io.Reader, gzipped bool) (body []byte, release func(), err error) {
	if gzipped {
		zr, _ := f.gzReaders.Get().(*gzip.Reader)
		if zr == nil {
			zr = new(gzip.Reader)
		}
		if err := zr.Reset(r); err != nil {
			return nil, nil, fmt.Errorf("bad gzip body: %w", err)
		}
		defer func() {
			_ = zr.Close()
			_ = zr.Reset(eofReader{}) // drop the response body; keep the decompressor
			f.gzReaders.Put(zr)
		}()
		r = zr
	}
	bp, _ := f.bodyBufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	body, err = readBody(r, f.cfg.MaxBody, (*bp)[:0])
	if err != nil {
		f.bodyBufs.Put(bp)
		if !errors.Is(err, errBodyTooLarge) {
			err = fmt.Errorf("cannot read body: %w", err)
		}
		return nil, nil, err
	}
	return body, func() {
		if cap(body) <= maxPooledBody {
			*bp = body[:0]
			f.bodyBufs.Put(bp)
		}
	}, nil
}

// maxPooledBody is the largest body buffer kept for reuse; larger ones are left to the collector.
const maxPooledBody = 1 << 20

// eofReader is an empty body a pooled gzip reader is reset to, so it holds no response.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// readBody reads r whole, appending to buf, when it has at most limit bytes, else fails with
// errBodyTooLarge. The buffer grows with what actually arrives (never by a declared length) and
// never past limit+1.
func readBody(r io.Reader, limit int64, buf []byte) ([]byte, error) {
	if cap(buf) == 0 {
		buf = make([]byte, 0, min(limit+1, 32<<10))
	}
	r = io.LimitReader(r, limit+1)
	for {
		if len(buf) == cap(buf) {
			next := make([]byte, len(buf), min(int64(2*cap(buf)), limit+1))
			copy(next, buf)
			buf = next
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// sameOrigin reports whether next has the scheme, host and port of first (a source's first
// page): a next-page link may not send the crawler anywhere else.
func sameOrigin(first, next string) bool {
	a, err := url.Parse(first)
	if err != nil {
		return false
	}
	b, err := url.Parse(next)
	if err != nil {
		return false
	}
	return origin(a) != "" && origin(a) == origin(b)
}

// origin is u's scheme://host:port, lower-cased and with the scheme's default port made
// explicit; "" for anything but an absolute http(s) URL.
func origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if host == "" {
		return ""
	}
	switch {
	case scheme != "http" && scheme != "https":
		return ""
	case port != "":
	case scheme == "http":
		port = "80"
	default:
		port = "443"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// hostKey is u's host and port (the scheme's default made explicit), lower-cased: what the
// per-host limits count by.
func hostKey(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}
