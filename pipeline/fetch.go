package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/planehq/hiringsignal/pipeline/ats"
)

// FetchConfig tunes the fetch stage.
type FetchConfig struct {
	Workers      int           // sources fetched at once (default 32)
	PerHost      int           // requests in flight per host (default 32)
	Timeout      time.Duration // per attempt (default 10s)
	Attempts     int           // attempts per page for retryable failures (default 4)
	Backoff      time.Duration // first retry delay, doubled each time (default 200ms)
	MaxRetryWait time.Duration // cap on a Retry-After honoured (default 30s)
	// SourceDeadline bounds one source: all its pages, retries and backoff (default 2m). A source
	// past it fails for the cycle like any failed source.
	SourceDeadline time.Duration
	// MaxBody is the most bytes one page may have once decoded (default 8 MiB); a larger page
	// fails its source.
	MaxBody int64
	// BodyBudget bounds the page bodies held in memory at once across all workers (default
	// 256 MiB): at most BodyBudget/MaxBody pages (at least one) are read and parsed at a time.
	BodyBudget int64
}

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
	if c.MaxBody <= 0 {
		c.MaxBody = 8 << 20
	}
	if c.BodyBudget <= 0 {
		c.BodyBudget = 256 << 20
	}
}

// Fetcher does HTTP for the crawl: per-host limits, timeouts, retries with backoff that honour
// Retry-After, conditional requests (ETag) and gzip bodies.
type Fetcher struct {
	cfg    FetchConfig
	client *http.Client

	mu    sync.Mutex
	hosts map[string]chan struct{}

	bodies chan struct{} // one token per page body that may be held at once (BodyBudget/MaxBody)

	gzReaders sync.Pool // *gzip.Reader, reset for each gzipped body
	bodyBufs  sync.Pool // *[]byte, a body buffer to read the next page into
}

// fetched is one page's outcome: parsed, or unchanged since the ETag the caller sent.
type fetched struct {
	page        ats.Page
	etag        string // the page's current ETag ("" when the source sends none)
	notModified bool   // 304: page is empty; the caller replays what it kept for this URL
}

// NewFetcher builds a fetcher.
func NewFetcher(cfg FetchConfig) *Fetcher {
	cfg.defaults()
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        cfg.PerHost * 4,
		MaxIdleConnsPerHost: cfg.PerHost,
		MaxConnsPerHost:     cfg.PerHost,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // we ask for gzip ourselves and decode with klauspost/compress
	}
	return &Fetcher{cfg: cfg, client: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}, hosts: map[string]chan struct{}{}, bodies: make(chan struct{}, max(1, cfg.BodyBudget/cfg.MaxBody))}
}

// Client is the fetcher's HTTP client (for the directory).
func (f *Fetcher) Client() *http.Client { return f.client }

// CloseIdle releases idle connections.
func (f *Fetcher) CloseIdle() { f.client.CloseIdleConnections() }

func (f *Fetcher) hostSlot(host string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch, ok := f.hosts[host]
	if !ok {
		ch = make(chan struct{}, f.cfg.PerHost)
		f.hosts[host] = ch
	}
	return ch
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

// fetchPage fetches and parses one page. With etag set it asks If-None-Match and reports a 304
// as notModified.
func (f *Fetcher) fetchPage(ctx context.Context, ad ats.Adapter, pageURL, etag string) (fetched, error) {
	u, err := url.Parse(pageURL)
	if err != nil {
		return fetched{}, fmt.Errorf("bad page URL %q: %w", pageURL, err)
	}
	slot := f.hostSlot(u.Host)
	backoff := f.cfg.Backoff
	var lastErr error
	timeouts := 0
	for attempt := 1; attempt <= f.cfg.Attempts; attempt++ {
		select {
		case slot <- struct{}{}:
		case <-ctx.Done():
			return fetched{}, ctx.Err()
		}
		res, err := f.attempt(ctx, ad, pageURL, etag)
		<-slot
		if err == nil {
			return res, nil
		}
		lastErr = err
		var perm errPermanent
		if errors.As(err, &perm) || ctx.Err() != nil {
			return fetched{}, err
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
			return fetched{}, fmt.Errorf("retry in %s is past the source deadline: %w", wait, lastErr)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return fetched{}, ctx.Err()
		}
		backoff *= 2
	}
	return fetched{}, fmt.Errorf("gave up after retries: %w", lastErr)
}

func (f *Fetcher) attempt(ctx context.Context, ad ats.Adapter, pageURL, etag string) (fetched, error) {
	actx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, pageURL, nil)
	if err != nil {
		return fetched{}, errPermanent{status: 0}
	}
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("User-Agent", "hiringsignal-crawler/0.1 (+https://hiringsignal.example/bot)")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return fetched{}, retryable{err: err}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && etag != "":
		_, _ = io.Copy(io.Discard, resp.Body)
		return fetched{etag: etag, notModified: true}, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return fetched{}, retryable{err: fmt.Errorf("status %d", resp.StatusCode), wait: retryAfter(resp.Header.Get("Retry-After"))}
	case resp.StatusCode != http.StatusOK:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return fetched{}, errPermanent{status: resp.StatusCode}
	}
	// The body is held from here until it is parsed: take one of the budget's tokens for it.
	select {
	case f.bodies <- struct{}{}:
	case <-actx.Done():
		return fetched{}, retryable{err: fmt.Errorf("cannot get memory for the body: %w", actx.Err())}
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
	page, err := ad.Parse(body, pageURL)
	if err != nil {
		// Retried: a body cut short in transit parses on the next attempt; one malformed at the source
		// fails every attempt and the source is unknown for this cycle.
		return fetched{}, retryable{err: fmt.Errorf("cannot parse %s body: %w", ad.Vendor(), err)}
	}
	return fetched{page: page, etag: resp.Header.Get("ETag")}, nil
}

var errBodyTooLarge = errors.New("body too large")

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
