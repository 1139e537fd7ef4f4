package oltp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Webhook deliveries as their customer reads them (migrations 0010, 0013 and 0022): the list, one
// delivery with its attempts, a replay and a test delivery. The notifier writes ledger
// deliveries and the dispatcher sends them; this file only reads them, reopens them (replay) and
// writes test deliveries. Whether a replay or a test delivery is admitted, and the words of a
// refusal, are the caller's (a judge it passes, called under the locks: package push/admit); this
// file reads the figures it judges on. Every statement is scoped to the caller's customer_id.

// The delivery statuses (webhook_deliveries.status; docs/decisions.md, "Push: deliveries").
const (
	DeliveryPending     = "pending"      // due at next_attempt_at (now when written)
	DeliveryRetrying    = "retrying"     // an attempt failed; the next is due at next_attempt_at
	DeliveryDelivered   = "delivered"    // a 2xx came back
	DeliveryFailed      = "failed"       // attempts exhausted, 410, or the endpoint disabled: terminal
	DeliveryRateLimited = "rate_limited" // past the watch's max_fires_per_hour: never sent
	DeliveryWallBlocked = "wall_blocked" // past the plan's monthly delivered-changes allowance: never sent
	DeliveryCapBlocked  = "cap_blocked"  // the account past its hard spend cap: never sent
)

// DeliveryStatuses are every status, in lifecycle order.
var DeliveryStatuses = []string{DeliveryPending, DeliveryRetrying, DeliveryDelivered, DeliveryFailed,
	DeliveryRateLimited, DeliveryWallBlocked, DeliveryCapBlocked}

// Blocked says whether status is one of the never-sent statuses the notifier's checks write
// (rate_limited, wall_blocked, cap_blocked). A blocked delivery keeps no body (migration 0022:
// NULL, and a CHECK holds it so): what it would have said is neither stored nor served.
func Blocked(status string) bool {
	return status == DeliveryRateLimited || status == DeliveryWallBlocked || status == DeliveryCapBlocked
}

// ServesBody says whether the body of d is answered on GET /v1/webhook-deliveries/{id}: only for
// a delivery admitted against the wall and the cap (pending, retrying, delivered) or one that was
// sent at least once (failed after an attempt). A blocked delivery has none; a failed one never
// attempted (its endpoint was disabled: the notifier or the dispatcher failed it unsent) was not
// admitted, and serving its body would give the change away past the allowance, unbilled. It is
// served again once a replay admits it.
func ServesBody(d Delivery) bool {
	switch {
	case Blocked(d.Status):
		return false
	case d.Status == DeliveryFailed:
		return d.AttemptCount > 0
	}
	return true
}

// DeliveriesChannel is the channel whoever makes a delivery due NOTIFYs in the same transaction;
// the dispatcher LISTENs on it.
const DeliveriesChannel = "hs_deliveries"

// Delivery is one webhook delivery as its customer sees it (never its body in a list).
type Delivery struct {
	ID             int64      `json:"delivery_id"`
	IdempotencyKey string     `json:"idempotency_key"`
	WatchID        *int64     `json:"watch_id"`
	EndpointID     int64      `json:"webhook_endpoint_id"`
	EventType      string     `json:"event_type"`
	EventSeq       *int64     `json:"event_seq"`
	Status         string     `json:"status"`
	AttemptCount   int        `json:"attempt_count"`
	ResponseStatus *int       `json:"response_status"`
	ResponseMS     *int       `json:"response_ms"`
	NextAttemptAt  *time.Time `json:"next_attempt_at"`
	DeliveredAt    *time.Time `json:"delivered_at"`
	ReplayedAt     *time.Time `json:"replayed_at"`
	CreatedAt      time.Time  `json:"created_at"`
	// Queued: a wall_blocked delivery held under overflow queue, replayable once the allowance
	// has room (a replay clears it).
	Queued bool `json:"queued"`
}

const deliveryCols = `delivery_id, idempotency_key, watch_id, endpoint_id, event_type, event_seq, status, attempt_count,
	response_status, response_ms, next_attempt_at, delivered_at, replayed_at, created_at, queued`

func scanDelivery(row pgx.Row, extra ...any) (Delivery, error) {
	var d Delivery
	err := row.Scan(append([]any{&d.ID, &d.IdempotencyKey, &d.WatchID, &d.EndpointID, &d.EventType, &d.EventSeq, &d.Status, &d.AttemptCount,
		&d.ResponseStatus, &d.ResponseMS, &d.NextAttemptAt, &d.DeliveredAt, &d.ReplayedAt, &d.CreatedAt, &d.Queued}, extra...)...)
	d.CreatedAt = d.CreatedAt.UTC()
	for _, t := range []**time.Time{&d.NextAttemptAt, &d.DeliveredAt, &d.ReplayedAt} {
		if *t != nil {
			u := (*t).UTC()
			*t = &u
		}
	}
	return d, err
}

// Attempt is one attempt of a delivery.
type Attempt struct {
	Attempt        int       `json:"attempt"`
	StartedAt      time.Time `json:"started_at"`
	ResponseStatus *int      `json:"response_status"`
	ResponseMS     *int      `json:"response_ms"`
	Error          *string   `json:"error"`
}

// DeliveryQuery selects a page of a customer's deliveries, newest (highest delivery_id) first.
type DeliveryQuery struct {
	CustomerID   string
	Statuses     []string   // any of them; none: every status
	WatchID      *int64     // only this watch's
	EndpointID   *int64     // only this endpoint's
	CreatedSince *time.Time // created at or after
	Before       int64      // cursor: delivery_id below it (0: from the newest)
	Limit        int
}

// ListDeliveries is a page of q.Limit deliveries (more: one more exists after the page).
func ListDeliveries(ctx context.Context, pool *pgxpool.Pool, q DeliveryQuery) (page []Delivery, more bool, err error) {
	where, args := "customer_id = $1", []any{q.CustomerID}
	add := func(cond string, v any) {
		args = append(args, v)
		where += fmt.Sprintf(" AND "+cond, len(args))
	}
	if len(q.Statuses) > 0 {
		add("status = ANY($%d)", q.Statuses)
	}
	if q.WatchID != nil {
		add("watch_id = $%d", *q.WatchID)
	}
	if q.EndpointID != nil {
		add("endpoint_id = $%d", *q.EndpointID)
	}
	if q.CreatedSince != nil {
		add("created_at >= $%d", *q.CreatedSince)
	}
	if q.Before > 0 {
		add("delivery_id < $%d", q.Before)
	}
	args = append(args, q.Limit+1)
	rows, err := pool.Query(ctx, fmt.Sprintf("SELECT %s FROM webhook_deliveries WHERE %s ORDER BY delivery_id DESC LIMIT $%d", deliveryCols, where, len(args)), args...)
	if err != nil {
		return nil, false, fmt.Errorf("cannot list webhook deliveries: %w", err)
	}
	page, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Delivery, error) { return scanDelivery(r) })
	if err != nil {
		return nil, false, fmt.Errorf("cannot list webhook deliveries: %w", err)
	}
	if len(page) > q.Limit {
		return page[:q.Limit], true, nil
	}
	return page, false, nil
}

// DeliveryDetail is one delivery with its body (the bytes sent; nil when ServesBody is false) and
// its attempts, oldest first.
type DeliveryDetail struct {
	Delivery
	Body     []byte
	Attempts []Attempt
}

// MaxListedAttempts bounds the attempts a delivery detail carries (the dispatcher's schedule
// makes far fewer).
const MaxListedAttempts = 100

// GetDelivery is delivery id of customerID; ErrNotFound when it does not exist or is another
// customer's.
func GetDelivery(ctx context.Context, pool *pgxpool.Pool, customerID string, id int64) (DeliveryDetail, error) {
	var out DeliveryDetail
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		out.Delivery, err = scanDelivery(tx.QueryRow(ctx, "SELECT "+deliveryCols+", body FROM webhook_deliveries WHERE delivery_id = $1 AND customer_id = $2",
			id, customerID), &out.Body)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("cannot read the webhook delivery: %w", err)
		}
		if !ServesBody(out.Delivery) {
			out.Body = nil
		}
		rows, err := tx.Query(ctx, `SELECT attempt, started_at, response_status, response_ms, error FROM webhook_delivery_attempts
			WHERE delivery_id = $1 ORDER BY attempt LIMIT $2`, id, MaxListedAttempts)
		if err != nil {
			return fmt.Errorf("cannot read the delivery's attempts: %w", err)
		}
		out.Attempts, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Attempt, error) {
			var a Attempt
			err := r.Scan(&a.Attempt, &a.StartedAt, &a.ResponseStatus, &a.ResponseMS, &a.Error)
			a.StartedAt = a.StartedAt.UTC()
			return a, err
		})
		if err != nil {
			return fmt.Errorf("cannot read the delivery's attempts: %w", err)
		}
		return nil
	})
	return out, err
}

// ReplayFacts are the figures a replay of a delivery is judged on (the judge of ReplayDelivery),
// read in its transaction under its locks: the delivery's row, the customer's replays and, for a
// delivery never billed, the account's admissions.
type ReplayFacts struct {
	Delivery         Delivery  // as read, its row locked; never pending or retrying
	Now              time.Time // the transaction's now(): the delivery's age is Now - Delivery.CreatedAt
	EndpointDeleted  bool      // its webhook endpoint is deleted
	EndpointDisabled bool      // its webhook endpoint is disabled
	Paused           bool      // its account is paused
	Replays          int       // how many times it was reopened already (replay_count)
	// RecentReplays is how many deliveries the customer reopened within BudgetWindow, counted
	// under its replay lock (held until the transaction ends).
	RecentReplays int
	// NeverBilled says the delivery is a watch delivery never billed: a replay admits it again.
	// Account is then its account's figures of this billing month (AccountDeliveryState), read
	// under the account's admission lock, held exclusively until the transaction ends.
	NeverBilled bool
	Account     AccountDeliveryState
}

// ReplayJudge decides whether a replay goes ahead: a nil error reopens the delivery (overage:
// admitted past the allowance under overflow overage, so charged once accepted), an error refuses
// it and ReplayDelivery returns that error unchanged. It is called once, inside the transaction,
// with every lock of ReplayFacts held, so what it decides on is what the reopening writes after.
type ReplayJudge func(ReplayFacts) (overage bool, err error)

// ReplayDelivery reopens delivery id of customerID for the dispatcher's next tick when judge
// admits it: status pending, due now, NOTIFY DeliveriesChannel, all in one transaction. A
// delivery already pending or retrying is answered as it is (reopened false), without asking
// judge. The unit id of its billing is its idempotency key, so an accepted replay is never billed
// again.
//
// Before judging it reads the figures of ReplayFacts: the delivery's row (locked FOR UPDATE), its
// endpoint, whether the account is paused, its replay count, the customer's replays within
// BudgetWindow (after taking the customer's replay lock, so the count and the reopening agree;
// replays older than BudgetWindow are forgotten) and, for a watch delivery never billed (failed
// before any acceptance: it was never admitted, or its slot was given back when it failed; or held
// at the wall under overflow queue), its account's admission figures under the account's
// admission lock, which the notifier's batches hold shared. A delivery reopened that was never
// billed is reopened with readmitted_at now, so it counts against this billing month's allowance,
// and no longer queued. Errors: ErrNotFound (missing or another
// customer's), or judge's error as it returned it.
func ReplayDelivery(ctx context.Context, pool *pgxpool.Pool, customerID string, id int64, judge ReplayJudge) (d Delivery, reopened bool, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var (
			f         ReplayFacts
			accountID int64
		)
		d, err = scanDelivery(tx.QueryRow(ctx, "SELECT "+deliveryCols+`, account_id, replay_count, watch_id IS NOT NULL AND billed_at IS NULL
			FROM webhook_deliveries WHERE delivery_id = $1 AND customer_id = $2 FOR UPDATE`, id, customerID), &accountID, &f.Replays, &f.NeverBilled)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("cannot read the webhook delivery: %w", err)
		}
		if d.Status == DeliveryPending || d.Status == DeliveryRetrying {
			return nil // already queued: answered as it is, whatever its endpoint (the dispatcher fails it if the endpoint went away)
		}
		f.Delivery = d
		if err := tx.QueryRow(ctx, `SELECT deleted_at IS NOT NULL, disabled_at IS NOT NULL, now() FROM webhook_endpoints WHERE endpoint_id = $1`,
			d.EndpointID).Scan(&f.EndpointDeleted, &f.EndpointDisabled, &f.Now); err != nil {
			return fmt.Errorf("cannot read the delivery's webhook endpoint: %w", err)
		}
		if f.Paused, err = accountPaused(ctx, tx, accountID); err != nil {
			return err
		}
		if f.RecentReplays, err = recentReplays(ctx, tx, customerID); err != nil {
			return err
		}
		if f.NeverBilled {
			if f.Account, err = lockedAdmissionFigures(ctx, tx, accountID); err != nil {
				return err
			}
		}
		overage, err := judge(f)
		if err != nil {
			return err
		}
		d, err = scanDelivery(tx.QueryRow(ctx, `UPDATE webhook_deliveries SET status = $2, next_attempt_at = now(), replayed_at = now(),
			replay_count = replay_count + 1, readmitted_at = CASE WHEN $3 THEN now() ELSE readmitted_at END, queued = false,
			overage = overage OR $4, updated_at = now()
			WHERE delivery_id = $1 RETURNING `+deliveryCols, id, DeliveryPending, f.NeverBilled, overage && f.NeverBilled))
		if err != nil {
			return fmt.Errorf("cannot reopen the webhook delivery: %w", err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO webhook_delivery_replays (customer_id, delivery_id) VALUES ($1, $2)", customerID, id); err != nil {
			return fmt.Errorf("cannot record the replay: %w", err)
		}
		if _, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", DeliveriesChannel); err != nil {
			return fmt.Errorf("cannot wake the dispatcher: %w", err)
		}
		reopened = true
		return nil
	})
	return d, reopened, err
}

// recentReplays takes customerID's replay lock (held until tx ends), forgets its replays older
// than BudgetWindow and counts the others.
func recentReplays(ctx context.Context, tx pgx.Tx, customerID string) (int, error) {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('delivery-replays:' || $1))", customerID); err != nil {
		return 0, fmt.Errorf("cannot lock the customer's replays: %w", err)
	}
	var recent int
	if err := tx.QueryRow(ctx, `WITH old AS (
			DELETE FROM webhook_delivery_replays WHERE customer_id = $1 AND replayed_at <= now() - make_interval(secs => $2))
		SELECT count(*) FROM webhook_delivery_replays WHERE customer_id = $1 AND replayed_at > now() - make_interval(secs => $2)`,
		customerID, BudgetWindow.Seconds()).Scan(&recent); err != nil {
		return 0, fmt.Errorf("cannot count the customer's replays: %w", err)
	}
	return recent, nil
}

// lockedAdmissionFigures takes accountID's admission lock, exclusive (held until tx ends), and
// reads the account's admission figures of this billing month.
func lockedAdmissionFigures(ctx context.Context, tx pgx.Tx, accountID int64) (AccountDeliveryState, error) {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock("+admissionLock("$1::bigint")+")", accountID); err != nil {
		return AccountDeliveryState{}, fmt.Errorf("cannot lock the account's admissions: %w", err)
	}
	states, err := accountDeliveryStates(ctx, tx, []int64{accountID}, MonthStart(time.Now()))
	if err != nil {
		return AccountDeliveryState{}, err
	}
	return states[accountID], nil
}

// accountPaused reads whether accountID is paused (a paused account's deliveries are not sent
// until it resumes).
func accountPaused(ctx context.Context, tx pgx.Tx, accountID int64) (bool, error) {
	var paused bool
	if err := tx.QueryRow(ctx, "SELECT paused FROM accounts WHERE account_id = $1", accountID).Scan(&paused); err != nil {
		return false, fmt.Errorf("cannot read whether the account is paused: %w", err)
	}
	return paused, nil
}

// TestDeliveryWindow is the window TestFacts.EndpointTests counts an endpoint's test deliveries
// over (TestFacts.CustomerTests counts over BudgetWindow).
const TestDeliveryWindow = time.Minute

// TestFacts are the figures a test delivery is judged on (the judge of CreateTestDelivery), read
// in its transaction under its locks.
type TestFacts struct {
	EndpointDisabled bool // the endpoint is disabled
	Paused           bool // the account is paused
	// EndpointTests is how many test deliveries the endpoint took within TestDeliveryWindow,
	// counted under the endpoint's row lock.
	EndpointTests int
	// CustomerTests is how many test deliveries the customer made within BudgetWindow, across its
	// endpoints (deleted ones included), counted under the customer's test-delivery lock.
	CustomerTests int
}

// TestJudge decides whether a test delivery is written: nil writes it, an error refuses it and
// CreateTestDelivery returns that error unchanged. It is called once, inside the transaction,
// with the locks of TestFacts held.
type TestJudge func(TestFacts) error

// NewTestDelivery is a test delivery to write.
type NewTestDelivery struct {
	CustomerID string
	AccountID  int64
	KeyID      int64 // the calling key (0: none)
	EndpointID int64
	// Payload is the delivery's idempotency key, event type and body, built once its id and
	// creation time are known (the body carries both).
	Payload func(id int64, createdAt time.Time) (key, eventType string, body []byte)
}

// CreateTestDelivery writes a test delivery to endpoint t.EndpointID of t.CustomerID when judge
// admits it, pending and due now, and NOTIFYs DeliveriesChannel, in one transaction; its body is
// t.Payload's. Before judging it reads the figures of TestFacts: the endpoint (its row locked, so
// its test deliveries serialise and its count and the insert agree), whether the account is
// paused, the endpoint's test deliveries within TestDeliveryWindow and, under the customer's
// test-delivery lock (taken after the endpoint's: one order everywhere), the customer's within
// BudgetWindow (deleting and registering an endpoint again starts a new endpoint's window, not a
// new day). Errors: ErrNotFound (missing, deleted or another customer's endpoint), or judge's
// error as it returned it.
func CreateTestDelivery(ctx context.Context, pool *pgxpool.Pool, t NewTestDelivery, judge TestJudge) (Delivery, error) {
	var d Delivery
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var f TestFacts
		err := tx.QueryRow(ctx, `SELECT disabled_at IS NOT NULL FROM webhook_endpoints
			WHERE endpoint_id = $1 AND customer_id = $2 AND deleted_at IS NULL FOR UPDATE`, t.EndpointID, t.CustomerID).Scan(&f.EndpointDisabled)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("cannot read the webhook endpoint: %w", err)
		}
		if f.Paused, err = accountPaused(ctx, tx, t.AccountID); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1 AND watch_id IS NULL AND account_event_id IS NULL
			AND created_at > now() - make_interval(secs => $2)`, t.EndpointID, TestDeliveryWindow.Seconds()).Scan(&f.EndpointTests); err != nil {
			return fmt.Errorf("cannot count the endpoint's test deliveries: %w", err)
		}
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('test-deliveries:' || $1))", t.CustomerID); err != nil {
			return fmt.Errorf("cannot lock the customer's test deliveries: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE customer_id = $1 AND watch_id IS NULL AND account_event_id IS NULL
			AND created_at > now() - make_interval(secs => $2)`, t.CustomerID, BudgetWindow.Seconds()).Scan(&f.CustomerTests); err != nil {
			return fmt.Errorf("cannot count the customer's test deliveries: %w", err)
		}
		if err := judge(f); err != nil {
			return err
		}
		var id int64
		var now time.Time
		if err := tx.QueryRow(ctx, "SELECT nextval(pg_get_serial_sequence('webhook_deliveries', 'delivery_id')), now()").Scan(&id, &now); err != nil {
			return fmt.Errorf("cannot reserve a webhook delivery id: %w", err)
		}
		key, event, body := t.Payload(id, now.UTC())
		var keyID *int64
		if t.KeyID != 0 {
			keyID = &t.KeyID
		}
		d, err = scanDelivery(tx.QueryRow(ctx, `INSERT INTO webhook_deliveries (delivery_id, idempotency_key, customer_id, account_id, key_id, endpoint_id,
			event_type, body, status, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), now()) RETURNING `+deliveryCols,
			id, key, t.CustomerID, t.AccountID, keyID, t.EndpointID, event, body, DeliveryPending))
		if err != nil {
			return fmt.Errorf("cannot insert the test delivery: %w", err)
		}
		if _, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", DeliveriesChannel); err != nil {
			return fmt.Errorf("cannot wake the dispatcher: %w", err)
		}
		return nil
	})
	return d, err
}

// BlockedDeliveryCounts counts customerID's deliveries created since since that the wall
// (wall_blocked) and the spend cap (cap_blocked) stopped.
func BlockedDeliveryCounts(ctx context.Context, pool *pgxpool.Pool, customerID string, since time.Time) (wall, capped int64, err error) {
	err = pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = $3), count(*) FILTER (WHERE status = $4) FROM webhook_deliveries
		WHERE customer_id = $1 AND created_at >= $2 AND status IN ('wall_blocked', 'cap_blocked')`,
		customerID, since, DeliveryWallBlocked, DeliveryCapBlocked).Scan(&wall, &capped)
	if err != nil {
		return 0, 0, fmt.Errorf("cannot count blocked webhook deliveries: %w", err)
	}
	return wall, capped, nil
}
