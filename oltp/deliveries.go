package oltp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/payload"
)

// Webhook deliveries as their customer reads them (migrations 0010 and 0013): the list, one
// delivery with its attempts, a replay and a test delivery. The notifier writes ledger
// deliveries and the dispatcher sends them; this file only reads them, reopens them (replay) and
// writes test deliveries. Every statement is scoped to the caller's customer_id.

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

// DeliveriesChannel is the channel whoever makes a delivery due NOTIFYs in the same transaction;
// the dispatcher LISTENs on it.
const DeliveriesChannel = "hs_deliveries"

// Bounds of the delivery routes (docs/decisions.md, "Push: deliveries").
const (
	// ReplayWindow is how long after its creation a delivery may be replayed.
	ReplayWindow = 30 * 24 * time.Hour
	// MaxTestDeliveries is the most test deliveries one endpoint takes within TestDeliveryWindow.
	MaxTestDeliveries  = 10
	TestDeliveryWindow = time.Minute
)

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
}

const deliveryCols = `delivery_id, idempotency_key, watch_id, endpoint_id, event_type, event_seq, status, attempt_count,
	response_status, response_ms, next_attempt_at, delivered_at, replayed_at, created_at`

func scanDelivery(row pgx.Row, extra ...any) (Delivery, error) {
	var d Delivery
	err := row.Scan(append([]any{&d.ID, &d.IdempotencyKey, &d.WatchID, &d.EndpointID, &d.EventType, &d.EventSeq, &d.Status, &d.AttemptCount,
		&d.ResponseStatus, &d.ResponseMS, &d.NextAttemptAt, &d.DeliveredAt, &d.ReplayedAt, &d.CreatedAt}, extra...)...)
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

// DeliveryDetail is one delivery with its body (the bytes sent) and its attempts, oldest first.
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

// Reasons a replay is refused (ReplayRefusal.Reason).
const (
	ReplayNeverSent       = "not_replayable"        // rate_limited, wall_blocked, cap_blocked: the decision stands
	ReplayWindowExpired   = "replay_window_expired" // created more than ReplayWindow ago
	ReplayEndpointDeleted = "endpoint_deleted"      // the endpoint was deleted
	ReplayEndpointOff     = "endpoint_disabled"     // the endpoint was disabled (410 or failing for days)
)

// ReplayRefusal is why a delivery of the caller cannot be replayed (a 409).
type ReplayRefusal struct {
	Reason string
	Status string // the delivery's status
	Msg    string
}

func (r *ReplayRefusal) Error() string { return r.Msg }

// ReplayDelivery reopens delivery id of customerID for the dispatcher's next tick: status
// pending, due now, NOTIFY DeliveriesChannel, all in one transaction. A delivery already pending
// or retrying is answered as it is (reopened false). The unit id of its billing is its
// idempotency key, so an accepted replay is never billed again. Errors: ErrNotFound (missing or
// another customer's), *ReplayRefusal.
func ReplayDelivery(ctx context.Context, pool *pgxpool.Pool, customerID string, id int64) (d Delivery, reopened bool, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		d, err = scanDelivery(tx.QueryRow(ctx, "SELECT "+deliveryCols+" FROM webhook_deliveries WHERE delivery_id = $1 AND customer_id = $2 FOR UPDATE", id, customerID))
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("cannot read the webhook delivery: %w", err)
		}
		var endpointDeleted, endpointDisabled, expired bool
		if err := tx.QueryRow(ctx, `SELECT deleted_at IS NOT NULL, disabled_at IS NOT NULL, $2::timestamptz < now() - make_interval(secs => $3)
			FROM webhook_endpoints WHERE endpoint_id = $1`, d.EndpointID, d.CreatedAt, ReplayWindow.Seconds()).Scan(&endpointDeleted, &endpointDisabled, &expired); err != nil {
			return fmt.Errorf("cannot read the delivery's webhook endpoint: %w", err)
		}
		if refusal := replayable(d, expired, endpointDeleted, endpointDisabled); refusal != nil {
			return refusal
		}
		if d.Status == DeliveryPending || d.Status == DeliveryRetrying {
			return nil
		}
		d, err = scanDelivery(tx.QueryRow(ctx, `UPDATE webhook_deliveries SET status = $2, next_attempt_at = now(), replayed_at = now(),
			replay_count = replay_count + 1, updated_at = now() WHERE delivery_id = $1 RETURNING `+deliveryCols, id, DeliveryPending))
		if err != nil {
			return fmt.Errorf("cannot reopen the webhook delivery: %w", err)
		}
		if _, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", DeliveriesChannel); err != nil {
			return fmt.Errorf("cannot wake the dispatcher: %w", err)
		}
		reopened = true
		return nil
	})
	return d, reopened, err
}

// replayable is why d cannot be replayed, or nil. A delivery already queued is answered as it
// is, whatever its endpoint (the dispatcher fails it if the endpoint went away).
func replayable(d Delivery, expired, endpointDeleted, endpointDisabled bool) *ReplayRefusal {
	switch d.Status {
	case DeliveryPending, DeliveryRetrying:
		return nil
	case DeliveryRateLimited, DeliveryWallBlocked, DeliveryCapBlocked:
		return &ReplayRefusal{Reason: ReplayNeverSent, Status: d.Status, Msg: fmt.Sprintf("delivery %d is %s: it was never sent and the decision stands "+
			"(fire limit, monthly delivered-changes allowance or spend cap); blocked changes are not queued and there is no backlog to replay", d.ID, d.Status)}
	}
	switch {
	case expired:
		return &ReplayRefusal{Reason: ReplayWindowExpired, Status: d.Status, Msg: fmt.Sprintf("delivery %d was created on %s, more than %d days ago: "+
			"deliveries can be replayed for %d days after their creation", d.ID, d.CreatedAt.Format(time.DateOnly), ReplayWindowDays, ReplayWindowDays)}
	case endpointDeleted:
		return &ReplayRefusal{Reason: ReplayEndpointDeleted, Status: d.Status, Msg: fmt.Sprintf("webhook endpoint %d of delivery %d is deleted: "+
			"nothing is sent to it any more", d.EndpointID, d.ID)}
	case endpointDisabled:
		return &ReplayRefusal{Reason: ReplayEndpointOff, Status: d.Status, Msg: fmt.Sprintf("webhook endpoint %d of delivery %d is disabled "+
			"(GET /v1/webhooks says why): register its url again (POST /v1/webhooks) once it accepts deliveries, then replay", d.EndpointID, d.ID)}
	}
	return nil
}

// ReplayWindowDays is ReplayWindow in days.
const ReplayWindowDays = int(ReplayWindow / (24 * time.Hour))

// ErrEndpointDisabled is returned for a test delivery to a disabled endpoint.
var ErrEndpointDisabled = errors.New("the webhook endpoint is disabled (GET /v1/webhooks says why): register its url again (POST /v1/webhooks) once it accepts deliveries")

// ErrTooManyTests is returned when an endpoint already took MaxTestDeliveries test deliveries
// within TestDeliveryWindow.
var ErrTooManyTests = fmt.Errorf("the endpoint already took %d test deliveries within the last %d seconds: wait for the first of them to age out, "+
	"or follow them with GET /v1/webhook-deliveries?webhook_endpoint_id=<id>", MaxTestDeliveries, int(TestDeliveryWindow.Seconds()))

// NewTestDelivery is a test delivery to write.
type NewTestDelivery struct {
	CustomerID string
	AccountID  int64
	KeyID      int64 // the calling key (0: none)
	EndpointID int64
}

// CreateTestDelivery writes a test delivery to endpoint t.EndpointID of t.CustomerID, pending and
// due now, and NOTIFYs DeliveriesChannel, in one transaction; its body is built once its id is
// known (payload.TestKey). Errors: ErrNotFound (missing, deleted or another customer's endpoint),
// ErrEndpointDisabled, ErrTooManyTests.
func CreateTestDelivery(ctx context.Context, pool *pgxpool.Pool, t NewTestDelivery) (Delivery, error) {
	var d Delivery
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// The endpoint's row lock serialises its test deliveries: the count and the insert agree.
		var disabled bool
		err := tx.QueryRow(ctx, `SELECT disabled_at IS NOT NULL FROM webhook_endpoints
			WHERE endpoint_id = $1 AND customer_id = $2 AND deleted_at IS NULL FOR UPDATE`, t.EndpointID, t.CustomerID).Scan(&disabled)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("cannot read the webhook endpoint: %w", err)
		}
		if disabled {
			return ErrEndpointDisabled
		}
		var recent int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1 AND watch_id IS NULL
			AND created_at > now() - make_interval(secs => $2)`, t.EndpointID, TestDeliveryWindow.Seconds()).Scan(&recent); err != nil {
			return fmt.Errorf("cannot count the endpoint's test deliveries: %w", err)
		}
		if recent >= MaxTestDeliveries {
			return ErrTooManyTests
		}
		var id int64
		var now time.Time
		if err := tx.QueryRow(ctx, "SELECT nextval(pg_get_serial_sequence('webhook_deliveries', 'delivery_id')), now()").Scan(&id, &now); err != nil {
			return fmt.Errorf("cannot reserve a webhook delivery id: %w", err)
		}
		key := payload.TestKey(id)
		body := payload.Body{Event: payload.EventTest, OccurredAt: now.UTC().Format(time.RFC3339), WebhookID: t.EndpointID, DeliveryID: id, IdempotencyKey: key}
		var keyID *int64
		if t.KeyID != 0 {
			keyID = &t.KeyID
		}
		d, err = scanDelivery(tx.QueryRow(ctx, `INSERT INTO webhook_deliveries (delivery_id, idempotency_key, customer_id, account_id, key_id, endpoint_id,
			event_type, body, status, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), now()) RETURNING `+deliveryCols,
			id, key, t.CustomerID, t.AccountID, keyID, t.EndpointID, payload.EventTest, body.Marshal(), DeliveryPending))
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
