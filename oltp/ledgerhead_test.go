package oltp_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// TestALedgerHeadHandsEachPositionOutOnce: positions are handed out only from the committed
// head with nothing pending; a pending write stays until Done moves the head past it; a head is
// adopted from ClickHouse only upwards and never over a pending write.
func TestALedgerHeadHandsEachPositionOutOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := oltp.LedgerHeads{Pool: storetest.Postgres(t, "oltp"), Ledger: "hs_ledger"}
	_, known, _, err := h.Head(ctx)
	require.NoError(t, err)
	require.False(t, known)
	require.NoError(t, h.Adopt(ctx, 10))

	ok, err := h.Hand(ctx, 10, 15, "na", 900, []byte("write 11-15"))
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = h.Hand(ctx, 10, 12, "eu", 900, []byte("another from the same head"))
	require.NoError(t, err)
	require.False(t, ok, "positions 11-15 are handed out: none of them again")
	require.NoError(t, h.Adopt(ctx, 15))
	head, _, pending, err := h.Head(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(10), head, "no head is adopted over a pending write")
	require.Equal(t, []byte("write 11-15"), pending)

	require.NoError(t, h.Done(ctx, 15))
	head, _, pending, err = h.Head(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(15), head)
	require.Nil(t, pending)
	ok, err = h.Hand(ctx, 10, 12, "eu", 900, []byte("from an old head"))
	require.NoError(t, err)
	require.False(t, ok, "the head moved past 10")

	require.NoError(t, h.Adopt(ctx, 12))
	head, _, _, err = h.Head(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(15), head, "a lower head is never adopted")
	require.NoError(t, h.Adopt(ctx, 20))
	head, _, _, err = h.Head(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(20), head, "ClickHouse's higher acknowledged head is")

	ok, err = h.Hand(ctx, 20, 20, "eu", 901, []byte("an empty cycle"))
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, h.Done(ctx, 20))
	_, _, pending, err = h.Head(ctx)
	require.NoError(t, err)
	require.Nil(t, pending)
}
