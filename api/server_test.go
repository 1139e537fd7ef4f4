package api_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
)

func TestStartOnATakenPortNamesThePortAndTheFlag(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	srv := api.New(api.Config{Listen: ln.Addr().String(), Log: slog.New(slog.DiscardHandler)})
	err = srv.Start(context.Background())
	require.ErrorContains(t, err, ln.Addr().String())
	require.ErrorContains(t, err, "--listen")
	require.NoError(t, srv.Stop(context.Background()))
}

// The server follows the lifecycle contract: Stop before Start and a second Stop do nothing, a
// second Start does nothing, and a stopped server does not start again.
func TestServerStartAndStopAreIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := api.New(api.Config{Listen: "127.0.0.1:0", Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, srv.Stop(ctx))
	require.NoError(t, srv.Start(ctx))
	addr := srv.Addr()
	require.NoError(t, srv.Start(ctx))
	require.Equal(t, addr, srv.Addr(), "a second Start keeps the running server")
	require.NoError(t, srv.Stop(ctx))
	require.NoError(t, srv.Stop(ctx))
	require.Error(t, srv.Start(ctx))
	_, err := net.Dial("tcp", addr)
	require.Error(t, err, "stopped: nothing listens any more")
}

// A route is registered with its handler or not at all.
func TestRegisterRefusesARouteWithoutHandler(t *testing.T) {
	t.Parallel()
	srv := api.New(api.Config{})
	require.Panics(t, func() { srv.Register(&api.Route{Name: "x", Method: "GET", Path: "/v1/x"}) })
	ok := &api.Route{Name: "x", Method: "GET", Path: "/v1/x", Handler: func(c *api.Call) (int, error) { return 0, c.NoContent() }}
	srv.Register(ok)
	require.Panics(t, func() { srv.Register(ok) }, "a name registered twice")
}

// A check that hangs does not use up the others' time: only it is named.
func TestReadyzGivesEachCheckItsOwnDeadline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hang := func(c context.Context) error { <-c.Done(); return c.Err() }
	srv := api.New(api.Config{Listen: "127.0.0.1:0", Log: slog.New(slog.DiscardHandler), Checks: []api.Check{
		{Name: "postgres", Ping: hang},
		{Name: "clickhouse", Ping: func(c context.Context) error {
			<-time.After(100 * time.Millisecond) // answers, after the hanging check started
			return c.Err()
		}},
	}})
	require.NoError(t, srv.Start(ctx))
	defer func() { require.NoError(t, srv.Stop(ctx)) }()
	r, err := http.Get("http://" + srv.Addr() + "/readyz")
	require.NoError(t, err)
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
	require.Contains(t, string(b), "postgres")
	require.NotContains(t, string(b), "clickhouse")
}
