package searchindex

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
)

// located is an index of one company's reqs, each at its own location (the crawl's free text).
func located(b *Builder, companyID uint64, locations ...string) *Index {
	for i, loc := range locations {
		b.Add(&analytics.LedgerReq{OpenSeq: uint64(i + 1), AnyBoards: []string{"indeed"}, Req: analytics.Req{
			ReqKey: fmt.Sprintf("%d-%d", companyID, i), CompanyID: companyID, EventType: analytics.EventOpened,
			RawTitle: "Backend Engineer", Function: "fn_7k2q", Country: "Germany", Location: loc, SourceType: "board",
			Board: "indeed", Boards: []string{"indeed"},
			FirstSeen: syntheticAt.Add(-time.Hour), LastEventAt: syntheticAt.Add(-time.Hour)}})
	}
	return b.Build(nil)
}

// A full build's dictionaries are its own: what another build of the process met (another
// lineage's locations) is not in them, so a long-running process's rebuilds do not add up. A build
// over an index shares that index's dictionaries: the records it carries read their strings back
// as before, beside the new ones.
func TestDictionariesBelongToALineage(t *testing.T) {
	t.Parallel()
	cos := []analytics.Company{{CompanyID: 1, Name: "One"}, {CompanyID: 2, Name: "Two"}}
	var many []string
	for i := range 500 {
		many = append(many, fmt.Sprintf("Office %d, Berlin", i))
	}
	big := located(NewBuilder(1, syntheticAt, cos), 1, many...)
	small := located(NewBuilder(1, syntheticAt, cos), 1, "Berlin")
	require.Less(t, small.DictionaryEntries(), 20, "a fresh build holds only what it met")
	require.Greater(t, big.DictionaryEntries(), 500)

	before := big.DictionaryEntries()
	b := NewBuilder(2, syntheticAt, cos)
	b.Over(big, func(id uint64) bool { return id == 2 })
	next := located(b, 2, "Munich")
	require.Greater(t, next.DictionaryEntries(), before, "a build over an index adds to its dictionaries")
	require.Equal(t, next.DictionaryEntries(), big.DictionaryEntries(), "one lineage, one set of dictionaries")
	carried := next.CompanyReqs(1)
	require.Len(t, carried, 500)
	for i := range carried {
		r := &carried[i]
		require.Same(t, big.CompanyReqs(1)[i].Record, r.Record, "carried, not copied")
		require.Equal(t, "Germany", r.Country())
		require.Equal(t, "fn_7k2q", r.Function())
		require.Equal(t, []string{"indeed"}, r.Boards())
		require.Contains(t, many, r.Location())
	}
	require.Equal(t, "Munich", next.CompanyReqs(2)[0].Location())
	page := next.Qualified(QualifiedQuery{Filter: Filter{Countries: []string{"Germany"}}, Limit: 1000})
	require.Len(t, page.Rows, 501, "the carried and the new reqs are found by their country alike")
}
