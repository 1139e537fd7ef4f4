// Package api is the HTTP framework of the service (fasthttp + router): the Route type handler
// packages declare their operations with, the chain every /v1 route shares (authentication,
// scope, pause, throttling, rate limit, validation, plan gate, idempotency, daily quota, spend
// cap, metering), the Call a handler serves through, the error shapes of spec 7 (the items of a
// 422 are internal/problem's, which the read side builds too), health and readiness, the OpenAPI
// document generated from the routes registered and its interactive rendering at /docs
// (docs.go), and the compression of JSON answers the client asks for (compress.go).
//
// It serves no /v1 route of its own: the handler packages (api/account, api/companies,
// api/search, ...) declare theirs next to their response types and register them with
// Server.Register, so a route is routed and documented exactly when its handler exists. Handler
// packages never import one another: what several of them answer alike is here, the 409 of a
// refusal (Conflict, ConflictSchema), the answer past a daily creation budget (budget.go), the
// rules of a webhook endpoint's registration and a watch's defaults (push.go) and the expansion
// nudge (nudge.go); api/reqrow, the served req row, is the one shared package beside it. Mount
// serves another interface of the binary (the agent interface at /mcp) behind the chain's first
// steps (calls in flight per address and per key, authentication, the bounded body read) and a
// window of its own for the requests that run no route (its protocol calls), and Execute runs a
// registered route in-process for it through the very chain an HTTP request takes, recording its
// metering under that interface's channel; while the mounted request is in flight, the route's
// call reuses its admission (the key read and the call counted in flight once). Admission decisions come from package admission and
// metered calls go to package metering. It must not hold a handler package's response schemas,
// import a handler package, run crawls or deliver webhooks.
package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/fasthttp/router"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api/admission"
	"github.com/planehq/hiringsignal/api/metering"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/oltp"
)

// Check is one readiness probe: a store name and a function that says whether it answers.
type Check struct {
	Name string
	Ping func(ctx context.Context) error
}

// Config is what the server needs. Only Listen and Log are required to serve health; the /v1
// routes need Pool.
type Config struct {
	Listen string       // host:port
	Log    *slog.Logger // default: discard
	Checks []Check

	Pool *pgxpool.Pool // accounts, keys, usage, limits (Postgres)
	// Listener is the process's Postgres listener (package pglisten), started before the server
	// and stopped after it: the key cache hears of key and account changes through it. Without
	// one the cache is never used and every call reads its key from Postgres.
	Listener *pglisten.Listener

	DemoKey           string         // the shared public demo key (hsk_ format); "" disables it. Never logged.
	MeteringDir       string         // write-ahead log of metering, one per instance (default .run/metering)
	MeteringQueue     int            // records waiting for the metering disk writer (default 8192)
	MeteringFlush     time.Duration  // how often metering segments move to Postgres (default 500ms)
	MeteringSyncEvery time.Duration  // 0: fsync the metering log before answering; > 0: answer once written, fsync within this (metering.Config.SyncEvery)
	KeyMaxInFlight    int            // calls of one key in flight on one instance before key_throttled (default 256)
	BaseURL           string         // public base URL of the API for links in answers (default: none, links are relative: /v1/pricing#upgrade); never taken from a request
	SiteURL           string         // where upgrade/purchase/signup pages live (default: the pricing document)
	TrustedProxies    []netip.Prefix // peers whose X-Forwarded-For names the client (clientAddr); their connections are not capped per address. Empty: the peer is the client
	MaxBodyBytes      int            // request body limit (default 1 MiB); larger answers 413
	CompressMinBytes  int            // JSON answers at least this long are compressed when the client asks (default 1024; < 0: never)

	// Bounds on what callers make one instance hold (0: the Default* constant of bounds.go).
	StoreTimeout      time.Duration // deadline of the store calls of one /v1 call (Call.Context); past it 503
	IPMaxInFlight     int           // /v1 calls of one client address in flight before 429 key_throttled (< 0: no cap)
	MaxConns          int           // connections served at once (fasthttp Concurrency); more are refused with 503
	MaxConnsPerIP     int           // connections of one peer address (behind a proxy: the proxy's); more get 429 (< 0: no cap)
	ReadHeaderTimeout time.Duration // to receive a request's header
	ReadBodyTimeout   time.Duration // to receive its body after the header (408 past it)
	MaxHeaderBytes    int           // a request's line and headers, query string included (431 past it; default DefaultMaxHeaderBytes)
	BodyBytesInFlight int           // request bodies held by calls in flight, summed; past it 503
	ProtocolPerMinute int           // requests of a mounted interface that run no route (the agent interface's protocol calls), per key per 60 s (the demo key: per address); past it 429 rate_limited (< 0: no window)
	LingerTimeout     time.Duration // how long a connection closed on an answer sent before its request was read lingers, discarding what the client still sends (linger.go)
	LingerBytes       int64         // how much of it a lingering connection discards at most

	// Instance names this process where instances share state (the owner of its Idempotency-Key
	// claims); default: "api-" and a random suffix.
	Instance string
	// IdempotencyClaimLease is how long an Idempotency-Key claim in flight stays this instance's
	// past its last renewal (renewed every third of it); past it, another instance may take the
	// call over (default oltp.IdempotencyClaimLease).
	IdempotencyClaimLease    time.Duration
	IdempotencyBodyBytes     int          // largest answer kept for an Idempotency-Key replay (default 1 MiB)
	IdempotencyCustomerBytes int64        // answers kept per customer over the 24 h of replay (default 64 MiB)
	Metrics                  *metrics.Set // operator metrics served at /metrics (nil: a set of its own)
	Now                      func() time.Time
	History                  func() History // the X-History-* headers of every /v1 answer (nil: none)
}

// Server is the API's long-running part: New, Register, Start, StoresReady, then Stop. It
// follows the lifecycle contract: Start and Stop are idempotent and Stop waits for everything
// Start started; a stopped Server does not start again.
type Server struct {
	cfg    Config
	log    *slog.Logger
	pool   *pgxpool.Pool
	srv    *fasthttp.Server
	router *router.Router
	routes []*Route          // in registration order, this package's own first
	byName map[string]*Route // the routes by operation name (Execute)

	auth           *admission.Auth
	limiter        *admission.Limiter
	caps           *admission.Caps
	usage          *metering.Log  // nil without a pool
	janitor        lifecycle.Loop // the shared sweeps (Janitor); run by whoever holds the janitor lease
	doc            atomic.Pointer[[]byte]
	metrics        *metrics.Set
	unavailableLog *logSampler    // 503 answers: one WARN per route per unavailableLogEvery
	ipCalls        inFlight       // calls in flight per client address
	claimant       oltp.Claimant  // this instance, as the owner of its Idempotency-Key claims
	claims         claimsInFlight // its claims in flight (renewClaims)
	bodies         byteBudget     // request body bytes held by calls in flight

	mu     sync.Mutex // the fields below
	state  int        // idle, running or stopped
	ln     net.Listener
	linger *lingerListener  // ln's lingering closes
	done   chan error       // the serving goroutine's result
	parts  *lifecycle.Group // metering log, auth cache, local sweeps, idempotency claims
	ctx    context.Context  // from Start to Stop; the parent of every call's store deadline
	cancel context.CancelFunc
}

const (
	idle = iota
	running
	stopped
)

// New builds the server with its own routes (health, readiness, the OpenAPI document); handler
// packages add theirs with Register.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	cfg.CompressMinBytes = orDefault(cfg.CompressMinBytes, DefaultCompressMinBytes)
	cfg.StoreTimeout = orDefault(cfg.StoreTimeout, DefaultStoreTimeout)
	cfg.IPMaxInFlight = orDefault(cfg.IPMaxInFlight, DefaultIPMaxInFlight)
	cfg.MaxConns = orDefault(cfg.MaxConns, DefaultMaxConns)
	cfg.MaxConnsPerIP = orDefault(cfg.MaxConnsPerIP, DefaultMaxConnsPerIP)
	cfg.ReadHeaderTimeout = orDefault(cfg.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	cfg.ReadBodyTimeout = orDefault(cfg.ReadBodyTimeout, DefaultReadBodyTimeout)
	cfg.MaxHeaderBytes = orDefault(cfg.MaxHeaderBytes, DefaultMaxHeaderBytes)
	cfg.ProtocolPerMinute = orDefault(cfg.ProtocolPerMinute, DefaultProtocolPerMinute)
	cfg.LingerTimeout = orDefault(cfg.LingerTimeout, DefaultLingerTimeout)
	cfg.LingerBytes = orDefault(cfg.LingerBytes, DefaultLingerBytes)
	cfg.BodyBytesInFlight = max(orDefault(cfg.BodyBytesInFlight, DefaultBodyBytesInFlight), cfg.MaxBodyBytes)
	cfg.IdempotencyBodyBytes = orDefault(cfg.IdempotencyBodyBytes, DefaultIdempotencyBodyBytes)
	cfg.IdempotencyCustomerBytes = orDefault(cfg.IdempotencyCustomerBytes, DefaultIdempotencyCustomerBytes)
	if cfg.KeyMaxInFlight <= 0 {
		cfg.KeyMaxInFlight = 256
	}
	if cfg.Instance == "" {
		var b [6]byte
		_, _ = rand.Read(b[:])
		cfg.Instance = "api-" + hex.EncodeToString(b[:])
	}
	cfg.IdempotencyClaimLease = orDefault(cfg.IdempotencyClaimLease, oltp.IdempotencyClaimLease)
	if cfg.MeteringDir == "" {
		cfg.MeteringDir = filepath.Join(".run", "metering")
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.NewSet()
	}
	s := &Server{cfg: cfg, log: cfg.Log, pool: cfg.Pool, router: router.New(), metrics: cfg.Metrics,
		unavailableLog: newLogSampler(unavailableLogEvery), claimant: oltp.Claimant{ID: cfg.Instance, Lease: cfg.IdempotencyClaimLease}}
	s.auth = admission.NewAuth(cfg.Pool, cfg.Listener, cfg.Log, cfg.Metrics)
	s.limiter = admission.NewLimiter(oltp.RateWindows{Pool: cfg.Pool}, cfg.Log)
	s.caps = admission.NewCaps(cfg.Pool, func() string { // each flushed segment's units leave this instance's holds
		if s.usage == nil {
			return ""
		}
		return s.usage.Instance()
	})
	if cfg.Pool != nil {
		s.usage = metering.New(metering.Config{Dir: cfg.MeteringDir, Pool: cfg.Pool, Log: cfg.Log,
			QueueSize: cfg.MeteringQueue, FlushInterval: cfg.MeteringFlush, SyncEvery: cfg.MeteringSyncEvery, Committed: s.caps.Committed})
		s.registerMeteringMetrics()
	}
	s.janitor.Run = s.sharedSweeps
	s.router.RedirectTrailingSlash = false
	s.router.RedirectFixedPath = false
	s.router.NotFound = notFoundHandler
	s.router.MethodNotAllowed = methodNotAllowedHandler
	s.router.PanicHandler = func(ctx *fasthttp.RequestCtx, p any) {
		s.log.Error("panic", "path", string(ctx.Path()), "panic", fmt.Sprint(p))
		writeError(ctx, Internal(nil))
	}
	docs := docsHandler()
	own := map[string]fasthttp.RequestHandler{"healthz": s.healthz, "readyz": s.readyz, "openapi": s.openapi, "metrics": s.metricsHandler,
		"docs": docs, "docs_asset": docs}
	for _, rt := range slices.Concat(publicRoutes(), docsRoutes()) {
		s.add(rt, own[rt.Name])
	}
	s.bodies.max = int64(cfg.BodyBytesInFlight)
	s.registerBoundsMetrics()
	// Request bodies are streamed: fasthttp holds at most 8 KiB of one before the chain
	// authenticated its caller, which then reads it within the bounds of readBody. ReadTimeout
	// bounds the header; once it is in, the body gets ReadBodyTimeout of its own. A request
	// without a body (Content-Length 0, most calls) has nothing left to read: its connection's
	// deadline is not set again (a clock reading and a timer change per call).
	bodyTimeout := fasthttp.RequestConfig{ReadTimeout: cfg.ReadBodyTimeout}
	headerReceived := func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
		if h.ContentLength() == 0 {
			return fasthttp.RequestConfig{}
		}
		return bodyTimeout
	}
	s.srv = &fasthttp.Server{
		Handler:                      s.serveHTTP,
		Name:                         "hiringsignal",
		Concurrency:                  cfg.MaxConns,
		ReadTimeout:                  cfg.ReadHeaderTimeout,
		ReadBufferSize:               cfg.MaxHeaderBytes, // fasthttp's bound on the request line and headers
		HeaderReceived:               headerReceived,
		WriteTimeout:                 30 * time.Second,
		IdleTimeout:                  2 * time.Minute,
		MaxRequestBodySize:           cfg.MaxBodyBytes,
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true, // it would read a whole multipart body before any handler
		NoDefaultServerHeader:        true,
		ErrorHandler:                 serverErrorHandler(cfg.MaxBodyBytes, cfg.MaxHeaderBytes, cfg.Metrics),
		SecureErrorLogMessage:        true, // errors quote no request contents (keys are headers)
		Logger:                       fasthttpLogger{cfg.Log},
	}
	return s
}

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// serveHTTP routes one request, then compresses its answer when the client asks (compress.go).
// A body nothing read (a route without one, 404, 401) is still on the connection, so the
// connection is closed after the answer, lingering first (linger.go).
func (s *Server) serveHTTP(ctx *fasthttp.RequestCtx) {
	s.router.Handler(ctx)
	s.compress(ctx)
	if ctx.Request.IsBodyStream() && ctx.Request.Header.ContentLength() != 0 {
		closeUnread(ctx)
	}
}

// Register adds routes: each is routed through the chain to its Handler and listed in
// /openapi.json. Call it before Start. A route without a handler, a name or a method and path
// already registered, or a call after Start panics: the route table is fixed at build time.
func (s *Server) Register(routes ...*Route) {
	for _, rt := range routes {
		if rt.Handler == nil {
			panic(fmt.Sprintf("api: route %q has no handler: register a route once its handler exists", rt.Name))
		}
		s.add(rt, nil)
	}
}

// add registers a copy of rt, served by serve (nil: the chain, then rt.Handler).
func (s *Server) add(rt *Route, serve fasthttp.RequestHandler) {
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	if st != idle {
		panic(fmt.Sprintf("api: route %q registered after Start", rt.Name))
	}
	if slices.ContainsFunc(s.routes, func(r *Route) bool { return r.Name == rt.Name }) {
		panic(fmt.Sprintf("api: route %q registered twice", rt.Name))
	}
	r := *rt
	if r.Idempotent {
		r.Params = append(slices.Clip(r.Params), idempotencyKey())
	}
	if serve == nil {
		serve = s.handler(&r)
	}
	s.router.Handle(r.Method, r.Path, serve)
	s.routes = append(s.routes, &r)
	if s.byName == nil {
		s.byName = map[string]*Route{}
	}
	s.byName[r.Name] = &r
}

// Routes lists the routes served, in registration order (copies: changing them changes nothing).
func (s *Server) Routes() []Route {
	out := make([]Route, len(s.routes))
	for i, r := range s.routes {
		out[i] = *r
	}
	return out
}

func (s *Server) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return time.Now()
}

// Router exposes the router (tests compare what it routes with the document).
func (s *Server) Router() *router.Router { return s.router }

// Start listens and serves in the background and, when a Postgres pool is configured, starts the
// metering log, the auth cache (its subscriptions and heartbeat), this instance's own sweeps
// (its rate-limit buckets of ended windows) and the renewal of its Idempotency-Key claims. The sweeps of shared rows are not started here: see
// Janitor. A taken port is reported with the flag to change. A second Start does nothing.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case running:
		return nil
	case stopped:
		return errors.New("cannot start the API server: it was stopped; build a new one")
	}
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("cannot listen on %s: the port is already in use; pass --listen (env HS_LISTEN) to use another", s.cfg.Listen)
		}
		return fmt.Errorf("cannot listen on %s: %w", s.cfg.Listen, err)
	}
	doc, err := s.OpenAPI()
	if err != nil {
		ln.Close()
		return err
	}
	s.doc.Store(&doc)
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if s.pool != nil {
		g := &lifecycle.Group{}
		g.Add("metering log", s.usage)
		g.Add("auth cache", s.auth)
		g.Add("local sweeps", &lifecycle.Loop{Run: s.localSweeps})
		g.Add("idempotency claims", &lifecycle.Loop{Run: s.renewClaims})
		if err := g.Start(ctx); err != nil {
			ln.Close()
			s.cancel()
			return err
		}
		s.parts = g
	}
	s.linger = lingerOnClose(limitConnsPerIP(ln, s.cfg.MaxConnsPerIP, s.cfg.TrustedProxies), s.cfg.LingerTimeout, s.cfg.LingerBytes)
	ln = s.linger
	s.ln, s.done, s.state = ln, make(chan error, 1), running
	go func(done chan<- error) { done <- s.srv.Serve(ln) }(s.done)
	s.log.Info("api listening", "addr", ln.Addr().String())
	return nil
}

// Stop stops accepting connections, waits for in-flight requests, closes the connections still
// lingering after an early answer (linger.go), then stops the background
// parts in reverse and writes out the metering log (what cannot reach Postgres stays on disk for
// the next start). A Stop of a server that is not running does nothing.
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != running {
		return nil
	}
	s.state = stopped
	err := s.srv.ShutdownWithContext(ctx)
	// Shutdown closes only the listeners Serve has taken up; a Stop right after Start can come
	// first, so close ours too, or Serve would accept on it forever.
	_ = s.ln.Close()
	if serr := <-s.done; serr != nil { // after Shutdown it only says that the listener closed
		s.log.Debug("api stopped serving", "err", serr)
	}
	s.linger.stop() // the connections still lingering close now
	s.cancel()
	if s.parts != nil {
		err = errors.Join(err, s.parts.Stop(ctx))
	}
	return err
}

// StoresReady runs once the stores are migrated: it installs the demo key (or, when it is
// disabled, revokes the one installed before) and records a schema change when the document
// changed since the last start.
func (s *Server) StoresReady(ctx context.Context) error {
	if s.pool == nil {
		return nil
	}
	if err := s.installDemoKey(ctx); err != nil {
		return err
	}
	return s.recordSchema(ctx)
}

// localSweeps forgets this instance's rate-limit buckets of ended windows and the in-flight
// counters of addresses with no call in flight every 30 s.
func (s *Server) localSweeps(ctx context.Context) {
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.limiter.Forget(s.now())
		s.ipCalls.sweep()
	}
}

// Janitor is the part that sweeps the rows every instance shares (a lifecycle.Loop, started
// again after a Stop): it deletes ended rate windows every 30 s and, every 10 minutes, expires
// idempotency keys, forgets old metering segment ids, deletes outcome labels past their
// retention and retired keys, endpoints and watches past theirs. One instance at a time runs it
// (serve runs it under the janitor lease, oltp.RoleJanitor); more would repeat the same deletes.
// It needs a Postgres pool.
func (s *Server) Janitor() lifecycle.Service { return &s.janitor }

// sharedSweeps is the Janitor's loop.
func (s *Server) sharedSweeps(ctx context.Context) {
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	n := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.limiter.Expire(ctx, s.now())
		if n++; n%20 == 0 {
			if err := oltp.ExpireIdempotency(ctx, s.pool); err != nil {
				s.log.Warn("cannot expire idempotency keys", "err", err)
			}
			if err := (oltp.SpendHolds{Pool: s.pool}).Expire(ctx); err != nil {
				s.log.Warn("cannot delete lapsed spend holds", "err", err)
			}
			// Only a segment committed but not yet deleted when its process died can come back,
			// and it comes back when that instance restarts: 30 days covers any restart.
			if err := metering.PruneSegments(ctx, s.pool, 30*24*time.Hour); err != nil {
				s.log.Warn("cannot prune flushed metering segment ids", "err", err)
			}
			// Outcome labels are kept oltp.OutcomeRetention after they occurred (docs/decisions.md).
			if n, err := oltp.PruneOutcomeLabels(ctx, s.pool, s.now()); err != nil {
				s.log.Warn("cannot delete outcome labels past their retention", "err", err)
			} else if n > 0 {
				s.log.Info("outcome labels past their retention deleted", "labels", n)
			}
			// Revoked keys, deleted endpoints and canceled watches past their retention that
			// nothing names any more (docs/decisions.md, "Daily creation budgets and a paged key
			// list"), and blocked deliveries past theirs.
			if p, err := oltp.PruneRetired(ctx, s.pool, s.now()); err != nil {
				s.log.Warn("cannot delete retired keys, endpoints and watches past their retention", "err", err)
			} else if p != (oltp.Pruned{}) {
				s.log.Info("retired rows past their retention deleted", "watches", p.Watches, "endpoints", p.Endpoints, "keys", p.Keys, "quickstarts", p.Quickstarts, "blocked_deliveries", p.BlockedDeliveries)
			}
		}
	}
}

// Addr is the address the server listens on (useful with port 0).
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ln.Addr().String()
}

// AuthListening reports whether this instance receives key and account change notifications
// (while it does not, every call reads Postgres).
func (s *Server) AuthListening() bool { return s.auth.Listening() }

func (s *Server) healthz(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("application/json")
	ctx.SetBodyString(`{"status":"ok"}`)
}

func (s *Server) readyz(ctx *fasthttp.RequestCtx) {
	// The checks run at once, each with its own 2 s deadline, so a store that hangs cannot use
	// up another's time and get it blamed. The answer names what fails, never why: driver
	// errors carry hosts, users and databases.
	errs := make([]error, len(s.cfg.Checks))
	var wg sync.WaitGroup
	for i, ch := range s.cfg.Checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			errs[i] = ch.Ping(c)
		}()
	}
	wg.Wait()
	var failed []string
	for i, ch := range s.cfg.Checks {
		if errs[i] != nil {
			failed = append(failed, ch.Name)
			s.log.Warn("not ready", "check", ch.Name, "err", errs[i])
		}
	}
	if len(failed) > 0 {
		writeJSON(ctx, fasthttp.StatusServiceUnavailable, map[string]any{"status": "unavailable", "detail": "not ready: " + strings.Join(failed, ", ") + " unavailable"})
		return
	}
	ctx.SetContentType("application/json")
	ctx.SetBodyString(`{"status":"ready"}`)
}

func (s *Server) openapi(ctx *fasthttp.RequestCtx) {
	doc := s.doc.Load()
	if doc == nil {
		b, err := s.OpenAPI()
		if err != nil {
			writeError(ctx, Internal(err))
			return
		}
		doc = &b
	}
	ctx.SetContentType("application/json")
	ctx.SetBody(*doc)
}

// fasthttpLogger sends fasthttp's connection-level messages to slog at debug level.
type fasthttpLogger struct{ log *slog.Logger }

func (l fasthttpLogger) Printf(format string, args ...any) {
	l.log.Debug("fasthttp: " + fmt.Sprintf(format, args...))
}
