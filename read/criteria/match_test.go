package criteria_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/searchindex"
)

var at = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// index builds an index of the companies ids (every third a staffing agency), each with reqs
// "Backend Engineer" (Engineering, Germany, live) and "Account Executive" (Sales, France,
// closed), keyed "<id>-eng" and "<id>-sales".
func index(t testing.TB, ids ...uint64) *searchindex.Index {
	t.Helper()
	var cos []analytics.Company
	for i, id := range ids {
		kind := ""
		if i%3 == 2 {
			kind = "staffing_agency"
		}
		cos = append(cos, analytics.Company{CompanyID: id, Name: fmt.Sprintf("Co %d", id), Domain: fmt.Sprintf("co%d.example", id), AgencyKind: kind})
	}
	b := searchindex.NewBuilder(1, at, cos)
	seq := uint64(0)
	for _, id := range ids {
		for _, r := range []analytics.Req{
			{ReqKey: fmt.Sprintf("%d-eng", id), RawTitle: "Backend Engineer", Function: "fn_7k2q", Country: "Germany", EventType: analytics.EventOpened},
			{ReqKey: fmt.Sprintf("%d-sales", id), RawTitle: "Account Executive", Function: "fn_s2kv", Country: "France", EventType: analytics.EventClosed},
		} {
			seq++
			r.CompanyID, r.SourceType, r.Board, r.Boards, r.FirstSeen, r.LastEventAt = id, "board", "indeed", []string{"indeed"}, at.Add(-time.Hour), at
			b.Add(&analytics.LedgerReq{Req: r, OpenSeq: seq, AnyBoards: []string{"indeed"}})
		}
	}
	return b.Build(nil)
}

func req(t *testing.T, x *searchindex.Index, id uint64, kind string) *searchindex.Req {
	t.Helper()
	r, ok := x.Lookup(id, fmt.Sprintf("%d-%s", id, kind))
	require.True(t, ok)
	return r
}

func parsed(t *testing.T, raw string, use criteria.Use) *criteria.Criteria {
	t.Helper()
	c, errs := parse(t, raw, use)
	require.Empty(t, errs)
	return &c
}

// The event group narrows which events of a matching req fire: event types and event functions
// OR within and AND across; an unattributed event matches no event.function.
func TestEventGroupNarrowsTheEvents(t *testing.T) {
	t.Parallel()
	x := index(t, 10, 20)
	eng := req(t, x, 10, "eng")
	c := parsed(t, `{"req":{"q":"engineer"},"event":{"event_type":["opened","closed"],"function":"fn_7k2q"}}`, criteria.Watch)
	require.True(t, c.Match(x, eng, "opened", "fn_7k2q"))
	require.True(t, c.Match(x, eng, "closed", "fn_7k2q"))
	require.False(t, c.Match(x, eng, "reposted", "fn_7k2q"))
	require.False(t, c.Match(x, eng, "opened", "fn_s2kv"))
	require.False(t, c.Match(x, eng, "opened", ""))
	require.False(t, c.Match(x, req(t, x, 10, "sales"), "closed", "fn_7k2q"), "the req group still decides")
	require.False(t, c.Match(x, nil, "opened", "fn_7k2q"), "a req the index does not hold")

	anyEvent := parsed(t, `{"req":{"q":"engineer"}}`, criteria.Watch)
	for _, et := range criteria.EventTypes {
		require.True(t, anyEvent.Match(x, eng, et, ""), et)
	}
}

// A watch matches a closed req (its closed event fires) and, by default, no agency; naming
// agency kinds watches them. reqs/qualified's defaults are live reqs of non-agencies.
func TestDefaultsPerUse(t *testing.T) {
	t.Parallel()
	x := index(t, 10, 20, 30) // 30 is a staffing agency
	sales, agency := req(t, x, 10, "sales"), req(t, x, 30, "eng")
	require.False(t, parsed(t, `{}`, criteria.Qualified).Match(x, sales, "", ""))
	require.True(t, parsed(t, `{}`, criteria.Watch).Match(x, sales, "closed", "fn_s2kv"))
	require.False(t, parsed(t, `{}`, criteria.Qualified).Match(x, agency, "", ""))
	require.False(t, parsed(t, `{}`, criteria.Watch).Match(x, agency, "opened", "fn_7k2q"))
	require.True(t, parsed(t, `{"company":{"agency_kind":"staffing_agency"}}`, criteria.Watch).Match(x, agency, "opened", "fn_7k2q"))
	require.False(t, parsed(t, `{"company":{"agency_kind":"staffing_agency"}}`, criteria.Watch).Match(x, req(t, x, 10, "eng"), "opened", "fn_7k2q"))
}

// The compiled form is per index: a new snapshot's index (other company ordinals, other title
// words) is compiled anew, while one Criteria is shared by goroutines.
func TestMatchFollowsANewIndex(t *testing.T) {
	t.Parallel()
	old, next := index(t, 10, 20), index(t, 20, 30)
	c := parsed(t, `{"company":{"company_id":20},"req":{"q":"engineer"}}`, criteria.Watch)
	require.True(t, c.Match(old, req(t, old, 20, "eng"), "opened", ""))
	require.False(t, c.Match(old, req(t, old, 10, "eng"), "opened", ""))
	// In next, company 20 has the ordinal company 10 had in old.
	require.True(t, c.Match(next, req(t, next, 20, "eng"), "opened", ""))
	require.False(t, c.Match(next, req(t, next, 30, "eng"), "opened", ""))

	type answer struct{ old, next bool }
	done := make(chan answer)
	for i := range 8 {
		go func() {
			var a answer
			for range 200 {
				x, id := old, uint64(10)
				if i%2 == 1 {
					x, id = next, 30
				}
				r, _ := x.Lookup(id, fmt.Sprintf("%d-eng", id))
				a.old = a.old || c.Match(x, r, "opened", "")
				r, _ = x.Lookup(20, "20-eng")
				a.next = a.next || !c.Match(x, r, "opened", "")
			}
			done <- a
		}()
	}
	for range 8 {
		require.Equal(t, answer{}, <-done, "no goroutine saw a wrong answer")
	}
}

// A Criteria not made by Parse still matches (compiled on every call).
func TestMatchWithoutParse(t *testing.T) {
	t.Parallel()
	x := index(t, 10)
	c := criteria.Criteria{Query: searchindex.QualifiedQuery{Q: "engineer"}}
	require.True(t, c.Match(x, req(t, x, 10, "eng"), "opened", ""))
	require.False(t, c.Match(x, req(t, x, 10, "sales"), "closed", ""))
}

// BenchmarkMatch is the notifier's cost per event: the query is compiled once per index, so a
// match is one predicate over one req, whatever the number of company ids asked for.
func BenchmarkMatch(b *testing.B) {
	ids := make([]uint64, 2000)
	for i := range ids {
		ids[i] = uint64(i+1) * 10
	}
	x := index(b, ids...)
	raw, err := json.Marshal(map[string]any{"company": map[string]any{"company_id": ids[:1000]},
		"req":   map[string]any{"q": "backend engineer", "q_excludes": []string{"senior"}, "function": "Engineering"},
		"event": map[string]any{"event_type": []string{"opened", "reposted"}}})
	require.NoError(b, err)
	c, errs := criteria.Parse(raw, criteria.Watch)
	require.Empty(b, errs)
	r, _ := x.Lookup(500, "500-eng")
	require.True(b, c.Match(x, r, "opened", "fn_7k2q"))
	b.ReportAllocs()
	for b.Loop() {
		c.Match(x, r, "opened", "fn_7k2q")
	}
}
