package main

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// Two serve instances on one Postgres: each serves, but one runs the notifier and one the
// janitor's shared sweeps (each the holder of its lease, hs_leader{role} 1); when the holder of
// the notifier lease is killed (SIGKILL: nothing released), the other takes the lease over once
// it lapses, with a larger fencing token.
func TestTwoServeInstancesRunOneNotifierAndOneJanitor(t *testing.T) {
	t.Parallel()
	pg := storetest.PostgresURL(t, "cmd_instances")
	opts := storetest.ClickHouseOptions(t, "cmd_instances")
	env := []string{"HS_POSTGRES_URL=" + pg, "HS_CLICKHOUSE_ADDR=" + opts.Addr}
	serve := func() (*proc, string) {
		listen := freePort(t)
		p := start(t, env, "serve", "--listen", listen, "--clickhouse-database", opts.Database, "--metering-dir", t.TempDir(),
			"--webhook-secret-keys", testSecretKeys, "--lease-ttl", "1500ms")
		requireReady(t, listen, 2*time.Minute)
		return p, "http://" + listen + "/metrics"
	}
	a, am := serve()
	b, bm := serve()

	holds := func(m, role string) bool { return metricsHave(t, m, `hs_leader{role="`+role+`"} 1`) }
	for _, role := range []string{oltp.RoleNotifier, oltp.RoleJanitor} {
		require.Eventually(t, func() bool { return holds(am, role) || holds(bm, role) }, time.Minute, 50*time.Millisecond, "someone holds the %s lease", role)
		require.False(t, holds(am, role) && holds(bm, role), "one instance at a time holds the %s lease", role)
	}
	holder, other, om := a, b, bm
	if holds(bm, oltp.RoleNotifier) {
		holder, other, om = b, a, am
	}
	pool, err := oltp.Open(context.Background(), pg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	before, err := oltp.ReadLease(context.Background(), pool, oltp.RoleNotifier)
	require.NoError(t, err)

	require.NoError(t, holder.cmd.Process.Kill())
	<-holder.done
	require.Eventually(t, func() bool { return holds(om, oltp.RoleNotifier) }, time.Minute, 50*time.Millisecond, "the other instance takes the notifier over")
	after, err := oltp.ReadLease(context.Background(), pool, oltp.RoleNotifier)
	require.NoError(t, err)
	require.Greater(t, after.Token, before.Token)
	require.NotEqual(t, before.Owner, after.Owner)
	other.waitFor(t, regexp.MustCompile(`lease taken: this instance runs the part.*role=notifier`), time.Minute)
	other.stop(t)
}
