package oltp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SpendHolds is the shared store of spend-cap holds (table spend_holds): the units of an
// account's billing month each API instance may meter on top of what usage_monthly holds.
// Every instance's caps lease from it (api/admission.Caps); the metering flush takes a
// segment's units off its owner's hold (SettleSpendHolds).
type SpendHolds struct{ Pool *pgxpool.Pool }

// SpendView is what Hold read under the account's lock: the month's units in usage_monthly, the
// units other owners' live holds keep, and the owner's own hold as Postgres has it (0 without
// one): less than the owner last set by the units flushed since (SettleSpendHolds).
type SpendView struct {
	Month  int64
	Others int64
	Own    int64
}

// Hold sets owner's hold on accountID's units of the billing month starting at month to what
// decide returns, given the month's units and the other owners' live holds, read under the
// account's advisory lock (every Hold of the account waits for it), and extends the hold to ttl
// from now. It returns the view decide was given. decide runs once, inside the transaction.
func (h SpendHolds) Hold(ctx context.Context, owner string, accountID int64, month time.Time, ttl time.Duration,
	decide func(SpendView) int64) (v SpendView, err error) {
	err = pgx.BeginFunc(ctx, h.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('spend-holds:' || $1::bigint))", accountID); err != nil {
			return err
		}
		// The owner's row first, locked: a flush taking units off it (SettleSpendHolds) either
		// committed before, and the month's units read next hold them, or waits for this
		// transaction and takes them off the hold written here.
		err := tx.QueryRow(ctx, `SELECT held FROM spend_holds WHERE account_id = $1 AND month = $2 AND owner = $3 FOR UPDATE`,
			accountID, month, owner).Scan(&v.Own)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT
				coalesce((SELECT units FROM usage_monthly WHERE account_id = $1 AND month = $2), 0),
				coalesce((SELECT sum(held) FROM spend_holds WHERE account_id = $1 AND month = $2 AND owner <> $3 AND expires_at > now()), 0)::bigint`,
			accountID, month, owner).Scan(&v.Month, &v.Others); err != nil {
			return err
		}
		held := decide(v)
		_, err = tx.Exec(ctx, `INSERT INTO spend_holds AS h (account_id, month, owner, held, expires_at)
			VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
			ON CONFLICT (account_id, month, owner) DO UPDATE SET held = EXCLUDED.held, expires_at = EXCLUDED.expires_at`,
			accountID, month, owner, held, ttl.Seconds())
		return err
	})
	if err != nil {
		return SpendView{}, fmt.Errorf("cannot hold units of account %d's spend this month: %w", accountID, err)
	}
	return v, nil
}

// Expire deletes holds that lapsed more than a day ago: their owner stopped asking (it died, or
// the month is over); a hold counts only until it lapses.
func (h SpendHolds) Expire(ctx context.Context) error {
	if _, err := h.Pool.Exec(ctx, `DELETE FROM spend_holds WHERE expires_at < now() - interval '1 day'`); err != nil {
		return fmt.Errorf("cannot delete lapsed spend holds: %w", err)
	}
	return nil
}

// SpendHoldUnits is units of one account and billing month (its first day, UTC).
type SpendHoldUnits struct {
	AccountID int64
	Month     time.Time
	Units     int64
}

// SettleSpendHolds takes units metered by owner off owner's holds, in tx: the transaction that
// adds them to usage_monthly, so a unit is counted in the month's units or in a hold, never in
// both or neither. A month without a hold of owner (an account without a cap) is left alone.
func SettleSpendHolds(ctx context.Context, tx pgx.Tx, owner string, units []SpendHoldUnits) error {
	if owner == "" || len(units) == 0 {
		return nil
	}
	accts, months, n := make([]int64, len(units)), make([]time.Time, len(units)), make([]int64, len(units))
	for i, u := range units {
		accts[i], months[i], n[i] = u.AccountID, u.Month, u.Units
	}
	_, err := tx.Exec(ctx, `UPDATE spend_holds h SET held = h.held - x.units
		FROM unnest($2::int8[], $3::date[], $4::int8[]) AS x(account_id, month, units)
		WHERE h.owner = $1 AND h.account_id = x.account_id AND h.month = x.month`, owner, accts, months, n)
	if err != nil {
		return fmt.Errorf("cannot take metered units off this instance's spend holds: %w", err)
	}
	return nil
}
