package oltp_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// Revoked keys, deleted endpoints and canceled watches stayed for ever: PruneRetired deletes those
// past their retention that nothing names, and keeps the rest.
func TestPruneRetiredDeletesOnlyUnnamedRowsPastRetention(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	box := testBox(t)
	a := account(t, pool, "free")
	parent := keyAuth(t, pool, a.Key)
	exists := func(table, col string, id int64) bool {
		t.Helper()
		return rows(t, pool, "SELECT count(*) FROM "+table+" WHERE "+col+" = $1", id) == 1
	}

	// A quickstart whose watch was canceled, with a fire, on an endpoint deleted since.
	qw := newWatch(a, 0)
	qw.Inline = &oltp.InlineEndpoint{URL: "https://hooks.example.com/q", Secret: oltp.EndpointSecret{Secret: secretA}}
	q, err := oltp.Quickstart(ctx, pool, box, qw)
	require.NoError(t, err)
	require.NoError(t, oltp.RecordWatchFire(ctx, pool, q.Watch.ID, time.Now(), 0))
	require.NoError(t, oltp.CancelWatch(ctx, pool, a.CustomerID, q.Watch.ID))
	require.NoError(t, oltp.DeleteEndpoint(ctx, pool, a.CustomerID, q.Endpoint.ID))
	// A deleted endpoint a delivery names.
	named, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://hooks.example.com/named", oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	_, err = oltp.CreateTestDelivery(ctx, pool, oltp.NewTestDelivery{CustomerID: a.CustomerID, AccountID: a.AccountID, EndpointID: named.ID,
		Payload: payload.TestDelivery(named.ID)}, func(oltp.TestFacts) error { return nil })
	require.NoError(t, err)
	require.NoError(t, oltp.DeleteEndpoint(ctx, pool, a.CustomerID, named.ID))
	// A watch canceled recently, on a live endpoint.
	live, _, err := oltp.RegisterEndpoint(ctx, pool, box, a.CustomerID, "https://hooks.example.com/live", oltp.EndpointSecret{Secret: secretA})
	require.NoError(t, err)
	recent, _, _, err := oltp.CreateWatch(ctx, pool, box, newWatch(a, live.ID))
	require.NoError(t, err)
	require.NoError(t, oltp.CancelWatch(ctx, pool, a.CustomerID, recent.ID))
	// A revoked key nothing names; one a watch names; one rotated (its replacement names it).
	loose, err := oltp.IssueKey(ctx, pool, parent, []string{"read"})
	require.NoError(t, err)
	require.NoError(t, oltp.RevokeKey(ctx, pool, a.CustomerID, loose.KeyID, "t"))
	watcher, err := oltp.IssueKey(ctx, pool, parent, []string{"write"})
	require.NoError(t, err)
	kw := newWatch(a, live.ID)
	kw.KeyID = watcher.KeyID
	_, _, _, err = oltp.CreateWatch(ctx, pool, box, kw)
	require.NoError(t, err)
	require.NoError(t, oltp.RevokeKey(ctx, pool, a.CustomerID, watcher.KeyID, "t"))
	rotated, err := oltp.IssueKey(ctx, pool, parent, []string{"read"})
	require.NoError(t, err)
	_, err = oltp.RotateKey(ctx, pool, a.CustomerID, rotated.KeyID, nil, oltp.DefaultScopes, "t")
	require.NoError(t, err)

	// Everything retired 200 days ago, but the recent watch.
	for _, q := range []string{
		"UPDATE api_keys SET revoked_at = now() - interval '200 days' WHERE customer_id = $1 AND revoked_at IS NOT NULL",
		"UPDATE webhook_endpoints SET deleted_at = now() - interval '200 days' WHERE customer_id = $1 AND deleted_at IS NOT NULL",
		"UPDATE watches SET canceled_at = now() - interval '200 days' WHERE customer_id = $1 AND canceled_at IS NOT NULL AND watch_id <> " + itoa(recent.ID),
	} {
		_, err := pool.Exec(ctx, q, a.CustomerID)
		require.NoError(t, err)
	}
	p, err := oltp.PruneRetired(ctx, pool, time.Now())
	require.NoError(t, err)
	require.GreaterOrEqual(t, p.Watches, int64(1))

	require.False(t, exists("watches", "watch_id", q.Watch.ID), "canceled past retention")
	require.False(t, exists("watch_fires", "watch_id", q.Watch.ID), "with its fires")
	require.Zero(t, rows(t, pool, "SELECT count(*) FROM quickstarts WHERE customer_id = $1", a.CustomerID), "its quickstart")
	require.False(t, exists("webhook_endpoints", "endpoint_id", q.Endpoint.ID), "deleted past retention once its watch is gone")
	require.True(t, exists("webhook_endpoints", "endpoint_id", named.ID), "a delivery names it")
	require.True(t, exists("watches", "watch_id", recent.ID), "canceled within the retention")
	require.True(t, exists("webhook_endpoints", "endpoint_id", live.ID))
	require.False(t, exists("api_keys", "key_id", loose.KeyID), "revoked past retention")
	require.True(t, exists("api_keys", "key_id", watcher.KeyID), "a watch names it")
	require.True(t, exists("api_keys", "key_id", rotated.KeyID), "its replacement names it")
	require.True(t, exists("api_keys", "key_id", a.KeyID), "live")

	// The quickstart of the url is a new one again, and GET /v1/keys lists what is left.
	_, err = oltp.Quickstart(ctx, pool, box, qw)
	require.NoError(t, err)
	keys, _, err := oltp.ListKeys(ctx, pool, a.CustomerID, oltp.KeyPage{Limit: 100})
	require.NoError(t, err)
	require.Len(t, keys, 4)
}
