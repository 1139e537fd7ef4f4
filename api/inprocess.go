package api

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api/admission"
	"github.com/planehq/hiringsignal/oltp"
)

// Calls made in-process: another interface of the same binary (the agent tools at /mcp) runs a
// registered /v1 route through the very chain an HTTP request to it takes, with its caller's key
// and address, so admission (scope, pause, rate limit, quota, spend cap, plan gate) and metering
// cannot drift between the two. Only the channel differs, and the caller cannot set it.
//
// A call made for a mounted request while that request is in flight is not admitted twice: the
// request's admission (its address and key counted in flight, the key authenticated) is the
// call's, so a tool call reads its key once and counts once against the caps on calls in flight;
// the route's own steps (scope, pause, rate limit, validation, plan gate, quota, spend cap,
// metering) run for it as for any call.

// Channels a metered call is recorded under (usage by_channel).
const (
	ChannelREST = oltp.ChannelREST // an HTTP request to the route
	ChannelMCP  = oltp.ChannelMCP  // an agent tool call at /mcp
)

// inProcessKey is the request user value carrying an in-process call's inProcess. The type is
// unexported, so nothing a client sends can set it.
type inProcessKey struct{}

// inProcess is what the chain is told of an in-process call (Execute).
type inProcess struct {
	channel  string         // the channel it is metered under ("": ChannelREST)
	admitted *admission.Key // the key of the mounted request it runs for, admitted and in flight; nil: admit the call itself
	ip       string         // that request's client address, counted in flight
}

// inProcessOf is the inProcess of the call rc carries, nil for an HTTP request.
func inProcessOf(rc *fasthttp.RequestCtx) *inProcess {
	in, _ := rc.UserValue(inProcessKey{}).(*inProcess)
	return in
}

// presentedKey0 is the user value carrying the Presented of a request to a mounted handler.
type presentedKey0 struct{}

// Presented is what a caller of a mounted handler presented, once authenticated: its key and
// address, for running routes on its behalf with Execute.
type Presented struct {
	Key          string
	Remote       net.Addr
	ForwardedFor []string // X-Forwarded-For values (read only when Remote is a trusted proxy, Config.TrustedProxies)
	Caller       Caller   // who the key is, as the chain authenticated it

	executed atomic.Bool                   // Execute ran a route on its behalf (Mount: the request counts in no protocol window)
	admitted atomic.Pointer[admission.Key] // its key, while Mount's admission of its request holds (Execute reuses it); nil after
}

// PresentedFrom returns the Presented of the mounted request ctx descends from (a net/http
// handler's request context under fasthttpadaptor is the fasthttp request).
func PresentedFrom(ctx context.Context) (*Presented, bool) {
	p, ok := ctx.Value(presentedKey0{}).(*Presented)
	return p, ok
}

// WithPresented returns a context of parent carrying p, for PresentedFrom: a mounted handler
// that hands its work to code outliving the request gives it such a context rather than the
// fasthttp request, which the server reuses once the handler returns.
func WithPresented(parent context.Context, p *Presented) context.Context {
	return context.WithValue(parent, presentedKey0{}, p)
}

// Mount serves rt (documented in /openapi.json like any route, with rt's statuses and
// response) with h behind the chain's own first steps, before h runs: calls in flight per client
// address (429 key_throttled), authentication (no key 401, an unknown or revoked key 403, too
// many unknown keys from one address 429), calls in flight per key (429 key_throttled), then the
// body read within the chain's bounds (413, 408, 503 past the body bytes in flight). h finds the
// caller with PresentedFrom and the body in the request, read.
//
// Nothing is metered here: h meters what it runs through Execute, which this admission admits
// while h serves the request (the key is read and the call counted in flight once for both, the
// route's own steps run as for any call). What runs no route counts in
// the caller's protocol window instead (Config.ProtocolPerMinute, per key; per address for the
// demo key): a request runsRoutes says cannot run one is counted before h sees it, and refused
// with 429 rate_limited once the window is spent; one it says may (the agent interface's
// tools/call) goes to h and is counted after h only if it ran no route through Execute, its
// answer then replaced by that 429 once the window is spent. nil runsRoutes: no request runs one.
// Call it before Start.
func (s *Server) Mount(rt *Route, h fasthttp.RequestHandler, runsRoutes func(body []byte) bool) {
	r := *rt
	r.mounted = true
	s.add(&r, func(rc *fasthttp.RequestCtx) {
		c := &Call{Ctx: rc, Route: &r, srv: s}
		rc.Response.Header.Set(fasthttp.HeaderCacheControl, "no-store") // the caller's own, as every /v1 answer
		c.startDeadline()
		defer c.endDeadline()
		if e := s.serveMounted(c, h, runsRoutes); e != nil {
			writeError(rc, s.timedOut(c, e))
		}
	})
}

// serveMounted admits a mounted request as Mount says and serves it with h.
func (s *Server) serveMounted(c *Call, h fasthttp.RequestHandler, runsRoutes func(body []byte) bool) *Error {
	e := s.enter(c)
	defer c.leave()
	if e != nil {
		return e
	}
	release, e := s.readBody(c)
	defer release()
	if e != nil {
		return e
	}
	c.startDeadline()
	rc := c.Ctx
	routes := runsRoutes != nil && runsRoutes(rc.Request.Body())
	if !routes {
		if e := s.protocolLimit(c); e != nil {
			return e
		}
	}
	key, _ := presentedKey(rc)
	p := &Presented{Key: key, Remote: rc.RemoteAddr(), Caller: c.Caller}
	for _, v := range rc.Request.Header.PeekAll("X-Forwarded-For") {
		p.ForwardedFor = append(p.ForwardedFor, string(v))
	}
	if c.key != nil {
		// What Execute runs for p while h serves the request is admitted by this admission (the
		// address and the key counted in flight until c.leave, the key authenticated). It ends
		// with h: a call made later (none should be) is admitted afresh.
		p.admitted.Store(c.key)
		defer p.admitted.Store(nil)
	}
	rc.SetUserValue(presentedKey0{}, p)
	h(rc)
	if routes && !p.executed.Load() {
		c.startDeadline() // h may have used up the one of the body read
		if e := s.protocolLimit(c); e != nil {
			rc.Response.Reset() // h's answer gives way to the 429
			return e
		}
	}
	return nil
}

// InternalRequest is one in-process call of a registered /v1 route on behalf of a caller.
type InternalRequest struct {
	Route   string            // the route's operation name (reqs.search, companies.pre_action_brief, ...)
	Path    map[string]string // its path parameters by name
	Query   url.Values
	Body    []byte // JSON, for routes with a body
	As      *Presented
	Channel string // ChannelMCP; "" is ChannelREST
}

// InternalResponse is the route's answer: what an HTTP caller would have received. Body and
// Header are the call's until Release.
type InternalResponse struct {
	Status int
	Body   []byte
	Header map[string]string // RateLimit-*, Retry-After, Deprecation, Sunset when answered

	call *inProcessCall // whose memory Body and Header are; nil for a response built by hand
	gen  uint64         // call's generation when answered
}

// Release gives the call's memory back for a later in-process call: Body and Header must not
// be read after it. A response never released is left to the collector; releasing it again (or
// a copy of it) does nothing.
func (r InternalResponse) Release() {
	if x := r.call; x != nil && x.gen.CompareAndSwap(r.gen, r.gen+1) {
		x.reset()
		inProcessCalls.Put(x)
	}
}

// answeredHeaders are the response headers an in-process caller gets back.
var answeredHeaders = []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After", "Deprecation", "Sunset"}

// inProcessCall is what one in-process call is made with, reused across calls (inProcessCalls):
// the request and its answer, the connection the request claims to come from, its URI.
type inProcessCall struct {
	rc     fasthttp.RequestCtx
	conn   inProcessConn
	in     inProcess
	uri    []byte
	header map[string]string
	gen    atomic.Uint64 // bumped by each Release: a stale response cannot release the call again
}

var inProcessCalls = sync.Pool{New: func() any { return &inProcessCall{header: map[string]string{}} }}

// reset empties x for the next call: what the request and its answer held goes back to
// fasthttp's pools, nothing of the caller stays reachable.
func (x *inProcessCall) reset() {
	x.rc.Request.Reset() // its user values too
	x.rc.Response.Reset()
	x.conn.remote, x.in = nil, inProcess{}
	x.uri = x.uri[:0]
	clear(x.header)
}

// inProcessConn is the connection an in-process request claims: only its addresses are read.
type inProcessConn struct {
	net.Conn // nil: nothing is read from or written to an in-process call's connection
	remote   net.Addr
}

// inProcessAddr is the address of an in-process request with no remote of its own, and the
// local address of every one (fasthttp's Init gives the same).
var inProcessAddr net.Addr = &net.TCPAddr{IP: net.IPv4zero}

func (c *inProcessConn) RemoteAddr() net.Addr {
	if c.remote == nil {
		return inProcessAddr
	}
	return c.remote
}

func (c *inProcessConn) LocalAddr() net.Addr { return inProcessAddr }

// Execute runs the route named req.Route for req.As through the router and the chain (every
// admission step, the handler and metering, recorded under req.Channel) and returns its answer.
// While the mounted request req.As presented is in flight (its handler runs), the call is
// admitted by that request's admission (its key is not read again, nor the call counted in
// flight again); otherwise it is admitted as an HTTP request is. The error is for a call that
// cannot be made at all: no such /v1 route, or a path parameter missing. Release the answer once
// read.
func (s *Server) Execute(req InternalRequest) (InternalResponse, error) {
	rt := s.byName[req.Route] // fixed once started: routes are added before Start only
	if rt == nil || rt.public || rt.mounted || req.As == nil {
		return InternalResponse{}, fmt.Errorf("cannot execute %q in-process: name a registered /v1 route and its caller", req.Route)
	}
	x := inProcessCalls.Get().(*inProcessCall)
	uri, ok := appendPath(x.uri[:0], rt.Path, req.Path)
	x.uri = uri
	if !ok {
		x.reset()
		inProcessCalls.Put(x)
		return InternalResponse{}, fmt.Errorf("cannot execute %q in-process: path %s lacks a parameter", req.Route, replacedPath(rt.Path, req.Path))
	}
	if len(req.Query) > 0 {
		x.uri = append(append(x.uri, '?'), req.Query.Encode()...)
	}
	req.As.executed.Store(true)
	rc := &x.rc
	x.conn.remote = req.As.Remote
	rc.Init2(&x.conn, fasthttpLogger{s.log}, true) // as Init, without a connection allocated per call
	fr := &rc.Request                              // reset by the last Release (or new)
	fr.Header.SetMethod(rt.Method)
	fr.SetRequestURIBytes(x.uri)
	fr.Header.SetHost("in-process")
	fr.Header.Set("X-API-Key", req.As.Key)
	for _, v := range req.As.ForwardedFor {
		fr.Header.Add("X-Forwarded-For", v)
	}
	if len(req.Body) > 0 {
		fr.Header.SetContentType("application/json")
		fr.SetBody(req.Body)
	}
	if req.Channel != ChannelREST {
		x.in.channel = req.Channel
	}
	if k := req.As.admitted.Load(); k != nil {
		x.in.admitted, x.in.ip = k, req.As.Caller.IP
	}
	rc.SetUserValue(inProcessKey{}, &x.in)
	s.router.Handler(rc)
	// The answer's bytes are handed over, not copied: x is not reused before Release.
	out := InternalResponse{Status: rc.Response.StatusCode(), Body: rc.Response.Body(), Header: x.header, call: x, gen: x.gen.Load()}
	for _, h := range answeredHeaders {
		if v := rc.Response.Header.Peek(h); len(v) > 0 {
			out.Header[h] = string(v)
		}
	}
	return out, nil
}

// appendPath appends the route path template with each {name} replaced by path[name], escaped as
// a path segment; ok is false when path lacks one of them.
func appendPath(dst []byte, template string, path map[string]string) (_ []byte, ok bool) {
	for {
		open := strings.IndexByte(template, '{')
		if open < 0 {
			return append(dst, template...), true
		}
		end := strings.IndexByte(template[open:], '}')
		if end < 0 {
			return dst, false
		}
		v, found := path[template[open+1:open+end]]
		if !found {
			return dst, false
		}
		dst = append(append(dst, template[:open]...), url.PathEscape(v)...)
		template = template[open+end+1:]
	}
}

// replacedPath is the template with the parameters path has replaced, for an error saying which
// one it lacks.
func replacedPath(template string, path map[string]string) string {
	for name, v := range path {
		template = strings.Replace(template, "{"+name+"}", url.PathEscape(v), 1)
	}
	return template
}

// channelOf is the channel of the call rc carries (ChannelREST unless Execute set another).
func channelOf(rc *fasthttp.RequestCtx) string {
	if in := inProcessOf(rc); in != nil {
		return in.channel
	}
	return ""
}
