package oltp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

const (
	secretA = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	secretB = "whsec_dGhpcyBpcyBhbm90aGVyIHNlY3JldCBvZiAyNCs="
)

func TestMigrationNumberedBelowAnAppliedOneIsApplied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	// A database migrated before 0008 to 0010 existed, but with 0020 applied (0031, the endpoints'
	// kinds, builds on 0008, so it goes too).
	_, err := pool.Exec(ctx, `DROP TABLE email_digests, webhook_delivery_attempts, webhook_deliveries, notifier_position, watch_fires, watches, webhook_endpoints;
		DELETE FROM schema_migrations WHERE version IN (8, 9, 10, 31)`)
	require.NoError(t, err)
	require.NoError(t, oltp.Migrate(ctx, pool, nil))
	v, err := oltp.AppliedVersions(ctx, pool)
	require.NoError(t, err)
	require.Contains(t, v, 8)
	require.Contains(t, v, 9)
	require.Contains(t, v, 10)
	require.Contains(t, v, 20)
	require.Contains(t, v, 31)
	var ok bool
	require.NoError(t, pool.QueryRow(ctx, "SELECT to_regclass('watch_fires') IS NOT NULL").Scan(&ok))
	require.True(t, ok)
}

func TestRegisterEndpointIsIdempotentPerCustomerAndURL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a, b := account(t, pool, "free"), account(t, pool, "free")
	url := "https://hooks.example.com/a"

	e1, created, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, url, oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	require.True(t, created)
	e2, created, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, url, oltp.EndpointSecret{Secret: secretB})
	require.NoError(t, err)
	require.False(t, created, "a generated secret is dropped when the url is registered")
	require.Equal(t, e1.ID, e2.ID)
	_, _, err = oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, url, oltp.EndpointSecret{Secret: secretA, Sent: true})
	require.NoError(t, err, "the same secret again")
	_, _, err = oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, url, oltp.EndpointSecret{Secret: secretB, Sent: true})
	require.ErrorIs(t, err, oltp.ErrSecretMismatch)

	eb, created, err := oltp.RegisterEndpoint(ctx, pool, box, b.CustomerID, url, oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	require.True(t, created)
	require.NotEqual(t, e1.ID, eb.ID, "another customer gets its own endpoint")

	list, err := oltp.ListEndpoints(ctx, pool, a.CustomerID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, e1.ID, list[0].ID)

	// The secret is sealed, bound to its row.
	var n int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM webhook_endpoints e WHERE position($1 in e::text) > 0 OR position(convert_to($1, 'UTF8') in secret_sealed) > 0",
		secretA).Scan(&n))
	require.Zero(t, n, "no column holds the secret in plain text")
	_, err = pool.Exec(ctx, "UPDATE webhook_endpoints SET secret_sealed = (SELECT secret_sealed FROM webhook_endpoints WHERE endpoint_id = $1) WHERE endpoint_id = $2", e1.ID, eb.ID)
	require.NoError(t, err)
	_, err = oltp.SigningSecrets(ctx, pool, box, eb.ID, time.Now())
	require.Error(t, err, "a sealed secret copied to another row does not open")
}

func TestEndpointsPerCustomerAreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a := account(t, pool, "growth")
	for i := 0; i < oltp.MaxLiveEndpoints; i++ {
		_, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://h.example.com/"+itoa(int64(i)), oltp.EndpointSecret{Secret: secretA})
		require.NoError(t, err)
	}
	_, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://h.example.com/more", oltp.EndpointSecret{Secret: secretA})
	require.ErrorIs(t, err, oltp.ErrTooManyEndpoints)
	list, err := oltp.ListEndpoints(ctx, pool, a.CustomerID)
	require.NoError(t, err)
	require.Len(t, list, oltp.MaxLiveEndpoints)
	require.Greater(t, list[0].ID, list[1].ID, "newest first")
	require.NoError(t, oltp.DeleteEndpoint(ctx, pool, a.CustomerID, list[0].ID))
	_, created, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://h.example.com/more", oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	require.True(t, created)
}

func TestRotateKeepsThePreviousSecretForTheOverlap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a, other := account(t, pool, "free"), account(t, pool, "free")
	e, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://hooks.example.com/r", oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	now := time.Now()
	s, err := oltp.SigningSecrets(ctx, pool, box, e.ID, now)
	require.NoError(t, err)
	require.Equal(t, []string{secretA}, s)

	_, err = oltp.RotateEndpointSecret(ctx, pool, box, other.CustomerID, e.ID, secretB, time.Hour)
	require.ErrorIs(t, err, oltp.ErrNotFound, "another customer's endpoint")
	r, err := oltp.RotateEndpointSecret(ctx, pool, box, a.CustomerID, e.ID, secretB, time.Hour)
	require.NoError(t, err)
	require.NotNil(t, r.SecretRotatedAt)
	require.NotNil(t, r.PreviousSecretExpiresAt)
	require.WithinDuration(t, r.SecretRotatedAt.Add(time.Hour), *r.PreviousSecretExpiresAt, time.Second)

	s, err = oltp.SigningSecrets(ctx, pool, box, e.ID, *r.SecretRotatedAt)
	require.NoError(t, err)
	require.Equal(t, []string{secretB, secretA}, s, "both sign during the overlap, the new one first")
	s, err = oltp.SigningSecrets(ctx, pool, box, e.ID, r.PreviousSecretExpiresAt.Add(time.Second))
	require.NoError(t, err)
	require.Equal(t, []string{secretB}, s, "only the new one after it")

	// No overlap: the previous secret stops at once.
	r, err = oltp.RotateEndpointSecret(ctx, pool, box, a.CustomerID, e.ID, secretA, 0)
	require.NoError(t, err)
	s, err = oltp.SigningSecrets(ctx, pool, box, e.ID, *r.SecretRotatedAt)
	require.NoError(t, err)
	require.Equal(t, []string{secretA}, s)
}

func TestDeleteEndpointRefusesWhileWatchesUseIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a, other := account(t, pool, "free"), account(t, pool, "free")
	e, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://hooks.example.com/d", oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	w := newWatch(a, e.ID)
	watch, _, _, err := oltp.CreateWatch(ctx, pool, box, w)
	require.NoError(t, err)

	require.ErrorIs(t, oltp.DeleteEndpoint(ctx, pool, other.CustomerID, e.ID), oltp.ErrNotFound)
	require.ErrorIs(t, oltp.DeleteEndpoint(ctx, pool, a.CustomerID, 999999), oltp.ErrNotFound)
	var inUse *oltp.EndpointInUseError
	require.True(t, errors.As(oltp.DeleteEndpoint(ctx, pool, a.CustomerID, e.ID), &inUse))
	require.Equal(t, []int64{watch.ID}, inUse.WatchIDs)

	require.NoError(t, oltp.CancelWatch(ctx, pool, a.CustomerID, watch.ID))
	require.NoError(t, oltp.DeleteEndpoint(ctx, pool, a.CustomerID, e.ID))
	require.NoError(t, oltp.DeleteEndpoint(ctx, pool, a.CustomerID, e.ID), "again: a no-op")
	list, err := oltp.ListEndpoints(ctx, pool, a.CustomerID)
	require.NoError(t, err)
	require.Empty(t, list)
	_, _, _, err = oltp.CreateWatch(ctx, pool, box, w)
	require.ErrorIs(t, err, oltp.ErrEndpointNotFound, "a deleted endpoint takes no watch")
	_, err = oltp.RotateEndpointSecret(ctx, pool, box, a.CustomerID, e.ID, secretB, time.Hour)
	require.ErrorIs(t, err, oltp.ErrNotFound, "a deleted endpoint is not rotated")
}
