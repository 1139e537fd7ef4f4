// Package benchapi starts the API in process for a bench/ program, wired as serve wires it: its
// own Postgres schema (benchdb), an account of the plan asked for without a minute limit, a
// metering directory and the key cache's listener; the program registers the routes it loads. It is for
// bench/ programs only and holds no route or measurement of its own.
package benchapi

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/bench/benchdb"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/oltp"
)

// API is a started in-process API and its account.
type API struct {
	Srv     *api.Server
	Pool    *pgxpool.Pool
	Key     string
	Account int64
	Base    string // http://host:port
}

// Account creates an account of plan whose calls_per_minute contract override is far above what
// a bench can reach, so every call goes through the real limiter without being refused.
func Account(ctx context.Context, pool *pgxpool.Pool, plan, email string) (oltp.NewAccount, error) {
	acct, err := oltp.CreateAccount(ctx, pool, plan, email)
	if err != nil {
		return oltp.NewAccount{}, err
	}
	perMinute := int64(1_000_000_000)
	if err := oltp.SetCallsPerMinute(ctx, pool, acct.AccountID, &perMinute); err != nil {
		return oltp.NewAccount{}, err
	}
	return acct, nil
}

// Start starts an API on a throwaway schema named prefix + a random suffix at pgURL, with an
// account of plan (Account) and cfg's other settings (Listen, Log, Pool, Listener and MeteringDir
// are set here), after register added the routes; stop stops it and drops everything it made.
func Start(ctx context.Context, pgURL, prefix, plan string, cfg api.Config, register func(srv *api.Server, pool *pgxpool.Pool) error) (a *API, stop func(), err error) {
	var undo []func()
	stop = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	pool, drop, err := benchdb.ThrowawaySchema(ctx, pgURL, prefix)
	if err != nil {
		return nil, nil, err
	}
	undo = append(undo, drop)
	acct, err := Account(ctx, pool, plan, prefix+"bench@example.com")
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", prefix+"metering")
	if err != nil {
		return nil, nil, fmt.Errorf("cannot make the bench's metering directory: %w", err)
	}
	undo = append(undo, func() { os.RemoveAll(dir) })
	listener := pglisten.New(pglisten.Config{ConnConfig: pool.Config().ConnConfig}) // the key cache's, as in serve
	if err := listener.Start(ctx); err != nil {
		return nil, nil, err
	}
	undo = append(undo, func() { _ = listener.Stop(context.Background()) })
	cfg.Listen, cfg.Log, cfg.Pool, cfg.Listener, cfg.MeteringDir = "127.0.0.1:0", slog.New(slog.DiscardHandler), pool, listener, dir
	srv := api.New(cfg)
	if err := register(srv, pool); err != nil {
		return nil, nil, err
	}
	if err := srv.Start(ctx); err != nil {
		return nil, nil, err
	}
	undo = append(undo, func() { _ = srv.Stop(context.Background()) })
	if err := srv.StoresReady(ctx); err != nil {
		return nil, nil, err
	}
	for i := 0; i < 100 && !srv.AuthListening(); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	return &API{Srv: srv, Pool: pool, Key: acct.Key, Account: acct.AccountID, Base: "http://" + srv.Addr()}, stop, nil
}

// Trivial starts the baseline every API figure is set beside: a fasthttp handler on loopback
// answering {"ok":true} to any request. It returns its base URL (http://host:port) and stop.
func Trivial() (base string, stop func(), err error) {
	srv := &fasthttp.Server{Handler: func(c *fasthttp.RequestCtx) {
		c.SetContentType("application/json")
		c.SetBodyString(`{"ok":true}`)
	}, NoDefaultServerHeader: true}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("cannot listen for the trivial handler: %w", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return "http://" + ln.Addr().String(), func() { _ = srv.Shutdown(); <-done }, nil
}
