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

// Watches and their fires (migration 0009).

// MaxListedWatches bounds GET /v1/watches. The live-watch allowance bounds it first (at most 100
// on any plan); this guards an account that kept more live watches through a downgrade.
const MaxListedWatches = 1000

// AllowanceError is returned when an account's live watches already fill its allowance.
type AllowanceError struct{ Limit, Used int64 }

func (e *AllowanceError) Error() string {
	return fmt.Sprintf("the account has %d live watches, its plan's live-watch allowance is %d: cancel one (DELETE /v1/watches/{watch_id}) or upgrade", e.Used, e.Limit)
}

// ErrEndpointNotFound is returned when a watch names an endpoint that is not a live endpoint of
// its customer (missing, deleted or another customer's: indistinguishable).
var ErrEndpointNotFound = errors.New("webhook endpoint not found")

// NewWatch is a watch to create. Exactly one of EndpointID and Inline names its endpoint, and
// exactly one of CompanyID and Criteria what it watches.
type NewWatch struct {
	CustomerID      string
	AccountID       int64
	KeyID           int64 // the key creating it: its delivered changes are metered to it (0: none)
	Allowance       int64 // live watches the account's plan allows
	EndpointID      int64
	Inline          *InlineEndpoint // register or reuse an endpoint in the same transaction
	CompanyID       *int64
	Criteria        json.RawMessage // validated criteria document, stored as sent
	EventTypes      []string
	MaxFiresPerHour int
	Budgets         Budgets // the daily creation budgets in force (zero: the defaults)
}

// InlineEndpoint is an endpoint named by url in a watch creation (RegisterEndpoint's rules).
type InlineEndpoint struct {
	URL    string
	Secret EndpointSecret
}

// Watch is a watch with its fire counters (at the time the list was read).
type Watch struct {
	ID              int64
	EndpointID      int64
	CompanyID       *int64
	Criteria        json.RawMessage
	EventTypes      []string
	MaxFiresPerHour int
	CreatedAt       time.Time
	LastFiredAt     *time.Time
	FiresLastHour   int64
	FiresLast7d     int64
	FiresLast30d    int64
}

const watchCols = "watch_id, endpoint_id, company_id, criteria, event_types, max_fires_per_hour, created_at, last_fired_at"

func scanWatch(row pgx.Row, extra ...any) (Watch, error) {
	var w Watch
	err := row.Scan(append([]any{&w.ID, &w.EndpointID, &w.CompanyID, &w.Criteria, &w.EventTypes, &w.MaxFiresPerHour, &w.CreatedAt, &w.LastFiredAt}, extra...)...)
	return w, err
}

// CreateWatch creates w in one transaction: it locks the account row (so concurrent creations
// of one account queue and each sees the others' watches), finds w's endpoint (FOR SHARE, so it
// is not deleted meanwhile) or registers the inline one, checks the allowance and the daily budget and inserts. Any
// refusal leaves nothing behind, an inline endpoint included. endpoint is the watch's endpoint;
// created says the inline endpoint was registered by this call.
// Errors: ErrNotFound (no such account), ErrEndpointNotFound, *AllowanceError, a *BudgetError
// when the account created w.Budgets' daily watch budget already, and the errors of
// RegisterEndpointWithin.
func CreateWatch(ctx context.Context, pool *pgxpool.Pool, box SecretSealer, w NewWatch) (watch Watch, endpoint Endpoint, created bool, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		watch, endpoint, created, err = createWatch(ctx, tx, box, w)
		return err
	})
	if err != nil {
		return Watch{}, Endpoint{}, false, err
	}
	return watch, endpoint, created, nil
}

// createWatch is CreateWatch in tx.
func createWatch(ctx context.Context, tx pgx.Tx, box SecretSealer, w NewWatch) (watch Watch, endpoint Endpoint, created bool, err error) {
	err = func() error {
		var one int
		err := tx.QueryRow(ctx, "SELECT 1 FROM accounts WHERE account_id = $1 AND customer_id = $2 FOR UPDATE", w.AccountID, w.CustomerID).Scan(&one)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("cannot lock the account: %w", err)
		}
		if w.Inline != nil {
			endpoint, created, err = registerEndpoint(ctx, tx, box, w.Budgets, w.CustomerID, w.Inline.URL, w.Inline.Secret)
			if err != nil {
				return err
			}
		} else {
			endpoint, err = scanEndpoint(tx.QueryRow(ctx, "SELECT "+endpointCols+` FROM webhook_endpoints
				WHERE endpoint_id = $1 AND customer_id = $2 AND deleted_at IS NULL FOR SHARE`, w.EndpointID, w.CustomerID))
			if errors.Is(err, pgx.ErrNoRows) {
				return ErrEndpointNotFound
			}
			if err != nil {
				return fmt.Errorf("cannot read the webhook endpoint: %w", err)
			}
		}
		var used int64
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM watches WHERE account_id = $1 AND canceled_at IS NULL", w.AccountID).Scan(&used); err != nil {
			return fmt.Errorf("cannot count live watches: %w", err)
		}
		if used >= w.Allowance {
			return &AllowanceError{Limit: w.Allowance, Used: used}
		}
		// Canceled watches count: the allowance frees a slot on cancel, the budget does not.
		if err := spend(ctx, tx, w.Budgets, BudgetWatches, w.AccountID); err != nil {
			return err
		}
		var crit any // a nil RawMessage would be stored as JSON null, not SQL NULL
		if w.Criteria != nil {
			crit = string(w.Criteria)
		}
		watch, err = scanWatch(tx.QueryRow(ctx, `INSERT INTO watches (customer_id, account_id, key_id, endpoint_id, company_id, criteria, event_types, max_fires_per_hour)
			VALUES ($1, $2, NULLIF($3, 0), $4, $5, $6::jsonb, $7, $8) RETURNING `+watchCols,
			w.CustomerID, w.AccountID, w.KeyID, endpoint.ID, w.CompanyID, crit, w.EventTypes, w.MaxFiresPerHour))
		if err != nil {
			return fmt.Errorf("cannot insert the watch: %w", err)
		}
		return nil
	}()
	return watch, endpoint, created, err
}

// FireWindows are the spans of a watch's fire counters: an hour, 7 days and 30 days, or those
// spans of an accelerated dev clock's world time in wall time (fires are recorded at wall time).
type FireWindows struct{ Hour, Week, Month time.Duration }

// RealFireWindows are the fire counters' spans on the wall clock.
var RealFireWindows = FireWindows{Hour: time.Hour, Week: 7 * 24 * time.Hour, Month: 30 * 24 * time.Hour}

// ListWatches returns customerID's live watches, newest first, with their fires counted at at:
// in (at − 1 h, at], (at − 7 d, at] and (at − 30 d, at].
func ListWatches(ctx context.Context, pool *pgxpool.Pool, customerID string, at time.Time) ([]Watch, error) {
	return ListWatchesIn(ctx, pool, customerID, at, RealFireWindows)
}

// ListWatchesIn is ListWatches with the counters' spans given: (at − win.Hour, at], ...
func ListWatchesIn(ctx context.Context, pool *pgxpool.Pool, customerID string, at time.Time, win FireWindows) ([]Watch, error) {
	rows, err := pool.Query(ctx, `SELECT w.watch_id, w.endpoint_id, w.company_id, w.criteria, w.event_types, w.max_fires_per_hour, w.created_at, w.last_fired_at,
			coalesce(f.h, 0), coalesce(f.d7, 0), coalesce(f.d30, 0)
		FROM watches w
		LEFT JOIN LATERAL (
			SELECT count(*) FILTER (WHERE fired_at > $2::timestamptz - make_interval(secs => $4)) AS h,
				count(*) FILTER (WHERE fired_at > $2::timestamptz - make_interval(secs => $5)) AS d7,
				count(*) AS d30
			FROM watch_fires WHERE watch_id = w.watch_id AND fired_at > $2::timestamptz - make_interval(secs => $6) AND fired_at <= $2::timestamptz
		) f ON true
		WHERE w.customer_id = $1 AND w.canceled_at IS NULL
		ORDER BY w.created_at DESC, w.watch_id DESC LIMIT $3`, customerID, at, MaxListedWatches, win.Hour.Seconds(), win.Week.Seconds(), win.Month.Seconds())
	if err != nil {
		return nil, fmt.Errorf("cannot list watches: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Watch, error) {
		var h, d7, d30 int64
		w, err := scanWatch(r, &h, &d7, &d30)
		w.FiresLastHour, w.FiresLast7d, w.FiresLast30d = h, d7, d30
		return w, err
	})
	if err != nil {
		return nil, fmt.Errorf("cannot list watches: %w", err)
	}
	return out, nil
}

// CancelWatch cancels watch id of customerID, freeing its slot. Canceling an own watch already
// canceled is a no-op; an id that does not exist or is another customer's is ErrNotFound.
func CancelWatch(ctx context.Context, pool *pgxpool.Pool, customerID string, id int64) error {
	var canceled time.Time
	err := pool.QueryRow(ctx, `UPDATE watches SET canceled_at = coalesce(canceled_at, now())
		WHERE watch_id = $1 AND customer_id = $2 RETURNING canceled_at`, id, customerID).Scan(&canceled)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("cannot cancel the watch: %w", err)
	}
	return nil
}

// LiveWatches counts customerID's live watches.
func LiveWatches(ctx context.Context, pool *pgxpool.Pool, customerID string) (int64, error) {
	var n int64
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM watches WHERE customer_id = $1 AND canceled_at IS NULL", customerID).Scan(&n); err != nil {
		return 0, fmt.Errorf("cannot count live watches: %w", err)
	}
	return n, nil
}

// RecordWatchFire records that watch id fired at firedAt (for the ledger event eventSeq, 0 when
// none) and keeps the watch's last_fired_at, in one transaction: the notifier calls it per
// delivery it makes (not for deliveries dropped as rate_limited).
func RecordWatchFire(ctx context.Context, pool *pgxpool.Pool, id int64, firedAt time.Time, eventSeq int64) error {
	var seq *int64
	if eventSeq != 0 {
		seq = &eventSeq
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO watch_fires (watch_id, fired_at, event_seq) VALUES ($1, $2, $3)", id, firedAt, seq); err != nil {
			return fmt.Errorf("cannot record the watch fire: %w", err)
		}
		if _, err := tx.Exec(ctx, "UPDATE watches SET last_fired_at = greatest(last_fired_at, $2) WHERE watch_id = $1", id, firedAt); err != nil {
			return fmt.Errorf("cannot update the watch's last fire: %w", err)
		}
		return nil
	})
}

// PushCounts answers the usage dashboard's push counts from Postgres; with the wall's answer
// (package push/admit) it is account.PushStats.
type PushCounts struct{ Pool *pgxpool.Pool }

// LiveWatches counts customerID's live watches.
func (p PushCounts) LiveWatches(ctx context.Context, customerID string) (int64, error) {
	return LiveWatches(ctx, p.Pool, customerID)
}

// BlockedDeliveries counts customerID's deliveries created since since (the billing month) that
// the notifier wrote as wall_blocked and cap_blocked.
func (p PushCounts) BlockedDeliveries(ctx context.Context, customerID string, since time.Time) (wallBlocked, capBlocked int64, err error) {
	return BlockedDeliveryCounts(ctx, p.Pool, customerID, since)
}
