package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/klauspost/compress/gzip"
)

// Get is the fetcher's one-request read of any page, for discovery (pipeline/discovery reads a
// company's site and asks the vendors' endpoints through it): the same politeness as a source's
// pages (robots.txt per origin, the host's gate and rate, the egress policy at dial, the
// User-Agent), one attempt, redirects followed anywhere (each hop asked of its own robots.txt and
// recorded), and a bounded body. Get is always a GET; Post sends a body, for a vendor endpoint
// that answers a POST only (Workday's list).

// GetMaxBody bounds the body Get reads (decoded), below FetchConfig.MaxBody when that is lower.
const GetMaxBody = 2 << 20

// Response is what Get read.
type Response struct {
	Status   int
	FinalURL string // the URL that answered Status, after the redirects
	// Body is the decoded body (at most GetMaxBody bytes), for every status.
	Body   []byte
	Header http.Header
	// Redirects are the URLs redirected to, in order (FinalURL last); empty when none.
	Redirects []string
}

var (
	// ErrRobotsDisallow: the URL's origin's robots.txt disallows it; no request was sent for it.
	ErrRobotsDisallow = errors.New("disallowed by robots.txt")
	// ErrRobotsUnavailable: the origin's robots.txt could not be read (5xx, 429, a network error),
	// which allows nothing this time (RFC 9309); no request was sent for the URL.
	ErrRobotsUnavailable = errors.New("robots.txt unavailable")
	// ErrBodyTooLarge: the body is larger than Get reads.
	ErrBodyTooLarge = errors.New("body too large")
)

// getError is a Get failure that names its cause (one of the Err* above) and says why.
type getError struct {
	msg   string
	cause error
}

func (e getError) Error() string { return e.msg }
func (e getError) Unwrap() error { return e.cause }

// Get reads rawURL: robots.txt of its origin first (robots.txt itself is always read, and kept as
// the origin's rules when the fetcher holds none), then one
// GET, following up to 5 redirects to any http(s) host (never https to http). It returns the
// final answer whatever its status; an error means no answer: ErrRobotsDisallow or
// ErrRobotsUnavailable (for the URL or a hop; nothing was sent for it), ErrBodyTooLarge, a refused
// redirect or address, a transport failure or ctx's error. Response holds what was seen up to
// the failure (the hops so far; for a refused redirect, the 3xx answer with its Location).
func (f *Fetcher) Get(ctx context.Context, rawURL string) (Response, error) {
	return f.getRequest(ctx, rawURL, getRequest)
}

// Post is Get for a page that answers a POST only (Workday's list): body is sent with
// contentType to rawURL, with Get's politeness, one attempt and Get's redirects, except that a
// 301, 302 or 303 turns it into a GET without the body (as browsers and net/http do) and a 307 or
// 308 repeats it. It is never conditional.
func (f *Fetcher) Post(ctx context.Context, rawURL, contentType string, body []byte) (Response, error) {
	if body == nil {
		body = []byte{}
	}
	return f.getRequest(ctx, rawURL, pageRequest{method: http.MethodPost, contentType: contentType, body: body})
}

// getRequest is Get and Post: rq is the request of the first hop.
func (f *Fetcher) getRequest(ctx context.Context, rawURL string, rq pageRequest) (Response, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return Response{}, fmt.Errorf("cannot get %.200q: want an absolute http(s) URL", rawURL)
	}
	u.Fragment = ""
	var out Response
	for hops := 0; ; hops++ {
		out.FinalURL = u.String()
		if u.EscapedPath() != "/robots.txt" {
			if err := f.robotsAllow(ctx, u); err != nil {
				return out, f.robotsRefusal(u, err)
			}
		}
		resp, done, err := f.sendRequest(ctx, u, rq, validators{}, true) //nolint:bodyclose // done closes it
		if err != nil {
			return out, getError{msg: "cannot get " + u.Redacted() + ": " + shortError(err), cause: err}
		}
		out.Status, out.Header = resp.StatusCode, resp.Header
		if loc := resp.Header.Get("Location"); isRedirect(resp.StatusCode) && loc != "" {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			done("")
			var scope []string // any host: the egress policy and each hop's robots.txt still apply
			if n, perr := u.Parse(loc); perr == nil {
				scope = []string{registrable(n.Hostname())}
			}
			next, rerr := redirectTarget(u, loc, hops, scope)
			if rerr != nil {
				return out, fmt.Errorf("cannot get %s: %w", u.Redacted(), rerr)
			}
			out.Redirects = append(out.Redirects, next.String())
			if resp.StatusCode != http.StatusTemporaryRedirect && resp.StatusCode != http.StatusPermanentRedirect {
				rq = getRequest // a 301, 302 or 303 answers a POST with a GET of the Location
			}
			u = next
			continue
		}
		body, rerr := f.getBody(ctx, resp)
		if rerr != nil {
			done(OutcomeError)
			return out, fmt.Errorf("cannot get %s: %w", u.Redacted(), rerr)
		}
		done("")
		out.Body = body
		if u.EscapedPath() == "/robots.txt" && len(out.Redirects) == 0 && rq.method == http.MethodGet {
			f.learnRobots(u, resp.StatusCode, body) // the origin's rules, without asking twice
		}
		return out, nil
	}
}

// robotsRefusal turns robotsAllow's refusal of u into Get's error.
func (f *Fetcher) robotsRefusal(u *url.URL, err error) error {
	var b errBlocked
	if !errors.As(err, &b) {
		return fmt.Errorf("cannot get %s: %w", u.Redacted(), err)
	}
	f.robotsMu.Lock()
	e := f.robots[origin(u)]
	held := e != nil && e.good // a copy of the rules is held: they said no
	f.robotsMu.Unlock()
	if held {
		return getError{msg: b.reason, cause: ErrRobotsDisallow}
	}
	return getError{msg: b.reason, cause: ErrRobotsUnavailable}
}

// getBody reads resp's body, gunzipped, up to the smaller of GetMaxBody and MaxBody, holding one
// of the body budget's tokens meanwhile.
func (f *Fetcher) getBody(ctx context.Context, resp *http.Response) ([]byte, error) {
	select {
	case f.bodies <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-f.bodies }()
	limit := min(int64(GetMaxBody), f.cfg.MaxBody)
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("bad gzip body: %w", err)
		}
		defer zr.Close()
		r = zr
	}
	body, err := readBody(r, limit, nil)
	if errors.Is(err, errBodyTooLarge) {
		return nil, getError{msg: fmt.Sprintf("body larger than %d bytes", limit), cause: ErrBodyTooLarge}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read body: %w", err)
	}
	return body, nil
}
