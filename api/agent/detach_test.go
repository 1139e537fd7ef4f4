package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
)

type probeKey struct{}

// The SDK must not be handed the fasthttp request as its context: the server reuses it once the
// handler returns, and the SDK's cancellation goroutines may read it later (CI's race detector
// caught one reading RequestCtx.Done while the server shut down). It gets a context of its own
// that carries the caller and ends with the request.
func TestTheSDKServesAContextDetachedFromTheFasthttpRequest(t *testing.T) {
	t.Parallel()
	var rc fasthttp.RequestCtx
	rc.SetUserValue(probeKey{}, "the fasthttp request")
	who := &api.Presented{Key: "hs_test_key"}
	req := httptest.NewRequest(http.MethodPost, Path, nil).WithContext(api.WithPresented(&rc, who))

	var seen context.Context
	bounded(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Context()
		require.NoError(t, seen.Err(), "the context ended before the SDK answered")
		_, _ = w.Write([]byte(`{}`))
	})).ServeHTTP(httptest.NewRecorder(), req)

	require.NotNil(t, seen)
	got, ok := api.PresentedFrom(seen)
	require.True(t, ok, "the tool handlers find the caller in the SDK's context")
	require.Same(t, who, got)
	require.Nil(t, seen.Value(probeKey{}), "the SDK's context reaches the fasthttp request")
	require.ErrorIs(t, seen.Err(), context.Canceled, "the SDK's context outlives the request")
}
