package oltp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// What the notifier reads and writes (migrations 0010, 0011 and 0022): its position in the
// ledger, the live watches, the figures of its pre-send checks and the delivery rows it writes.
// One batch is one transaction (NotifierBatch): the position row is locked and checked, the
// accounts' admission locks taken shared, the deliveries inserted (UNIQUE (watch_id, event_seq),
// ON CONFLICT DO NOTHING; a blocked one without its body), the fires of the admitted ones
// recorded, the dispatcher woken and the position advanced, all or nothing.

// ErrPositionMoved is returned by BeginNotifierBatch when the notifier position is not where the
// caller left it: another notifier instance advanced it. The caller re-reads it and carries on.
var ErrPositionMoved = errors.New("the notifier position moved (another notifier instance wrote this batch)")

// InitNotifierPosition returns the notifier's position, first setting it to initial when there
// is none (a new install starts at the current watermark instead of delivering the whole
// history).
func InitNotifierPosition(ctx context.Context, pool *pgxpool.Pool, initial uint64) (uint64, error) {
	var pos int64
	err := pool.QueryRow(ctx, `WITH ins AS (
			INSERT INTO notifier_position (id, event_seq) VALUES (1, $1) ON CONFLICT (id) DO NOTHING RETURNING event_seq)
		SELECT event_seq FROM ins UNION ALL SELECT event_seq FROM notifier_position WHERE id = 1 LIMIT 1`, int64(initial)).Scan(&pos)
	if err != nil {
		return 0, fmt.Errorf("cannot read the notifier position: %w", err)
	}
	return uint64(pos), nil
}

// NotifierPosition returns the notifier's position (ErrNotFound before InitNotifierPosition).
func NotifierPosition(ctx context.Context, pool *pgxpool.Pool) (uint64, error) {
	var pos int64
	err := pool.QueryRow(ctx, "SELECT event_seq FROM notifier_position WHERE id = 1").Scan(&pos)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("cannot read the notifier position: %w", err)
	}
	return uint64(pos), nil
}

// SetNotifierPosition sets the notifier's position (operators and tests: rewinding re-matches
// events, and the UNIQUE (watch_id, event_seq) keeps deliveries already written from doubling).
func SetNotifierPosition(ctx context.Context, pool *pgxpool.Pool, pos uint64) error {
	_, err := pool.Exec(ctx, `INSERT INTO notifier_position (id, event_seq) VALUES (1, $1)
		ON CONFLICT (id) DO UPDATE SET event_seq = excluded.event_seq, updated_at = now()`, int64(pos))
	if err != nil {
		return fmt.Errorf("cannot set the notifier position: %w", err)
	}
	return nil
}

// LiveWatch is a live watch as the notifier matches it.
type LiveWatch struct {
	ID              int64
	CustomerID      string
	AccountID       int64
	KeyID           int64 // 0: none
	EndpointID      int64
	CompanyID       *int64
	Criteria        json.RawMessage
	EventTypes      []string
	MaxFiresPerHour int
}

// WatchesVersion is a cheap fingerprint of the set of live watches: it changes whenever a watch
// is created or canceled (watch ids only grow and a watch is never edited, so the count, the sum
// and the largest id of the live ones tell two sets apart).
type WatchesVersion struct{ Count, Sum, Max int64 }

// LiveWatchesVersion reads the fingerprint of the live watches.
func LiveWatchesVersion(ctx context.Context, pool *pgxpool.Pool) (WatchesVersion, error) {
	var v WatchesVersion
	err := pool.QueryRow(ctx, "SELECT count(*), coalesce(sum(watch_id), 0)::bigint, coalesce(max(watch_id), 0) FROM watches WHERE canceled_at IS NULL").
		Scan(&v.Count, &v.Sum, &v.Max)
	if err != nil {
		return WatchesVersion{}, fmt.Errorf("cannot read the live watches' version: %w", err)
	}
	return v, nil
}

// LoadLiveWatches reads every live watch, ascending by id, with the version of the set it read
// (one snapshot: a REPEATABLE READ transaction).
func LoadLiveWatches(ctx context.Context, pool *pgxpool.Pool) ([]LiveWatch, WatchesVersion, error) {
	var out []LiveWatch
	var v WatchesVersion
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, "SELECT count(*), coalesce(sum(watch_id), 0)::bigint, coalesce(max(watch_id), 0) FROM watches WHERE canceled_at IS NULL").
			Scan(&v.Count, &v.Sum, &v.Max); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT watch_id, customer_id, account_id, coalesce(key_id, 0), endpoint_id, company_id, criteria,
				event_types, max_fires_per_hour
			FROM watches WHERE canceled_at IS NULL ORDER BY watch_id`)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (LiveWatch, error) {
			var w LiveWatch
			err := r.Scan(&w.ID, &w.CustomerID, &w.AccountID, &w.KeyID, &w.EndpointID, &w.CompanyID, &w.Criteria, &w.EventTypes, &w.MaxFiresPerHour)
			return w, err
		})
		return err
	})
	if err != nil {
		return nil, WatchesVersion{}, fmt.Errorf("cannot read the live watches: %w", err)
	}
	return out, v, nil
}

// AccountDeliveryState is what the pre-send checks know of one account at the start of a batch,
// and what a replay of a delivery never billed is judged on: the figures of the wall (the plan's
// monthly delivered-changes allowance of Tier) and of the hard spend cap. What they admit is the
// caller's rule (package push/admit).
type AccountDeliveryState struct {
	Tier       string // tier id (tier_0 .. tier_3, enterprise)
	Overflow   string // the overflow the account chose (accounts.wall_overflow: stop, overage, queue); its plan decides whether it applies
	HardCap    *int64 // hard spend cap in units; nil: none
	MonthUnits int64  // units metered this billing month (usage_monthly)
	Admitted   int64  // watch deliveries admitted this billing month (created, or readmitted by a replay) that are pending, retrying, delivered or were ever billed
	Unsent     int64  // watch deliveries pending or retrying and never billed (each bills one unit when accepted; any month)
}

// MonthStart is the start of the billing month of now (UTC).
func MonthStart(now time.Time) time.Time {
	y, m, _ := now.UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
}

// admissionLock is the advisory lock key (SQL) of the account id the SQL expression account
// names, under which the account's deliveries are admitted: a notifier batch holds it shared for
// each of its accounts from reading their figures to its commit, a replay that admits a delivery
// holds it exclusively, so the figures either reads include what the other admitted.
func admissionLock(account string) string {
	return "hashtext('delivery-admission:' || (" + account + ")::text)"
}

// accountStatesQuery reads the admission figures of the accounts $1 for the billing month
// starting $2. The admitted count reads webhook_deliveries_account_admitted_idx (migration 0025),
// whose predicate is its own: the blocked rows of the month are never read.
const accountStatesQuery = `SELECT a.account_id, a.tier, a.wall_overflow, a.hard_cap_units, coalesce(u.units, 0),
			(SELECT count(*) FROM webhook_deliveries d WHERE d.account_id = a.account_id AND d.watch_id IS NOT NULL
				AND d.created_at >= $2 AND (d.status IN ('pending', 'retrying', 'delivered') OR d.billed_at IS NOT NULL))
			+ (SELECT count(*) FROM webhook_deliveries d WHERE d.account_id = a.account_id AND d.watch_id IS NOT NULL
				AND d.readmitted_at >= $2 AND d.created_at < $2 AND (d.status IN ('pending', 'retrying', 'delivered') OR d.billed_at IS NOT NULL)),
			(SELECT count(*) FROM webhook_deliveries d WHERE d.account_id = a.account_id AND d.watch_id IS NOT NULL
				AND d.status IN ('pending', 'retrying') AND d.billed_at IS NULL)
		FROM accounts a LEFT JOIN usage_monthly u ON u.account_id = a.account_id AND u.month = $2::date
		WHERE a.account_id = ANY($1)`

// accountDeliveryStates reads the admission figures of the accounts of ids in tx; monthStart is
// the start of the billing month (UTC). An account that does not exist is absent.
func accountDeliveryStates(ctx context.Context, tx pgx.Tx, ids []int64, monthStart time.Time) (map[int64]AccountDeliveryState, error) {
	out := make(map[int64]AccountDeliveryState, len(ids))
	rows, err := tx.Query(ctx, accountStatesQuery, ids, monthStart.UTC())
	if err != nil {
		return nil, fmt.Errorf("cannot read the accounts' delivery figures: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var s AccountDeliveryState
		if err := rows.Scan(&id, &s.Tier, &s.Overflow, &s.HardCap, &s.MonthUnits, &s.Admitted, &s.Unsent); err != nil {
			return nil, fmt.Errorf("cannot read the accounts' delivery figures: %w", err)
		}
		out[id] = s
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the accounts' delivery figures: %w", err)
	}
	return out, nil
}

// ReadAccountDeliveryState reads the admission figures of accountID for the billing month of now,
// the same figures the notifier's checks read (without their lock), so the dashboard's
// changes_wall_reached agrees with the wall. ok is false for an account that does not exist.
func ReadAccountDeliveryState(ctx context.Context, pool *pgxpool.Pool, accountID int64, now time.Time) (st AccountDeliveryState, ok bool, err error) {
	err = pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		states, err := accountDeliveryStates(ctx, tx, []int64{accountID}, MonthStart(now))
		if err != nil {
			return err
		}
		st, ok = states[accountID]
		return nil
	})
	return st, ok, err
}

// NotifierBatch is one batch of the notifier: a transaction holding the position row.
type NotifierBatch struct {
	tx   pgx.Tx
	from uint64
}

// BeginNotifierBatch begins a batch that starts at position from: it locks the position row and
// checks it still reads from (ErrPositionMoved otherwise, after rolling back).
func BeginNotifierBatch(ctx context.Context, pool *pgxpool.Pool, from uint64) (*NotifierBatch, error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot begin a notifier batch: %w", err)
	}
	var pos int64
	if err := tx.QueryRow(ctx, "SELECT event_seq FROM notifier_position WHERE id = 1 FOR UPDATE").Scan(&pos); err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("cannot lock the notifier position: %w", err)
	}
	if uint64(pos) != from {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return nil, ErrPositionMoved
	}
	return &NotifierBatch{tx: tx, from: from}, nil
}

// Rollback ends the batch without writing anything (after Commit it does nothing).
func (b *NotifierBatch) Rollback(ctx context.Context) { _ = b.tx.Rollback(context.WithoutCancel(ctx)) }

// FiresSince counts the fires of each watch of ids since since.
func (b *NotifierBatch) FiresSince(ctx context.Context, ids []int64, since time.Time) (map[int64]int64, error) {
	out := make(map[int64]int64, len(ids))
	rows, err := b.tx.Query(ctx, "SELECT watch_id, count(*) FROM watch_fires WHERE watch_id = ANY($1) AND fired_at > $2 GROUP BY watch_id", ids, since)
	if err != nil {
		return nil, fmt.Errorf("cannot count the watches' fires: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("cannot count the watches' fires: %w", err)
		}
		out[id] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot count the watches' fires: %w", err)
	}
	return out, nil
}

// AccountStates takes the admission lock of each account of ids, shared, until the batch ends
// (a replay admitting one of their deliveries waits for the commit, or the batch for the replay)
// and reads their pre-send figures; monthStart is the start of the billing month (UTC). An
// account that does not exist is absent.
func (b *NotifierBatch) AccountStates(ctx context.Context, ids []int64, monthStart time.Time) (map[int64]AccountDeliveryState, error) {
	if _, err := b.tx.Exec(ctx, "SELECT pg_advisory_xact_lock_shared("+admissionLock("a")+
		") FROM (SELECT DISTINCT a FROM unnest($1::bigint[]) AS a ORDER BY a) AS s", ids); err != nil {
		return nil, fmt.Errorf("cannot lock the accounts' admissions: %w", err)
	}
	return accountDeliveryStates(ctx, b.tx, ids, monthStart)
}

// EndpointsOff is which endpoints of ids are disabled or deleted (nothing is sent to them).
func (b *NotifierBatch) EndpointsOff(ctx context.Context, ids []int64) (map[int64]bool, error) {
	rows, err := b.tx.Query(ctx, "SELECT endpoint_id FROM webhook_endpoints WHERE endpoint_id = ANY($1) AND (disabled_at IS NOT NULL OR deleted_at IS NOT NULL)", ids)
	if err != nil {
		return nil, fmt.Errorf("cannot read the endpoints' state: %w", err)
	}
	off, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("cannot read the endpoints' state: %w", err)
	}
	out := make(map[int64]bool, len(off))
	for _, id := range off {
		out[id] = true
	}
	return out, nil
}

// NextDeliveryIDs reserves n delivery ids (a delivery's body carries its own id, so the id is
// known before the row is written).
func (b *NotifierBatch) NextDeliveryIDs(ctx context.Context, n int) ([]int64, error) {
	if n == 0 {
		return nil, nil
	}
	rows, err := b.tx.Query(ctx, "SELECT nextval(pg_get_serial_sequence('webhook_deliveries', 'delivery_id')) FROM generate_series(1, $1)", n)
	if err != nil {
		return nil, fmt.Errorf("cannot reserve delivery ids: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("cannot reserve delivery ids: %w", err)
	}
	return ids, nil
}

// NewDelivery is a delivery row the notifier writes.
type NewDelivery struct {
	ID             int64
	IdempotencyKey string
	CustomerID     string
	AccountID      int64
	KeyID          int64 // 0: none
	EndpointID     int64
	WatchID        int64
	EventSeq       uint64
	EventType      string
	Body           []byte // nil, and never stored, for a blocked status unless Queued
	Status         string // pending, a blocked status (rate_limited, wall_blocked, cap_blocked), or failed (the endpoint is disabled)
	// Queued marks a wall_blocked delivery held under overflow queue: its body is stored (never
	// served while queued) for a replay once the allowance has room.
	Queued bool
	// Overage marks a delivery admitted past the allowance under overflow overage: charged at the
	// plan's delivered_change price once accepted.
	Overage bool
}

// InsertedDelivery is a row Insert wrote (one already there is not reported).
type InsertedDelivery struct {
	WatchID  int64
	EventSeq uint64
	Status   string
}

// Insert writes ds in one statement: a pending delivery is due now (next_attempt_at = now()), a
// blocked or failed one never (NULL); a blocked one without its body, whatever ds holds (Blocked),
// unless it is queued.
// A (watch_id, event_seq) already written is skipped. For every
// pending row written it records a watch fire at firedAt and keeps the watch's last_fired_at,
// and when there is one it notifies the dispatcher (delivered at Commit).
func (b *NotifierBatch) Insert(ctx context.Context, ds []NewDelivery, firedAt time.Time) ([]InsertedDelivery, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	n := len(ds)
	ids, accounts, keys, endpoints, watches, seqs := make([]int64, n), make([]int64, n), make([]*int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	idem, customers, types, statuses := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	bodies := make([][]byte, n)
	queued, overage := make([]bool, n), make([]bool, n)
	for i := range ds {
		d := &ds[i]
		ids[i], accounts[i], endpoints[i], watches[i], seqs[i] = d.ID, d.AccountID, d.EndpointID, d.WatchID, int64(d.EventSeq)
		if d.KeyID != 0 {
			keys[i] = &d.KeyID
		}
		idem[i], customers[i], types[i], statuses[i], bodies[i] = d.IdempotencyKey, d.CustomerID, d.EventType, d.Status, d.Body
		queued[i], overage[i] = d.Queued && d.Status == DeliveryWallBlocked, d.Overage && d.Status == DeliveryPending
	}
	rows, err := b.tx.Query(ctx, `INSERT INTO webhook_deliveries (delivery_id, idempotency_key, customer_id, account_id, key_id, endpoint_id,
			watch_id, event_seq, event_type, body, status, next_attempt_at, queued, overage)
		SELECT d.id, d.idem, d.customer, d.account, d.key, d.endpoint, d.watch, d.seq, d.type,
			CASE WHEN d.status NOT IN ('rate_limited', 'wall_blocked', 'cap_blocked') OR d.queued THEN d.body END, d.status,
			CASE WHEN d.status = 'pending' THEN now() END, d.queued, d.overage
		FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::text[],
			$10::bytea[], $11::text[], $12::bool[], $13::bool[]) AS d(id, idem, customer, account, key, endpoint, watch, seq, type, body, status, queued, overage)
		ON CONFLICT DO NOTHING
		RETURNING watch_id, event_seq, status`, ids, idem, customers, accounts, keys, endpoints, watches, seqs, types, bodies, statuses, queued, overage)
	if err != nil {
		return nil, fmt.Errorf("cannot insert %d deliveries: %w", n, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (InsertedDelivery, error) {
		var d InsertedDelivery
		var seq int64
		err := r.Scan(&d.WatchID, &seq, &d.Status)
		d.EventSeq = uint64(seq)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("cannot insert %d deliveries: %w", n, err)
	}
	var fw, fs []int64
	for _, d := range out {
		if d.Status == "pending" {
			fw, fs = append(fw, d.WatchID), append(fs, int64(d.EventSeq))
		}
	}
	if len(fw) == 0 {
		return out, nil
	}
	if _, err := b.tx.Exec(ctx, `INSERT INTO watch_fires (watch_id, fired_at, event_seq) SELECT w, $3, s FROM unnest($1::bigint[], $2::bigint[]) AS f(w, s)`,
		fw, fs, firedAt); err != nil {
		return nil, fmt.Errorf("cannot record %d watch fires: %w", len(fw), err)
	}
	if _, err := b.tx.Exec(ctx, `UPDATE watches SET last_fired_at = greatest(last_fired_at, $2) WHERE watch_id = ANY($1)`, fw, firedAt); err != nil {
		return nil, fmt.Errorf("cannot update the watches' last fire: %w", err)
	}
	if _, err := b.tx.Exec(ctx, "SELECT pg_notify($1, '')", DeliveriesChannel); err != nil {
		return nil, fmt.Errorf("cannot notify the dispatcher: %w", err)
	}
	return out, nil
}

// Commit advances the position to to and commits the batch.
func (b *NotifierBatch) Commit(ctx context.Context, to uint64) error {
	return b.CommitFenced(ctx, to, Fence{})
}

// CommitFenced is Commit for the holder of the notifier's lease: it commits only while fence is
// still the role's lease, holding the lease row until the commit, and otherwise rolls back and
// returns ErrFenced (a notifier that lost its lease while paused or cut off writes nothing).
func (b *NotifierBatch) CommitFenced(ctx context.Context, to uint64, fence Fence) error {
	if err := fence.check(ctx, b.tx); err != nil {
		b.Rollback(ctx)
		return err
	}
	if _, err := b.tx.Exec(ctx, "UPDATE notifier_position SET event_seq = $1, updated_at = now() WHERE id = 1", int64(to)); err != nil {
		b.Rollback(ctx)
		return fmt.Errorf("cannot advance the notifier position to %d: %w", to, err)
	}
	if err := b.tx.Commit(ctx); err != nil {
		return fmt.Errorf("cannot commit the notifier batch up to event_seq %d: %w", to, err)
	}
	return nil
}
