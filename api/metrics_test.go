package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/VictoriaMetrics/metrics"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
)

// An operator sees calls per route and status, their latencies, and the process's own metrics.
func TestMetricsCountCallsPerRouteAndStatus(t *testing.T) {
	t.Parallel()
	set := metrics.NewSet()
	srv := api.New(api.Config{Listen: "127.0.0.1:0", Metrics: set, Log: slog.New(slog.DiscardHandler)})
	srv.Register(&api.Route{Name: "probe.get", Method: "GET", Path: "/v1/probe",
		Handler: func(c *api.Call) (int, error) { return 0, c.NoContent() }})
	ctx := context.Background()
	require.NoError(t, srv.Start(ctx))
	defer func() { require.NoError(t, srv.Stop(ctx)) }()
	base := "http://" + srv.Addr()
	for range 3 {
		r, err := http.Get(base + "/v1/probe") // no Postgres configured: 503 from the chain
		require.NoError(t, err)
		r.Body.Close()
		require.Equal(t, http.StatusServiceUnavailable, r.StatusCode)
	}
	r, err := http.Get(base + "/metrics")
	require.NoError(t, err)
	defer r.Body.Close()
	require.Equal(t, http.StatusOK, r.StatusCode)
	body, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	require.Contains(t, string(body), `hs_http_requests_total{route="probe.get",status="503"} 3`)
	require.Contains(t, string(body), `hs_http_request_duration_seconds_bucket{route="probe.get",le="`)
	require.Contains(t, string(body), "go_goroutines")
}
