// Package api is the HTTP API of the service (fasthttp + router): the /v1 routes of the spec, the
// middleware chain every route shares, health and readiness, and the OpenAPI document.
//
// Every route is an entry of one contract (Contract in contract.go): the router, the chain
// (authentication, pause, limits, quota, spend cap, metering) and /openapi.json are built from it.
// Later issues replace a route's 501 answer with Server.Handle. It reads Postgres and ClickHouse
// through the oltp and analytics packages; it must not run crawls or deliver webhooks itself.
package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/fasthttp/router"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

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
	Listen string // host:port
	Log    *slog.Logger
	Checks []Check

	Pool       *pgxpool.Pool // accounts, keys, usage, limits (Postgres)
	ClickHouse driver.Conn   // analytics reads, for the handlers of later issues

	DemoKey           string        // the shared public demo key (hsk_ format); "" disables it. Never logged.
	MeteringDir       string        // write-ahead log of metering, one per instance (default .run/metering)
	MeteringQueue     int           // records waiting for the metering disk writer (default 8192)
	MeteringFlush     time.Duration // how often metering segments move to Postgres (default 500ms)
	MeteringSyncEvery time.Duration // 0: fsync the metering log before answering; > 0: answer once written, fsync within this (oltp.UsageLogConfig.SyncEvery)
	KeyMaxInFlight    int           // calls of one key in flight on one instance before key_throttled (default 256)
	BaseURL           string        // public base URL of the API (default: http:// + the request's Host)
	SiteURL           string        // where upgrade/purchase/signup pages live (default: the pricing document)
	TrustForwardedFor bool          // take the client IP from X-Forwarded-For (behind a trusted proxy only)
	MaxBodyBytes      int           // request body limit (default 1 MiB); larger answers 413
	Push              PushStats     // watches/deliveries counts for the dashboard (default: none yet)
	Now               func() time.Time
}

// Server is the API's long-running part: New, Handle, Start, StoresReady, then Stop.
type Server struct {
	cfg    Config
	log    *slog.Logger
	pool   *pgxpool.Pool
	srv    *fasthttp.Server
	ln     net.Listener
	done   chan error
	router *router.Router

	routes  map[string]*route
	order   []*route
	auth    *authCache
	limiter *limiter
	caps    *capCache
	usage   *oltp.UsageLog
	doc     atomic.Pointer[[]byte]
	push    PushStats

	ctx    context.Context // lives from New to Stop; request store calls use it
	cancel context.CancelFunc
	bg     sync.WaitGroup
}

// New builds the server and every route of the contract.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.KeyMaxInFlight <= 0 {
		cfg.KeyMaxInFlight = 256
	}
	if cfg.MeteringDir == "" {
		cfg.MeteringDir = filepath.Join(".run", "metering")
	}
	if cfg.Push == nil {
		cfg.Push = noPushTables{}
	}
	s := &Server{cfg: cfg, log: cfg.Log, pool: cfg.Pool, router: router.New(), done: make(chan error, 1), routes: map[string]*route{}, push: cfg.Push}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.auth = newAuthCache(cfg.Pool, cfg.Log)
	s.limiter = &limiter{store: oltp.RateWindows{Pool: cfg.Pool}, log: cfg.Log}
	s.caps = newCapCache(cfg.Pool)
	s.router.RedirectTrailingSlash = false
	s.router.RedirectFixedPath = false
	s.router.NotFound = notFoundHandler
	s.router.MethodNotAllowed = methodNotAllowedHandler
	s.router.PanicHandler = func(ctx *fasthttp.RequestCtx, p any) {
		s.log.Error("panic", "path", string(ctx.Path()), "panic", fmt.Sprint(p))
		writeError(ctx, Internal(nil))
	}
	for _, rt := range Contract() {
		r := &route{rt: rt}
		s.routes[rt.Name] = r
		s.order = append(s.order, r)
		switch rt.Name {
		case "healthz":
			s.router.GET(rt.Path, s.healthz)
		case "readyz":
			s.router.GET(rt.Path, s.readyz)
		case "openapi":
			s.router.GET(rt.Path, s.openapi)
		default:
			s.router.Handle(rt.Method, rt.Path, s.handler(r))
		}
	}
	s.registerBuiltins()
	s.srv = &fasthttp.Server{
		Handler:               s.router.Handler,
		Name:                  "hiringsignal",
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           2 * time.Minute,
		MaxRequestBodySize:    cfg.MaxBodyBytes,
		NoDefaultServerHeader: true,
		ErrorHandler:          serverErrorHandler(cfg.MaxBodyBytes),
		Logger:                fasthttpLogger{cfg.Log},
	}
	return s
}

// Handle sets the handler of the contract route named name (its operation id, e.g.
// "reqs.search"), replacing its 501 answer. Call it before Start. An unknown name panics: the
// route must be in Contract first.
func (s *Server) Handle(name string, h HandlerFunc) {
	r, ok := s.routes[name]
	if !ok || r.rt.Public {
		panic(fmt.Sprintf("api: no contract route named %q: add it to Contract() in api/contract.go", name))
	}
	r.h = h
}

func (s *Server) now() time.Time {
	if s.cfg.Now != nil {
		return s.cfg.Now()
	}
	return time.Now()
}

// Router exposes the router so route groups can be registered before Start.
func (s *Server) Router() *router.Router { return s.router }

// Start listens and serves in the background, and starts the metering log, the auth-cache
// listener and the janitor when a Postgres pool is configured. A taken port is reported with the
// flag to change.
func (s *Server) Start() error {
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
	ctx := s.ctx
	if s.pool != nil {
		u, err := oltp.OpenUsageLog(oltp.UsageLogConfig{Dir: s.cfg.MeteringDir, Pool: s.pool, Log: s.log,
			QueueSize: s.cfg.MeteringQueue, FlushInterval: s.cfg.MeteringFlush, SyncEvery: s.cfg.MeteringSyncEvery})
		if err != nil {
			ln.Close()
			return err
		}
		s.usage = u
		u.Start()
		s.bg.Add(3)
		go func() { defer s.bg.Done(); s.auth.listen(ctx) }()
		go func() { defer s.bg.Done(); s.auth.heartbeat(ctx) }()
		go func() { defer s.bg.Done(); s.janitor(ctx) }()
	}
	s.ln = ln
	go func() { s.done <- s.srv.Serve(ln) }()
	s.log.Info("api listening", "addr", ln.Addr().String())
	return nil
}

// StoresReady runs once the stores are migrated: it installs the demo key and records a schema
// change when the contract changed since the last start.
func (s *Server) StoresReady(ctx context.Context) error {
	if s.pool == nil {
		return nil
	}
	if s.cfg.DemoKey != "" {
		if err := s.installDemoKey(ctx); err != nil {
			return err
		}
	}
	return s.recordSchema(ctx)
}

func (s *Server) janitor(ctx context.Context) {
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	n := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.limiter.sweep(ctx, s.now())
		if n++; n%20 == 0 {
			if err := oltp.ExpireIdempotency(ctx, s.pool); err != nil {
				s.log.Warn("cannot expire idempotency keys", "err", err)
			}
			// Only a segment committed but not yet deleted when its process died can come back,
			// and it comes back when that instance restarts: 30 days covers any restart.
			if err := oltp.PruneUsageSegments(ctx, s.pool, 30*24*time.Hour); err != nil {
				s.log.Warn("cannot prune flushed metering segment ids", "err", err)
			}
		}
	}
}

// Addr is the address the server listens on (useful with port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Stop stops accepting connections, waits for in-flight requests, then stops the background
// parts and writes out the metering log (what cannot reach Postgres stays on disk for the next start).
func (s *Server) Stop(ctx context.Context) error {
	if s.ln == nil {
		s.cancel()
		return nil
	}
	err := s.srv.ShutdownWithContext(ctx)
	<-s.done
	s.cancel()
	s.bg.Wait()
	if s.usage != nil {
		if uerr := s.usage.Stop(ctx); uerr != nil && err == nil {
			err = uerr
		}
	}
	return err
}

// FlushUsage moves every metered unit this instance recorded into Postgres (tests, usage reads).
func (s *Server) FlushUsage(ctx context.Context) error {
	if s.usage == nil {
		return nil
	}
	if err := s.usage.Flush(ctx); err != nil {
		return err
	}
	s.caps.forget()
	return nil
}

func (s *Server) healthz(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("application/json")
	ctx.SetBodyString(`{"status":"ok"}`)
}

func (s *Server) readyz(ctx *fasthttp.RequestCtx) {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var failed []string
	for _, ch := range s.cfg.Checks {
		if err := ch.Ping(c); err != nil {
			failed = append(failed, ch.Name+": "+err.Error())
		}
	}
	ctx.SetContentType("application/json")
	if len(failed) > 0 {
		ctx.SetStatusCode(fasthttp.StatusServiceUnavailable)
		ctx.SetBodyString(fmt.Sprintf(`{"status":"unavailable","detail":%q}`, strings.Join(failed, "; ")))
		return
	}
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

// AuthListening reports whether this instance receives key and account change notifications
// (while it does not, every call reads Postgres).
func (s *Server) AuthListening() bool { return s.auth.listening() }

// fasthttpLogger sends fasthttp's connection-level messages to slog at debug level.
type fasthttpLogger struct{ log *slog.Logger }

func (l fasthttpLogger) Printf(format string, args ...any) {
	l.log.Debug("fasthttp: " + fmt.Sprintf(format, args...))
}
