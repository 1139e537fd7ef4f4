package normalize

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEveryCountryIsInExactlyOneRegion(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for region, codes := range regionMembers {
		require.True(t, ValidRegion(region), region)
		for _, c := range strings.Fields(codes) {
			_, ok := countryByAlpha2(c)
			require.True(t, ok, "%s in %s is not an ISO 3166-1 code", c, region)
			require.Empty(t, seen[c], "%s is in %s and %s", c, seen[c], region)
			seen[c] = region
		}
	}
	for i := range countryTable {
		require.NotEmpty(t, seen[countryTable[i].alpha2], "%s (%s) has no region", countryTable[i].alpha2, countryTable[i].name)
	}
}

func TestRegionOfReadsCodesAndNames(t *testing.T) {
	t.Parallel()
	f := func(country, want string) {
		t.Helper()
		require.Equal(t, want, RegionOf(country), country)
	}
	f("US", RegionNA)
	f("United States", RegionNA)
	f("DEU", RegionDACH)
	f("Deutschland", RegionDACH)
	f("UK", RegionUKI)
	f("Ireland", RegionUKI)
	f("Brazil", RegionLatam)
	f("fr", RegionEU)
	f("Singapore", RegionAPAC)
	f("Nigeria", RegionMEA)
	f("United Arab Emirates", RegionMEA)
	f("", "")
	f("Atlantis", "")
}
