package normalize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHeadcountBands(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001+"}, HeadcountBands())
	for _, b := range HeadcountBands() {
		require.True(t, ValidHeadcountBand(b), b)
	}
	for _, b := range []string{"", "1-11", "5000+", "5001", " 1-10", "1 - 10", "10-50", "51-200 "} {
		require.False(t, ValidHeadcountBand(b), b)
	}
	bands := HeadcountBands()
	bands[0] = "x"
	require.Equal(t, "1-10", HeadcountBands()[0])
}
