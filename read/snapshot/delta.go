package snapshot

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// Defaults of Policy.
const (
	// DefaultMaxTouched: a commit that touches more than this share of the current snapshot's
	// companies is rebuilt whole. Applying costs about the touched companies' share of a full
	// build's reads plus a pass over the index in memory; above a quarter, the full read is not
	// much dearer and drops what the carried tables no longer need.
	DefaultMaxTouched = 0.25
	// DefaultMaxDeltas: after this many commits applied in a row the next one is rebuilt whole,
	// which drops the entries of the index's interned tables (stems, board sets, fact lists) that
	// no req names any more; applied commits only add to them.
	DefaultMaxDeltas = 64
	// DefaultMaxDictionary: once the index's dictionaries (searchindex.Dictionaries: the values,
	// board lists and location triples its records name by small ids, and the read model's
	// companies' directory values and words) hold more entries than
	// this, the next commit is rebuilt whole, which starts new ones. They belong to the run of
	// applied commits since the last full build and only grow within it (locations are the
	// crawl's free text); MaxDeltas ends a run first unless a policy lifts it. A million entries
	// is some hundred MB; a world of a million reqs holds about 32,000 (bench/README.md).
	DefaultMaxDictionary = 1 << 20
)

// Policy says when a commit is applied to the current snapshot and when the snapshot is rebuilt
// whole (Update).
type Policy struct {
	Full       bool    // rebuild whole on every commit (an operator's choice: HS_READ_FULL_REBUILDS)
	MaxTouched float64 // share of companies above which a commit is rebuilt whole (0: DefaultMaxTouched)
	MaxDeltas  int     // commits applied in a row before a full rebuild (0: DefaultMaxDeltas)
	// MaxDictionary: entries of the index's dictionaries above which the next commit is rebuilt
	// whole (0: DefaultMaxDictionary).
	MaxDictionary int
	// MaxPositions: an applied commit reads the touched companies' reqs at the ledger positions
	// the snapshot carries while they are at most this many (0: analytics.MaxPositionsRead),
	// else by a scan of the events for those companies (a negative value: always), which costs
	// about as much once the positions name most of the table's granules.
	MaxPositions int
}

// Kinds of build (Snapshot.Kind).
const (
	KindFull  = "full"
	KindDelta = "delta"
)

// Update returns the snapshot of the committed ledger's current watermark: prev with the
// changes of the commits since it applied (the companies they touched read again: their reqs
// at the ledger positions prev carries with the commits' own events folded in, their momentum
// prev's with the commits' weeks added; every other company's structures shared with prev) when
// it can, else a full Build. It rebuilds whole for
// the first build (prev nil), when p says so, when the commits touched too many companies, when
// a crawl region's first committed cycle or a touched company's region moved (the coverage
// starts that date every left-censored req), after p's count of applied commits in a row, when
// the index's dictionaries grew past p's bound (a full build starts new ones), and after an
// applied commit failed; Snapshot.Reason says why. prev is not modified: its readers
// keep a consistent view.
func Update(ctx context.Context, ch driver.Conn, prev *Snapshot, p Policy) (*Snapshot, error) {
	if p.MaxTouched <= 0 {
		p.MaxTouched = DefaultMaxTouched
	}
	if p.MaxDeltas <= 0 {
		p.MaxDeltas = DefaultMaxDeltas
	}
	if p.MaxDictionary <= 0 {
		p.MaxDictionary = DefaultMaxDictionary
	}
	if p.MaxPositions == 0 || p.MaxPositions > analytics.MaxPositionsRead {
		p.MaxPositions = analytics.MaxPositionsRead
	}
	reason := ""
	switch {
	case prev == nil || prev.Index == nil:
		reason = "first build"
	case p.Full:
		reason = "full rebuilds asked"
	case prev.deltas >= p.MaxDeltas:
		reason = fmt.Sprintf("%d commits applied in a row", prev.deltas)
	case prev.Index.DictionaryEntries() > p.MaxDictionary:
		reason = fmt.Sprintf("the index's dictionaries hold %d entries", prev.Index.DictionaryEntries())
	default:
		s, why, err := apply(ctx, ch, prev, p)
		if err == nil && why == "" {
			return s, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			why = "applying the commit failed: " + err.Error()
		}
		reason = why
	}
	s, err := Build(ctx, ch)
	if err != nil {
		return nil, err
	}
	s.Reason = reason
	return s, nil
}

// apply builds the snapshot of the current watermark over prev, or says why it does not (why):
// the commit is then rebuilt whole.
func apply(ctx context.Context, ch driver.Conn, prev *Snapshot, p Policy) (s *Snapshot, why string, err error) {
	started := time.Now()
	mark := started
	var phases []string
	phase := func(name string) {
		phases = append(phases, name+"="+time.Since(mark).Round(time.Millisecond).String())
		mark = time.Now()
	}
	// The presence check counts the events above the bound prev's check proved, while the same
	// replica answers (from the first event otherwise).
	wm, at, present, err := analytics.ReadWatermarkAbove(ctx, ch, prev.present)
	if err != nil {
		return nil, "", err
	}
	at = at.UTC()
	if wm < prev.Watermark || at.Before(prev.AsOf) {
		return nil, "the committed watermark or cycle time moved back", nil
	}
	phase("watermark")
	g := analytics.AtWatermark(wm, at)
	// Three small reads at once: each costs a round trip more than its rows.
	var regions []analytics.RegionRead
	var gaps []analytics.Gap
	var touched []uint64
	errs := make([]error, 3)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); regions, errs[0] = analytics.RegionReads(ctx, ch, g) }()
	go func() { defer wg.Done(); gaps, errs[1] = analytics.Gaps(ctx, ch, g, analytics.GapQuery{}) }()
	go func() {
		defer wg.Done()
		touched, errs[2] = analytics.TouchedCompanies(ctx, ch, analytics.AtWatermark(prev.Watermark, prev.AsOf), g)
	}()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, "", err
	}
	if !sameFirsts(prev.regions, regions) {
		return nil, "a crawl region's first committed cycle moved", nil
	}
	if len(touched) > analytics.MaxCompaniesRead || float64(len(touched)) > p.MaxTouched*float64(max(prev.Model.Companies(), 1)) {
		return nil, fmt.Sprintf("%d companies touched", len(touched)), nil
	}
	cos, err := analytics.CompaniesOf(ctx, ch, g, touched)
	if err != nil {
		return nil, "", err
	}
	for i := range cos {
		c := &cos[i]
		old := prev.Model.Company(c.CompanyID)
		if old != nil && old.Region() != c.Region {
			return nil, "a company moved to another crawl region", nil
		}
		if old == nil && (prev.Index.CompanyReqs(c.CompanyID) != nil || len(prev.reqs[c.CompanyID]) > 0) {
			return nil, "a company with reqs joined the directory", nil
		}
	}
	phase("touched")
	isTouched := make(map[uint64]bool, len(touched))
	var known []analytics.ReqAt
	for _, id := range touched {
		isTouched[id] = true
		known = prev.reqs[id].appendTo(known)
	}
	touchedFn := func(id uint64) bool { return isTouched[id] }
	index := searchindex.NewBuilder(wm, at, cos)
	index.Over(prev.Index, touchedFn)
	models := readmodel.NewBuilder(index.Dictionaries(), wm, at, regions, cos) // prev's lineage, as the index's
	models.Gaps(gaps)
	models.Over(prev.Model, touchedFn)
	index.ObservedFrom(models.Since())
	index.Gaps(gaps)
	// The side reads run beside the req read, each its own query: the touched companies' ATS
	// history and board sightings (req_boards and ats_history are ordered by company first), and
	// the weekly flows of the commits' own events (a range of event_seq, the events' ordering
	// key), added to the touched companies' momentum and the role demand prev carries.
	var sd side
	var between []analytics.WeekCount
	momentum := map[uint64][]analytics.WeekCount{}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var reads []func() error
	if wm > prev.Watermark {
		reads = append(reads, func() error {
			return analytics.StreamMomentumBetween(sctx, ch, prev.Watermark, wm, wm, func(w analytics.WeekCount) error {
				momentum[w.Key] = append(momentum[w.Key], w)
				return nil
			})
		}, func() (err error) {
			between, err = analytics.RoleDemandBetween(sctx, ch, prev.Watermark, wm, wm)
			return err
		})
	}
	if len(touched) > 0 {
		reads = append(reads, func() (err error) {
			sd.model.ATS, err = analytics.CompanyATSHistoryAt(sctx, ch, g, touched)
			return err
		}, func() error {
			return analytics.StreamCompanyBoardsOf(sctx, ch, g, touched, func(b *analytics.BoardSighting) error {
				sd.model.Boards = append(sd.model.Boards, *b)
				return nil
			})
		})
	}
	sideErrs := make([]error, len(reads))
	var sideWG sync.WaitGroup
	sideWG.Add(len(reads))
	for i, read := range reads {
		go func() {
			defer sideWG.Done()
			if sideErrs[i] = read(); sideErrs[i] != nil {
				cancel()
			}
		}()
	}
	defer func() { cancel(); sideWG.Wait() }()
	// The touched companies' reqs: each at the position prev carries, with the commits' events
	// folded in (a read of the commit, not of the companies' whole history), or, when the
	// positions are too many to pay, by a scan of those companies' events.
	reqs := map[uint64]positions{}
	if len(touched) > 0 {
		add := func(r *analytics.LedgerReq) error {
			reqs[r.CompanyID] = appendPosition(reqs[r.CompanyID], r.At())
			addReq(models, index, r)
			return nil
		}
		if len(known) <= p.MaxPositions {
			err = analytics.StreamCompanyLedgerReqsAbove(ctx, ch, g, touched, prev.Watermark, known, add)
		} else {
			err = analytics.StreamCompanyLedgerReqs(ctx, ch, g, touched, add)
		}
		if err != nil {
			return nil, "", err
		}
	}
	phase("reqs")
	sideWG.Wait()
	if err := errors.Join(sideErrs...); err != nil {
		return nil, "", err
	}
	for _, id := range touched {
		sd.model.Momentum = append(sd.model.Momentum, addWeeks(prev.Model.MomentumRows(id), momentum[id])...)
	}
	phase("side_reads")
	s = &Snapshot{Watermark: wm, AsOf: at, Gaps: gaps, Kind: KindDelta, Touched: len(touched), deltas: prev.deltas + 1,
		regions: regions, demand: addDemand(prev.demand, between), present: present, reqs: carryReqs(prev.reqs, touched, reqs)}
	s.assemble(models, index, sd.model, phase)
	s.Phases = strings.Join(phases, " ")
	s.BuiltAt = time.Now().UTC()
	s.BuildTook = time.Since(started)
	return s, "", nil
}

// carryReqs is prev's req positions with those of the touched companies replaced by now's (a
// touched company absent from now has none).
func carryReqs(prev map[uint64]positions, touched []uint64, now map[uint64]positions) map[uint64]positions {
	out := maps.Clone(prev)
	if out == nil {
		out = map[uint64]positions{}
	}
	for _, id := range touched {
		if l := now[id]; len(l) > 0 {
			out[id] = slices.Clip(l)
		} else {
			delete(out, id)
		}
	}
	return out
}

// addWeeks is one company's weekly flow a (StreamMomentum's rows, by week) with the weeks of b
// (the same company's, by week) added, by week.
func addWeeks(a, b []analytics.WeekCount) []analytics.WeekCount {
	if len(b) == 0 {
		return a
	}
	out := make([]analytics.WeekCount, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].BucketStart.Before(b[j].BucketStart)):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j].BucketStart.Before(a[i].BucketStart):
			out = append(out, b[j])
			j++
		default:
			w := a[i]
			w.Opened += b[j].Opened
			w.Reposted += b[j].Reposted
			w.Closed += b[j].Closed
			out = append(out, w)
			i, j = i+1, j+1
		}
	}
	return out
}

// sameFirsts reports whether the crawl regions (CompanyRegion aside: an on-demand crawl touches
// its company) and their first committed cycles are the same in a and b.
func sameFirsts(a, b []analytics.RegionRead) bool {
	firsts := func(rs []analytics.RegionRead) map[string]time.Time {
		m := map[string]time.Time{}
		for _, r := range rs {
			if !strings.HasPrefix(r.Region, "company:") {
				m[r.Region] = r.First
			}
		}
		return m
	}
	fa, fb := firsts(a), firsts(b)
	if len(fa) != len(fb) {
		return false
	}
	for r, t := range fa {
		if u, ok := fb[r]; !ok || !u.Equal(t) {
			return false
		}
	}
	return true
}

// addDemand is the role-demand series a (analytics.RoleDemand's rows) with the weeks of b added,
// in RoleDemand's order (function, country, week).
func addDemand(a, b []analytics.WeekCount) []analytics.WeekCount {
	if len(b) == 0 {
		return a
	}
	type key struct {
		function, country string
		week              int64
	}
	at := make(map[key]int, len(a)+len(b))
	out := make([]analytics.WeekCount, 0, len(a)+len(b))
	for _, l := range [][]analytics.WeekCount{a, b} {
		for _, w := range l {
			k := key{w.Function, w.Country, w.BucketStart.Unix()}
			if i, ok := at[k]; ok {
				out[i].Opened += w.Opened
				out[i].Reposted += w.Reposted
				out[i].Closed += w.Closed
				continue
			}
			at[k] = len(out)
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(x, y analytics.WeekCount) int {
		if c := strings.Compare(x.Function, y.Function); c != 0 {
			return c
		}
		if c := strings.Compare(x.Country, y.Country); c != 0 {
			return c
		}
		return x.BucketStart.Compare(y.BucketStart)
	})
	return out
}
