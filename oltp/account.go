package oltp

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Account status values (account_status): active or paused.
const (
	AccountActive = "active"
	AccountPaused = "paused"
)

// AccountState is what pause and resume answer.
type AccountState struct {
	AccountID     int64  `json:"account_id"`
	AccountStatus string `json:"account_status"`
	Paused        bool   `json:"paused"`
}

// SetPaused pauses or resumes accountID of customerID and tells every API instance.
func SetPaused(ctx context.Context, pool *pgxpool.Pool, customerID string, accountID int64, paused bool, notifyToken string) (AccountState, error) {
	st := AccountState{AccountID: accountID, Paused: paused, AccountStatus: AccountActive}
	if paused {
		st.AccountStatus = AccountPaused
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "UPDATE accounts SET paused = $3, account_status = $4 WHERE account_id = $1 AND customer_id = $2",
			accountID, customerID, paused, st.AccountStatus)
		if err != nil {
			return fmt.Errorf("cannot update the account: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return notifyAuth(ctx, tx, notifyToken, accountTarget(accountID))
	})
	return st, err
}

// SetCallsPerMinute sets (or with nil clears) the per-key rate override of an account.
func SetCallsPerMinute(ctx context.Context, pool *pgxpool.Pool, accountID int64, perMinute *int64) error {
	_, err := pool.Exec(ctx, "UPDATE accounts SET calls_per_minute = $2 WHERE account_id = $1", accountID, perMinute)
	if err != nil {
		return fmt.Errorf("cannot set calls_per_minute: %w", err)
	}
	return nil
}

// SetCaps sets an account's soft and hard spend caps in units (nil = no cap).
func SetCaps(ctx context.Context, pool *pgxpool.Pool, accountID int64, soft, hard *int64) error {
	_, err := pool.Exec(ctx, "UPDATE accounts SET soft_cap_units = $2, hard_cap_units = $3 WHERE account_id = $1", accountID, soft, hard)
	if err != nil {
		return fmt.Errorf("cannot set caps: %w", err)
	}
	return nil
}

// MonthUnits returns the units and calls metered to accountID in the current UTC billing month.
func MonthUnits(ctx context.Context, pool *pgxpool.Pool, accountID int64) (units, calls int64, err error) {
	err = pool.QueryRow(ctx, `SELECT units, calls FROM usage_monthly
		WHERE account_id = $1 AND month = date_trunc('month', now() AT TIME ZONE 'UTC')::date`, accountID).Scan(&units, &calls)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("cannot read the month's usage: %w", err)
	}
	return units, calls, nil
}
