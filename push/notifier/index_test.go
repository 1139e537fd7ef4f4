package notifier

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// A synthetic world for the watch index: companies with reqs in a few functions and countries,
// an index of them, ledger events about them (and about reqs the index does not hold), and live
// watches of every shape the index files differently.

var (
	worldAt        = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	worldFunctions = []string{"fn_7k2q", "fn_b3xw", "fn_f9m1", "fn_d6rj", "fn_p3gh", "fn_s2kv", "fn_k5mc", "fn_n4fa"}
	worldCountries = []string{"Germany", "France", "Spain", "Netherlands", "Italy", "Poland"}
	worldWords     = []string{"Senior", "Backend", "Engineer", "Account", "Executive", "Data", "Scientist", "Product", "Manager", "Designer", "Analyst", "Sales"}
	worldTypes     = []string{analytics.EventOpened, analytics.EventReobserved, analytics.EventReposted, analytics.EventClosed}
	worldIndustry  = []string{"Software", "Retail", "Finance"}
)

// vocab is what a world's reqs and watches are made of.
type vocab struct{ functions, countries, words []string }

var small = vocab{functions: worldFunctions, countries: worldCountries, words: worldWords}

// large is a realistic vocabulary: every taxonomy id, 60 countries, 400 title words.
func large() vocab {
	v := vocab{countries: normalize.CountryNames()[:60]}
	for _, f := range normalize.Functions() {
		v.functions = append(v.functions, f.ID)
	}
	syl := []string{"ka", "ro", "mi", "tel", "san", "vor", "lu", "pe", "dan", "gri", "sho", "nar", "bel", "tif", "qua", "zen", "mor", "lis", "ver", "hal"}
	for _, a := range syl {
		for _, b := range syl {
			v.words = append(v.words, a+b+"x")
		}
	}
	return v
}

type world struct {
	x      *searchindex.Index
	events []analytics.FeedEvent
}

// newWorld builds companies 1..companies with reqsPer reqs each and events ledger events.
func newWorld(tb testing.TB, rng *rand.Rand, v vocab, companies, reqsPer, events int) *world {
	tb.Helper()
	var cos []analytics.Company
	for id := 1; id <= companies; id++ {
		kind := ""
		if id%7 == 0 {
			kind = "staffing_agency"
		}
		cos = append(cos, analytics.Company{CompanyID: uint64(id), Name: fmt.Sprintf("Co %d", id), AgencyKind: kind,
			Industry: worldIndustry[id%len(worldIndustry)], HQCountry: v.countries[id%len(v.countries)]})
	}
	b := searchindex.NewBuilder(uint64(events), worldAt, cos)
	type held struct {
		company       uint64
		key, function string
	}
	var reqs []held
	seq := uint64(0)
	for id := 1; id <= companies; id++ {
		for k := range reqsPer {
			seq++
			title := pick(rng, v.words) + " " + pick(rng, v.words)
			r := analytics.Req{ReqKey: fmt.Sprintf("%d-%d", id, k), CompanyID: uint64(id), RawTitle: title,
				Function: pick(rng, append([]string{""}, v.functions...)), Country: pick(rng, append([]string{""}, v.countries...)),
				EventType: pick(rng, worldTypes), SourceType: "board", Board: "indeed", Boards: []string{"indeed"},
				FirstSeen: worldAt.Add(-time.Duration(rng.IntN(1000)) * time.Hour), LastEventAt: worldAt}
			b.Add(&analytics.LedgerReq{Req: r, OpenSeq: seq, AnyBoards: []string{"indeed"}})
			reqs = append(reqs, held{uint64(id), r.ReqKey, r.Function})
		}
	}
	w := &world{x: b.Build(nil)}
	for s := 1; s <= events; s++ {
		h := reqs[rng.IntN(len(reqs))]
		e := analytics.FeedEvent{Seq: uint64(s), Type: pick(rng, worldTypes), CompanyID: h.company, ReqKey: h.key, Function: h.function}
		switch rng.IntN(20) {
		case 0:
			e.ReqKey = "gone" // a req the index does not hold
		case 1:
			e.Function = pick(rng, v.functions) // the event's function differs from the req's
		case 2:
			e.Function = ""
		}
		w.events = append(w.events, e)
	}
	return w
}

func pick[T any](rng *rand.Rand, vs []T) T { return vs[rng.IntN(len(vs))] }

func some[T any](rng *rand.Rand, vs []T, most int) []T {
	n := 1 + rng.IntN(most)
	out := make([]T, 0, n)
	for range n {
		out = append(out, pick(rng, vs))
	}
	return out
}

// randomWatch is a live watch of a random shape; criteriaOnly leaves company watches out; keyed
// gives a criteria watch req.function when it drew no field the index files by (all but one in
// 50) and most a req.q (realistic saved searches).
func randomWatch(tb testing.TB, rng *rand.Rand, v vocab, id int64, companies int, criteriaOnly, keyed bool) *watch {
	tb.Helper()
	lw := oltp.LiveWatch{ID: id, CustomerID: "c", AccountID: 1, EndpointID: 1, MaxFiresPerHour: 100, EventTypes: slices.Clone(worldTypes)}
	if rng.IntN(3) == 0 {
		lw.EventTypes = some(rng, worldTypes, 3)
	}
	companyID := func() int64 { return 1 + rng.Int64N(int64(companies)) }
	if !criteriaOnly && rng.IntN(4) == 0 {
		c := companyID()
		lw.CompanyID = &c
	} else {
		groups := map[string]map[string]any{"company": {}, "req": {}, "event": {}}
		for _, field := range []struct {
			pct int
			set func()
		}{
			{8, func() { groups["company"]["company_id"] = []int64{companyID(), companyID()} }},
			{35, func() { groups["req"]["function"] = some(rng, v.functions, 2) }},
			{15, func() { groups["event"]["function"] = some(rng, v.functions, 2) }},
			{35, func() { groups["req"]["country"] = some(rng, v.countries, 2) }},
			{15, func() { groups["event"]["event_type"] = some(rng, worldTypes, 2) }},
			{30, func() { groups["req"]["q"] = pick(rng, v.words) }},
			{10, func() { groups["req"]["q_excludes"] = []string{pick(rng, v.words)} }},
			{10, func() { groups["company"]["industry"] = pick(rng, worldIndustry) }},
			{10, func() { groups["company"]["hq_country"] = some(rng, v.countries, 2) }},
			{5, func() { groups["company"]["agency_kind"] = "staffing_agency" }},
		} {
			if rng.IntN(100) < field.pct {
				field.set()
			}
		}
		if keyed && groups["company"]["company_id"] == nil && groups["req"]["function"] == nil && groups["req"]["country"] == nil &&
			groups["event"]["function"] == nil && groups["company"]["hq_country"] == nil && groups["event"]["event_type"] == nil && rng.IntN(50) != 0 {
			groups["req"]["function"] = some(rng, v.functions, 2)
		}
		if keyed && groups["req"]["q"] == nil && rng.IntN(4) != 0 {
			groups["req"]["q"] = pick(rng, v.words) // most saved searches name a title
		}
		for g, fields := range groups {
			if len(fields) == 0 {
				delete(groups, g)
			}
		}
		raw, err := json.Marshal(groups)
		require.NoError(tb, err)
		lw.Criteria = raw
	}
	w, err := compile(lw)
	require.NoError(tb, err, "%s", lw.Criteria)
	return w
}

func randomWatches(tb testing.TB, rng *rand.Rand, v vocab, n, companies int, criteriaOnly, keyed bool) []*watch {
	out := make([]*watch, 0, n)
	for i := range n {
		out = append(out, randomWatch(tb, rng, v, int64(i+1), companies, criteriaOnly, keyed))
	}
	return out
}

func matchedIDs(each func(fn func(*watch))) []int64 {
	var ids []int64
	each(func(w *watch) { ids = append(ids, w.ID) })
	slices.Sort(ids)
	return ids
}

// The index asks fewer watches but answers exactly what asking every watch answers, for every
// event, and reports a watch at most once.
func TestTheWatchIndexGivesExactlyTheNaiveAnswer(t *testing.T) {
	t.Parallel()
	for seed := range uint64(2) {
		rng := rand.New(rand.NewPCG(seed, 99))
		w := newWorld(t, rng, small, 60, 8, 2000)
		x := newWatchIndex(randomWatches(t, rng, small, 1000, 60, false, false))
		matched, fallback := 0, len(x.fallback)
		for i := range w.events {
			e := &w.events[i]
			r := lookup(w.x, e)
			want := matchedIDs(func(fn func(*watch)) { x.matchNaive(w.x, r, e, fn) })
			got := matchedIDs(func(fn func(*watch)) { x.match(w.x, r, e, fn) })
			require.Equal(t, want, got, "seed %d event %+v", seed, *e)
			require.Equal(t, len(slices.Compact(slices.Clone(got))), len(got), "a watch is reported once")
			matched += len(got)
		}
		require.Positive(t, matched, "the world has matches")
		require.Less(t, fallback, x.Len()/5, "most watches are filed under a key")
	}
}

// A company watch fires on its company's events of its event types only; a criteria watch on
// the events whose req matches; a watch whose types and criteria event types do not meet fires
// on nothing.
func TestWatchesMatchTheirCompanyAndTypes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	w := newWorld(t, rng, small, 10, 4, 10)
	co := int64(3)
	company, err := compile(oltp.LiveWatch{ID: 1, CompanyID: &co, EventTypes: []string{"opened", "closed"}})
	require.NoError(t, err)
	never, err := compile(oltp.LiveWatch{ID: 2, Criteria: json.RawMessage(`{"event":{"event_type":"reposted"}}`), EventTypes: []string{"opened"}})
	require.NoError(t, err)
	x := newWatchIndex([]*watch{company, never})
	for _, tc := range []struct {
		e    analytics.FeedEvent
		want []int64
	}{
		{analytics.FeedEvent{Type: "opened", CompanyID: 3, ReqKey: "3-0"}, []int64{1}},
		{analytics.FeedEvent{Type: "closed", CompanyID: 3, ReqKey: "nope"}, []int64{1}},
		{analytics.FeedEvent{Type: "reposted", CompanyID: 3, ReqKey: "3-0"}, nil},
		{analytics.FeedEvent{Type: "opened", CompanyID: 4, ReqKey: "4-0"}, nil},
	} {
		require.Equal(t, tc.want, matchedIDs(func(fn func(*watch)) { x.match(w.x, lookup(w.x, &tc.e), &tc.e, fn) }), "%+v", tc.e)
	}
	_, err = compile(oltp.LiveWatch{ID: 3, Criteria: json.RawMessage(`{"req":{"nope":1}}`)})
	require.Error(t, err, "a stored criteria document that no longer parses")
}

// BenchmarkMatchCycle matches one 20,000-event cycle against 10,000 live criteria watches (the
// scale the notifier is sized for; naively 200 million evaluations). One op is the whole cycle;
// candidates/event is how many watches the index asked per event.
func BenchmarkMatchCycle(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	v := large()
	w := newWorld(b, rng, v, 2000, 10, 20000)
	x := newWatchIndex(randomWatches(b, rng, v, 10000, 2000, true, true))
	candidates := 0
	for i := range w.events {
		e := &w.events[i]
		r := lookup(w.x, e)
		candidates += len(x.byCompany[e.CompanyID]) + len(x.byEventFunction[e.Function]) + len(x.byType[e.Type]) + len(x.fallback)
		if r != nil {
			candidates += len(x.byReqFunction[r.Function()]) + len(x.byCountry[r.Country()]) + len(x.byReqFnCountry[[2]string{r.Function(), r.Country()}]) + len(x.byHQCountry[w.x.CompanyOf(r).HQCountry])
		}
	}
	b.ResetTimer()
	matches := 0
	for b.Loop() {
		for i := range w.events {
			e := &w.events[i]
			x.match(w.x, lookup(w.x, e), e, func(*watch) { matches++ })
		}
	}
	b.ReportMetric(float64(matches)/float64(b.N), "matches/cycle")
	b.ReportMetric(float64(candidates)/float64(len(w.events)), "candidates/event")
}

// A large batch is matched on every core and gives the matches of the one-core loop, in event
// order and by watch id within an event.
func TestMatchingOnEveryCoreKeepsTheOrder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	w := newWorld(t, rng, small, 40, 6, 4*parallelFrom+17)
	n := New(Config{})
	n.watches = newWatchIndex(randomWatches(t, rng, small, 300, 40, false, false))
	snap := &snapshot.Snapshot{Index: w.x}
	var want []match
	for i := range w.events {
		e := &w.events[i]
		var ids []int64
		n.watches.matchNaive(w.x, lookup(w.x, e), e, func(x *watch) { ids = append(ids, x.ID) })
		slices.Sort(ids)
		for _, id := range ids {
			want = append(want, match{w: n.watches.all[id-1], e: e})
		}
	}
	got := n.matchAll(snap, w.events)
	require.Equal(t, len(want), len(got))
	for i := range want {
		require.Equal(t, want[i].e.Seq, got[i].e.Seq)
		require.Equal(t, want[i].w.ID, got[i].w.ID)
	}
}
