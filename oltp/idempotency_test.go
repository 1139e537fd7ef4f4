package oltp_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// A pending claim stays its owner's while the owner renews it; once the owner stops (it died
// mid-call), the next call with the same key and request, on another instance, takes it over.
// The old owner can then neither store its answer over the new owner's claim nor release it.
func TestAnIdempotencyClaimWhoseOwnerStopsRenewingIsTakenOver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	a := oltp.Claimant{ID: "instance-a", Lease: time.Hour}
	b := oltp.Claimant{ID: "instance-b", Lease: time.Hour}
	claim := func(who oltp.Claimant, hash string) oltp.Claim {
		t.Helper()
		c, err := oltp.ClaimIdempotency(ctx, pool, who, "cus_1", "key-1", []byte(hash))
		require.NoError(t, err)
		return c
	}
	lapse := func() { // the lease runs out: as much time passed as a's lease since its last renewal
		t.Helper()
		_, err := pool.Exec(ctx, "UPDATE idempotency_keys SET claimed_until = now() - interval '1 second' WHERE idem_key = 'key-1'")
		require.NoError(t, err)
	}
	require.Equal(t, oltp.ClaimNew, claim(a, "h").State)
	require.Equal(t, oltp.ClaimPending, claim(b, "h").State)
	lapse()
	require.NoError(t, oltp.RenewIdempotencyClaims(ctx, pool, a, []oltp.IdempotencyClaimKey{{CustomerID: "cus_1", Key: "key-1"}}))
	require.Equal(t, oltp.ClaimPending, claim(b, "h").State, "a renewed its claim in time: b waits")
	require.Equal(t, oltp.ClaimMismatch, claim(b, "other").State, "another request never takes a claim over")

	lapse() // a stopped renewing
	c := claim(b, "h")
	require.Equal(t, oltp.ClaimTakenOver, c.State)
	require.Equal(t, "instance-a", c.From)
	require.Equal(t, oltp.ClaimPending, claim(a, "h").State, "now b's, and b's lease runs")

	resp := oltp.StoredResponse{Status: 200, ContentType: "application/json", Body: []byte(`{"from":"a"}`)}
	bounds := oltp.IdempotencyBounds{Body: 1 << 20, Customer: 1 << 20}
	_, err := oltp.CompleteIdempotency(ctx, pool, a, "cus_1", "key-1", resp, bounds)
	require.ErrorContains(t, err, "taken over", "a's late answer is not stored")
	require.NoError(t, oltp.ReleaseIdempotency(ctx, pool, a, "cus_1", "key-1"))
	require.Equal(t, oltp.ClaimPending, claim(a, "h").State, "a's release left b's claim alone")

	resp.Body = []byte(`{"from":"b"}`)
	kept, err := oltp.CompleteIdempotency(ctx, pool, b, "cus_1", "key-1", resp, bounds)
	require.NoError(t, err)
	require.True(t, kept)
	done := claim(a, "h")
	require.Equal(t, oltp.ClaimDone, done.State)
	require.JSONEq(t, `{"from":"b"}`, string(done.Stored.Body))
}

// A claim written without an owner or a lease (by an instance of an earlier release during a
// rolling deploy) lapses 30 s after it was claimed and can be taken over then.
func TestAClaimOfAnEarlierReleaseLapsesAfterThirtySeconds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "oltp")
	_, err := pool.Exec(ctx, `INSERT INTO idempotency_keys (customer_id, idem_key, request_hash) VALUES ('cus_1', 'fresh', 'h'), ('cus_1', 'old', 'h')`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE idempotency_keys SET created_at = now() - interval '31 seconds', claimed_until = NULL WHERE idem_key = 'old'`)
	require.NoError(t, err)
	me := oltp.Claimant{ID: "instance-b"}
	c, err := oltp.ClaimIdempotency(ctx, pool, me, "cus_1", "fresh", []byte("h"))
	require.NoError(t, err)
	require.Equal(t, oltp.ClaimPending, c.State)
	c, err = oltp.ClaimIdempotency(ctx, pool, me, "cus_1", "old", []byte("h"))
	require.NoError(t, err)
	require.Equal(t, oltp.ClaimTakenOver, c.State)
	require.Empty(t, c.From)
}
