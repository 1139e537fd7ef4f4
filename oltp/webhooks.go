package oltp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Webhook endpoints (migrations 0008 and 0031: the kinds). Secrets, and the targets of slack and
// email endpoints, reach this file in plain text only to be sealed by
// a SecretSealer before any statement sees them; they are never logged and never part of an
// error.

// SecretSealer seals webhook secrets at rest and opens them again, bound to additional data
// (EndpointAAD); *secretbox.Box implements it.
type SecretSealer interface {
	Seal(plaintext, aad []byte) []byte
	Open(sealed, aad []byte) ([]byte, error)
}

// EndpointAAD is the additional data a secret of endpoint endpointID of customerID is sealed
// with: a sealed secret copied to another row, or another customer's, does not open.
func EndpointAAD(customerID string, endpointID int64) []byte {
	return []byte("hiringsignal/webhook_endpoint/" + customerID + "/" + strconv.FormatInt(endpointID, 10))
}

// The kinds of endpoint (webhook_endpoints.kind, migration 0031): a signed webhook, a Slack
// incoming webhook (its URL is its secret), or an email address that gets one digest a day.
const (
	KindWebhook = "webhook"
	KindSlack   = "slack"
	KindEmail   = "email"
)

// EndpointKinds are the kinds, as POST /v1/webhooks takes them.
var EndpointKinds = []string{KindWebhook, KindSlack, KindEmail}

// TargetAAD is the additional data the target of a slack or email endpoint (its Slack URL, its
// address) is sealed with: bound to its kind and its row, like a webhook secret (EndpointAAD).
func TargetAAD(kind, customerID string, endpointID int64) []byte {
	return []byte("hiringsignal/" + kind + "_endpoint/" + customerID + "/" + strconv.FormatInt(endpointID, 10))
}

// MaxLiveEndpoints bounds the live webhook endpoints of one customer.
const MaxLiveEndpoints = 25

// Bounds of a rotation's overlap: the previous secret keeps signing for DefaultSecretOverlap
// unless the rotation asks for another length within [0, MaxSecretOverlap].
const (
	DefaultSecretOverlap = 24 * time.Hour
	MaxSecretOverlap     = 7 * 24 * time.Hour
)

// ErrTooManyEndpoints is returned when a customer already holds MaxLiveEndpoints.
var ErrTooManyEndpoints = fmt.Errorf("a customer may hold at most %d live webhook endpoints: delete one first (DELETE /v1/webhooks/{id})", MaxLiveEndpoints)

// ErrSecretMismatch is returned when a url already registered is registered again with a secret
// other than its current one: the secret changes only through rotate-secret.
var ErrSecretMismatch = errors.New("this url is already registered with another secret: to change the secret use POST /v1/webhooks/{id}/rotate-secret, or register again without secret")

// ErrNoSigningSecret is returned when rotating the secret of a slack or email endpoint: nothing
// it receives is signed.
var ErrNoSigningSecret = errors.New("only a webhook endpoint has a signing secret: a Slack endpoint's secret is its URL (register the new URL and move the watches to it), an email endpoint has none")

// EndpointInUseError is returned when deleting an endpoint that live watches deliver to.
type EndpointInUseError struct{ WatchIDs []int64 }

func (e *EndpointInUseError) Error() string {
	return fmt.Sprintf("the endpoint delivers for %d live watches: cancel them first (DELETE /v1/watches/{watch_id})", len(e.WatchIDs))
}

// Endpoint is a webhook endpoint as its customer sees it: never its secret. URL is a webhook's
// URL, a Slack endpoint's masked URL, or "mailto:" and an email endpoint's address.
type Endpoint struct {
	ID                      int64      `json:"id"`
	Kind                    string     `json:"kind"`
	URL                     string     `json:"url"`
	Email                   *string    `json:"email"` // an email endpoint's address; nil for the other kinds
	CreatedAt               time.Time  `json:"created_at"`
	SecretRotatedAt         *time.Time `json:"secret_rotated_at"`
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at"`
	// DisabledAt is when the endpoint was disabled (it answered 410, or failed every attempt for
	// days): nothing is sent to it any more. DisabledReason says why.
	DisabledAt     *time.Time `json:"disabled_at"`
	DisabledReason *string    `json:"disabled_reason"`
}

const endpointCols = "endpoint_id, kind, coalesce(shown_url, url), created_at, secret_rotated_at, previous_secret_expires_at, disabled_at, disabled_reason"

func scanEndpoint(row pgx.Row) (Endpoint, error) {
	var e Endpoint
	err := row.Scan(&e.ID, &e.Kind, &e.URL, &e.CreatedAt, &e.SecretRotatedAt, &e.PreviousSecretExpiresAt, &e.DisabledAt, &e.DisabledReason)
	e.fill()
	return e, err
}

// fill derives what the columns do not hold: an email endpoint's address.
func (e *Endpoint) fill() {
	if a, ok := strings.CutPrefix(e.URL, mailtoPrefix); ok && e.Kind == KindEmail {
		e.Email = &a
	}
}

// Prefixes of the url column of slack and email endpoints (migration 0031): a webhook's url is
// an http(s) URL, so the three kinds never share a value.
const (
	slackKeyPrefix = "slack:"
	mailtoPrefix   = "mailto:"
)

// Destination is a Slack or email endpoint to register: Target is the Slack incoming-webhook URL
// (checked by the caller) or the address (validated, lower-cased by the caller), Shown the
// masked URL to show for a Slack endpoint.
type Destination struct {
	Kind, Target, Shown string
}

// key is the url column of d: what makes registering it again idempotent.
func (d Destination) key() string {
	if d.Kind == KindEmail {
		return mailtoPrefix + d.Target
	}
	sum := sha256.Sum256([]byte(d.Target))
	return slackKeyPrefix + hex.EncodeToString(sum[:])
}

// RegisterDestinationWithin registers a Slack or email endpoint for customerID under
// RegisterEndpointWithin's rules (idempotent per customer and target, enabling a disabled one
// again, MaxLiveEndpoints, the daily endpoint budget); the target is sealed at rest.
func RegisterDestinationWithin(ctx context.Context, pool *pgxpool.Pool, box SecretSealer, b Budgets, customerID string, d Destination) (e Endpoint, created bool, err error) {
	if d.Kind != KindSlack && d.Kind != KindEmail {
		return Endpoint{}, false, fmt.Errorf("cannot register a destination of kind %q: slack or email", d.Kind)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		e, created, err = register(ctx, tx, box, b, customerID, registration{kind: d.Kind, key: d.key(), shown: d.Shown, target: d.Target})
		return err
	})
	return e, created, err
}

// EndpointSecret is the secret of a registration: Secret is what a new endpoint is created with;
// Sent says the caller chose it (a re-registration must then match the current secret), else it
// was generated and is dropped when the url is already registered.
type EndpointSecret struct {
	Secret string
	Sent   bool
}

// RegisterEndpoint is RegisterEndpointWithin the default budgets.
func RegisterEndpoint(ctx context.Context, pool *pgxpool.Pool, box SecretSealer, customerID, url string, s EndpointSecret) (e Endpoint, created bool, err error) {
	return RegisterEndpointWithin(ctx, pool, box, Budgets{}, customerID, url, s)
}

// RegisterEndpointWithin registers url for customerID, or finds its live registration (created
// false) and enables it again if it was disabled. Errors: ErrTooManyEndpoints, ErrSecretMismatch,
// and a *BudgetError when a new endpoint would pass b's daily endpoint budget (finding a live
// registration spends none of it).
func RegisterEndpointWithin(ctx context.Context, pool *pgxpool.Pool, box SecretSealer, b Budgets, customerID, url string, s EndpointSecret) (e Endpoint, created bool, err error) {
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		e, created, err = registerEndpoint(ctx, tx, box, b, customerID, url, s)
		return err
	})
	return e, created, err
}

// registerEndpoint is RegisterEndpointWithin in tx; the endpoint found or made is locked (FOR
// SHARE) so it cannot be deleted before tx ends.
func registerEndpoint(ctx context.Context, tx pgx.Tx, box SecretSealer, b Budgets, customerID, url string, s EndpointSecret) (Endpoint, bool, error) {
	return register(ctx, tx, box, b, customerID, registration{kind: KindWebhook, key: url, secret: s})
}

// registration is what register writes: a webhook (key its URL, secret its signing secret) or
// a destination (key from Destination.key, target sealed in secret_sealed, shown its display).
type registration struct {
	kind, key, shown, target string
	secret                   EndpointSecret
}

// sealed is what r keeps in secret_sealed for endpoint id of customerID.
func (r registration) sealed(box SecretSealer, customerID string, id int64) []byte {
	if r.kind == KindWebhook {
		return box.Seal([]byte(r.secret.Secret), EndpointAAD(customerID, id))
	}
	return box.Seal([]byte(r.target), TargetAAD(r.kind, customerID, id))
}

// register is registerEndpoint for any kind.
func register(ctx context.Context, tx pgx.Tx, box SecretSealer, b Budgets, customerID string, r registration) (Endpoint, bool, error) {
	url, s := r.key, r.secret
	// One registration per customer at a time: the url check, the counts and the insert agree.
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints:' || $1))", customerID); err != nil {
		return Endpoint{}, false, fmt.Errorf("cannot lock the customer's webhook endpoints: %w", err)
	}
	var sealed []byte
	e, err := scanEndpointSealed(tx.QueryRow(ctx, "SELECT "+endpointCols+", secret_sealed FROM webhook_endpoints WHERE customer_id = $1 AND url = $2 AND deleted_at IS NULL FOR SHARE",
		customerID, url), &sealed)
	switch {
	case err == nil:
		if s.Sent {
			cur, err := box.Open(sealed, EndpointAAD(customerID, e.ID))
			if err != nil {
				return Endpoint{}, false, fmt.Errorf("cannot open the secret of webhook endpoint %d (wrong --webhook-secret-keys?): %w", e.ID, err)
			}
			if subtle.ConstantTimeCompare(cur, []byte(s.Secret)) != 1 {
				return Endpoint{}, false, ErrSecretMismatch
			}
		}
		if e.DisabledAt != nil {
			// Registering a disabled endpoint's url again enables it: its owner says it accepts
			// deliveries again (the dispatcher disabled it after a 410 or days of failures).
			e, err = scanEndpoint(tx.QueryRow(ctx, `UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL, failing_since = NULL
				WHERE endpoint_id = $1 RETURNING `+endpointCols, e.ID))
			if err != nil {
				return Endpoint{}, false, fmt.Errorf("cannot enable the webhook endpoint again: %w", err)
			}
		}
		return e, false, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return Endpoint{}, false, fmt.Errorf("cannot read webhook endpoints: %w", err)
	}
	var n int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM webhook_endpoints WHERE customer_id = $1 AND deleted_at IS NULL", customerID).Scan(&n); err != nil {
		return Endpoint{}, false, fmt.Errorf("cannot count webhook endpoints: %w", err)
	}
	if n >= MaxLiveEndpoints {
		return Endpoint{}, false, ErrTooManyEndpoints
	}
	if err := spend(ctx, tx, b, BudgetEndpoints, customerID); err != nil {
		return Endpoint{}, false, err
	}
	var id int64
	if err := tx.QueryRow(ctx, "SELECT nextval(pg_get_serial_sequence('webhook_endpoints', 'endpoint_id'))").Scan(&id); err != nil {
		return Endpoint{}, false, fmt.Errorf("cannot reserve a webhook endpoint id: %w", err)
	}
	var shown *string
	if r.shown != "" {
		shown = &r.shown
	}
	e, err = scanEndpoint(tx.QueryRow(ctx, `INSERT INTO webhook_endpoints (endpoint_id, customer_id, url, secret_sealed, kind, shown_url)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+endpointCols, id, customerID, url, r.sealed(box, customerID, id), r.kind, shown))
	if err != nil {
		return Endpoint{}, false, fmt.Errorf("cannot insert the webhook endpoint: %w", err)
	}
	return e, true, nil
}

func scanEndpointSealed(row pgx.Row, sealed *[]byte) (Endpoint, error) {
	var e Endpoint
	err := row.Scan(&e.ID, &e.Kind, &e.URL, &e.CreatedAt, &e.SecretRotatedAt, &e.PreviousSecretExpiresAt, &e.DisabledAt, &e.DisabledReason, sealed)
	e.fill()
	return e, err
}

// ListEndpoints returns customerID's live endpoints, newest first (at most MaxLiveEndpoints).
func ListEndpoints(ctx context.Context, pool *pgxpool.Pool, customerID string) ([]Endpoint, error) {
	rows, err := pool.Query(ctx, "SELECT "+endpointCols+` FROM webhook_endpoints WHERE customer_id = $1 AND deleted_at IS NULL
		ORDER BY endpoint_id DESC LIMIT $2`, customerID, MaxLiveEndpoints)
	if err != nil {
		return nil, fmt.Errorf("cannot list webhook endpoints: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Endpoint, error) { return scanEndpoint(r) })
	if err != nil {
		return nil, fmt.Errorf("cannot list webhook endpoints: %w", err)
	}
	return out, nil
}

// DeleteEndpoint deletes endpoint id of customerID. Deleting an own endpoint already deleted is a
// no-op; an id that does not exist or is another customer's is ErrNotFound; an endpoint live
// watches deliver to is *EndpointInUseError (nothing changes).
func DeleteEndpoint(ctx context.Context, pool *pgxpool.Pool, customerID string, id int64) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var deleted *time.Time
		err := tx.QueryRow(ctx, "SELECT deleted_at FROM webhook_endpoints WHERE endpoint_id = $1 AND customer_id = $2 FOR UPDATE", id, customerID).Scan(&deleted)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("cannot read the webhook endpoint: %w", err)
		}
		if deleted != nil {
			return nil
		}
		// The row lock orders this after any watch creation holding the endpoint (FOR SHARE), so
		// this read sees every watch committed on it.
		rows, err := tx.Query(ctx, "SELECT watch_id FROM watches WHERE endpoint_id = $1 AND canceled_at IS NULL ORDER BY watch_id", id)
		if err != nil {
			return fmt.Errorf("cannot read the endpoint's watches: %w", err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return fmt.Errorf("cannot read the endpoint's watches: %w", err)
		}
		if len(ids) > 0 {
			return &EndpointInUseError{WatchIDs: ids}
		}
		if _, err := tx.Exec(ctx, "UPDATE webhook_endpoints SET deleted_at = now() WHERE endpoint_id = $1", id); err != nil {
			return fmt.Errorf("cannot delete the webhook endpoint: %w", err)
		}
		// Deliveries parked for an email endpoint's digest are never due, so no claim fails them
		// as it fails a deleted webhook's: they fail here, or they would be held as unsent
		// against the spend cap for good.
		if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'failed', updated_at = now()
			WHERE endpoint_id = $1 AND status IN ('pending', 'retrying') AND next_attempt_at IS NULL`, id); err != nil {
			return fmt.Errorf("cannot fail the deleted endpoint's parked deliveries: %w", err)
		}
		return nil
	})
}

// RotateEndpointSecret makes secret the current secret of endpoint id of customerID; the secret
// it replaces keeps signing for overlap (0: not at all) after the rotation. A second rotation
// within an overlap ends the first one's previous secret. ErrNotFound for an id that does not
// exist, is another customer's or is deleted.
func RotateEndpointSecret(ctx context.Context, pool *pgxpool.Pool, box SecretSealer, customerID string, id int64, secret string, overlap time.Duration) (Endpoint, error) {
	var e Endpoint
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var kind string
		err := tx.QueryRow(ctx, "SELECT kind FROM webhook_endpoints WHERE endpoint_id = $1 AND customer_id = $2 AND deleted_at IS NULL FOR UPDATE", id, customerID).Scan(&kind)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("cannot read the webhook endpoint: %w", err)
		}
		if kind != KindWebhook {
			return ErrNoSigningSecret
		}
		// The sealed previous secret moves as is: both columns are bound to the same row.
		e, err = scanEndpoint(tx.QueryRow(ctx, `UPDATE webhook_endpoints SET previous_secret_sealed = secret_sealed,
			previous_secret_expires_at = now() + make_interval(secs => $2), secret_sealed = $3, secret_rotated_at = now()
			WHERE endpoint_id = $1 RETURNING `+endpointCols, id, overlap.Seconds(), box.Seal([]byte(secret), EndpointAAD(customerID, id))))
		if err != nil {
			return fmt.Errorf("cannot rotate the webhook secret: %w", err)
		}
		return nil
	})
	return e, err
}

// SigningSecrets are the secrets that sign a delivery to endpoint id at time at: the current one
// first, then the previous one while its overlap lasts (Standard Webhooks sends one signature per
// secret). For the notifier; not scoped to a customer (a watch names its endpoint).
func SigningSecrets(ctx context.Context, pool *pgxpool.Pool, box SecretSealer, id int64, at time.Time) ([]string, error) {
	var customerID string
	var cur, prev []byte
	var prevUntil *time.Time
	err := pool.QueryRow(ctx, `SELECT customer_id, secret_sealed, previous_secret_sealed, previous_secret_expires_at
		FROM webhook_endpoints WHERE endpoint_id = $1`, id).Scan(&customerID, &cur, &prev, &prevUntil)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the webhook endpoint's secrets: %w", err)
	}
	aad := EndpointAAD(customerID, id)
	s, err := box.Open(cur, aad)
	if err != nil {
		return nil, fmt.Errorf("cannot open the secret of webhook endpoint %d (wrong --webhook-secret-keys?): %w", id, err)
	}
	out := []string{string(s)}
	if prev != nil && prevUntil != nil && at.Before(*prevUntil) {
		p, err := box.Open(prev, aad)
		if err != nil {
			return nil, fmt.Errorf("cannot open the previous secret of webhook endpoint %d (wrong --webhook-secret-keys?): %w", id, err)
		}
		out = append(out, string(p))
	}
	return out, nil
}
