package oltp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Quickstarts and onboarding (migration 0018).

// QuickstartResult is what POST /v1/quickstart set up for a customer and webhook URL.
type QuickstartResult struct {
	Endpoint        Endpoint
	Watch           Watch
	EndpointCreated bool // this call registered the endpoint (its secret is answered only now)
	WatchCreated    bool // this call created the watch
}

// Quickstart sets up w (an inline endpoint and a company watch) once per customer and URL: in one
// transaction, holding the customer's quickstart lock (concurrent calls queue on it), it reads the
// customer's quickstarts row for w.Inline.URL (inserting it when missing, within w.Budgets' daily
// quickstart budget) and answers the watch recorded there while it is live on a live endpoint;
// otherwise it creates the watch as CreateWatch does (registering or finding the endpoint) and
// records it. Errors: a *BudgetError for a URL not quickstarted before past the quickstart budget,
// and those of CreateWatch.
func Quickstart(ctx context.Context, pool *pgxpool.Pool, box SecretSealer, w NewWatch) (QuickstartResult, error) {
	var out QuickstartResult
	if w.Inline == nil || w.CompanyID == nil {
		return out, errors.New("cannot run a quickstart without an inline endpoint and a company")
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// Taken before the account row and the endpoint lock CreateWatch takes: the same order as
		// every other path that takes them.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('quickstarts:' || $1))", w.CustomerID); err != nil {
			return fmt.Errorf("cannot lock the customer's quickstarts: %w", err)
		}
		var watchID *int64
		// Locked so PruneRetired does not delete it before it is updated.
		err := tx.QueryRow(ctx, `SELECT watch_id FROM quickstarts WHERE customer_id = $1 AND webhook_url = $2 FOR UPDATE`, w.CustomerID, w.Inline.URL).Scan(&watchID)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if err := spend(ctx, tx, w.Budgets, BudgetQuickstarts, w.CustomerID); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO quickstarts (customer_id, webhook_url) VALUES ($1, $2)`, w.CustomerID, w.Inline.URL); err != nil {
				return fmt.Errorf("cannot record the quickstart: %w", err)
			}
		case err != nil:
			return fmt.Errorf("cannot read the quickstart: %w", err)
		}
		if watchID != nil {
			wa, err := scanWatch(tx.QueryRow(ctx, "SELECT "+watchCols+` FROM watches w WHERE watch_id = $1 AND customer_id = $2 AND canceled_at IS NULL
				AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.endpoint_id = w.endpoint_id AND e.deleted_at IS NULL)`, *watchID, w.CustomerID))
			switch {
			case err == nil:
				out.Watch = wa
				out.Endpoint, err = scanEndpoint(tx.QueryRow(ctx, "SELECT "+endpointCols+" FROM webhook_endpoints WHERE endpoint_id = $1", wa.EndpointID))
				if err != nil {
					return fmt.Errorf("cannot read the quickstart's endpoint: %w", err)
				}
				return nil
			case !errors.Is(err, pgx.ErrNoRows):
				return fmt.Errorf("cannot read the quickstart's watch: %w", err)
			}
			// Canceled, or its endpoint deleted: set up again.
		}
		out.Watch, out.Endpoint, out.EndpointCreated, err = createWatch(ctx, tx, box, w)
		if err != nil {
			return err
		}
		out.WatchCreated = true
		if _, err := tx.Exec(ctx, `UPDATE quickstarts SET endpoint_id = $3, watch_id = $4, company_id = $5 WHERE customer_id = $1 AND webhook_url = $2`,
			w.CustomerID, w.Inline.URL, out.Endpoint.ID, out.Watch.ID, *w.CompanyID); err != nil {
			return fmt.Errorf("cannot record the quickstart's watch: %w", err)
		}
		return nil
	})
	if err != nil {
		return QuickstartResult{}, err
	}
	return out, nil
}

// OnboardingState is how far a customer got with one webhook URL.
type OnboardingState struct {
	EndpointID       *int64     // the customer's live endpoint at the URL (nil: none)
	LiveWatches      int        // live watches delivering to it
	FirstDeliveredAt *time.Time // the first delivery it accepted (2xx), watch or test; nil: none yet
}

// Onboarding reads customerID's state for url (as stored: scheme and host lower-cased).
func Onboarding(ctx context.Context, pool *pgxpool.Pool, customerID, url string) (OnboardingState, error) {
	var s OnboardingState
	err := pool.QueryRow(ctx, `
		SELECT e.endpoint_id,
			(SELECT count(*) FROM watches w WHERE w.endpoint_id = e.endpoint_id AND w.canceled_at IS NULL),
			(SELECT min(d.delivered_at) FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id AND d.delivered_at IS NOT NULL)
		FROM webhook_endpoints e WHERE e.customer_id = $1 AND e.url = $2 AND e.deleted_at IS NULL`, customerID, url).
		Scan(&s.EndpointID, &s.LiveWatches, &s.FirstDeliveredAt)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return OnboardingState{}, fmt.Errorf("cannot read the onboarding state: %w", err)
	}
	return s, nil
}
