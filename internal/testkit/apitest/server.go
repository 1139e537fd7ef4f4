// Package apitest is the test kit of the API's handler packages: it starts an API server on real
// Postgres (a fresh migrated schema, see internal/testkit/storetest), creates accounts with keys of a
// given plan, calls the server and decodes its answers, and builds costly fixtures once per test
// binary (Shared: e.g. a world crawled with readmodeltest.Crawl and a server over it, shared by
// a package's parallel tests).
//
// A package using Shared needs a TestMain:
//
//	func TestMain(m *testing.M) { apitest.Main(m) }
//
// Every helper takes the calling test's testing.TB, so a shared Server serves parallel tests.
// It must not be imported by non-test code.
package apitest

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/account"
	"github.com/planehq/hiringsignal/api/deliveries"
	"github.com/planehq/hiringsignal/api/watches"
	"github.com/planehq/hiringsignal/api/webhooks"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// Quiet is a logger that drops everything.
func Quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Server is a running API server and the Postgres schema behind it.
type Server struct {
	API  *api.Server
	Pool *pgxpool.Pool
	Base string         // http://host:port
	Box  *secretbox.Box // the webhook secret box (Options.Push), nil without push routes
	// Listener is the server's Postgres listener: hand it to whatever else of the same process
	// a test runs beside the server (a dispatcher).
	Listener *pglisten.Listener

	doc *servedDocument // /openapi.json as this server serves it, read once (Conforms)
}

// Options shape StartServer's server. The zero value is an API server with the account routes
// on a fresh schema.
type Options struct {
	// DB names the package's Postgres test database (storetest.Postgres); default "api".
	DB string
	// Pool is the schema to serve from (e.g. a second instance on one schema); nil: a fresh one.
	Pool *pgxpool.Pool
	// Config adjusts the configuration before the server is built.
	Config func(*api.Config)
	// NoAccount leaves out the account routes (whoami, keys, usage, ...), e.g. for the account
	// package's own tests, which register them with their Deps.
	NoAccount bool
	// Register installs handler packages' routes (companies.Register, search.Register, ...);
	// pool is the server's Postgres.
	Register func(srv *api.Server, pool *pgxpool.Pool)
	// Push, when set, installs the webhook, watch and delivery routes (api/webhooks, api/watches,
	// api/deliveries).
	Push *Push
}

// Push configures the webhook, watch and delivery routes of a test server.
type Push struct {
	Box       *secretbox.Box    // seals webhook secrets; nil: a box with a fresh key (Server.Box)
	Egress    egress.Policy     // the URL policy; set LookupNetIP to answer without DNS
	Snapshots watches.Snapshots // companies a watch may name; nil: none
}

// StartServer builds and starts an API server on 127.0.0.1 with a quiet log, a Postgres
// listener of its own (each server is a process of its own), a metering log in a temporary
// directory flushing every 50 ms, the public demo key and the account routes; it waits until
// the server takes calls and its key cache is in use, and stops it, then its listener, when tb
// ends. This is the kit's one dependency on how a server is assembled.
func StartServer(tb testing.TB, o Options) *Server {
	tb.Helper()
	if o.DB == "" {
		o.DB = "api"
	}
	pool := o.Pool
	if pool == nil {
		pool = storetest.Postgres(tb, o.DB)
	}
	listener := StartListener(tb, pool)
	cfg := api.Config{Listen: "127.0.0.1:0", Log: Quiet(), Pool: pool, Listener: listener, MeteringDir: tb.TempDir(),
		MeteringFlush: 50 * time.Millisecond, MeteringSyncEvery: 20 * time.Millisecond, DemoKey: api.PublicDemoKey}
	if o.Config != nil {
		o.Config(&cfg)
	}
	srv := api.New(cfg)
	if !o.NoAccount {
		account.Register(srv, account.Deps{Pool: pool, Log: cfg.Log})
	}
	var box *secretbox.Box
	if p := o.Push; p != nil {
		box = p.Box
		if box == nil {
			var err error
			box, err = secretbox.New(secretbox.GenerateKey())
			require.NoError(tb, err)
		}
		webhooks.Register(srv, webhooks.Deps{Pool: pool, Log: cfg.Log, Box: box, Egress: p.Egress})
		watches.Register(srv, watches.Deps{Pool: pool, Log: cfg.Log, Box: box, Egress: p.Egress, Snapshots: p.Snapshots})
		deliveries.Register(srv, deliveries.Deps{Pool: pool, Log: cfg.Log})
	}
	if o.Register != nil {
		o.Register(srv, pool)
	}
	require.NoError(tb, srv.Start(context.Background()))
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Stop(ctx)
	})
	require.NoError(tb, srv.StoresReady(context.Background()))
	require.Eventually(tb, srv.AuthListening, 5*time.Second, 10*time.Millisecond)
	return &Server{API: srv, Pool: pool, Listener: listener, Base: "http://" + srv.Addr(), Box: box, doc: &servedDocument{}}
}

// StartListener starts a Postgres listener on pool's server (the one of a process: the key
// cache's, the dispatcher's) and stops it when tb ends, after whatever tb started later.
func StartListener(tb testing.TB, pool *pgxpool.Pool) *pglisten.Listener {
	tb.Helper()
	l := pglisten.New(pglisten.Config{ConnConfig: pool.Config().ConnConfig, Log: Quiet()})
	require.NoError(tb, l.Start(context.Background()))
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(tb, l.Stop(ctx))
	})
	return l
}

var accounts atomic.Int64

// Account creates an account on plan (free, starter, growth, ...) and returns it with its key.
// Every call makes a new account, so tests sharing a server do not share quotas or usage.
func (s *Server) Account(tb testing.TB, plan string) oltp.NewAccount {
	tb.Helper()
	email := fmt.Sprintf("%s-%d-%d@example.com", plan, time.Now().UnixNano(), accounts.Add(1))
	a, err := oltp.CreateAccount(context.Background(), s.Pool, plan, email)
	require.NoError(tb, err)
	return a
}

// SourceRows is the source_row units metered to key's customer in the last 24 hours, once
// everything this server metered reached Postgres.
func (s *Server) SourceRows(tb testing.TB, key string) int {
	tb.Helper()
	require.NoError(tb, s.API.FlushUsage(context.Background()))
	var u struct {
		SourceRows int `json:"source_rows"`
	}
	s.Get(tb, "/v1/usage", key, nil).Decode(tb, 200, &u)
	return u.SourceRows
}

// Clock is a settable wall clock for handlers' Now (the zero Clock reads the Unix epoch).
type Clock struct{ unix atomic.Int64 }

// Now is the clock's time (whole seconds, UTC).
func (c *Clock) Now() time.Time { return time.Unix(c.unix.Load(), 0).UTC() }

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) { c.unix.Store(t.Unix()) }
