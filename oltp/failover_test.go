package oltp_test

import (
	"context"
	"errors"
	"io"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// A URL naming several hosts keeps connections only on the one that takes writes (read-write
// unless it says primary) and gives a silent host up after ConnectTimeout; a target that may
// pick a standby is refused, since every connection of the service writes.
func TestAMultiHostURLConnectsOnlyToThePrimary(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := oltp.Open(ctx, "postgres://u@pg-a:5432,pg-b:5433/hs?sslmode=disable")
	require.NoError(t, err)
	defer pool.Close()
	cc := pool.Config().ConnConfig
	require.Equal(t, reflect.ValueOf(pgconn.ValidateConnectTargetSessionAttrsReadWrite).Pointer(), reflect.ValueOf(cc.ValidateConnect).Pointer(),
		"target_session_attrs=read-write by default")
	require.Equal(t, oltp.ConnectTimeout, cc.ConnectTimeout)
	require.Len(t, cc.Fallbacks, 1)

	pool, err = oltp.Open(ctx, "postgres://u@pg-a:5432,pg-b:5433/hs?sslmode=disable&target_session_attrs=primary&connect_timeout=7")
	require.NoError(t, err)
	defer pool.Close()
	require.Equal(t, 7*time.Second, pool.Config().ConnConfig.ConnectTimeout, "the URL's connect_timeout wins")

	for _, tsa := range []string{"read-only", "standby", "prefer-standby"} {
		_, err := oltp.Open(ctx, "postgres://u@pg-a:5432,pg-b:5433/hs?sslmode=disable&target_session_attrs="+tsa)
		require.ErrorContains(t, err, "target_session_attrs=read-write", tsa)
	}
	pool, err = oltp.Open(ctx, "postgres://u@pg-a:5432/hs?sslmode=disable")
	require.NoError(t, err)
	defer pool.Close()
	require.Nil(t, pool.Config().ConnConfig.ValidateConnect, "one host: nothing to choose")
}

// A statement refused because its server is read-only (a standby, or an old primary fenced with
// default_transaction_read_only during a switch) is Unavailable and resets the pool, so the next
// statement connects afresh through the host list instead of reusing sessions on that server.
func TestAReadOnlyServerIsUnavailableAndResetsThePool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u, err := url.Parse(storetest.PostgresURL(t, "oltp"))
	require.NoError(t, err)
	u.RawQuery += "&options=-c%20default_transaction_read_only%3Don"
	pool, err := oltp.Open(ctx, u.String())
	require.NoError(t, err)
	defer pool.Close()
	_, err = pool.Exec(ctx, "CREATE TABLE written_on_a_standby (x int)")
	var pe *pgconn.PgError
	require.ErrorAs(t, err, &pe, "%v", err)
	require.Equal(t, "25006", pe.Code)
	require.True(t, oltp.Unavailable(err))
	require.Eventually(t, func() bool { return pool.Stat().TotalConns() == 0 }, 10*time.Second, 5*time.Millisecond,
		"the pool dropped its sessions on the read-only server")
}

// What Unavailable calls a store that may answer soon, and what it leaves to the caller.
func TestUnavailableTellsASwitchFromAFault(t *testing.T) {
	t.Parallel()
	for _, err := range []error{
		&pgconn.PgError{Code: "25006"}, &pgconn.PgError{Code: "57P01"}, &pgconn.PgError{Code: "08006"}, &pgconn.PgError{Code: "53300"},
		io.ErrUnexpectedEOF,
	} {
		require.True(t, oltp.Unavailable(err), "%v", err)
	}
	for _, err := range []error{
		nil, &pgconn.PgError{Code: "23505"}, &pgconn.PgError{Code: "42P01"}, context.DeadlineExceeded, context.Canceled, errors.New("cannot decode"),
	} {
		require.False(t, oltp.Unavailable(err), "%v", err)
	}
}
