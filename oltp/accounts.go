package oltp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/apikey"
	"github.com/planehq/hiringsignal/internal/plans"
)

// DefaultScopes are granted to the first key of a new account.
var DefaultScopes = []string{"read", "write", "keys"}

// NewAccount is what CreateAccount returns: the only time the key itself is shown.
type NewAccount struct {
	CustomerID string   `json:"customer_id"`
	AccountID  int64    `json:"account_id"`
	Tier       string   `json:"tier"`
	TierName   string   `json:"tier_name"`
	Plan       string   `json:"plan"`
	KeyID      int64    `json:"key_id"`
	Key        string   `json:"key"`
	Scopes     []string `json:"scopes"`
}

// CreateAccount creates a customer, an account on plan and its first API key, in one transaction.
func CreateAccount(ctx context.Context, pool *pgxpool.Pool, plan, email string) (NewAccount, error) {
	tier, ok := plans.ByPlan(plan)
	if !ok {
		return NewAccount{}, fmt.Errorf("unknown plan %q: use free, trial, starter, growth or enterprise", plan)
	}
	if email == "" {
		return NewAccount{}, fmt.Errorf("an email is required (--email)")
	}
	var rb [8]byte
	if _, err := rand.Read(rb[:]); err != nil {
		return NewAccount{}, err
	}
	out := NewAccount{CustomerID: "cus_" + hex.EncodeToString(rb[:]), Tier: tier.ID, TierName: tier.Name, Plan: tier.Plan, Scopes: DefaultScopes}
	key, err := apikey.New()
	if err != nil {
		return NewAccount{}, fmt.Errorf("cannot mint a key: %w", err)
	}
	out.Key = key
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO customers (customer_id, contact_email) VALUES ($1, $2)", out.CustomerID, email); err != nil {
			return fmt.Errorf("cannot insert customer: %w", err)
		}
		if err := tx.QueryRow(ctx, `INSERT INTO accounts (customer_id, tier, soft_cap_units, hard_cap_units)
			VALUES ($1, $2, $3, $4) RETURNING account_id`, out.CustomerID, tier.ID, tier.SoftCapUnits, tier.HardCapUnits).Scan(&out.AccountID); err != nil {
			return fmt.Errorf("cannot insert account: %w", err)
		}
		if err := tx.QueryRow(ctx, `INSERT INTO api_keys (account_id, customer_id, key_hash, display, scopes)
			VALUES ($1, $2, $3, $4, $5) RETURNING key_id`, out.AccountID, out.CustomerID, apikey.Hash(key), apikey.Display(key), out.Scopes).Scan(&out.KeyID); err != nil {
			return fmt.Errorf("cannot insert api key: %w", err)
		}
		return nil
	})
	if err != nil {
		return NewAccount{}, err
	}
	return out, nil
}
