package notifier

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// match is one (watch, event) pair to deliver.
type match struct {
	w *watch
	e *analytics.FeedEvent
}

// batch matches the events after pos (at most BatchEvents, none above the snapshot's watermark)
// and writes their deliveries and the new position in one transaction. It returns the new
// position. An error (a cancelled context included) writes nothing: the next batch starts at
// pos again.
func (n *Notifier) batch(ctx context.Context, snap *snapshot.Snapshot, pos uint64) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.StoreTimeout)
	defer cancel()
	page, err := analytics.ReadFeed(ctx, n.cfg.ClickHouse, analytics.FeedQuery{After: pos, Upper: snap.Watermark, Limit: n.cfg.BatchEvents})
	if err != nil || page.Next == pos {
		return pos, err // nothing past pos on this replica yet (it lags): nothing to write
	}
	return n.apply(ctx, snapshotView(snap), pos, page)
}

// apply matches the page of events after pos against v and writes their deliveries and the new
// position in one transaction (batch's second half, whichever view).
func (n *Notifier) apply(ctx context.Context, v view, pos uint64, page analytics.FeedPage) (uint64, error) {
	if err := n.reloadWatches(ctx); err != nil {
		return 0, err
	}
	ms := n.matchIn(v.x, page.Events)
	next := page.Next
	if limit := n.cfg.BatchDeliveries; len(ms) > limit {
		// Cut the batch after the event that reaches the bound (all its matches kept): every
		// position up to that event is covered (event_seq has no gaps below the watermark).
		cut := ms[limit-1].e.Seq
		k := limit
		for k < len(ms) && ms[k].e.Seq == cut {
			k++
		}
		ms, next = ms[:k], cut
	}
	fence, ok := n.fence()
	if !ok {
		return 0, oltp.ErrFenced
	}
	b, err := oltp.BeginNotifierBatch(ctx, n.cfg.Pool, pos)
	if err != nil {
		return 0, err
	}
	defer b.Rollback(ctx) // after Commit: nothing
	var (
		written []oltp.InsertedDelivery
		warned  []warnKey
		raised  int
	)
	if len(ms) > 0 {
		if written, warned, raised, err = n.write(ctx, b, v, ms); err != nil {
			return 0, err
		}
	}
	if err := b.CommitFenced(ctx, next, fence); err != nil {
		return 0, err
	}
	n.markWarned(warned, raised)
	n.m.written(written, page.Events, time.Now()) // latency is wall time, whatever Now is
	if len(written) > 0 {
		by := map[string]int{}
		for _, d := range written {
			by[d.Status]++
		}
		n.cfg.Log.Info("deliveries written", "position", next, "events", next-pos, "pending", by[oltp.DeliveryPending],
			"rate_limited", by[oltp.DeliveryRateLimited], "wall_blocked", by[oltp.DeliveryWallBlocked], "cap_blocked", by[oltp.DeliveryCapBlocked],
			"endpoint_disabled", by[oltp.DeliveryFailed])
	}
	return next, nil
}

// parallelFrom is the batch size from which events are matched on every core.
const parallelFrom = 256

// matchAll matches events against the live watches, on every core for a large batch, and
// returns the matches in event order and, within one event, by watch id (one order whatever the
// index's: the checks of an account's watches meeting one event are decided by watch id).
func (n *Notifier) matchAll(snap *snapshot.Snapshot, events []analytics.FeedEvent) []match {
	return n.matchIn(snap.Index, events)
}

// matchIn is matchAll against the search index x (the snapshot's or a delta's).
func (n *Notifier) matchIn(x *searchindex.Index, events []analytics.FeedEvent) []match {
	one := func(events []analytics.FeedEvent) (ms []match, matched int) {
		for i := range events {
			e := &events[i]
			before := len(ms)
			n.watches.match(x, lookup(x, e), e, func(w *watch) { ms = append(ms, match{w: w, e: e}) })
			if len(ms) > before {
				matched++
				slices.SortFunc(ms[before:], func(a, b match) int { return cmp.Compare(a.w.ID, b.w.ID) })
			}
		}
		return ms, matched
	}
	workers := min(runtime.GOMAXPROCS(0), len(events)/parallelFrom)
	if workers <= 1 {
		ms, matched := one(events)
		n.m.matched.Add(matched)
		return ms
	}
	parts := make([][]match, workers)
	counts := make([]int, workers)
	var wg sync.WaitGroup
	per := (len(events) + workers - 1) / workers
	for k := range workers {
		chunk := events[min(k*per, len(events)):min((k+1)*per, len(events))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[k], counts[k] = one(chunk)
		}()
	}
	wg.Wait()
	var ms []match
	for k := range workers {
		ms = append(ms, parts[k]...)
		n.m.matched.Add(counts[k])
	}
	return ms
}

// write decides each match's status (checks), inserts the deliveries in b and raises the
// allowance warnings the batch's accounts reached (warnings); warned are the warnings it raised or
// found raised, to remember once the batch commits, and raised how many it raised.
func (n *Notifier) write(ctx context.Context, b *oltp.NotifierBatch, v view, ms []match) (_ []oltp.InsertedDelivery, warned []warnKey, raised int, _ error) {
	now := n.cfg.Now()
	var watchIDs, accountIDs, endpointIDs []int64
	customers := map[int64]string{}
	for _, m := range ms {
		watchIDs = append(watchIDs, m.w.ID)
		accountIDs = append(accountIDs, m.w.AccountID)
		endpointIDs = append(endpointIDs, m.w.EndpointID)
		customers[m.w.AccountID] = m.w.CustomerID
	}
	watchIDs, accountIDs, endpointIDs = dedupe(watchIDs), dedupe(accountIDs), dedupe(endpointIDs)
	fires, err := b.FiresSince(ctx, watchIDs, now.Add(-n.cfg.FireWindow))
	if err != nil {
		return nil, nil, 0, err
	}
	// AccountStates holds the accounts' admission locks until the commit: a replay of one of
	// their deliveries checks the wall and the cap before or after this batch, never beside it.
	accounts, err := b.AccountStates(ctx, accountIDs, MonthStart(now))
	if err != nil {
		return nil, nil, 0, err
	}
	off, err := b.EndpointsOff(ctx, endpointIDs)
	if err != nil {
		return nil, nil, 0, err
	}
	ids, err := b.NextDeliveryIDs(ctx, len(ms))
	if err != nil {
		return nil, nil, 0, err
	}
	chk := checks{fires: fires, accounts: accounts, off: off}
	ds := make([]oltp.NewDelivery, len(ms))
	for i, m := range ms {
		key := payload.EventKey(m.w.ID, m.e.Seq)
		status, verdict := chk.decide(m.w)
		ds[i] = oltp.NewDelivery{ID: ids[i], IdempotencyKey: key, CustomerID: m.w.CustomerID, AccountID: m.w.AccountID, KeyID: m.w.KeyID,
			EndpointID: m.w.EndpointID, WatchID: m.w.ID, EventSeq: m.e.Seq, EventType: m.e.Type, Status: status,
			Queued: verdict.Queued, Overage: verdict.Overage}
		if !oltp.Blocked(status) || verdict.Queued {
			// A blocked delivery keeps no body: what it would have said is never stored nor served
			// (a queued one keeps it, unserved, for its replay once there is room).
			ds[i].Body = body(v, m.w, m.e, ids[i], key).Marshal()
		}
	}
	written, err := b.Insert(ctx, ds, now)
	if err != nil {
		return nil, nil, 0, err
	}
	if warned, raised, err = n.warnings(ctx, b, accountIDs, customers, chk.accounts, now); err != nil {
		return nil, nil, 0, err
	}
	return written, warned, raised, nil
}

// body is the delivery body of event e for watch w, its company named as v's directory names it;
// a close that was no ordinary one says why, and an event after a gap says so (after_gap), as the
// change feed does.
func body(v view, w *watch, e *analytics.FeedEvent, id int64, key string) *payload.Body {
	b := &payload.Body{Event: e.Type, RawTitle: e.RawTitle, Location: e.Location, DetectedOn: e.Board, URL: e.URL,
		Country: nullable.String(e.Country), Function: nullable.String(e.Function), EventSeq: &e.Seq, ReqKey: &e.ReqKey, CompanyID: &e.CompanyID,
		OccurredAt: e.OccurredAt.UTC().Format(time.RFC3339), WatchID: &w.ID, WebhookID: w.EndpointID, DeliveryID: id, IdempotencyKey: key,
		CloseReason: e.CloseReason, AfterGap: payload.Gap(e.GapFrom, e.GapTo)}
	observed := e.ObservedAt.UTC().Format(time.RFC3339)
	b.ObservedAt = &observed
	if b.Location == "" {
		b.Location = e.Country
	}
	b.Company = v.name(e.CompanyID)
	if e.Country != "" {
		b.CountryCode = nullable.String(normalize.CountryCode(e.Country))
	}
	if name, ok := normalize.FunctionName(e.Function); ok {
		b.FunctionName = &name
	}
	return b
}

// reloadWatches re-reads the live watches when their version changed since the last read (one
// cheap query per batch).
func (n *Notifier) reloadWatches(ctx context.Context) error {
	v, err := oltp.LiveWatchesVersion(ctx, n.cfg.Pool)
	if err != nil {
		return err
	}
	if n.loaded && v == n.version {
		return nil
	}
	lws, v, err := oltp.LoadLiveWatches(ctx, n.cfg.Pool)
	if err != nil {
		return err
	}
	ws := make([]*watch, 0, len(lws))
	for _, lw := range lws {
		w, err := compile(lw)
		if err != nil {
			n.m.badWatches.Inc()
			n.cfg.Log.Error("a live watch is never matched", "watch_id", lw.ID, "err", err)
			continue
		}
		ws = append(ws, w)
	}
	n.watches, n.version, n.loaded = newWatchIndex(ws), v, true
	n.cfg.Log.Info("live watches loaded", "watches", len(ws), "fallback", len(n.watches.fallback))
	return nil
}
