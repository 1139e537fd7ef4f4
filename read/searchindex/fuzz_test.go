package searchindex

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzJobCursor: any jobs/search cursor either fails to parse (a 422 for the handler) or
// round-trips through String, and a page after it, under its sort, holds only rows after it.
func FuzzJobCursor(f *testing.F) {
	for _, s := range []string{"", "42:00ff", "42:00ff~r8500", "7:abcd~t1780000000", "1:k~r99999", "x:y", "42:k~", "18446744073709551615:z~t-5", "3000:0000000000000003~r10000"} {
		f.Add(s, "engineer")
	}
	x := synthetic(f, 40, 10)
	f.Fuzz(func(t *testing.T, s, q string) {
		c, err := ParseJobCursor(s)
		if err != nil {
			return
		}
		again, err := ParseJobCursor(c.String())
		require.NoError(t, err)
		require.Equal(t, c, again, "a parsed cursor round-trips")
		if c.Sort == SortRelevance && len(q) == 0 {
			q = "engineer"
		}
		page := x.SearchJobs(JobQuery{Q: q, Sort: c.Sort, After: &c, Limit: 5})
		require.LessOrEqual(t, len(page.Jobs), 5)
		if c.Sort == SortDefault {
			for _, j := range page.Jobs {
				r := j.Req
				require.True(t, r.CompanyID > c.CompanyID || r.CompanyID == c.CompanyID && r.Key > c.Key, "rows after the cursor")
			}
		}
	})
}

// FuzzCompanyCursor: reqs/search pages from any integer cursor hold companies after it, in
// ascending company_id, and next pages never repeat one.
func FuzzCompanyCursor(f *testing.F) {
	for _, after := range []uint64{0, 1, 999, 1000, 20500, 40000, 1 << 63} {
		f.Add(after, "engineer", uint8(3))
	}
	x := synthetic(f, 40, 10)
	f.Fuzz(func(t *testing.T, after uint64, q string, limit uint8) {
		page := x.SearchCompanies(CompanyQuery{Q: q, After: after, Limit: int(limit%20) + 1, MaxReqs: 2})
		prev := after
		for _, h := range page.Companies {
			require.Greater(t, h.Company.ID, prev, strconv.FormatUint(after, 10))
			require.LessOrEqual(t, len(h.Reqs), 2)
			require.GreaterOrEqual(t, h.MatchedCount, len(h.Reqs))
			prev = h.Company.ID
		}
		qp := x.Qualified(QualifiedQuery{Q: q, After: after, Limit: int(limit%20) + 1, CompanyIDs: []uint64{after, 3000}})
		require.GreaterOrEqual(t, qp.Next, after)
	})
}
