// Package crawltruth scores a crawl of a simulated world against the simulator's ground truth:
// dedup (B-cubed precision and recall of the req each posting was resolved to), a gap-free
// event_seq, and the ledger's events against the transitions the truth and what was readable
// imply; Descriptions keys the truth of what each req's description states by req_key. A test records each tick's truth, failed sources and observations while it crawls
// through whatever path it tests (one crawler, workers and a committer), then calls Score. It is
// imported by tests only.
package crawltruth

import (
	"context"
	"sort"
	"sync"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// Run is what a crawl of ticks first..last saw, tick by tick.
type Run struct {
	mu     sync.Mutex
	tick   int
	byTick map[int]map[[2]string]string // (source_key, source_id) → req_key
	Truths map[int]sim.Truth
	Failed map[int]map[string]bool // sources not read (failed, blocked, not fetched) per tick
}

// New starts recording.
func New() *Run {
	return &Run{byTick: map[int]map[[2]string]string{}, Truths: map[int]sim.Truth{}, Failed: map[int]map[string]bool{}}
}

// Hook is the crawler's Config.OnObservation: it records each posting's req at the current tick.
func (r *Run) Hook(sourceKey, sourceID, reqKey string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.byTick[r.tick]
	if m == nil {
		m = map[[2]string]string{}
		r.byTick[r.tick] = m
	}
	m[[2]string{sourceKey, sourceID}] = reqKey
}

// Begin sets the tick the next observations belong to.
func (r *Run) Begin(tick int) {
	r.mu.Lock()
	r.tick = tick
	r.mu.Unlock()
}

// End records tick's outcome: the truth and the sources the crawl did not read (every region's
// FailedSources, blocked and not fetched ones included by the caller), and checks that every source
// the world made unreadable was not read.
func (r *Run) End(t *testing.T, tick int, truth sim.Truth, failed []string) {
	t.Helper()
	r.Truths[tick] = truth
	r.Failed[tick] = map[string]bool{}
	for _, f := range failed {
		r.Failed[tick][f] = true
	}
	for _, fs := range truth.FailedSources {
		require.True(t, r.Failed[tick][fs], "tick %d: world-failed source %s was not marked failed", tick, fs)
	}
}

// LedgerRow is one committed event: its number, type, req and tick.
type LedgerRow struct {
	Seq    uint64
	Type   string
	ReqKey string
	Tick   uint32
}

// Ledger reads every committed event (at or below the watermark) in event_seq order.
func Ledger(t *testing.T, ch driver.Conn) []LedgerRow {
	t.Helper()
	ctx := context.Background()
	var wm uint64
	require.NoError(t, ch.QueryRow(ctx, "SELECT max(seq_to) FROM cycles").Scan(&wm))
	rows, err := ch.Query(ctx, "SELECT event_seq, event_type, req_key, tick FROM events FINAL WHERE event_seq <= ? ORDER BY event_seq", wm)
	require.NoError(t, err)
	defer rows.Close()
	var out []LedgerRow
	for rows.Next() {
		var r LedgerRow
		require.NoError(t, rows.Scan(&r.Seq, &r.Type, &r.ReqKey, &r.Tick))
		out = append(out, r)
	}
	require.NoError(t, rows.Err())
	return out
}

// Unread lists the sources stats did not read: failed, blocked, not fetched, and read suspect.
func Unread(stats []pipeline.CycleStats) []string {
	var out []string
	for _, s := range stats {
		out = append(out, s.FailedSources...)
		out = append(out, s.UnreadSources...)
		out = append(out, s.SuspectSources...)
	}
	return out
}

// TruthKey is the req_key the crawl must give a truth req.
func TruthKey(r sim.TruthReq) string {
	country, _ := normalize.CountryName(r.Country)
	return pipeline.ReqKey(pipeline.CompanyID(r.CompanyDomain), normalize.TitleKey(r.Title), country)
}

// Descriptions maps the req_key the crawl must give each req of truth to what the req's
// description states (sim.DescriptionTruth): the answer key for the fields a crawl reads from
// its postings' text and structured fields.
func Descriptions(truth sim.Truth) map[string]sim.DescriptionTruth {
	out := make(map[string]sim.DescriptionTruth, len(truth.Reqs))
	for _, r := range truth.Reqs {
		out[TruthKey(r)] = *r.Description
	}
	return out
}

type expEvent struct {
	tick int
	typ  string
	key  string
}

// Score checks the crawl of ticks first..last (every tick recorded with End) against the truth:
// dedup precision and recall at least 0.99 with at most 1% of readable postings unresolved,
// event_seq 1..n without gaps, exactly the events the truth implies, and no close of a live req.
func (r *Run) Score(t *testing.T, ch driver.Conn, first, last int) {
	t.Helper()
	// 1. Dedup: B-cubed precision and recall of our req assignment over the postings, against truth.
	var precSum, recSum float64
	var n, missed int
	for tick := first; tick <= last; tick++ {
		truthOf := map[[2]string]string{}
		for _, tr := range r.Truths[tick].Reqs {
			for _, p := range tr.Postings {
				truthOf[[2]string{p.SourceKey, p.SourceID}] = tr.TruthID
			}
		}
		ours := r.byTick[tick]
		predMembers := map[string][][2]string{}
		truthMembers := map[string][][2]string{}
		for p, k := range ours {
			predMembers[k] = append(predMembers[k], p)
		}
		for p, id := range truthOf {
			if _, seen := ours[p]; seen {
				truthMembers[id] = append(truthMembers[id], p)
			} else if !r.Failed[tick][p[0]] {
				missed++ // a readable posting we did not resolve
			}
		}
		for p, k := range ours {
			tid, ok := truthOf[p]
			require.True(t, ok, "tick %d: we observed %v which the world does not have", tick, p)
			inter := 0
			for _, q := range predMembers[k] {
				if truthOf[q] == tid {
					inter++
				}
			}
			precSum += float64(inter) / float64(len(predMembers[k]))
			recSum += float64(inter) / float64(len(truthMembers[tid]))
			n++
		}
	}
	require.Positive(t, n)
	precision, recall := precSum/float64(n), recSum/float64(n)
	t.Logf("dedup over %d posting observations: precision %.4f recall %.4f, unresolved readable postings %d", n, precision, recall, missed)
	require.GreaterOrEqual(t, precision, 0.99)
	require.GreaterOrEqual(t, recall, 0.99)
	require.LessOrEqual(t, float64(missed)/float64(n), 0.01)

	// 2. The ledger: event_seq ascending and gap-free.
	ledger := Ledger(t, ch)
	require.NotEmpty(t, ledger)
	for i, row := range ledger {
		require.Equal(t, uint64(i+1), row.Seq, "event_seq must be 1..n without gaps")
	}

	// 3. Expected events from the truth and what was observable (a req is seen when any posting of
	// it sits on a source we read; it may close only when every source that carried it when last
	// seen was read).
	expected := map[expEvent]bool{}
	type st struct {
		live    bool
		sources map[string]bool
	}
	state := map[string]*st{}
	liveAt := map[int]map[string]sim.TruthReq{} // tick → req_key → the truth req live then
	for tick := first; tick <= last; tick++ {
		liveNow := map[string]sim.TruthReq{}
		for _, tr := range r.Truths[tick].Reqs {
			liveNow[TruthKey(tr)] = tr
		}
		liveAt[tick] = liveNow
		for k, tr := range liveNow {
			srcs := map[string]bool{}
			for _, p := range tr.Postings {
				if !r.Failed[tick][p.SourceKey] {
					srcs[p.SourceKey] = true
				}
			}
			if len(srcs) == 0 {
				continue // not observable this tick
			}
			s := state[k]
			switch {
			case s == nil:
				expected[expEvent{tick, "opened", k}] = true
				s = &st{}
				state[k] = s
			case !s.live:
				expected[expEvent{tick, "reposted", k}] = true
			}
			s.live, s.sources = true, srcs
		}
		for k, s := range state {
			if _, live := liveNow[k]; live || !s.live {
				continue
			}
			ok := true
			for src := range s.sources {
				if r.Failed[tick][src] {
					ok = false
				}
			}
			if ok {
				expected[expEvent{tick, "closed", k}] = true
				s.live = false
			}
		}
	}
	got := map[expEvent]bool{}
	for _, row := range ledger {
		if row.Type != "reobserved" {
			got[expEvent{int(row.Tick), row.Type, row.ReqKey}] = true
		}
	}
	var missing, extra []expEvent
	for e := range expected {
		if !got[e] {
			missing = append(missing, e)
		}
	}
	for e := range got {
		if !expected[e] {
			extra = append(extra, e)
		}
	}
	sort.Slice(missing, func(i, j int) bool { return missing[i].tick < missing[j].tick })
	sort.Slice(extra, func(i, j int) bool { return extra[i].tick < extra[j].tick })
	t.Logf("ledger: %d events, %d expected transitions; missing %d, extra %d", len(ledger), len(expected), len(missing), len(extra))
	require.Empty(t, missing, "every truth transition has its event (first few: %v)", head(missing))
	require.Empty(t, extra, "every event matches a truth transition (first few: %v)", head(extra))

	// 4. Every truth transition after the first tick is in the ledger at its tick or, when the
	// crawl could not see the req, later; and no close happened while the req was live.
	delayed := 0
	for tick := first + 1; tick <= last; tick++ {
		byID := map[string]string{}
		for _, tr := range r.Truths[tick].Reqs {
			byID[tr.TruthID] = TruthKey(tr)
		}
		for _, tr := range r.Truths[tick-1].Reqs {
			if _, ok := byID[tr.TruthID]; !ok {
				byID[tr.TruthID] = TruthKey(tr)
			}
		}
		for _, tr := range r.Truths[tick].Transitions {
			if !got[expEvent{tick, tr.Kind, byID[tr.TruthID]}] {
				delayed++
			}
		}
	}
	t.Logf("truth transitions seen late because their sources failed: %d", delayed)
	for e := range got {
		if e.typ != "closed" {
			continue
		}
		_, live := liveAt[e.tick][e.key] // the req_keys of every truth req live at e.tick
		require.False(t, live, "req %s closed at tick %d while live", e.key, e.tick)
	}
}

func head(xs []expEvent) []expEvent {
	if len(xs) > 5 {
		return xs[:5]
	}
	return xs
}
