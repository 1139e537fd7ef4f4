package devstack_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/devstack"
)

// A primary and its standby: a row written on the primary is read on the standby, which refuses
// writes; once the primary is stopped and the standby promoted, the multi-host URL reaches the
// promoted server and it takes writes, with the row.
func TestAPostgresPairStreamsAndFailsOver(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two Postgres servers of its own")
	}
	t.Parallel()
	ctx := context.Background()
	dir, err := os.MkdirTemp("/var/tmp", "hs-pgpair-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	p := &devstack.PostgresPair{Dir: dir, PrimaryPort: freePort(t), StandbyPort: freePort(t)}
	t.Cleanup(func() {
		require.NoError(t, p.Down(context.Background()))
		_ = os.RemoveAll(dir)
	})
	require.NoError(t, p.Up(ctx))

	at := func(port int) *pgx.Conn {
		c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, devstack.Database))
		require.NoError(t, err)
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	primary := at(p.PrimaryPort)
	_, err = primary.Exec(ctx, "CREATE TABLE t (v int); INSERT INTO t VALUES (1)")
	require.NoError(t, err)
	standby := at(p.StandbyPort)
	require.Eventually(t, func() bool {
		var n int
		return standby.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n) == nil && n == 1
	}, 30*time.Second, 50*time.Millisecond, "the standby replays the primary's row")
	_, err = standby.Exec(ctx, "INSERT INTO t VALUES (2)")
	require.Error(t, err, "a standby refuses writes")

	require.NoError(t, p.StopPrimary(ctx))
	require.NoError(t, p.Promote(ctx))
	c, err := pgx.Connect(ctx, p.URL())
	require.NoError(t, err)
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "INSERT INTO t VALUES (2)")
	require.NoError(t, err, "the URL reaches the promoted standby, which takes writes")
	var n int
	require.NoError(t, c.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n))
	require.Equal(t, 2, n)
}
