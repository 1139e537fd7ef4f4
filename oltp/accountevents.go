package oltp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Account events (migration 0032): what happened to an account rather than to a req, today the
// warnings that an allowance reached 80% or 100% of its limit in a period. Each is raised once per
// (account, allowance, period, limit, threshold), served on the change feed and delivered, signed
// like every delivery, to every live endpoint of the customer (watch_id and event_seq NULL,
// account_event_id set, never billed). When one is raised and what it says are the caller's
// (package push/admit); this file stores, delivers and reads them.

// NewAccountEvent is an account event to raise.
type NewAccountEvent struct {
	CustomerID  string
	AccountID   int64
	Type        string // e.g. allowance_warning
	Allowance   string // e.g. delivered_changes
	Threshold   int    // percent of the limit reached: 80 or 100
	Limit       int64
	Used        int64
	Overflow    string // what happens past the limit (stop, overage, queue)
	PeriodStart time.Time
	ResetsAt    time.Time
}

// AccountEvent is a raised account event.
type AccountEvent struct {
	ID int64
	NewAccountEvent
	CreatedAt time.Time
}

// AccountEventBody builds the delivery of event e to endpoint endpointID once its delivery id is
// known: its idempotency key and its body.
type AccountEventBody func(e AccountEvent, endpointID, deliveryID int64) (key string, body []byte)

// RaiseAccountEvents raises evs in the batch: each not raised before (the same account,
// allowance, period, limit and threshold) is stored and delivered, pending and due now, to every
// live and enabled endpoint of its customer, with the body body builds. It returns the events it
// raised (an event raised before is skipped).
func (b *NotifierBatch) RaiseAccountEvents(ctx context.Context, evs []NewAccountEvent, body AccountEventBody) ([]AccountEvent, error) {
	return raiseAccountEvents(ctx, b.tx, evs, body)
}

func raiseAccountEvents(ctx context.Context, tx pgx.Tx, evs []NewAccountEvent, body AccountEventBody) ([]AccountEvent, error) {
	var raised []AccountEvent
	for _, e := range evs {
		var id int64
		var created time.Time
		err := tx.QueryRow(ctx, `INSERT INTO account_events (customer_id, account_id, event_type, allowance, threshold, allowance_limit, used, overflow,
				period_start, resets_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			ON CONFLICT (account_id, allowance, period_start, allowance_limit, threshold) DO NOTHING RETURNING account_event_id, created_at`,
			e.CustomerID, e.AccountID, e.Type, e.Allowance, e.Threshold, e.Limit, e.Used, e.Overflow, e.PeriodStart.UTC(), e.ResetsAt.UTC()).Scan(&id, &created)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot raise the %s %d%% account event of account %d: %w", e.Allowance, e.Threshold, e.AccountID, err)
		}
		raised = append(raised, AccountEvent{ID: id, NewAccountEvent: e, CreatedAt: created.UTC()})
	}
	if len(raised) == 0 {
		return nil, nil
	}
	sent := false
	for _, ev := range raised {
		rows, err := tx.Query(ctx, `SELECT endpoint_id FROM webhook_endpoints WHERE customer_id = $1 AND deleted_at IS NULL AND disabled_at IS NULL
			ORDER BY endpoint_id`, ev.CustomerID)
		if err != nil {
			return nil, fmt.Errorf("cannot read the endpoints of customer %s: %w", ev.CustomerID, err)
		}
		endpoints, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return nil, fmt.Errorf("cannot read the endpoints of customer %s: %w", ev.CustomerID, err)
		}
		for _, ep := range endpoints {
			var id int64
			if err := tx.QueryRow(ctx, "SELECT nextval(pg_get_serial_sequence('webhook_deliveries', 'delivery_id'))").Scan(&id); err != nil {
				return nil, fmt.Errorf("cannot reserve a webhook delivery id: %w", err)
			}
			key, b := body(ev, ep, id)
			if _, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (delivery_id, idempotency_key, customer_id, account_id, endpoint_id, event_type, body,
					status, next_attempt_at, account_event_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), $9)`,
				id, key, ev.CustomerID, ev.AccountID, ep, ev.Type, b, DeliveryPending, ev.ID); err != nil {
				return nil, fmt.Errorf("cannot insert the delivery of account event %d: %w", ev.ID, err)
			}
			sent = true
		}
	}
	if sent {
		if _, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", DeliveriesChannel); err != nil {
			return nil, fmt.Errorf("cannot wake the dispatcher: %w", err)
		}
	}
	return raised, nil
}

// ListAccountEvents is the account events of accountID of customerID created at or after since,
// newest first, at most limit.
func ListAccountEvents(ctx context.Context, pool *pgxpool.Pool, customerID string, accountID int64, since time.Time, limit int) ([]AccountEvent, error) {
	rows, err := pool.Query(ctx, `SELECT account_event_id, customer_id, account_id, event_type, allowance, threshold, allowance_limit, used, overflow,
			period_start, resets_at, created_at
		FROM account_events WHERE customer_id = $1 AND account_id = $2 AND created_at >= $3 ORDER BY account_event_id DESC LIMIT $4`,
		customerID, accountID, since, limit)
	if err != nil {
		return nil, fmt.Errorf("cannot read the account's events: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (AccountEvent, error) {
		var e AccountEvent
		err := r.Scan(&e.ID, &e.CustomerID, &e.AccountID, &e.Type, &e.Allowance, &e.Threshold, &e.Limit, &e.Used, &e.Overflow,
			&e.PeriodStart, &e.ResetsAt, &e.CreatedAt)
		e.PeriodStart, e.ResetsAt, e.CreatedAt = e.PeriodStart.UTC(), e.ResetsAt.UTC(), e.CreatedAt.UTC()
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read the account's events: %w", err)
	}
	return out, nil
}

// SetWallOverflow sets what happens past the delivered-changes allowance of accountID of
// customerID (stop, overage or queue; whether its plan allows it is the caller's rule) and returns
// the account's tier. ErrNotFound when the account is not the customer's.
func SetWallOverflow(ctx context.Context, pool *pgxpool.Pool, customerID string, accountID int64, overflow string) (tier string, err error) {
	err = pool.QueryRow(ctx, `UPDATE accounts SET wall_overflow = $3 WHERE account_id = $1 AND customer_id = $2 RETURNING tier`,
		accountID, customerID, overflow).Scan(&tier)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("cannot set the account's overflow: %w", err)
	}
	return tier, nil
}

// QueuedDeliveries counts accountID's watch deliveries held at the wall under overflow queue
// (wall_blocked, queued) created at or after since.
func QueuedDeliveries(ctx context.Context, pool *pgxpool.Pool, accountID int64, since time.Time) (int64, error) {
	var n int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE account_id = $1 AND queued AND created_at >= $2`,
		accountID, since).Scan(&n); err != nil {
		return 0, fmt.Errorf("cannot count the queued deliveries: %w", err)
	}
	return n, nil
}

// BillUsage is what a month's bill of an account is computed from: its metered calls, the units of
// each meter class in [from, to), and its overage deliveries accepted in that span.
type BillUsage struct {
	Calls            int64
	Units            map[string]int64 // by meter class (source_row, change, watch, delivered_change), every class present
	OverageDelivered int64
}

// ReadBillUsage reads the bill usage of accountID (of customerID) in [from, to).
func ReadBillUsage(ctx context.Context, pool *pgxpool.Pool, customerID string, accountID int64, from, to time.Time) (BillUsage, error) {
	u := BillUsage{Units: map[string]int64{MeterSourceRow: 0, MeterChange: 0, MeterWatch: 0, MeterDeliveredChange: 0}}
	rows, err := pool.Query(ctx, `SELECT meter_class, COALESCE(sum(calls), 0), COALESCE(sum(units), 0) FROM usage_events
		WHERE customer_id = $1 AND account_id = $2 AND occurred_at >= $3 AND occurred_at < $4 GROUP BY meter_class`, customerID, accountID, from, to)
	if err != nil {
		return BillUsage{}, fmt.Errorf("cannot read the month's usage: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var class string
		var calls, units int64
		if err := rows.Scan(&class, &calls, &units); err != nil {
			return BillUsage{}, fmt.Errorf("cannot read the month's usage: %w", err)
		}
		u.Calls += calls
		if class != MeterCall {
			u.Units[class] += units
		}
	}
	if err := rows.Err(); err != nil {
		return BillUsage{}, fmt.Errorf("cannot read the month's usage: %w", err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE account_id = $1 AND overage AND billed_at >= $2 AND billed_at < $3`,
		accountID, from, to).Scan(&u.OverageDelivered); err != nil {
		return BillUsage{}, fmt.Errorf("cannot count the month's overage deliveries: %w", err)
	}
	return u, nil
}
