package plans_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/plans"
)

// Every tier has a live-watch allowance: the bundle's (spec 8.1), or ours where the spec shows
// no bundle.
func TestLiveWatchAllowance(t *testing.T) {
	t.Parallel()
	want := map[string]int{"free": 3, "trial": 5, "starter": 5, "growth": 25, "enterprise": 100}
	for _, tier := range plans.All() {
		require.Equal(t, want[tier.Plan], tier.LiveWatchAllowance(), tier.Plan)
	}
	require.Len(t, plans.All(), len(want))
}
