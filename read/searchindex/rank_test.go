package searchindex

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
)

// rankWorld is an index whose titles take one to seven words of a small vocabulary (and one
// title of 130 words), so that jobs/search's scores spread over every word count.
func rankWorld(tb testing.TB) *Index {
	tb.Helper()
	vocab := []string{"senior", "software", "engineer", "data", "scientist", "developer", "sales", "manager", "account",
		"executive", "product", "backend", "lead", "platform"}
	var titles []string
	for n := 1; n <= 7; n++ {
		for s := range 9 {
			var w []string
			for i := range n {
				w = append(w, vocab[(s*5+i*3+n)%len(vocab)])
			}
			titles = append(titles, strings.Join(w, " "))
		}
	}
	titles = append(titles, "Engineer", "Software Engineer", "Data Scientist", "Sales Manager",
		strings.Repeat("engineer platform ", 65)) // 130 words: past what the per-ordinal flags count
	const companies, per = 60, 30
	var cos []analytics.Company
	for c := range companies {
		cos = append(cos, analytics.Company{CompanyID: uint64(c+1) * 10, Name: fmt.Sprintf("Co %d", c),
			HQCountry: syntheticCountries[c%len(syntheticCountries)], Industry: "Software", HeadcountBand: "51-200",
			AgencyKind: map[bool]string{true: "staffing_agency"}[c%7 == 3]})
	}
	b := NewBuilder(companies*per, syntheticAt, cos)
	seq := uint64(0)
	for i := range per {
		for c := range companies {
			seq++
			n := c*per + i
			title := titles[(n*7+c)%len(titles)]
			r := &analytics.LedgerReq{OpenSeq: seq, Req: analytics.Req{
				ReqKey: fmt.Sprintf("%016x", n*2654435761%1000003), CompanyID: uint64(c+1) * 10, EventType: analytics.EventOpened,
				RawTitle: title, Function: syntheticFunctions[n%len(syntheticFunctions)],
				Country: syntheticCountries[n%len(syntheticCountries)], SourceType: []string{"board", "ats_tenant"}[n%2], Board: "indeed",
				FirstSeen: syntheticAt.Add(-syntheticHour(n % 300)), LastEventAt: syntheticAt}}
			if n%6 == 5 {
				r.EventType = analytics.EventClosed
			}
			r.Boards, r.AnyBoards = []string{"indeed"}, []string{"indeed"}
			b.Add(r)
		}
	}
	return b.Build(nil)
}

// Every page of jobs/search by relevance, followed cursor to cursor, is the whole ranking of
// every req the filter keeps, scored one by one (relevance descending, then company_id and
// req_key), and its count is that ranking's length: the walk that reads a req's record only
// when its score would place it on the page, and the tiers skipped below the relevance floor,
// leave out nothing and order nothing differently.
func TestRelevancePagesAreTheWholeRankingOfEveryReq(t *testing.T) {
	t.Parallel()
	x := rankWorld(t)
	filters := map[string]Filter{
		"none":             {},
		"closed too":       {IncludeClosed: true},
		"one country":      {Countries: []string{"Germany"}},
		"two countries":    {Countries: []string{"Germany", "France"}},
		"function":         {Functions: []string{syntheticFunctions[1]}},
		"board, agencies":  {SourceType: "board", ExcludeAgencies: true},
		"function, closed": {Functions: []string{syntheticFunctions[0], syntheticFunctions[2]}, IncludeClosed: true},
		"since":            {Since: syntheticAt.Add(-100 * time.Hour)},
		"freshness floor":  {FreshBefore: syntheticAt.Add(-50 * time.Hour), Countries: []string{"France"}},
	}
	for _, q := range []string{"engineer", "software engineer", "senior software engineer", "developer", "data scientist", "sales manager", "platform"} {
		for fname, f := range filters {
			for _, minRel := range []float64{0, 0.3, 0.45, DefaultMinRelevance, 0.9, 0.95} {
				for _, literal := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/min %.2f/literal %v", q, fname, minRel, literal)
					want := rankAll(x, JobQuery{Q: q, Filter: f, MinRelevance: minRel, Literal: literal})
					require.Less(t, len(want), MaxCount, name)
					require.Equal(t, Count{N: len(want), Exact: true}, x.CountJobs(JobQuery{Q: q, Filter: f, MinRelevance: minRel, Literal: literal}), name)
					for _, limit := range []int{1, 3, 8, 500} {
						got := []string{}
						var after *JobCursor
						for pages := 0; ; pages++ {
							require.Less(t, pages, len(x.reqs)+2, name)
							p := x.SearchJobs(JobQuery{Q: q, Filter: f, MinRelevance: minRel, Literal: literal, Sort: SortRelevance, After: after, Limit: limit})
							require.LessOrEqual(t, len(p.Jobs), limit, name)
							for _, h := range p.Jobs {
								got = append(got, fmt.Sprintf("%d:%s@%d", h.Req.CompanyID, h.Req.Key, h.rel))
							}
							if p.Next == nil {
								break
							}
							after = p.Next
						}
						require.Equal(t, want, got, "%s, limit %d", name, limit)
					}
				}
			}
		}
	}
}

// rankAll is every row jobs/search serves for q by relevance, scored req by req.
func rankAll(x *Index, q JobQuery) []string {
	c := x.compile(&q.Filter)
	sc := x.newScorer(q.Q, q.Literal, q.MinRelevance)
	type row struct {
		ord uint32
		rel int
	}
	var rows []row
	if !c.none {
		for i := range x.reqs {
			r := &x.reqs[i]
			if !c.req(r) {
				continue
			}
			if rel := sc.score(r); rel > 0 {
				rows = append(rows, row{uint32(i), rel})
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		return rows[i].rel > rows[j].rel || rows[i].rel == rows[j].rel && rows[i].ord < rows[j].ord
	})
	out := []string{}
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%d:%s@%d", x.reqs[r.ord].CompanyID, x.reqs[r.ord].Key, r.rel))
	}
	return out
}

func syntheticHour(n int) time.Duration { return time.Duration(n) * time.Hour }

// A first_seen past what 32 bits of unix seconds hold (after 2106) keeps the index's since and
// freshness tests on the records: nothing is cut to fit.
func TestAFirstSeenPastThirtyTwoBitsIsReadFromTheRecord(t *testing.T) {
	t.Parallel()
	far := time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
	b := NewBuilder(2, syntheticAt, []analytics.Company{{CompanyID: 10, Name: "Co"}})
	for i, fs := range []time.Time{syntheticAt.Add(-time.Hour), far} {
		b.Add(&analytics.LedgerReq{OpenSeq: uint64(i + 1), Req: analytics.Req{ReqKey: fmt.Sprintf("k%d", i), CompanyID: 10,
			EventType: analytics.EventOpened, RawTitle: "Engineer", SourceType: "board", Board: "indeed", FirstSeen: fs, LastEventAt: syntheticAt}})
	}
	x := b.Build(nil)
	require.Nil(t, x.ordFirstSeen)
	keys := func(f Filter) []string {
		var out []string
		for _, h := range x.SearchJobs(JobQuery{Q: "engineer", Sort: SortRelevance, Filter: f, Limit: 10}).Jobs {
			out = append(out, h.Req.Key)
		}
		return out
	}
	require.Equal(t, []string{"k1"}, keys(Filter{Since: far.Add(-time.Hour)}))
	require.Equal(t, []string{"k0"}, keys(Filter{FreshBefore: syntheticAt}))
	require.Equal(t, []string{"k0", "k1"}, keys(Filter{}))
}
