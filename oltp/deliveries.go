package oltp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/plans"
)

// Webhook deliveries as their customer reads them (migrations 0010, 0013 and 0022): the list, one
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

// Bounds of the delivery routes (docs/decisions.md, "Push: deliveries").
const (
	// ReplayWindow is how long after its creation a delivery may be replayed.
	ReplayWindow = 30 * 24 * time.Hour
	// MaxTestDeliveries is the most test deliveries one endpoint takes within TestDeliveryWindow.
	MaxTestDeliveries  = 10
	TestDeliveryWindow = time.Minute
	// MaxTestDeliveriesPerDay is the most test deliveries one customer makes, across its
	// endpoints (deleted ones included), within BudgetWindow.
	MaxTestDeliveriesPerDay = 100
	// MaxReplaysPerDelivery is how many times one delivery may be reopened (replay_count).
	MaxReplaysPerDelivery = 5
	// MaxReplaysPerDay is the most replays that reopen a delivery one customer makes within
	// BudgetWindow.
	MaxReplaysPerDay = 1000
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

// Reasons a replay is refused (ReplayRefusal.Reason).
const (
	ReplayNeverSent       = "not_replayable"          // rate_limited, wall_blocked, cap_blocked: the decision stands
	ReplayWindowExpired   = "replay_window_expired"   // created more than ReplayWindow ago
	ReplayEndpointDeleted = "endpoint_deleted"        // the endpoint was deleted
	ReplayEndpointOff     = "endpoint_disabled"       // the endpoint was disabled (410 or failing for days)
	ReplayLimitReached    = "replay_limit_reached"    // reopened MaxReplaysPerDelivery times already
	ReplayBudgetExhausted = "replay_budget_exhausted" // the customer reopened MaxReplaysPerDay deliveries within BudgetWindow
	ReplayWallReached     = "changes_wall_reached"    // never billed, and the plan's monthly allowance is reached
	ReplayCapReached      = "hard_cap_reached"        // never billed, and the account is at its hard spend cap
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
// idempotency key, so an accepted replay is never billed again.
//
// Bounds, checked in this order after replayable's: a delivery is reopened at most
// MaxReplaysPerDelivery times, and a customer reopens at most MaxReplaysPerDay deliveries within
// BudgetWindow (its replays serialise on an advisory lock, so the count and the reopening
// agree). A watch delivery never billed (failed before any acceptance: it was never admitted, or
// its slot was given back when it failed) is admitted again as the notifier admits a new one:
// refused when the account's plan allowance or hard spend cap is reached
// (AccountDeliveryState.Admission, under the account's admission lock, which the notifier's
// batches hold shared), else reopened with readmitted_at now, so it counts against this billing
// month's allowance. Errors: ErrNotFound (missing or another customer's), ErrAccountPaused (a delivery that
// would be reopened), *ReplayRefusal.
func ReplayDelivery(ctx context.Context, pool *pgxpool.Pool, customerID string, id int64) (d Delivery, reopened bool, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var (
			accountID   int64
			replays     int
			neverBilled bool
		)
		d, err = scanDelivery(tx.QueryRow(ctx, "SELECT "+deliveryCols+`, account_id, replay_count, watch_id IS NOT NULL AND billed_at IS NULL
			FROM webhook_deliveries WHERE delivery_id = $1 AND customer_id = $2 FOR UPDATE`, id, customerID), &accountID, &replays, &neverBilled)
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
		if err := accountPaused(ctx, tx, accountID); err != nil {
			return err
		}
		if replays >= MaxReplaysPerDelivery {
			return &ReplayRefusal{Reason: ReplayLimitReached, Status: d.Status, Msg: fmt.Sprintf("delivery %d was replayed %d times already: "+
				"a delivery is replayed at most %d times", d.ID, replays, MaxReplaysPerDelivery)}
		}
		if err := replayBudget(ctx, tx, customerID, d); err != nil {
			return err
		}
		if neverBilled {
			if err := readmit(ctx, tx, accountID, d); err != nil {
				return err
			}
		}
		d, err = scanDelivery(tx.QueryRow(ctx, `UPDATE webhook_deliveries SET status = $2, next_attempt_at = now(), replayed_at = now(),
			replay_count = replay_count + 1, readmitted_at = CASE WHEN $3 THEN now() ELSE readmitted_at END, updated_at = now()
			WHERE delivery_id = $1 RETURNING `+deliveryCols, id, DeliveryPending, neverBilled))
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

// replayBudget takes customerID's replay lock (held until tx ends), forgets its replays older
// than BudgetWindow and refuses the replay of d (a *ReplayRefusal) when MaxReplaysPerDay remain
// within it.
func replayBudget(ctx context.Context, tx pgx.Tx, customerID string, d Delivery) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('delivery-replays:' || $1))", customerID); err != nil {
		return fmt.Errorf("cannot lock the customer's replays: %w", err)
	}
	var recent int
	if err := tx.QueryRow(ctx, `WITH old AS (
			DELETE FROM webhook_delivery_replays WHERE customer_id = $1 AND replayed_at <= now() - make_interval(secs => $2))
		SELECT count(*) FROM webhook_delivery_replays WHERE customer_id = $1 AND replayed_at > now() - make_interval(secs => $2)`,
		customerID, BudgetWindow.Seconds()).Scan(&recent); err != nil {
		return fmt.Errorf("cannot count the customer's replays: %w", err)
	}
	if recent >= MaxReplaysPerDay {
		return &ReplayRefusal{Reason: ReplayBudgetExhausted, Status: d.Status, Msg: fmt.Sprintf("you replayed %d deliveries within the last %d hours: "+
			"at most %d replays a day; try again once the first of them is %d hours old", recent, int(BudgetWindow.Hours()), MaxReplaysPerDay,
			int(BudgetWindow.Hours()))}
	}
	return nil
}

// readmit takes accountID's admission lock (held until tx ends) and refuses the replay of d, a
// watch delivery never billed (a *ReplayRefusal), when the account's wall or hard cap stops a new
// delivery now.
func readmit(ctx context.Context, tx pgx.Tx, accountID int64, d Delivery) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock("+admissionLock("$1::bigint")+")", accountID); err != nil {
		return fmt.Errorf("cannot lock the account's admissions: %w", err)
	}
	states, err := accountDeliveryStates(ctx, tx, []int64{accountID}, MonthStart(time.Now()))
	if err != nil {
		return err
	}
	st := states[accountID]
	switch st.Admission() {
	case DeliveryWallBlocked:
		allowance, _ := plans.DeliveredChangeAllowance(st.Tier)
		return &ReplayRefusal{Reason: ReplayWallReached, Status: d.Status, Msg: fmt.Sprintf("delivery %d was never accepted, so a replay would deliver a new change, "+
			"and your plan's %d delivered changes of this billing month are taken (%d admitted): it can be replayed once the month turns "+
			"(within the %d-day window) or after an upgrade", d.ID, allowance, st.Admitted, ReplayWindowDays)}
	case DeliveryCapBlocked:
		return &ReplayRefusal{Reason: ReplayCapReached, Status: d.Status, Msg: fmt.Sprintf("delivery %d was never accepted, so a replay would bill a delivered change, "+
			"and the account is at its hard spend cap (%d units, %d used this month and %d deliveries unsent): raise the cap or wait for the month to turn",
			d.ID, *st.HardCap, st.MonthUnits, st.Unsent)}
	}
	return nil
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
// ErrAccountPaused: a paused account's deliveries are not sent until it resumes, so a test
// delivery or a replay would only pile up behind the pause (and go out at once on resume).
var ErrAccountPaused = errors.New("the account is paused and its deliveries wait: resume it with POST /v1/account/resume, then send a test or replay")

// accountPaused refuses, with ErrAccountPaused, the deliveries of a paused account.
func accountPaused(ctx context.Context, tx pgx.Tx, accountID int64) error {
	var paused bool
	if err := tx.QueryRow(ctx, "SELECT paused FROM accounts WHERE account_id = $1", accountID).Scan(&paused); err != nil {
		return fmt.Errorf("cannot read whether the account is paused: %w", err)
	}
	if paused {
		return ErrAccountPaused
	}
	return nil
}

var ErrEndpointDisabled = errors.New("the webhook endpoint is disabled (GET /v1/webhooks says why): register its url again (POST /v1/webhooks) once it accepts deliveries")

// ErrTooManyTests is returned when an endpoint already took MaxTestDeliveries test deliveries
// within TestDeliveryWindow.
var ErrTooManyTests = fmt.Errorf("the endpoint already took %d test deliveries within the last %d seconds: wait for the first of them to age out, "+
	"or follow them with GET /v1/webhook-deliveries?webhook_endpoint_id=<id>", MaxTestDeliveries, int(TestDeliveryWindow.Seconds()))

// ErrTestBudgetExhausted is returned when the customer already made MaxTestDeliveriesPerDay test
// deliveries within BudgetWindow, whatever the endpoints (deleted ones included).
var ErrTestBudgetExhausted = fmt.Errorf("you made %d test deliveries within the last %d hours, across your endpoints: "+
	"at most %d a day; try again once the first of them is %d hours old", MaxTestDeliveriesPerDay, int(BudgetWindow.Hours()),
	MaxTestDeliveriesPerDay, int(BudgetWindow.Hours()))

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
// ErrEndpointDisabled, ErrAccountPaused, ErrTooManyTests (the endpoint's bound), ErrTestBudgetExhausted (the
// customer's: deleting and registering an endpoint again starts a new endpoint's window, not a
// new day).
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
		if err := accountPaused(ctx, tx, t.AccountID); err != nil {
			return err
		}
		var recent int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = $1 AND watch_id IS NULL
			AND created_at > now() - make_interval(secs => $2)`, t.EndpointID, TestDeliveryWindow.Seconds()).Scan(&recent); err != nil {
			return fmt.Errorf("cannot count the endpoint's test deliveries: %w", err)
		}
		if recent >= MaxTestDeliveries {
			return ErrTooManyTests
		}
		// The customer's lock (after the endpoint's: one order everywhere) serialises its test
		// deliveries across endpoints, so the daily count and the insert agree.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('test-deliveries:' || $1))", t.CustomerID); err != nil {
			return fmt.Errorf("cannot lock the customer's test deliveries: %w", err)
		}
		var today int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE customer_id = $1 AND watch_id IS NULL
			AND created_at > now() - make_interval(secs => $2)`, t.CustomerID, BudgetWindow.Seconds()).Scan(&today); err != nil {
			return fmt.Errorf("cannot count the customer's test deliveries: %w", err)
		}
		if today >= MaxTestDeliveriesPerDay {
			return ErrTestBudgetExhausted
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
