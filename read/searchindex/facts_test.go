package searchindex

import (
	"strconv"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
)

// The index serves a req's facts as the ledger gave them, interned: reqs stating the same
// technologies share one list.
func TestFactsAreServedAsWrittenAndShared(t *testing.T) {
	t.Parallel()
	x := synthetic(t, 10, 10)
	lists := map[uint32]bool{}
	for i := range x.reqs {
		r := &x.reqs[i]
		n, err := strconv.ParseUint(r.Key, 16, 64) // the synthetic req's number
		require.NoError(t, err)
		want := syntheticFacts(int(n), r.Title.Raw)
		got := x.Facts(r)
		require.Equal(t, want.Seniority, got.Seniority)
		require.Equal(t, want.Seniority, r.Seniority())
		require.Equal(t, want.EmploymentType, got.EmploymentType)
		require.Equal(t, want.WorkplaceType, got.WorkplaceType)
		require.Equal(t, want.RemoteCountries, got.RemoteCountries)
		require.Equal(t, want.RemoteRegions, got.RemoteRegions)
		require.Equal(t, want.DescriptionHash, r.DescriptionHash())
		require.Len(t, got.Technologies, len(want.Technologies))
		for j, tech := range got.Technologies {
			require.Equal(t, want.Technologies[j], tech.Slug)
			require.NotEmpty(t, tech.Name)
			require.Equal(t, want.TechKinds[j] == analytics.TechRequired, tech.Required)
			require.Equal(t, want.TechKinds[j] == analytics.TechNiceToHave, tech.NiceToHave)
		}
		require.Nil(t, got.YearsMin)
		require.Nil(t, got.Visa)
		if r.facts.tech != 0 {
			lists[r.facts.tech] = true
		}
	}
	require.Len(t, lists, 4, "one list per distinct technology list")
	require.LessOrEqual(t, unsafe.Sizeof(reqFacts{}), uintptr(32), "a req's facts stay small")
}

func TestFactFiltersFailClosed(t *testing.T) {
	t.Parallel()
	x := synthetic(t, 10, 10)
	count := func(f Filter) (n int) {
		f.IncludeClosed = true
		c := x.compile(&f)
		for i := range x.reqs {
			if c.req(&x.reqs[i]) {
				n++
			}
		}
		return n
	}
	all := count(Filter{})
	remote, hybrid, onsite := count(Filter{WorkplaceTypes: []string{"remote"}}), count(Filter{WorkplaceTypes: []string{"hybrid"}}), count(Filter{WorkplaceTypes: []string{"onsite"}})
	require.Positive(t, remote)
	require.Less(t, remote+hybrid+onsite, all, "a req that states no workplace matches none")
	require.Equal(t, remote+hybrid, count(Filter{WorkplaceTypes: []string{"remote", "hybrid"}}), "values OR")
	goReqs := count(Filter{Technologies: []string{"go"}})
	require.Positive(t, goReqs)
	require.Equal(t, goReqs+count(Filter{Technologies: []string{"python"}}), count(Filter{Technologies: []string{"go", "python"}}))
	require.Zero(t, count(Filter{Technologies: []string{"haskell"}}))
	require.Zero(t, count(Filter{Seniority: []string{"intern"}, Technologies: []string{"go"}}), "fields AND")
}
