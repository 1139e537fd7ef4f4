package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/oltp"
)

// The framework's bounds on what one caller can make the server hold or do: the client address
// per-IP limits count against, calls in flight per address, request bodies in flight and the
// deadline of store calls. Their defaults are the Default* constants; docs/decisions.md says why.

// Defaults of Config's bounds.
const (
	DefaultStoreTimeout      = 5 * time.Second  // every store call of one /v1 call (Call.Context)
	DefaultIPMaxInFlight     = 256              // /v1 calls of one client address in flight on one instance
	DefaultMaxConns          = 4096             // connections served at once (fasthttp Concurrency)
	DefaultMaxConnsPerIP     = 256              // connections of one peer address (0 in Config: this default; < 0: no cap)
	DefaultReadHeaderTimeout = 10 * time.Second // from the connection (or the first byte of a keep-alive request) to the end of the header
	DefaultReadBodyTimeout   = 30 * time.Second // from the end of the header to the end of the body
	DefaultBodyBytesInFlight = 64 << 20         // request bodies held by calls in flight, summed over the instance
	DefaultMaxBodyBytes      = 1 << 20          // one request body
	DefaultMaxHeaderBytes    = 16 << 10         // one request's line and headers, its query string included
	DefaultProtocolPerMinute = 120              // requests of a mounted interface that run no route, per key per 60 s (Mount)
)

// clientAddr is the address per-IP limits count against: the peer address, unless the peer is
// one of the trusted proxies (Config.TrustedProxies). Then the X-Forwarded-For entries are read
// from the right (the last header's last entry first: each proxy appends the address it saw),
// skipping those of trusted proxies, and the first other address is the client's; an entry that
// is not an address ends the walk at the proxy that wrote it. Entries left of the client's were
// written by the client and are never read. A peer that is not a trusted proxy is the client,
// whatever X-Forwarded-For it sends. The address is an IPv4 address, or the /64 an IPv6 address
// belongs to (one subscriber gets a whole /64, so a /128 limits nothing).
func clientAddr(trusted []netip.Prefix, xff [][]byte, peer net.IP) string {
	p, ok := netip.AddrFromSlice(peer)
	if !ok {
		return "unknown"
	}
	client := p.Unmap()
	for i := len(xff) - 1; i >= 0 && trustedProxy(trusted, client); i-- {
		v := xff[i]
		for len(v) > 0 && trustedProxy(trusted, client) {
			var entry []byte
			if j := bytes.LastIndexByte(v, ','); j >= 0 {
				v, entry = v[:j], v[j+1:]
			} else {
				v, entry = nil, v
			}
			a, ok := forwarded(entry)
			if !ok {
				return limitKey(client) // garbage: the proxy that wrote it is as far as we can see
			}
			client = a
		}
	}
	return limitKey(client)
}

// trustedProxy reports whether a is in one of the trusted prefixes.
func trustedProxy(trusted []netip.Prefix, a netip.Addr) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwarded parses one X-Forwarded-For entry: an IP address, possibly with a port
// ("192.0.2.1:4711", "[2001:db8::1]:4711").
func forwarded(v []byte) (netip.Addr, bool) {
	s := string(bytes.TrimSpace(v))
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	return netip.Addr{}, false
}

func limitKey(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}

// ParseTrustedProxies parses a comma-separated list of CIDRs or single addresses (the flag
// --trusted-proxies) into Config.TrustedProxies.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("cannot read trusted proxy %q: give CIDRs or addresses separated by commas, e.g. 10.0.0.0/8,192.0.2.7", f)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// clientIP is the caller's limit address (see clientAddr).
func (s *Server) clientIP(ctx *fasthttp.RequestCtx) string {
	var xff [][]byte
	if len(s.cfg.TrustedProxies) > 0 {
		xff = ctx.Request.Header.PeekAll("X-Forwarded-For")
	}
	return clientAddr(s.cfg.TrustedProxies, xff, ctx.RemoteIP())
}

// inFlight counts calls in flight per client address: a counter per address, taken and given
// back with atomics, so calls from different addresses (and the many calls of one) share no lock.
// Counters back at zero are retired by sweep (localSweeps); a call that finds its address's
// counter retired takes a fresh one.
type inFlight struct {
	m sync.Map // client address -> *addrCalls
}

// addrCalls is one address's calls in flight; retiredCalls once swept.
type addrCalls struct{ n atomic.Int64 }

const retiredCalls = math.MinInt64 / 2

// enter counts one call of addr in and returns its counter for leave; ok is false (and nothing
// is counted) when max are already in flight. leave must be called once when ok.
func (f *inFlight) enter(addr string, max int) (n *addrCalls, ok bool) {
	for {
		v, found := f.m.Load(addr)
		if !found {
			v, _ = f.m.LoadOrStore(addr, new(addrCalls))
		}
		c := v.(*addrCalls)
		for {
			cur := c.n.Load()
			if cur < 0 { // retired by sweep: take the address's fresh counter
				f.m.CompareAndDelete(addr, c)
				break
			}
			if cur >= int64(max) {
				return nil, false
			}
			if c.n.CompareAndSwap(cur, cur+1) {
				return c, true
			}
		}
	}
}

// leave ends a call counted in by enter.
func (f *inFlight) leave(n *addrCalls) { n.n.Add(-1) }

// sweep retires the counters of addresses with no call in flight, so the map holds the
// addresses calling now, not every address that ever called.
func (f *inFlight) sweep() {
	f.m.Range(func(addr, v any) bool {
		if c := v.(*addrCalls); c.n.CompareAndSwap(0, retiredCalls) {
			f.m.CompareAndDelete(addr, c)
		}
		return true
	})
}

// ipThrottled is the 429 of a client address with too many calls in flight.
func ipThrottled(c *Call, max int) *Error {
	return &Error{Status: fasthttp.StatusTooManyRequests, Detail: rateDetail{Reason: ReasonKeyThrottled, Endpoint: c.Route.Path,
		Message: fmt.Sprintf("more than %d calls from this client address are in flight; retry when one completes", max)}}
}

// byteBudget is a number of bytes shared by calls in flight, taken without waiting.
type byteBudget struct {
	used atomic.Int64
	max  int64
}

func (b *byteBudget) take(n int64) bool {
	for {
		u := b.used.Load()
		if u+n > b.max {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

func (b *byteBudget) give(n int64) { b.used.Add(-n) }

// readBody reads the request body of an admitted caller, at most MaxBodyBytes, holding its size
// from the instance's BodyBytesInFlight until release. The server streams request bodies, so
// nothing of a body past its first 8 KiB is held before this runs: a caller that is not
// authenticated never makes the server allocate what its Content-Length declares. A body larger
// than the limit is 413 without being read, one that does not fit in the budget is 503 and one
// that does not arrive within ReadBodyTimeout is 408; the connection is closed after each, since
// the rest of the body is still on it, lingering first so that the client reads the answer
// (linger.go).
func (s *Server) readBody(c *Call) (release func(), e *Error) {
	req := &c.Ctx.Request
	release = func() {}
	if !req.IsBodyStream() { // read already (a handler served outside Server, as in tests)
		return release, nil
	}
	n := req.Header.ContentLength()
	if n == 0 {
		return release, nil
	}
	limit := s.cfg.MaxBodyBytes
	if n > limit {
		closeUnread(c.Ctx)
		return release, bodyTooLarge(limit)
	}
	hold := int64(n)
	if n < 0 { // chunked: as much as it may be
		hold = int64(limit)
	}
	if !s.bodies.take(hold) {
		closeUnread(c.Ctx)
		return release, &Error{Status: fasthttp.StatusServiceUnavailable, Headers: map[string]string{"Retry-After": "1"},
			Detail: "The server is receiving too many request bodies at once; retry shortly"}
	}
	release = func() { s.bodies.give(hold) }
	buf := bytes.NewBuffer(make([]byte, 0, min(int(hold), 64<<10)))
	_, err := buf.ReadFrom(io.LimitReader(req.BodyStream(), int64(limit)+1))
	if err != nil {
		closeUnread(c.Ctx)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return release, &Error{Status: fasthttp.StatusRequestTimeout,
				Detail: "Request body not received within " + s.cfg.ReadBodyTimeout.String() + " of its header: send it faster or smaller"}
		}
		return release, &Error{Status: fasthttp.StatusBadRequest, Detail: "Malformed HTTP request: cannot read the body: " + err.Error()}
	}
	if buf.Len() > limit {
		closeUnread(c.Ctx)
		return release, bodyTooLarge(limit)
	}
	req.SetBodyRaw(buf.Bytes())
	return release, nil
}

func bodyTooLarge(limit int) *Error {
	return &Error{Status: fasthttp.StatusRequestEntityTooLarge, Detail: "Request body too large: the limit is " + strconv.Itoa(limit) + " bytes"}
}

// startDeadline gives the call's store calls a fresh deadline of StoreTimeout (Call.Context).
// The context itself is made when a store call first asks for it: a call served from memory
// (whoami, a cached key, a leased rate window) pays for no timer.
func (c *Call) startDeadline() { c.startDeadlineAt(time.Now()) }

// startDeadlineAt is startDeadline from now (a time the caller read already).
func (c *Call) startDeadlineAt(now time.Time) {
	c.endDeadline()
	c.deadline = now.Add(c.srv.cfg.StoreTimeout)
}

// endDeadline releases the deadline's context, if one was made.
func (c *Call) endDeadline() {
	if c.cancel != nil {
		c.cancel()
		c.ctx, c.cancel = nil, nil
	}
}

// storeTimedOut reports whether err is a store call that ran out of time: the call's deadline,
// a statement cancelled by Postgres (statement_timeout) or a network timeout.
func storeTimedOut(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "57014" { // query_canceled
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// timedOut turns a 500 caused by a store running out of time (or answered after the call's
// deadline passed) into a 503: the call can be retried. So is a 500 caused by Postgres being
// unreachable or read-only (oltp.Unavailable: a primary switch under way, a restart): 503 with
// Retry-After until a primary answers again, which the pools find by themselves.
func (s *Server) timedOut(c *Call, e *Error) *Error {
	if e.Status != fasthttp.StatusInternalServerError {
		return e
	}
	if oltp.Unavailable(e.cause) {
		return &Error{Status: fasthttp.StatusServiceUnavailable, Headers: map[string]string{"Retry-After": strconv.Itoa(UnavailableRetryAfter)}, cause: e.cause,
			Detail: "Postgres is unavailable (restarting, or switching to a standby); retry later"}
	}
	if !storeTimedOut(e.cause) && (c.ctx == nil || !errors.Is(c.ctx.Err(), context.DeadlineExceeded)) {
		return e
	}
	return &Error{Status: fasthttp.StatusServiceUnavailable, Headers: map[string]string{"Retry-After": "1"}, cause: e.cause,
		Detail: "A store did not answer within " + s.cfg.StoreTimeout.String() + " and is unavailable; retry later"}
}

// perIPListener refuses a connection of a peer address that already has max open: it answers
// 429 in the spec's shape and closes it. A trusted proxy's connections are not capped (its
// clients' calls are, per client address, by the chain). (fasthttp's own MaxConnsPerIP races with Shutdown.)
// The refusal is a concurrency bound, like too many calls in flight: reason key_throttled,
// without RateLimit-* or Retry-After (spec section 5). Each refusal is written by a goroutine
// bounded by a one-second write deadline; Close waits for them.
type perIPListener struct {
	net.Listener
	max     int
	exempt  []netip.Prefix // trusted proxies: not capped
	mu      sync.Mutex
	n       map[netip.Addr]int
	refusal sync.WaitGroup
}

func limitConnsPerIP(ln net.Listener, max int, exempt []netip.Prefix) net.Listener {
	if max <= 0 {
		return ln
	}
	return &perIPListener{Listener: ln, max: max, exempt: exempt, n: map[netip.Addr]int{}}
}

const connsPerIPRefusal = `{"detail":{"reason":"key_throttled","endpoint":"","message":"too many connections from this address are open: reuse one (keep-alive) or close some, then retry"}}`

func (l *perIPListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip, known := peerAddr(c)
		if !known || trustedProxy(l.exempt, ip) { // a trusted proxy carries many clients' connections
			return c, nil
		}
		l.mu.Lock()
		ok := l.n[ip] < l.max
		if ok {
			l.n[ip]++
		}
		l.mu.Unlock()
		if ok {
			return &perIPConn{Conn: c, release: func() { l.release(ip) }}, nil
		}
		l.refusal.Add(1)
		go func() {
			defer l.refusal.Done()
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = fmt.Fprintf(c, "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
				len(connsPerIPRefusal), connsPerIPRefusal)
			// Half-close and drain what the client sent (up to the deadline) before closing, so
			// unread request bytes do not reset the connection under the answer.
			if tc, ok := c.(interface{ CloseWrite() error }); ok && tc.CloseWrite() == nil {
				_ = c.SetReadDeadline(time.Now().Add(time.Second))
				_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
			}
			_ = c.Close()
		}()
	}
}

// Close closes the listener and waits for the refusals being written.
func (l *perIPListener) Close() error {
	err := l.Listener.Close()
	l.refusal.Wait()
	return err
}

func peerAddr(c net.Conn) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	return ap.Addr().Unmap(), err == nil
}

func (l *perIPListener) release(ip netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n[ip]--; l.n[ip] <= 0 {
		delete(l.n, ip)
	}
}

// perIPConn gives its address's slot back once, however often it is closed.
type perIPConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// NetConn is the connection wrapped (as tls.Conn's).
func (c *perIPConn) NetConn() net.Conn { return c.Conn }

func (c *perIPConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
