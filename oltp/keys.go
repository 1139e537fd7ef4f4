package oltp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/apikey"
	"github.com/planehq/hiringsignal/internal/plans"
)

// AuthChannel is the Postgres NOTIFY channel that tells every API instance to drop its cached
// records of the keys and accounts a change touched. It is sent in the same transaction as the
// change, so it arrives at every listener once the change is committed. Its payload is
// "<token> <targets>" (see AuthChange).
const AuthChannel = "hs_auth"

// AuthChange is one notification on AuthChannel: the change's token (acknowledged on
// AuthAckChannel) and what it touched. Targets travel as a comma-separated list of "k<key_id>"
// and "a<account_id>", or "*" for everything (a payload with no targets, as older instances
// send, also means everything).
type AuthChange struct {
	Token      string
	All        bool
	KeyIDs     []int64
	AccountIDs []int64
}

// Covers reports whether the change touches the key keyID of account accountID.
func (c AuthChange) Covers(keyID, accountID int64) bool {
	return c.All || slices.Contains(c.KeyIDs, keyID) || slices.Contains(c.AccountIDs, accountID)
}

// ParseAuthChange reads a payload of AuthChannel. Anything it cannot read means everything.
func ParseAuthChange(payload string) AuthChange {
	token, targets, _ := strings.Cut(payload, " ")
	c := AuthChange{Token: token}
	if targets == "" || targets == "*" {
		c.All = true
		return c
	}
	for _, t := range strings.Split(targets, ",") {
		if len(t) < 2 {
			return AuthChange{Token: token, All: true}
		}
		id, err := strconv.ParseInt(t[1:], 10, 64)
		switch {
		case err != nil:
			return AuthChange{Token: token, All: true}
		case t[0] == 'k':
			c.KeyIDs = append(c.KeyIDs, id)
		case t[0] == 'a':
			c.AccountIDs = append(c.AccountIDs, id)
		default:
			return AuthChange{Token: token, All: true}
		}
	}
	return c
}

// MaxActiveKeys bounds the active keys one customer may hold.
const MaxActiveKeys = 50

// ErrNotFound is returned for an id that does not exist or belongs to another customer; callers
// must not be able to tell the two apart.
var ErrNotFound = errors.New("not found")

// ErrTooManyKeys is returned by IssueKey when the customer already holds MaxActiveKeys.
var ErrTooManyKeys = fmt.Errorf("a customer may hold at most %d active keys: revoke one first", MaxActiveKeys)

// ErrNoGrantableScope is returned by RotateKey when the replacement would keep none of the
// rotated key's scopes: the presenting key holds none of them.
var ErrNoGrantableScope = errors.New("the presenting key holds none of the rotated key's scopes: send scopes the presenting key holds, or rotate with a key that holds the rotated key's scopes")

// KeyAuth is what authenticating a key yields: the key, its account and the account's plan.
type KeyAuth struct {
	KeyID          int64
	LimitID        int64 // the key's lineage: the rotation replacements of one key share its limits
	AccountID      int64
	CustomerID     string
	Scopes         []string
	IsDemo         bool
	Revoked        bool
	Surface        string
	Tier           string
	AccountStatus  string
	Paused         bool
	SoftCapUnits   *int64
	HardCapUnits   *int64
	CallsPerMinute *int64
}

// LookupKey finds the key whose SHA-256 is hash. found is false for an unknown hash.
func LookupKey(ctx context.Context, pool *pgxpool.Pool, hash []byte) (k KeyAuth, found bool, err error) {
	var revokedAt *time.Time
	err = pool.QueryRow(ctx, `SELECT k.key_id, COALESCE(k.limit_id, k.key_id), k.account_id, k.customer_id, k.scopes, k.is_demo, k.revoked_at,
			k.acquisition_surface, a.tier, a.account_status, a.paused, a.soft_cap_units, a.hard_cap_units, a.calls_per_minute
		FROM api_keys k JOIN accounts a ON a.account_id = k.account_id AND a.customer_id = k.customer_id
		WHERE k.key_hash = $1`, hash).Scan(&k.KeyID, &k.LimitID, &k.AccountID, &k.CustomerID, &k.Scopes, &k.IsDemo, &revokedAt,
		&k.Surface, &k.Tier, &k.AccountStatus, &k.Paused, &k.SoftCapUnits, &k.HardCapUnits, &k.CallsPerMinute)
	if errors.Is(err, pgx.ErrNoRows) {
		return KeyAuth{}, false, nil
	}
	if err != nil {
		return KeyAuth{}, false, fmt.Errorf("cannot look up the API key: %w", err)
	}
	k.Revoked = revokedAt != nil
	return k, true, nil
}

// Key is one key record as listed to its customer; the key itself is never stored.
type Key struct {
	KeyID       int64      `json:"key_id"`
	Display     string     `json:"display"`
	Scopes      []string   `json:"scopes"`
	Tier        string     `json:"tier"`
	CreatedAt   time.Time  `json:"created_at"`
	LastUsedAt  *time.Time `json:"last_used_at"`
	RevokedAt   *time.Time `json:"revoked_at"`
	ParentKeyID *int64     `json:"parent_key_id"`
	LimitID     int64      `json:"-"` // its limit lineage (rotation replacements share it)
}

// IssuedKey is a freshly minted key: the only time its secret value is returned.
type IssuedKey struct {
	Secret string `json:"key"`
	Key
}

// Key list filters (GET /v1/keys status).
const (
	KeysAll     = "all"
	KeysActive  = "active"
	KeysRevoked = "revoked"
)

// KeyPage is a page of GET /v1/keys: the keys after key_id After (0: from the first), at most
// Limit, of Status (KeysAll, KeysActive or KeysRevoked; "": all).
type KeyPage struct {
	After  int64
	Limit  int
	Status string
}

const keyCols = `k.key_id, k.display, k.scopes, a.tier, k.created_at, k.revoked_at, k.parent_key_id, COALESCE(k.limit_id, k.key_id)`

// collectKeys reads rows of keyCols (then last_used_at, with lastUsed).
func collectKeys(rows pgx.Rows, lastUsed bool) ([]Key, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Key, error) {
		var k Key
		dst := []any{&k.KeyID, &k.Display, &k.Scopes, &k.Tier, &k.CreatedAt, &k.RevokedAt, &k.ParentKeyID, &k.LimitID}
		if lastUsed {
			dst = append(dst, &k.LastUsedAt)
		}
		err := r.Scan(dst...)
		return k, err
	})
}

// ListKeys lists a page of customerID's keys, ascending by key_id; more says keys of the filter
// follow the page. last_used_at is the latest metered event of the key in the usage ledger.
func ListKeys(ctx context.Context, pool *pgxpool.Pool, customerID string, p KeyPage) (keys []Key, more bool, err error) {
	if p.Status == "" {
		p.Status = KeysAll
	}
	p.Limit = max(p.Limit, 1)
	rows, err := pool.Query(ctx, `SELECT `+keyCols+`,
			(SELECT max(u.occurred_at) FROM usage_events u WHERE u.key_id = k.key_id AND u.customer_id = k.customer_id)
		FROM api_keys k JOIN accounts a ON a.account_id = k.account_id
		WHERE k.customer_id = $1 AND k.key_id > $2 AND ($3 = 'all' OR (k.revoked_at IS NULL) = ($3 = 'active'))
		ORDER BY k.key_id LIMIT $4`, customerID, p.After, p.Status, p.Limit+1)
	if err == nil {
		keys, err = collectKeys(rows, true)
	}
	if err != nil {
		return nil, false, fmt.Errorf("cannot list keys: %w", err)
	}
	if len(keys) > p.Limit {
		return keys[:p.Limit], true, nil
	}
	return keys, false, nil
}

// QuotaKeys lists what a daily quota reads of customerID's keys, ascending by key_id: every
// active key (at most MaxActiveKeys) and, of the revoked ones, those among ids (the keys with
// calls today: a revoked key spent its lineage's quota only before it was revoked). last_used_at
// is not read.
func QuotaKeys(ctx context.Context, pool *pgxpool.Pool, customerID string, ids []int64) ([]Key, error) {
	if ids == nil {
		ids = []int64{}
	}
	rows, err := pool.Query(ctx, `SELECT `+keyCols+`
		FROM api_keys k JOIN accounts a ON a.account_id = k.account_id
		WHERE k.customer_id = $1 AND (k.revoked_at IS NULL OR k.key_id = ANY($2))
		ORDER BY k.key_id`, customerID, ids)
	var keys []Key
	if err == nil {
		keys, err = collectKeys(rows, false)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot list the keys of the quota: %w", err)
	}
	return keys, nil
}

// IssueKey is IssueKeyWithin the default budgets.
func IssueKey(ctx context.Context, pool *pgxpool.Pool, parent KeyAuth, scopes []string) (IssuedKey, error) {
	return IssueKeyWithin(ctx, pool, Budgets{}, parent, scopes)
}

// lockKeys serializes, until tx ends, the key mints of customerID (issues and rotations), so the
// active-key bound and the daily key budget hold under concurrent calls.
func lockKeys(ctx context.Context, tx pgx.Tx, customerID string) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('keys:' || $1))", customerID); err != nil {
		return fmt.Errorf("cannot lock the customer's keys: %w", err)
	}
	return nil
}

// IssueKeyWithin mints a key on the parent key's account, customer and acquisition surface. The
// tier is the account's; nothing of it comes from the request. ErrTooManyKeys when the customer
// holds MaxActiveKeys; a *BudgetError when it minted b's daily key budget already.
func IssueKeyWithin(ctx context.Context, pool *pgxpool.Pool, b Budgets, parent KeyAuth, scopes []string) (IssuedKey, error) {
	var out IssuedKey
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockKeys(ctx, tx, parent.CustomerID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM api_keys WHERE customer_id = $1 AND revoked_at IS NULL", parent.CustomerID).Scan(&n); err != nil {
			return fmt.Errorf("cannot count active keys: %w", err)
		}
		if n >= MaxActiveKeys {
			return ErrTooManyKeys
		}
		if err := spend(ctx, tx, b, BudgetKeys, parent.CustomerID); err != nil {
			return err
		}
		k, err := insertKey(ctx, tx, parent.AccountID, parent.CustomerID, scopes, parent.Surface, &parent.KeyID, nil)
		out = k
		return err
	})
	return out, err
}

// insertKey mints a key; limitID is the lineage it joins (a rotation's), nil to head its own.
func insertKey(ctx context.Context, tx pgx.Tx, accountID int64, customerID string, scopes []string, surface string, parent, limitID *int64) (IssuedKey, error) {
	key, err := apikey.New()
	if err != nil {
		return IssuedKey{}, fmt.Errorf("cannot mint a key: %w", err)
	}
	out := IssuedKey{Secret: key}
	out.Display = apikey.Display(key)
	out.Scopes = scopes
	out.ParentKeyID = parent
	err = tx.QueryRow(ctx, `INSERT INTO api_keys (account_id, customer_id, key_hash, display, scopes, parent_key_id, acquisition_surface, limit_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		RETURNING key_id, created_at, (SELECT tier FROM accounts WHERE account_id = $1)`,
		accountID, customerID, apikey.Hash(key), out.Display, scopes, parent, surface, limitID).Scan(&out.KeyID, &out.CreatedAt, &out.Tier)
	if err != nil {
		return IssuedKey{}, fmt.Errorf("cannot insert the key: %w", err)
	}
	return out, nil
}

// keyTarget and accountTarget name what a change touched, for notifyAuth (see AuthChange).
func keyTarget(keyID int64) string { return "k" + strconv.FormatInt(keyID, 10) }

func accountTarget(accountID int64) string { return "a" + strconv.FormatInt(accountID, 10) }

// notifyAuth tells every API instance, once tx commits, to drop what it cached of targets (no
// targets: everything) and to acknowledge token.
func notifyAuth(ctx context.Context, tx pgx.Tx, token string, targets ...string) error {
	what := "*"
	if len(targets) > 0 {
		what = strings.Join(targets, ",")
	}
	if _, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", AuthChannel, token+" "+what); err != nil {
		return fmt.Errorf("cannot notify API instances: %w", err)
	}
	return nil
}

// RevokeKey revokes keyID of customerID (a no-op for an already revoked own key). Another
// customer's id, a demo key and a missing id all give ErrNotFound.
func RevokeKey(ctx context.Context, pool *pgxpool.Pool, customerID string, keyID int64, notifyToken string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
			WHERE key_id = $1 AND customer_id = $2 AND NOT is_demo`, keyID, customerID)
		if err != nil {
			return fmt.Errorf("cannot revoke the key: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		return notifyAuth(ctx, tx, notifyToken, keyTarget(keyID))
	})
}

// RotateKey is RotateKeyWithin the default budgets.
func RotateKey(ctx context.Context, pool *pgxpool.Pool, customerID string, keyID int64, scopes, grantable []string, notifyToken string) (IssuedKey, error) {
	return RotateKeyWithin(ctx, pool, Budgets{}, customerID, keyID, scopes, grantable, notifyToken)
}

// RotateKeyWithin mints a replacement of keyID on the same account and revokes keyID, in one
// transaction. The replacement has scopes when non-nil (the caller checked them against the
// presenting key), else the rotated key's scopes that grantable (the presenting key's) also
// holds: ErrNoGrantableScope when that leaves none. It joins keyID's lineage (limit_id), so it
// inherits what keyID spent of its limits. A revoked, missing or foreign id is ErrNotFound; a
// replacement past b's daily key budget is a *BudgetError (and keyID stays active).
func RotateKeyWithin(ctx context.Context, pool *pgxpool.Pool, b Budgets, customerID string, keyID int64, scopes, grantable []string, notifyToken string) (IssuedKey, error) {
	var out IssuedKey
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := lockKeys(ctx, tx, customerID); err != nil {
			return err
		}
		var accountID, limitID int64
		var oldScopes []string
		var surface string
		err := tx.QueryRow(ctx, `UPDATE api_keys SET revoked_at = now()
			WHERE key_id = $1 AND customer_id = $2 AND revoked_at IS NULL AND NOT is_demo
			RETURNING account_id, scopes, acquisition_surface, COALESCE(limit_id, key_id)`, keyID, customerID).Scan(&accountID, &oldScopes, &surface, &limitID)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("cannot revoke the rotated key: %w", err)
		}
		if scopes == nil {
			for _, s := range oldScopes {
				if slices.Contains(grantable, s) {
					scopes = append(scopes, s)
				}
			}
			if len(scopes) == 0 {
				return ErrNoGrantableScope
			}
		}
		if err := spend(ctx, tx, b, BudgetKeys, customerID); err != nil {
			return err
		}
		out, err = insertKey(ctx, tx, accountID, customerID, scopes, surface, &keyID, &limitID)
		if err != nil {
			return err
		}
		return notifyAuth(ctx, tx, notifyToken, keyTarget(keyID))
	})
	return out, err
}

// DemoCustomerID is the customer that owns the shared public demo key.
const DemoCustomerID = "cus_demo"

// UpsertDemoKey makes the key whose SHA-256 is hash the one active shared demo key: a free-tier
// account of DemoCustomerID, read scope only. Any previous demo key is revoked. Safe to run on
// every start of every instance.
func UpsertDemoKey(ctx context.Context, pool *pgxpool.Pool, hash []byte, display string) (int64, error) {
	var keyID int64
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('demo-key'))"); err != nil {
			return fmt.Errorf("cannot lock the demo key: %w", err)
		}
		accountID, err := ensureCustomerAccount(ctx, tx, DemoCustomerID, "demo@hiringsignal.invalid", "tier_0")
		if err != nil {
			return err
		}
		var owner string
		err = tx.QueryRow(ctx, "SELECT customer_id, key_id FROM api_keys WHERE key_hash = $1", hash).Scan(&owner, &keyID)
		switch {
		case err == nil && owner != DemoCustomerID:
			return fmt.Errorf("the configured demo key is a customer's key: choose another --demo-key (HS_DEMO_KEY)")
		case err == nil:
			if _, err := tx.Exec(ctx, "UPDATE api_keys SET revoked_at = NULL, is_demo = true WHERE key_id = $1", keyID); err != nil {
				return fmt.Errorf("cannot reactivate the demo key: %w", err)
			}
		case errors.Is(err, pgx.ErrNoRows):
			if err := tx.QueryRow(ctx, `INSERT INTO api_keys (account_id, customer_id, key_hash, display, scopes, is_demo, acquisition_surface)
				VALUES ($1, $2, $3, $4, '{read}', true, 'demo') RETURNING key_id`, accountID, DemoCustomerID, hash, display).Scan(&keyID); err != nil {
				return fmt.Errorf("cannot insert the demo key: %w", err)
			}
		default:
			return fmt.Errorf("cannot look up the demo key: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = now()
			WHERE customer_id = $1 AND key_id <> $2 AND revoked_at IS NULL`, DemoCustomerID, keyID); err != nil {
			return fmt.Errorf("cannot revoke the previous demo key: %w", err)
		}
		return notifyAuth(ctx, tx, "demo")
	})
	return keyID, err
}

func ensureCustomerAccount(ctx context.Context, tx pgx.Tx, customerID, email, tier string) (int64, error) {
	if _, err := tx.Exec(ctx, "INSERT INTO customers (customer_id, contact_email) VALUES ($1, $2) ON CONFLICT DO NOTHING", customerID, email); err != nil {
		return 0, fmt.Errorf("cannot insert customer %s: %w", customerID, err)
	}
	var accountID int64
	err := tx.QueryRow(ctx, "SELECT account_id FROM accounts WHERE customer_id = $1 ORDER BY account_id LIMIT 1", customerID).Scan(&accountID)
	if errors.Is(err, pgx.ErrNoRows) {
		t, ok := plans.ByID(tier)
		if !ok {
			return 0, fmt.Errorf("unknown tier %q", tier)
		}
		err = tx.QueryRow(ctx, `INSERT INTO accounts (customer_id, tier, soft_cap_units, hard_cap_units) VALUES ($1, $2, $3, $4)
			RETURNING account_id`, customerID, tier, t.SoftCapUnits, t.HardCapUnits).Scan(&accountID)
	}
	if err != nil {
		return 0, fmt.Errorf("cannot ensure the account of %s: %w", customerID, err)
	}
	return accountID, nil
}

// DevCustomerID is the customer EnsureDevAccount creates.
const DevCustomerID = "cus_dev"

// EnsureDevAccount creates (once) the development customer on the growth plan and returns a
// fresh key for it. Each call mints a new key and revokes the previous dev keys, so no plaintext
// key ever needs storing; `hiringsignal dev` prints the returned key.
func EnsureDevAccount(ctx context.Context, pool *pgxpool.Pool) (string, error) {
	var key string
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('dev-account'))"); err != nil {
			return fmt.Errorf("cannot lock the dev account: %w", err)
		}
		accountID, err := ensureCustomerAccount(ctx, tx, DevCustomerID, "dev@hiringsignal.invalid", "tier_3")
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE api_keys SET revoked_at = now()
			WHERE customer_id = $1 AND acquisition_surface = 'dev' AND revoked_at IS NULL`, DevCustomerID); err != nil {
			return fmt.Errorf("cannot revoke the previous dev key: %w", err)
		}
		k, err := insertKey(ctx, tx, accountID, DevCustomerID, DefaultScopes, "dev", nil, nil)
		if err != nil {
			return err
		}
		key = k.Secret
		return notifyAuth(ctx, tx, "dev")
	})
	if err != nil {
		return "", fmt.Errorf("cannot ensure the dev account: %w", err)
	}
	return key, nil
}
