package pipeline

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
)

// robots.txt (RFC 9309), kept per origin:
//   - a 2xx is parsed (the first robotsMaxBody bytes) and kept robotsTTL; the group is the one
//     of the User-Agent's product token (temoto/robotstxt: the longest group name it starts
//     with, else *), and its Crawl-delay lowers the host's rate;
//   - a 4xx other than 429 allows everything, kept robotsTTL;
//   - a 429, a 5xx, a network error or a body that does not parse allow nothing this time: the page is blocked (its source unknown, retried
//     another cycle) and the origin is asked again after robotsRetry. A good copy fetched
//     before is used meanwhile, however old.
//
// Redirects are followed as a page's are (maxRedirects hops within the origin's registrable
// domain, no https→http); past that, or elsewhere, it counts as no robots.txt (allow
// everything), as RFC 9309 lets a crawler do.
const (
	robotsTTL     = 24 * time.Hour
	robotsRetry   = 5 * time.Minute
	robotsMaxBody = 500 << 10
)

// errBlocked: robots.txt does not let the page be fetched this time. The source is blocked,
// not failed: unknown all the same, but the reason is the site's rule, not an error.
type errBlocked struct{ reason string }

func (e errBlocked) Error() string { return e.reason }

// robotsEntry is what is known of one origin's robots.txt.
type robotsEntry struct {
	ready chan struct{} // non-nil while a fetch is under way; closed when it is done
	good  bool          // a copy is held (2xx parsed, or 4xx: allow all)
	group *robotstxt.Group
	until time.Time // the entry stands until then; past it the next page fetches it again
	why   string    // why the last fetch gave no copy, when good is false
}

// judge says whether the entry lets u be fetched (nil) or why not (errBlocked).
func (e *robotsEntry) judge(u *url.URL) error {
	if !e.good {
		return errBlocked{reason: "robots.txt unavailable (" + e.why + ")"}
	}
	if e.group == nil {
		return nil
	}
	target := u.EscapedPath()
	if target == "" {
		target = "/"
	}
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	if !e.group.Test(target) {
		return errBlocked{reason: "robots.txt disallows " + u.EscapedPath()}
	}
	return nil
}

// robotsAllow reports whether the robots.txt of u's origin lets u be fetched: nil, an
// errBlocked, or fetchRobots' error when the origin's rules could not be asked for (nothing is
// remembered then).
func (f *Fetcher) robotsAllow(ctx context.Context, u *url.URL) error {
	key := origin(u)
	for {
		f.robotsMu.Lock()
		e := f.robots[key]
		if e != nil && e.ready != nil {
			ready := e.ready
			f.robotsMu.Unlock()
			select {
			case <-ready:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if e != nil && time.Now().Before(e.until) {
			f.robotsMu.Unlock()
			return e.judge(u)
		}
		next := &robotsEntry{ready: make(chan struct{})}
		if e != nil && e.good {
			next.good, next.group = true, e.group // the last good copy, while the origin does not answer
		}
		f.robots[key] = next
		f.robotsMu.Unlock()

		ans, err := f.fetchRobots(ctx, u)

		f.robotsMu.Lock()
		ready := next.ready
		next.ready = nil
		if err != nil { // cut short by the caller: learnt nothing
			if e != nil {
				f.robots[key] = e
			} else {
				delete(f.robots, key)
			}
			f.robotsMu.Unlock()
			close(ready)
			return err
		}
		if ans.good {
			next.good, next.group, next.until = true, ans.group, time.Now().Add(robotsTTL)
		} else {
			next.why, next.until = ans.why, time.Now().Add(robotsRetry)
		}
		f.robotsMu.Unlock()
		close(ready)
		if ans.good {
			var delay time.Duration
			if ans.group != nil {
				delay = ans.group.CrawlDelay
			}
			f.gate(u).setCrawlDelay(delay)
		}
		return next.judge(u)
	}
}

// robotsAnswer is one fetch of a robots.txt: a copy (good; group nil allows all) or why not.
type robotsAnswer struct {
	good  bool
	group *robotstxt.Group
	why   string
}

// fetchRobots fetches the robots.txt of u's origin. Its error is ctx's, errNoTurn, or the egress
// policy's refusal of the address (the page fails for that, it is not blocked): every answer of
// the origin, network errors included, is a robotsAnswer.
func (f *Fetcher) fetchRobots(ctx context.Context, u *url.URL) (robotsAnswer, error) {
	ru := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	scope := []string{registrable(u.Hostname())}
	for hops := 0; ; hops++ {
		resp, done, err := f.send(ctx, ru, validators{}, false) //nolint:bodyclose // done closes it
		if err != nil {
			if ctx.Err() != nil || final(err) {
				return robotsAnswer{}, err
			}
			return robotsAnswer{why: shortError(err)}, nil
		}
		status := resp.StatusCode
		switch {
		case isRedirect(status) && resp.Header.Get("Location") != "":
			next, rerr := redirectTarget(ru, resp.Header.Get("Location"), hops, scope)
			done("")
			if rerr != nil {
				return robotsAnswer{good: true}, nil //nolint:nilerr // a redirect off the site: robots.txt is unavailable, and RFC 9309 allows all
			}
			ru = next
			continue
		case status/100 == 2:
			body, rerr := io.ReadAll(io.LimitReader(resp.Body, robotsMaxBody))
			done("")
			if rerr != nil {
				return robotsAnswer{why: "cannot read robots.txt: " + shortError(rerr)}, nil
			}
			return f.robotsAnswerOf(status, body), nil
		default:
			done("")
			return f.robotsAnswerOf(status, nil), nil
		}
	}
}

// robotsAnswerOf is what an origin's robots.txt answer (not a redirect) says: a 2xx body parsed
// (its first robotsMaxBody bytes), a 4xx other than 429 allows all, anything else allows nothing
// this time.
func (f *Fetcher) robotsAnswerOf(status int, body []byte) robotsAnswer {
	switch {
	case status/100 == 2:
		data, perr := robotstxt.FromBytes(body[:min(len(body), robotsMaxBody)])
		if perr != nil {
			return robotsAnswer{why: "cannot parse robots.txt: " + perr.Error()} // an unparsable robots.txt blocks this time
		}
		return robotsAnswer{good: true, group: data.FindGroup(f.agentToken)}
	case status == http.StatusTooManyRequests || status/100 == 5:
		return robotsAnswer{why: fmt.Sprintf("status %d", status)}
	case status/100 == 4:
		return robotsAnswer{good: true}
	}
	return robotsAnswer{why: fmt.Sprintf("status %d", status)}
}

// learnRobots keeps, as the origin's rules, a robots.txt that Get read without a redirect, when
// the fetcher holds none and is not asking: the next page of that origin is judged by it rather
// than by a second request for the same file. A copy held (even an expired one) is left alone.
func (f *Fetcher) learnRobots(u *url.URL, status int, body []byte) {
	ans := f.robotsAnswerOf(status, body)
	key := origin(u)
	f.robotsMu.Lock()
	if f.robots[key] != nil {
		f.robotsMu.Unlock()
		return
	}
	e := &robotsEntry{good: ans.good, group: ans.group, why: ans.why, until: time.Now().Add(robotsRetry)}
	if ans.good {
		e.until = time.Now().Add(robotsTTL)
	}
	f.robots[key] = e
	f.robotsMu.Unlock()
	if ans.good && ans.group != nil {
		f.gate(u).setCrawlDelay(ans.group.CrawlDelay)
	}
}

// productToken is the User-Agent's product token, lower-cased: what robots.txt groups name.
func productToken(ua string) string {
	tok, _, _ := strings.Cut(ua, "/")
	tok, _, _ = strings.Cut(tok, " ")
	return strings.ToLower(strings.TrimSpace(tok))
}

// robotsCache is the Fetcher's robots.txt state.
type robotsCache struct {
	robotsMu sync.Mutex
	robots   map[string]*robotsEntry // by origin
}
