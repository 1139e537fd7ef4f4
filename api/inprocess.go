package api

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/oltp"
)

// Calls made in-process: another interface of the same binary (the agent tools at /mcp) runs a
// registered /v1 route through the very chain an HTTP request to it takes, with its caller's key
// and address, so admission (scope, pause, rate limit, quota, spend cap, plan gate) and metering
// cannot drift between the two. Only the channel differs, and the caller cannot set it.

// Channels a metered call is recorded under (usage by_channel).
const (
	ChannelREST = oltp.ChannelREST // an HTTP request to the route
	ChannelMCP  = oltp.ChannelMCP  // an agent tool call at /mcp
)

// channelKey is the request user value carrying an in-process call's channel. The type is
// unexported, so nothing a client sends can set it.
type channelKey struct{}

// presentedKey0 is the user value carrying the Presented of a request to a mounted handler.
type presentedKey0 struct{}

// Presented is what a caller of a mounted handler presented, once authenticated: its key and
// address, for running routes on its behalf with Execute.
type Presented struct {
	Key          string
	Remote       net.Addr
	ForwardedFor []string // X-Forwarded-For values (read only when Remote is a trusted proxy, Config.TrustedProxies)
	Caller       Caller   // who the key is, as the chain authenticated it

	executed atomic.Bool // Execute ran a route on its behalf (Mount: the request counts in no protocol window)
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
// Nothing is metered here: h meters what it runs through Execute. What runs no route counts in
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

// InternalResponse is the route's answer: what an HTTP caller would have received.
type InternalResponse struct {
	Status int
	Body   []byte
	Header map[string]string // RateLimit-*, Retry-After, Deprecation, Sunset when answered
}

// answeredHeaders are the response headers an in-process caller gets back.
var answeredHeaders = []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After", "Deprecation", "Sunset"}

// emptyRequest is what Execute's requests are built from (never written).
var emptyRequest fasthttp.Request

// Execute runs the route named req.Route for req.As through the router and the chain (every
// admission step, the handler and metering, recorded under req.Channel) and returns its answer.
// The error is for a call that cannot be made at all: no such /v1 route, or a path parameter
// missing.
func (s *Server) Execute(req InternalRequest) (InternalResponse, error) {
	rt := s.byName[req.Route] // fixed once started: routes are added before Start only
	if rt == nil || rt.public || rt.mounted || req.As == nil {
		return InternalResponse{}, fmt.Errorf("cannot execute %q in-process: name a registered /v1 route and its caller", req.Route)
	}
	path := rt.Path
	for name, v := range req.Path {
		path = strings.Replace(path, "{"+name+"}", url.PathEscape(v), 1)
	}
	if strings.Contains(path, "{") {
		return InternalResponse{}, fmt.Errorf("cannot execute %q in-process: path %s lacks a parameter", req.Route, path)
	}
	req.As.executed.Store(true)
	var rc fasthttp.RequestCtx
	rc.Init(&emptyRequest, req.As.Remote, fasthttpLogger{s.log})
	fr := &rc.Request // built in place: Init copies the request it is given
	fr.Header.SetMethod(rt.Method)
	uri := path
	if len(req.Query) > 0 {
		uri += "?" + req.Query.Encode()
	}
	fr.SetRequestURI(uri)
	fr.Header.SetHost("in-process")
	fr.Header.Set("X-API-Key", req.As.Key)
	for _, v := range req.As.ForwardedFor {
		fr.Header.Add("X-Forwarded-For", v)
	}
	if len(req.Body) > 0 {
		fr.Header.SetContentType("application/json")
		fr.SetBody(req.Body)
	}
	if req.Channel != "" && req.Channel != ChannelREST {
		rc.SetUserValue(channelKey{}, req.Channel)
	}
	s.router.Handler(&rc)
	// rc is this call's alone and never reset: its answer's bytes are handed over, not copied.
	out := InternalResponse{Status: rc.Response.StatusCode(), Body: rc.Response.Body(), Header: map[string]string{}}
	for _, h := range answeredHeaders {
		if v := rc.Response.Header.Peek(h); len(v) > 0 {
			out.Header[h] = string(v)
		}
	}
	return out, nil
}

// channelOf is the channel of the call rc carries (ChannelREST unless Execute set another).
func channelOf(rc *fasthttp.RequestCtx) string {
	if ch, ok := rc.UserValue(channelKey{}).(string); ok {
		return ch
	}
	return ""
}
