// Package api is the HTTP API of the service (fasthttp + router): the /v1 routes of the spec, the
// middleware chain every route shares, health and readiness, and the OpenAPI document.
//
// It reads Postgres and ClickHouse through the oltp and analytics packages and the in-memory read
// models; it must not run crawls or deliver webhooks itself.
package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
)

// Check is one readiness probe: a store name and a function that says whether it answers.
type Check struct {
	Name string
	Ping func(ctx context.Context) error
}

// Config is what the server needs.
type Config struct {
	Listen string // host:port
	Log    *slog.Logger
	Checks []Check
}

// Server is the API's long-running part: Start, then Stop.
type Server struct {
	cfg    Config
	srv    *fasthttp.Server
	ln     net.Listener
	done   chan error
	router *router.Router
}

// New builds the server and its routes.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg, router: router.New(), done: make(chan error, 1)}
	s.router.GET("/healthz", s.healthz)
	s.router.GET("/readyz", s.readyz)
	s.srv = &fasthttp.Server{
		Handler:               s.router.Handler,
		Name:                  "hiringsignal",
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           2 * time.Minute,
		MaxRequestBodySize:    1 << 20,
		NoDefaultServerHeader: true,
	}
	return s
}

// Router exposes the router so route groups can be registered before Start.
func (s *Server) Router() *router.Router { return s.router }

// Start listens and serves in the background. A taken port is reported with the flag to change.
func (s *Server) Start() error {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("cannot listen on %s: the port is already in use; pass --listen (env HS_LISTEN) to use another", s.cfg.Listen)
		}
		return fmt.Errorf("cannot listen on %s: %w", s.cfg.Listen, err)
	}
	s.ln = ln
	go func() { s.done <- s.srv.Serve(ln) }()
	s.cfg.Log.Info("api listening", "addr", ln.Addr().String())
	return nil
}

// Addr is the address the server listens on (useful with port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Stop stops accepting connections and waits for in-flight requests to finish.
func (s *Server) Stop(ctx context.Context) error {
	if s.ln == nil {
		return nil
	}
	err := s.srv.ShutdownWithContext(ctx)
	<-s.done
	return err
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
