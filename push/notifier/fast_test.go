package notifier_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/push/notifier"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// ledger writes random cycles: reqs opened, reobserved, reposted and closed across cycles (some
// twice in one cycle), titles, functions, countries, boards and source types of every kind, and
// companies whose directory facts change from cycle to cycle (one is never in the directory).
type ledger struct {
	e     *env
	rng   *rand.Rand
	reqs  []*fakeReq
	facts map[uint64]analytics.Company
}

type fakeReq struct {
	key, title, function, country, source string
	company                               uint64
	boards                                []string
	firstSeen                             time.Time
	live                                  bool
}

var (
	fastTitles = []string{"Senior Backend Engineer", "Machine Learning Engineer", "Sales Development Representative",
		"Head of Marketing", "Junior Data Analyst", "Staff Software Engineer (Remote)", "Account Executive", "Software Engineer II",
		"ML Engineer, Ranking", "Junior Account Executive", ""}
	fastFunctions  = []string{"fn_7k2q", "fn_m7lx", "fn_s9dr", "fn_k5mc", "fn_d6rj", ""}
	fastCountries  = []string{"Germany", "France", "Spain", "United States", ""}
	fastBoards     = []string{"greenhouse", "linkedin", "indeed", "lever"}
	fastIndustries = []string{"Software", "Fintech", "Retail Software", ""}
	fastAgencies   = []string{"", "staffing_agency", "job_board", "unknown"}
	fastCompanies  = []uint64{31, 32, 33, 34, 35, 36, 37, 38, 99} // 99: never in the directory
)

func pick[T any](rng *rand.Rand, vs []T) T { return vs[rng.IntN(len(vs))] }

// cycle commits the next cycle of about n random events and returns its watermark.
func (l *ledger) cycle(n int) uint64 {
	e := l.e
	at := e.at.Add(time.Duration(e.tick) * time.Minute)
	for _, id := range fastCompanies[:len(fastCompanies)-1] {
		if _, ok := l.facts[id]; !ok || l.rng.IntN(3) == 0 {
			l.facts[id] = analytics.Company{CompanyID: id, Name: fmt.Sprintf("Company %d tick %d", id, e.tick), Domain: fmt.Sprintf("c%d.example.com", id),
				HQCountry: pick(l.rng, fastCountries), Region: "test", Industry: pick(l.rng, fastIndustries),
				HeadcountBand: pick(l.rng, append(normalize.HeadcountBands(), "")), AgencyKind: pick(l.rng, fastAgencies), UpdatedAt: at}
		}
	}
	var cw analytics.CycleWrite
	for _, f := range l.facts {
		f.UpdatedAt = at
		cw.Companies = append(cw.Companies, f)
	}
	first := e.next
	for range n {
		var r *fakeReq
		typ := analytics.EventOpened
		if len(l.reqs) > 0 && l.rng.IntN(3) > 0 {
			r = pick(l.rng, l.reqs)
			switch {
			case !r.live:
				typ = analytics.EventReposted
			case l.rng.IntN(2) == 0:
				typ = analytics.EventClosed
			default:
				typ = analytics.EventReobserved
			}
			if l.rng.IntN(4) == 0 { // the crawl saw it differently this time
				r.function, r.country = pick(l.rng, fastFunctions), pick(l.rng, fastCountries)
			}
		} else {
			r = &fakeReq{key: fmt.Sprintf("fast-%d", e.next), title: pick(l.rng, fastTitles), function: pick(l.rng, fastFunctions),
				country: pick(l.rng, fastCountries), source: pick(l.rng, []string{"board", "ats_tenant"}), company: pick(l.rng, fastCompanies), firstSeen: at}
			l.reqs = append(l.reqs, r)
		}
		r.live = typ != analytics.EventClosed
		board := pick(l.rng, fastBoards)
		if !strings.Contains(strings.Join(r.boards, ","), board) {
			r.boards = append(r.boards, board)
		}
		cw.Events = append(cw.Events, analytics.Event{Seq: e.next, Type: typ, ReqKey: r.key, CompanyID: r.company, Region: "test", Tick: e.tick,
			OccurredAt: at, ObservedAt: at, FirstSeen: r.firstSeen, RawTitle: r.title, Title: strings.ToLower(r.title), Function: r.function,
			Country: r.country, Location: "Somewhere", SourceType: r.source, Board: board, Boards: append([]string(nil), r.boards...),
			URL: "https://boards.example.com/" + r.key})
		cw.Boards = append(cw.Boards, analytics.ReqBoard{ReqKey: r.key, BoardSighting: analytics.BoardSighting{CompanyID: r.company, Board: board, SourceType: r.source, FirstSeen: at}})
		e.next++
	}
	cw.Cycle = analytics.Cycle{Region: "test", Tick: e.tick, CycleTime: at, StartedAt: at, Events: uint64(n), SeqFrom: first, SeqTo: e.next - 1}
	require.NoError(e.t, analytics.WriteCycle(context.Background(), e.ch, &cw, 1000))
	e.tick++
	return e.next - 1
}

// randomCriteria is a criteria object of 1 to 3 random fields of every group.
func randomCriteria(rng *rand.Rand, since time.Time) string {
	fields := []func() (string, string, any){
		func() (string, string, any) {
			return "company", "company_id", []uint64{pick(rng, fastCompanies), pick(rng, fastCompanies)}
		},
		func() (string, string, any) {
			return "company", "domain", []string{fmt.Sprintf("C%d.example.com", pick(rng, fastCompanies))}
		},
		func() (string, string, any) { return "company", "industry", []string{pick(rng, fastIndustries[:3])} },
		func() (string, string, any) { return "company", "industry_terms", []string{"soft"} },
		func() (string, string, any) {
			return "company", "headcount_band", []string{pick(rng, normalize.HeadcountBands()), pick(rng, normalize.HeadcountBands())}
		},
		func() (string, string, any) { return "company", "hq_country", []string{pick(rng, fastCountries[:4])} },
		func() (string, string, any) {
			return "company", "agency_kind", []string{pick(rng, []string{"employer", "staffing_agency", "job_board"})}
		},
		func() (string, string, any) {
			return "req", "q", pick(rng, []string{"engineer", "ml engineer", "account executive", "sales", "remote"})
		},
		func() (string, string, any) {
			return "req", "q_excludes", []string{pick(rng, []string{"junior", "head of", "ranking"})}
		},
		func() (string, string, any) {
			return "req", "function", []string{pick(rng, fastFunctions[:5]), pick(rng, fastFunctions[:5])}
		},
		func() (string, string, any) {
			return "req", "country", []string{pick(rng, fastCountries[:4]), pick(rng, fastCountries[:4])}
		},
		func() (string, string, any) { return "req", "source_type", pick(rng, []string{"board", "ats_tenant"}) },
		func() (string, string, any) { return "req", "boards", []string{strings.ToUpper(pick(rng, fastBoards))} },
		func() (string, string, any) { return "req", "seniority", []string{pick(rng, searchindex.Seniorities)} },
		func() (string, string, any) { return "req", "since", since.Format(time.RFC3339) },
		func() (string, string, any) { return "event", "function", []string{pick(rng, fastFunctions[:5])} },
		func() (string, string, any) {
			return "event", "event_type", []string{pick(rng, types), pick(rng, types)}
		},
	}
	doc := map[string]map[string]any{}
	for range 1 + rng.IntN(3) {
		g, f, v := pick(rng, fields)()
		if doc[g] == nil {
			doc[g] = map[string]any{}
		}
		doc[g][f] = v
	}
	raw, _ := json.Marshal(doc)
	return string(raw)
}

// The fast path (a delta index of the batch's reqs at the committed watermark) writes exactly
// the rows the snapshot path writes (the snapshot rebuilt at each cycle's watermark): the same
// deliveries, statuses and bodies, for random watches over cycles that reopen, close and move
// reqs committed earlier while the companies' facts change.
func TestTheFastPathWritesWhatTheSnapshotPathWrites(t *testing.T) {
	t.Parallel()
	fast := newEnv(t)
	full := &env{t: t, pool: storetest.Postgres(t, "notifier"), ch: fast.ch, box: fast.box, snaps: fast.snaps}
	rng := rand.New(rand.NewPCG(12, 5))
	l := &ledger{e: fast, rng: rng, facts: map[uint64]analytics.Company{}}
	l.cycle(40) // before the notifiers start: their position starts after it

	// The same accounts and watches, in the same order, in both schemas.
	since := fast.at.Add(2 * time.Minute)
	crits := 0
	for range 3 {
		plan := pick(rng, []string{"growth", "starter"})
		fa, fep := fast.account(plan)
		ba, bep := full.account(plan)
		for range 40 {
			ets := types
			if rng.IntN(3) == 0 {
				ets = []string{pick(rng, types), pick(rng, types)}
			}
			maxFires := pick(rng, []int{1000, 1000, 2})
			if rng.IntN(5) == 0 {
				co := int64(pick(rng, fastCompanies))
				require.Equal(t, fast.watch(fa, fep, co, "", ets, maxFires), full.watch(ba, bep, co, "", ets, maxFires))
				continue
			}
			doc := randomCriteria(rng, since)
			_, problems := criteria.Parse(json.RawMessage(doc), criteria.Watch)
			require.Empty(t, problems, doc)
			require.Equal(t, fast.watch(fa, fep, 0, doc, ets, maxFires), full.watch(ba, bep, 0, doc, ets, maxFires))
			crits++
		}
	}

	// fast never sees a built snapshot: its every batch is a fast one. full never takes the fast
	// path and reads the snapshot rebuilt after each cycle.
	frozen := snapshot.New(snapshot.Config{ClickHouse: fast.ch, Poll: time.Hour, Log: quiet})
	fn := notifier.New(notifier.Config{Pool: fast.pool, ClickHouse: fast.ch, Snapshots: frozen, BatchEvents: 25, Poll: 5 * time.Millisecond,
		CommitPoll: 10 * time.Millisecond})
	bn := notifier.New(notifier.Config{Pool: full.pool, ClickHouse: full.ch, Snapshots: full.snaps, BatchEvents: 25, Poll: 5 * time.Millisecond,
		CommitPoll: 10 * time.Millisecond, SnapshotOnly: true})
	for _, n := range []*notifier.Notifier{fn, bn} {
		require.NoError(t, n.Start(context.Background()))
		t.Cleanup(func() { _ = n.Stop(context.Background()) })
	}
	require.Eventually(t, func() bool { return fn.Position() > 0 && bn.Position() > 0 }, time.Minute, 10*time.Millisecond)

	for range 5 {
		wm := l.cycle(60 + rng.IntN(60))
		require.Eventually(t, func() bool { return fn.Position() == wm }, time.Minute, 5*time.Millisecond, "the fast path reaches %d", wm)
		_, err := full.snaps.Refresh(context.Background(), false)
		require.NoError(t, err)
		bn.Wake()
		require.Eventually(t, func() bool { return bn.Position() == wm }, time.Minute, 5*time.Millisecond, "the snapshot path reaches %d", wm)
	}
	require.Nil(t, frozen.Current().Index, "the fast notifier never had a snapshot")

	got, want := fast.deliveries(), full.deliveries()
	for i := range got {
		require.NotEmpty(t, got[i].Customer)
		got[i].Customer = "" // a new customer id per schema
	}
	for i := range want {
		want[i].Customer = ""
	}
	// Row by row: a diff of thousands of rows is too slow to print.
	require.Equal(t, len(want), len(got), "as many rows")
	for i := range want {
		require.Equal(t, want[i], got[i], "row %d", i)
	}

	// The comparison is worth something: criteria watches matched, some and not all, with rows of
	// more than one status.
	matched, statuses := map[int64]bool{}, map[string]bool{}
	for _, r := range want {
		matched[r.WatchID], statuses[r.Status] = true, true
	}
	t.Logf("%d deliveries to %d of %d watches (%d criteria), statuses %v", len(want), len(matched), 120, crits, statuses)
	require.Greater(t, len(want), 100)
	require.Greater(t, len(matched), 20)
	require.Less(t, len(matched), 120)
	require.Greater(t, len(statuses), 1)
}
