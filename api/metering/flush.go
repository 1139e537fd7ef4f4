package metering

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/oltp"
)

// The flusher: closed segments (.wal) move to Postgres in one transaction each, oldest first, and
// are deleted only after it commits. The transaction records the segment's id (its file name,
// unique per process start), so a segment replayed after a crash between commit and delete is
// skipped whole and doubles nothing.

// segmentID is the ledger id of the segment file at path: its base name without the suffix.
func segmentID(path string) string {
	return strings.TrimSuffix(filepath.Base(path), segClosed)
}

// validLength is the length a sealed segment's name limits it to (seg-…~<valid>.wal), or -1.
func validLength(path string) int64 {
	id := segmentID(path)
	i := strings.LastIndexByte(id, '~')
	if i < 0 {
		return -1
	}
	n, err := strconv.ParseInt(id[i+1:], 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// errUnreadable marks flush errors about segments that could not be read (kept and retried),
// as opposed to Postgres failures, which the flusher backs off from.
var errUnreadable = errors.New("unreadable metering segment")

func (l *Log) flushLoop(ctx context.Context) {
	defer l.flusher.Done()
	tick := time.NewTicker(l.cfg.FlushInterval)
	defer tick.Stop()
	backoff := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.poke:
		case <-tick.C:
		}
		if backoff > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
		}
		err := l.flushClosed(ctx)
		switch {
		case ctx.Err() != nil:
			// Stopping: the flush was cut short, not failed. Stop flushes what is left itself.
			return
		case err == nil || isOnlyUnreadable(err):
			// Unreadable segments are logged by flushClosed and retried at the next tick; they hold
			// nothing else up.
			backoff = 0
		default:
			backoff = min(max(2*backoff, 250*time.Millisecond), 10*time.Second)
			l.cfg.Log.Warn("metering flush to Postgres failed; units stay on disk and are retried (lost if this instance dies and its directory is never opened again)",
				"err", err, "retry_in", backoff, "unflushed_for", l.UnflushedFor(time.Now()).Round(time.Second), "dir", l.cfg.Dir)
		}
	}
}

// isOnlyUnreadable reports whether every error joined in err is about an unreadable segment.
func isOnlyUnreadable(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !isOnlyUnreadable(e) {
				return false
			}
		}
		return true
	}
	return errors.Is(err, errUnreadable)
}

// flushClosed moves every sealed segment to Postgres, oldest first, deleting each after its
// transaction committed. A segment that cannot be read (an I/O error, or a damaged record before
// its end) is kept on disk, counted (SegmentReadErrors), logged and retried at the next flush,
// and the others go on; a Postgres failure stops the round.
func (l *Log) flushClosed(ctx context.Context) error {
	if l.cfg.Pool == nil {
		return errors.New("cannot flush metering: no Postgres pool is configured; segments stay on disk")
	}
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	matches, err := filepath.Glob(filepath.Join(l.cfg.Dir, "seg-*"+segClosed))
	if err != nil {
		return err
	}
	sort.Strings(matches)
	if len(matches) > 64 {
		l.cfg.Log.Warn("metering backlog on disk: Postgres is behind", "segments", len(matches), "dir", l.cfg.Dir)
	}
	var unreadable []error
	for _, path := range matches {
		recs, torn, err := readSegment(l.cfg.readFile, path, validLength(path))
		if err != nil {
			unreadable = append(unreadable, l.unreadable(path, err))
			continue
		}
		delete(l.badWarned, path)
		if torn > 0 {
			l.cfg.Log.Warn("metering segment ends in a torn record (cut by a crash, never acknowledged); skipped", "segment", path, "bytes", torn)
		}
		id := segmentID(path)
		inserted, err := insertSegment(ctx, l.cfg.Pool, id, recs)
		if err != nil {
			return errors.Join(append(unreadable, err)...)
		}
		if inserted {
			l.committed(id, recs)
		}
		if err := os.Remove(path); err != nil {
			return errors.Join(append(unreadable, fmt.Errorf("cannot remove flushed segment %s: %w", path, err))...)
		}
	}
	return errors.Join(unreadable...)
}

// unreadable counts a failed read of the segment at path, logs it (at most once a minute per
// segment) and returns the error to report.
func (l *Log) unreadable(path string, err error) error {
	l.readErrs.Add(1)
	now := time.Now().Unix()
	if last, ok := l.badWarned[path]; !ok || now-last >= 60 {
		l.badWarned[path] = now
		l.cfg.Log.Error("cannot read a metering segment: it is kept on disk and retried at every flush; if it stays unreadable, move it out of the directory and recover its records by hand",
			"segment", path, "err", err, "read_errors", l.readErrs.Load())
	}
	return fmt.Errorf("%w %s (kept, retried): %w", errUnreadable, path, err)
}

// committed tells Config.Committed the units of a segment this Log wrote, now in Postgres
// (l.flushMu held).
func (l *Log) committed(id string, recs []Record) {
	if l.cfg.Committed == nil {
		return
	}
	if inst := segmentInstance(id); inst == "" || !l.ownIDs[inst] {
		return
	}
	type acctMonth struct {
		account int64
		month   time.Time
	}
	sums := map[acctMonth]int64{}
	for _, r := range recs {
		y, m, _ := r.OccurredAt.UTC().Date()
		sums[acctMonth{r.AccountID, time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)}] += r.Units
	}
	for k, units := range sums {
		if units != 0 {
			l.cfg.Committed(k.account, k.month, units)
		}
	}
}

// segmentInstance is the instance id a segment id names (seg-<instance>-<seq>[~valid]), or "".
func segmentInstance(id string) string {
	rest, ok := strings.CutPrefix(id, "seg-")
	inst, _, ok2 := strings.Cut(rest, "-")
	if !ok || !ok2 {
		return ""
	}
	return inst
}

// usageKey is what one usage_events row aggregates over.
type usageKey struct {
	customer, method, route, class, function, channel string
	account, key                                      int64
	forced                                            bool
	second                                            int64
}

// InsertSegment moves one segment's records to Postgres in one transaction: the segment is
// recorded in usage_segments, its records are rolled up into usage_events rows (calls and units
// summed per customer, key, route, meter class, function, forced_fresh, channel and second) and into
// usage_monthly. A segment already recorded is skipped whole, so a replay doubles nothing.
func InsertSegment(ctx context.Context, pool *pgxpool.Pool, segmentID string, recs []Record) error {
	_, err := insertSegment(ctx, pool, segmentID, recs)
	return err
}

// insertSegment is InsertSegment; inserted is false when the segment was already recorded (or
// empty).
func insertSegment(ctx context.Context, pool *pgxpool.Pool, segmentID string, recs []Record) (inserted bool, err error) {
	if len(recs) == 0 {
		return false, nil
	}
	type agg struct {
		calls, units int64
	}
	sums := map[usageKey]*agg{}
	order := make([]usageKey, 0, 16)
	for _, r := range recs {
		k := usageKey{customer: r.CustomerID, method: r.Method, route: r.Route, class: r.MeterClass, function: r.Function, channel: r.Channel,
			account: r.AccountID, key: r.KeyID, forced: r.ForcedFresh, second: r.OccurredAt.Unix()}
		a := sums[k]
		if a == nil {
			a = &agg{}
			sums[k] = a
			order = append(order, k)
		}
		a.calls += int64(r.Calls)
		a.units += r.Units
	}
	n := len(order)
	ids, custs, methods, routes, classes, fns := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	chans := make([]string, n)
	accts, keys, units, calls := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	forced := make([]bool, n)
	at := make([]time.Time, n)
	for i, k := range order {
		a := sums[k]
		ids[i] = segmentID + ":" + strconv.Itoa(i)
		custs[i], methods[i], routes[i], classes[i], fns[i] = k.customer, k.method, k.route, k.class, k.function
		chans[i] = cmp.Or(k.channel, oltp.ChannelREST)
		accts[i], keys[i], units[i], calls[i], forced[i], at[i] = k.account, k.key, a.units, a.calls, k.forced, time.Unix(k.second, 0).UTC()
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO usage_segments (segment_id, records) VALUES ($1, $2) ON CONFLICT (segment_id) DO NOTHING`,
			segmentID, len(recs))
		if err != nil {
			return fmt.Errorf("cannot record metering segment %s: %w", segmentID, err)
		}
		if tag.RowsAffected() == 0 {
			return nil // flushed before a crash that kept the file: already counted
		}
		inserted = true
		_, err = tx.Exec(ctx, `WITH ins AS (
				INSERT INTO usage_events (unit_id, customer_id, account_id, key_id, method, route, meter_class, function, calls, units, forced_fresh, occurred_at, channel)
				SELECT u, c, a, k, m, r, mc, NULLIF(f, ''), n, un, ff, t, ch
				FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int8[], $10::int8[], $11::bool[], $12::timestamptz[], $13::text[])
					AS x(u, c, a, k, m, r, mc, f, n, un, ff, t, ch)
				RETURNING account_id, occurred_at, calls, units)
			INSERT INTO usage_monthly AS m (account_id, month, calls, units)
			SELECT account_id, date_trunc('month', occurred_at AT TIME ZONE 'UTC')::date, sum(calls), sum(units) FROM ins GROUP BY 1, 2
			ON CONFLICT (account_id, month) DO UPDATE SET calls = m.calls + EXCLUDED.calls, units = m.units + EXCLUDED.units`,
			ids, custs, accts, keys, methods, routes, classes, fns, calls, units, forced, at, chans)
		if err != nil {
			return fmt.Errorf("cannot insert the %d usage rows of segment %s: %w", n, segmentID, err)
		}
		// The units leave the spend hold of the instance that metered them (its caps' owner is
		// its instance id) as they reach usage_monthly, whichever process flushes them.
		return oltp.SettleSpendHolds(ctx, tx, segmentInstance(segmentID), monthUnits(recs))
	})
	return inserted && err == nil, err
}

// monthUnits sums the units of recs per account and UTC billing month (none: no entry).
func monthUnits(recs []Record) []oltp.SpendHoldUnits {
	var out []oltp.SpendHoldUnits
	at := map[oltp.SpendHoldUnits]int{} // key with Units 0 → index in out
	for _, r := range recs {
		if r.Units == 0 {
			continue
		}
		y, m, _ := r.OccurredAt.UTC().Date()
		k := oltp.SpendHoldUnits{AccountID: r.AccountID, Month: time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, k)
		}
		out[i].Units += r.Units
	}
	return out
}

// PruneSegments forgets flushed segments older than keep: a segment file is replayed within
// minutes of a restart, so older ids can no longer come back.
func PruneSegments(ctx context.Context, pool *pgxpool.Pool, keep time.Duration) error {
	_, err := pool.Exec(ctx, `DELETE FROM usage_segments WHERE flushed_at < now() - make_interval(secs => $1)`, keep.Seconds())
	if err != nil {
		return fmt.Errorf("cannot prune usage_segments: %w", err)
	}
	return nil
}
