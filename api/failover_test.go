package api_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/pgproxy"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// A primary switch behind a multi-host URL with target_session_attrs=read-write, played by two
// proxies to one database: host a is the primary, host b the standby (down). The switch closes
// every connection and leaves a read-only (the old primary, fenced) with b not yet promoted:
// calls that need Postgres answer 503 with Retry-After, never 500. Once b answers as the new
// primary the same server recovers with no restart: calls answer 200, the pool and the LISTEN
// connection are on b, and nothing is left on a.
func TestAPrimarySwitchAnswers503ThenRecoversWithoutARestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	direct := storetest.PostgresURL(t, "api")
	u, err := url.Parse(direct)
	require.NoError(t, err)
	migrated, err := oltp.Open(ctx, direct)
	require.NoError(t, err)
	require.NoError(t, oltp.Migrate(ctx, migrated, nil))
	migrated.Close()

	a := pgproxy.Start(t, u.Host, pgproxy.Forward)
	b := pgproxy.Start(t, u.Host, pgproxy.Refuse)
	q := u.Query()
	q.Set("target_session_attrs", "read-write")
	multi := fmt.Sprintf("postgres://%s@%s,%s%s?%s", u.User.String(), a.Addr(), b.Addr(), u.Path, q.Encode())
	pool, err := oltp.Open(ctx, multi)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	h := apitest.StartServer(t, apitest.Options{Pool: pool})
	key := h.Account(t, "starter").Key
	require.Equal(t, 200, h.Get(t, "/v1/usage", key, nil).Status)

	a.Set(pgproxy.ReadOnly) // the primary fenced, its sessions gone; b not promoted yet
	for range 3 {
		r := h.Get(t, "/v1/usage", key, nil)
		require.Equal(t, 503, r.Status, "%s", r.Body)
		require.NotEmpty(t, r.Header["Retry-After"])
	}

	b.Set(pgproxy.Forward) // promoted
	require.Eventually(t, func() bool { return h.Get(t, "/v1/usage", key, nil).Status == 200 }, time.Minute, 50*time.Millisecond,
		"the server recovers without a restart")
	require.Eventually(t, func() bool { return h.Listener.Connected() && h.API.AuthListening() }, time.Minute, 50*time.Millisecond,
		"the LISTEN connection is back, on the new primary")
	require.Eventually(t, func() bool { return a.Live() == 0 }, time.Minute, 50*time.Millisecond, "no connection stays on the old primary")
	require.Positive(t, b.Live())
}
