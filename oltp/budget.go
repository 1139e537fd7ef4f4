package oltp

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Daily creation budgets (migration 0023). Issuing a key, registering a webhook endpoint,
// creating a watch and starting a quickstart are not billable, and revoking, deleting or
// canceling keeps the row (revoked_at, deleted_at, canceled_at): without a bound a key could write
// one row per call of its minute limit for ever (a Free key about 28,800 a day), by creating and
// retiring in a loop. The bounds on what is live (MaxActiveKeys, MaxLiveEndpoints, the live-watch
// allowance) do not see retired rows; these budgets count every row created in the last
// BudgetWindow, retired or not.

// Default daily creation budgets: far above honest use (a deployment issues or rotates a few keys
// a day; a customer registers a few endpoints; re-creating every live watch of the largest plan
// several times a day stays under the watch budget), far below what the minute limit allows.
const (
	MaxKeysPerDay        = 100   // keys issued or minted by a rotation, per customer
	MaxEndpointsPerDay   = 100   // webhook endpoints registered (new rows, not re-registrations), per customer
	MaxWatchesPerDay     = 1_000 // watches created (POST /v1/watches and quickstarts), per account
	MaxQuickstartsPerDay = 100   // quickstarts of a webhook_url not quickstarted before, per customer
)

// BudgetWindow is the rolling window every daily budget counts over: the creation budgets
// (created_at), test deliveries and replays.
const BudgetWindow = 24 * time.Hour

// What each budget bounds: BudgetError.Budget and the API's budget field.
const (
	BudgetKeys        = "keys"
	BudgetEndpoints   = "webhook_endpoints"
	BudgetWatches     = "watches"
	BudgetQuickstarts = "quickstarts"
)

// Budgets are the daily creation budgets in force. A zero field is its default (MaxKeysPerDay,
// ...), so the zero Budgets is the production one; tests pass small ones through the API's Deps.
type Budgets struct {
	KeysPerDay, EndpointsPerDay, WatchesPerDay, QuickstartsPerDay int
}

// Limit is the budget of what (BudgetKeys, ...) in force.
func (b Budgets) Limit(what string) int {
	pick := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	switch what {
	case BudgetKeys:
		return pick(b.KeysPerDay, MaxKeysPerDay)
	case BudgetEndpoints:
		return pick(b.EndpointsPerDay, MaxEndpointsPerDay)
	case BudgetWatches:
		return pick(b.WatchesPerDay, MaxWatchesPerDay)
	case BudgetQuickstarts:
		return pick(b.QuickstartsPerDay, MaxQuickstartsPerDay)
	}
	panic("oltp: no creation budget " + what)
}

// budgetNouns name what each budget counts, for BudgetError's message.
var budgetNouns = map[string]string{
	BudgetKeys:        "API keys (issued or rotated)",
	BudgetEndpoints:   "webhook endpoints",
	BudgetWatches:     "watches",
	BudgetQuickstarts: "quickstarts of a new webhook_url",
}

// BudgetError is returned when a creation would pass its daily budget; nothing is written.
type BudgetError struct {
	Budget     string        // BudgetKeys, BudgetEndpoints, BudgetWatches or BudgetQuickstarts
	Limit      int           // rows of that kind allowed in any BudgetWindow
	RetryAfter time.Duration // until the budget has room for one more (at least a second)
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("%d %s were created in the last 24 hours, the most allowed: the next one fits in %s (revoked, deleted and canceled ones count too)",
		e.Limit, budgetNouns[e.Budget], e.RetryAfter.Round(time.Second))
}

// budgetTables say where each budget counts: the table and the column naming its owner.
var budgetTables = map[string][2]string{
	BudgetKeys:        {"api_keys", "customer_id"},
	BudgetEndpoints:   {"webhook_endpoints", "customer_id"},
	BudgetWatches:     {"watches", "account_id"},
	BudgetQuickstarts: {"quickstarts", "customer_id"},
}

// spend checks in tx that owner (a customer_id, or an account_id for BudgetWatches) created fewer
// than b's budget of what in the last BudgetWindow: a *BudgetError when it did not. The caller
// holds the lock that serializes owner's creations of that kind until tx ends, so concurrent
// creations each see the others' rows and cannot pass the budget together.
func spend(ctx context.Context, tx pgx.Tx, b Budgets, what string, owner any) error {
	limit, where := b.Limit(what), budgetTables[what]
	full, left, err := windowFull(ctx, tx, where[0], where[1], owner, limit)
	if err != nil {
		return fmt.Errorf("cannot count the %s created in the last 24 hours: %w", budgetNouns[what], err)
	}
	if full {
		return &BudgetError{Budget: what, Limit: limit, RetryAfter: left}
	}
	return nil
}

// windowFull reports whether the rows of table whose ownerCol is owner created in the last
// BudgetWindow number limit or more, and then how long until the oldest of the newest limit of
// them leaves it (one more fits then; at least a second, at most the window). Every daily budget
// counted on created_at asks it (the creation budgets, the outcome label budget).
func windowFull(ctx context.Context, tx pgx.Tx, table, ownerCol string, owner any, limit int) (full bool, retryAfter time.Duration, err error) {
	var recent int
	var left time.Duration
	if err := tx.QueryRow(ctx, `SELECT count(*), COALESCE(min(created_at) + $2::interval - now(), interval '0')
		FROM (SELECT created_at FROM `+table+` WHERE `+ownerCol+` = $1 AND created_at > now() - $2::interval ORDER BY created_at DESC LIMIT $3) r`,
		owner, BudgetWindow, limit).Scan(&recent, &left); err != nil {
		return false, 0, err
	}
	// now() is this transaction's start: a row committed by a creation that started later is
	// newer than it, which would say a little more than the window.
	return recent >= limit, min(max(left, time.Second), BudgetWindow), nil
}
