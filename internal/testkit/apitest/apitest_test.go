package apitest_test

import (
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

type whoami struct {
	CustomerID string `json:"customer_id"`
	AccountID  int64  `json:"account_id"`
	KeyID      int64  `json:"key_id"`
	Demo       bool   `json:"demo"`
}

var builds atomic.Int32

var shared = apitest.NewShared("apitest", func(tb testing.TB) *apitest.Server {
	builds.Add(1)
	return apitest.StartServer(tb, apitest.Options{DB: "apitest"})
})

func TestSharedServerIsBuiltOnceForParallelTests(t *testing.T) {
	t.Run("group", func(t *testing.T) {
		for _, plan := range []string{"free", "starter", "growth"} {
			t.Run(plan, func(t *testing.T) {
				t.Parallel()
				srv := shared.Get(t)
				a := srv.Account(t, plan)
				w := apitest.GetJSON[whoami](t, srv, "/v1/whoami", a.Key, nil, 200)
				require.Equal(t, a.AccountID, w.AccountID)
				require.Equal(t, a.KeyID, w.KeyID)
				require.False(t, w.Demo)
			})
		}
	})
	require.Equal(t, int32(1), builds.Load())
}

func TestStartServerKeysAndErrors(t *testing.T) {
	t.Parallel()
	srv := apitest.StartServer(t, apitest.Options{DB: "apitest"})
	require.True(t, apitest.GetJSON[whoami](t, srv, "/v1/whoami", api.PublicDemoKey, nil, 200).Demo)
	require.Equal(t, 401, srv.Get(t, "/v1/whoami", "", nil).Status)
	a := srv.Account(t, "growth")
	require.Zero(t, srv.SourceRows(t, a.Key))
	r := srv.Get(t, "/v1/usage", a.Key, url.Values{"window": {"0"}})
	require.Equal(t, []string{"query.window"}, r.Invalid(t).Locs())
	var p apitest.Problem
	srv.Get(t, "/v1/nope", a.Key, nil).Decode(t, 404, &p)
	require.NotEmpty(t, p.Detail)
}
