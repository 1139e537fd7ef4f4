package oltp

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Attribution (GET /v1/attribution): a customer's outcome labels joined to the deliveries its own
// endpoints accepted (delivered_at set) for the same company at or before the outcome. Test
// deliveries (no watch) are not signals. A label whose company no accepted delivery preceded is
// left out; only the customer's own labels and deliveries are read.

// AttributedLabel is a label of the caller with the signals that preceded it.
type AttributedLabel struct {
	Label
	Signals        int       `json:"signals"`         // accepted deliveries of the company at or before occurred_at
	Signals14d     int       `json:"signals_14d"`     // of those, delivered within AttributionWindow before occurred_at
	FirstSignalAt  time.Time `json:"first_signal_at"` // the earliest of them
	LastSignalAt   time.Time `json:"last_signal_at"`  // the latest of them
	LastDeliveryID int64     `json:"last_delivery_id"`
	Attributed     bool      `json:"attributed"` // LastSignalAt within AttributionWindow before occurred_at
	Polarity       string    `json:"polarity"`
}

// AttributionTotals are a customer's signalled labels overall and per outcome.
type AttributionTotals struct {
	Labels        int                         `json:"labels"`
	Attributed14d int                         `json:"attributed_14d"`
	ByOutcome     map[string]AttributionCount `json:"by_outcome"`
}

// AttributionCount is one outcome's share of the totals.
type AttributionCount struct {
	Labels        int `json:"labels"`
	Attributed14d int `json:"attributed_14d"`
}

// signalled joins each label of customer $1 to its accepted deliveries up to its occurred_at
// (the lateral's aggregate always answers one row; signals = 0 means never signalled before).
const signalled = `FROM outcome_labels o
	CROSS JOIN LATERAL (
		SELECT count(*) AS signals,
		       count(*) FILTER (WHERE d.delivered_at >= o.occurred_at - $2::interval) AS signals_14d,
		       min(d.delivered_at) AS first_at, max(d.delivered_at) AS last_at,
		       (array_agg(d.delivery_id ORDER BY d.delivered_at DESC, d.delivery_id DESC))[1] AS last_id
		FROM webhook_deliveries d
		WHERE d.customer_id = o.customer_id AND d.company_id = o.company_id AND d.watch_id IS NOT NULL
		  AND d.delivered_at IS NOT NULL AND d.delivered_at <= o.occurred_at) s
	WHERE o.customer_id = $1 AND s.signals > 0`

// ListAttribution is one page of customerID's signalled labels, newest label first (descending
// outcome_id), those below before when before > 0; more says another page follows.
func ListAttribution(ctx context.Context, pool *pgxpool.Pool, customerID string, before int64, limit int) (out []AttributedLabel, more bool, err error) {
	rows, err := pool.Query(ctx, `SELECT o.outcome_id, o.company_id, o.outcome, o.positive, o.occurred_at, o.external_id, o.note, o.created_at,
			s.signals, s.signals_14d, s.first_at, s.last_at, s.last_id
		`+signalled+` AND ($3 = 0 OR o.outcome_id < $3)
		ORDER BY o.outcome_id DESC LIMIT $4`, customerID, AttributionWindow, before, limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("cannot read the attribution of your labels: %w", err)
	}
	out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (AttributedLabel, error) {
		var a AttributedLabel
		err := r.Scan(&a.ID, &a.CompanyID, &a.Outcome, &a.Positive, &a.OccurredAt, &a.ExternalID, &a.Note, &a.CreatedAt,
			&a.Signals, &a.Signals14d, &a.FirstSignalAt, &a.LastSignalAt, &a.LastDeliveryID)
		a.OccurredAt, a.CreatedAt = a.OccurredAt.UTC(), a.CreatedAt.UTC()
		a.FirstSignalAt, a.LastSignalAt = a.FirstSignalAt.UTC(), a.LastSignalAt.UTC()
		a.Attributed = a.Signals14d > 0
		a.Polarity = Polarity(a.Positive)
		return a, err
	})
	if err != nil {
		return nil, false, fmt.Errorf("cannot read the attribution of your labels: %w", err)
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// AttributionSummary totals customerID's signalled labels and those attributed, per outcome.
func AttributionSummary(ctx context.Context, pool *pgxpool.Pool, customerID string) (AttributionTotals, error) {
	t := AttributionTotals{ByOutcome: map[string]AttributionCount{}}
	rows, err := pool.Query(ctx, `SELECT o.outcome, count(*), count(*) FILTER (WHERE s.signals_14d > 0)
		`+signalled+` GROUP BY o.outcome`, customerID, AttributionWindow)
	if err != nil {
		return t, fmt.Errorf("cannot total the attribution of your labels: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var o string
		var c AttributionCount
		if err := rows.Scan(&o, &c.Labels, &c.Attributed14d); err != nil {
			return t, fmt.Errorf("cannot total the attribution of your labels: %w", err)
		}
		t.ByOutcome[o] = c
		t.Labels += c.Labels
		t.Attributed14d += c.Attributed14d
	}
	if err := rows.Err(); err != nil {
		return t, fmt.Errorf("cannot total the attribution of your labels: %w", err)
	}
	return t, nil
}

// Polarity words of a label.
const (
	PolarityPositive = "positive"
	PolarityNegative = "negative"
)

// Polarity is the word of a label's sign.
func Polarity(positive bool) string {
	if positive {
		return PolarityPositive
	}
	return PolarityNegative
}
