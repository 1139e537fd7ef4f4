package snapshot

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
)

// An applied commit reads a touched company's reqs at exactly the positions the snapshot packed.
func TestPackedPositionsReadBackAsWritten(t *testing.T) {
	t.Parallel()
	want := []analytics.ReqAt{{Last: 1, Open: 1}, {Last: 1_400_000, Open: 3, PostedAt: 1_780_000_000},
		{Last: 9, Open: 9, PostedAt: 0}, {Last: math.MaxInt64, Open: 0, PostedAt: -1}, {Last: 42, Open: 40, PostedAt: math.MaxInt64}}
	var p positions
	for _, a := range want {
		p = appendPosition(p, a)
	}
	require.Equal(t, want, p.appendTo(nil))
	packed := exactly(map[uint64]positions{7: p, 8: appendPosition(nil, want[1])})
	require.Equal(t, want, packed[7].appendTo(nil))
	require.Equal(t, want[1:2], packed[8].appendTo(nil))
	require.Equal(t, slices.Concat(want[1:2], want), packed[7].appendTo(packed[8].appendTo(nil)))
	require.Less(t, len(packed[8]), 24, "smaller than the ReqAt it packs")
}
