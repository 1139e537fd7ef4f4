package pipeline

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// What one HTTP request of the crawl came to, for operators (FetchConfig.OnRequest). Every
// request counts once: a page's attempts and redirect hops, and robots.txt reads.
const (
	OutcomeOK            = "ok"             // a 2xx read (a page parsed, a robots.txt)
	OutcomeNotModified   = "not_modified"   // a 304
	OutcomeBodyUnchanged = "body_unchanged" // a 200 whose body hashed as the one kept: as good as a 304
	OutcomeRedirect      = "redirect"       // a 3xx, followed or refused
	Outcome4xx           = "4xx"            // a 4xx other than 429
	Outcome429           = "429"            // too many requests: the host's rate halves
	Outcome5xx           = "5xx"
	// OutcomeError is no answer (a network error, a timeout, a dial the egress policy refused) or
	// a 200 whose body could not be read or parsed.
	OutcomeError = "error"
)

// FetchOutcome is one request of the crawl, as FetchConfig.OnRequest is told it.
type FetchOutcome struct {
	Vendor  string // the vendor of the source the request was for ("" outside a source's read)
	Host    string // the host asked, lower-case, without its port
	Outcome string // one of the Outcome constants
	// Took is from the request sent (once the host gave it its turn) until its response headers
	// arrived or it failed: the host's latency, not the crawl's queueing for it.
	Took time.Duration
}

// statusOutcome is the outcome of a response by its status alone.
func statusOutcome(code int) string {
	switch {
	case code == http.StatusNotModified:
		return OutcomeNotModified
	case code == http.StatusTooManyRequests:
		return Outcome429
	case code >= 200 && code < 300:
		return OutcomeOK
	case code >= 300 && code < 400:
		return OutcomeRedirect
	case code >= 400 && code < 500:
		return Outcome4xx
	case code >= 500 && code < 600:
		return Outcome5xx
	}
	return OutcomeError
}

// report tells FetchConfig.OnRequest about one request to u.
func (f *Fetcher) report(ctx context.Context, u *url.URL, outcome string, took time.Duration) {
	if f.cfg.OnRequest == nil {
		return
	}
	f.cfg.OnRequest(FetchOutcome{Vendor: vendorOf(ctx), Host: strings.ToLower(u.Hostname()), Outcome: outcome, Took: took})
}

type vendorKey struct{}

// withVendor marks ctx as a read of a source of vendor, for the requests' outcomes.
func withVendor(ctx context.Context, vendor string) context.Context {
	return context.WithValue(ctx, vendorKey{}, vendor)
}

func vendorOf(ctx context.Context) string {
	v, _ := ctx.Value(vendorKey{}).(string)
	return v
}
