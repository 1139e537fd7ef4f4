package notifier

import (
	"context"
	"time"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// The fast path: a committed cycle is matched within about CommitPoll of its commit, without
// waiting for the read snapshot's full rebuild. When the committed watermark is past both the
// position and the snapshot's watermark, a batch builds a small "delta" search index at the
// committed watermark holding only the reqs its events touch, each with its full current state
// (analytics.StreamTouchedLedgerReqs: the rows the snapshot's full pass gives for them), over the
// directory rows of their companies (analytics.CompaniesOf), and matches against it.
//
// This is exact, not an approximation: what a match asks of the index is per req (the req's own
// state and its company's directory facts: criteria.Criteria.Match through
// searchindex.Qualifier.Qualifies, and the watch index's keys), and what the body asks is the
// company's name, the directory's. The index-wide parts of a Qualifier are either not reachable
// from a criteria object (the salary band, whose inferred figures are index-wide, is not in the
// vocabulary) or cannot change the answer for a req the index holds: a country, function or word
// of the query the index has no req of makes the query match nothing (c.none, words.none), which
// is then also the answer for every req it does hold; a q_excludes phrase with a word unknown to
// the index vetoes nothing the index holds. So the delta answers every (watch, event) exactly as
// the snapshot built at the same watermark (and cycle time: the closed window) would, and the
// position moves over the batch as after a snapshot batch: exactly once, one event_seq.
// TestTheFastPathWritesWhatTheSnapshotPathWrites holds the two paths to the same rows.

// view is what one batch matches against and names companies from: the read snapshot, or a
// delta built for the batch.
type view struct {
	x     *searchindex.Index
	upper uint64                 // the watermark of the view: the batch reads no event above it
	name  func(id uint64) string // the company's name in the directory ("" when it lists none)
}

func snapshotView(s *snapshot.Snapshot) view {
	return view{x: s.Index, upper: s.Watermark, name: func(id uint64) string {
		if co := s.Model.Company(id); co != nil {
			return co.Name
		}
		return ""
	}}
}

// commitMark is a committed watermark and the time of the latest committed cycle at it, as
// analytics.Watermark read them (what a snapshot built then would be built at).
type commitMark struct {
	wm uint64
	at time.Time
}

// companiesPerRead bounds the company ids of one CompaniesOf read.
const companiesPerRead = 5000

// delta builds the view at c of the reqs touched by events in (after, upto] and of the
// companies of those reqs and of events.
func (n *Notifier) delta(ctx context.Context, c commitMark, after, upto uint64, events []analytics.FeedEvent) (view, error) {
	g := analytics.AtWatermark(c.wm, c.at)
	var reqs []analytics.LedgerReq
	if err := analytics.StreamTouchedLedgerReqs(ctx, n.cfg.ClickHouse, g, after, upto, func(r *analytics.LedgerReq) error {
		reqs = append(reqs, *r) // its slices may be kept
		return nil
	}); err != nil {
		return view{}, err
	}
	seen := map[uint64]bool{}
	var ids []uint64
	for _, id := range companyIDs(reqs, events) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	var cos []analytics.Company
	for len(ids) > 0 {
		k := min(len(ids), companiesPerRead)
		part, err := analytics.CompaniesOf(ctx, n.cfg.ClickHouse, g, ids[:k])
		if err != nil {
			return view{}, err
		}
		cos, ids = append(cos, part...), ids[k:]
	}
	names := make(map[uint64]string, len(cos))
	for i := range cos {
		names[cos[i].CompanyID] = cos[i].Name
	}
	b := searchindex.NewBuilder(c.wm, c.at, cos)
	for i := range reqs {
		b.Add(&reqs[i])
	}
	return view{x: b.Build(nil), upper: c.wm, name: func(id uint64) string { return names[id] }}, nil
}

func companyIDs(reqs []analytics.LedgerReq, events []analytics.FeedEvent) []uint64 {
	out := make([]uint64, 0, len(reqs)+len(events))
	for i := range reqs {
		out = append(out, reqs[i].CompanyID)
	}
	for i := range events {
		out = append(out, events[i].CompanyID)
	}
	return out
}

// fastBatch is batch over the events after pos up to the committed watermark c, matched against
// a delta built for them (see above).
func (n *Notifier) fastBatch(ctx context.Context, c commitMark, pos uint64) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.StoreTimeout)
	defer cancel()
	started := time.Now()
	page, err := analytics.ReadFeed(ctx, n.cfg.ClickHouse, analytics.FeedQuery{After: pos, Upper: c.wm, Limit: n.cfg.BatchEvents})
	if err != nil || page.Next == pos {
		return pos, err // nothing past pos on this replica yet (it lags): nothing to write
	}
	read := time.Now()
	v, err := n.delta(ctx, c, pos, page.Next, page.Events)
	if err != nil {
		return 0, err
	}
	built := time.Now()
	n.m.fast.Inc()
	next, err := n.apply(ctx, v, pos, page)
	if err == nil {
		n.cfg.Log.Debug("fast batch", "position", next, "events", len(page.Events),
			"feed", read.Sub(started).Round(time.Millisecond), "delta", built.Sub(read).Round(time.Millisecond),
			"match_write", time.Since(built).Round(time.Millisecond))
	}
	return next, err
}
