package oltp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Outcome labels (migration 0015): what a customer told us converted. A label is read back only
// by its own customer; every customer's labels reach the intent score as counts only.

// OutcomeRetention is how long a label is kept after its occurred_at: two years covers a long
// enterprise sales cycle and a year-over-year comparison. The janitor deletes older labels.
const OutcomeRetention = 730 * 24 * time.Hour

// AttributionWindow is how close before an outcome an accepted delivery of the same company must
// have landed for the label to count as attributed (attributed_14d).
const AttributionWindow = 14 * 24 * time.Hour

// Label is one outcome label as its own customer sees it.
type Label struct {
	ID         int64     `json:"outcome_id"`
	CompanyID  int64     `json:"company_id"`
	Outcome    string    `json:"outcome"`
	Positive   bool      `json:"-"`
	OccurredAt time.Time `json:"occurred_at"`
	ExternalID *string   `json:"external_id"`
	Note       *string   `json:"note"`
	CreatedAt  time.Time `json:"created_at"`
}

// NewLabel is a label to append. OccurredAt zero means "when it is written" (the store's clock
// is not used: the caller passes its own now).
type NewLabel struct {
	CustomerID string
	AccountID  int64
	KeyID      int64
	CompanyID  int64
	Outcome    string
	Positive   bool
	OccurredAt time.Time
	// OccurredSent says the caller sent occurred_at: a re-send without it matches any stored time.
	OccurredSent bool
	ExternalID   *string
	Note         *string
}

// ErrLabelConflict is returned by AppendLabel when the customer already holds a label with the
// same external_id whose company, outcome, occurred_at or note differ (the stored label is
// returned with it).
var ErrLabelConflict = errors.New("external_id already names another label of yours")

const labelCols = `outcome_id, company_id, outcome, positive, occurred_at, external_id, note, created_at`

func scanLabel(row pgx.Row) (Label, error) {
	var l Label
	err := row.Scan(&l.ID, &l.CompanyID, &l.Outcome, &l.Positive, &l.OccurredAt, &l.ExternalID, &l.Note, &l.CreatedAt)
	l.OccurredAt, l.CreatedAt = l.OccurredAt.UTC(), l.CreatedAt.UTC()
	return l, err
}

// AppendLabel appends nl to its customer's labels. With an external_id the customer already used,
// nothing is written: the stored label is returned with created false when it says the same
// thing (an idempotent re-send), or with ErrLabelConflict when it does not.
func AppendLabel(ctx context.Context, pool *pgxpool.Pool, nl NewLabel) (l Label, created bool, err error) {
	var key any
	if nl.KeyID != 0 {
		key = nl.KeyID
	}
	l, err = scanLabel(pool.QueryRow(ctx, `INSERT INTO outcome_labels (customer_id, account_id, key_id, company_id, outcome, positive, occurred_at, external_id, note)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (customer_id, external_id) DO NOTHING
		RETURNING `+labelCols, nl.CustomerID, nl.AccountID, key, nl.CompanyID, nl.Outcome, nl.Positive, nl.OccurredAt, nl.ExternalID, nl.Note))
	if err == nil {
		return l, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) || nl.ExternalID == nil {
		return Label{}, false, fmt.Errorf("cannot append the outcome label: %w", err)
	}
	l, err = scanLabel(pool.QueryRow(ctx, `SELECT `+labelCols+` FROM outcome_labels WHERE customer_id = $1 AND external_id = $2`,
		nl.CustomerID, *nl.ExternalID))
	if err != nil {
		return Label{}, false, fmt.Errorf("cannot read the outcome label of external_id %q: %w", *nl.ExternalID, err)
	}
	same := l.CompanyID == nl.CompanyID && l.Outcome == nl.Outcome && eqStr(l.Note, nl.Note) &&
		(!nl.OccurredSent || l.OccurredAt.Equal(nl.OccurredAt))
	if !same {
		return l, false, ErrLabelConflict
	}
	return l, false, nil
}

func eqStr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// LabelCounts are one company's labels across every customer.
type LabelCounts struct {
	Labels, Positive, Negative int
}

// CompanyLabelCounts counts every customer's labels of company id.
func CompanyLabelCounts(ctx context.Context, pool *pgxpool.Pool, id int64) (LabelCounts, error) {
	var c LabelCounts
	err := pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE positive), count(*) FILTER (WHERE NOT positive)
		FROM outcome_labels WHERE company_id = $1`, id).Scan(&c.Labels, &c.Positive, &c.Negative)
	if err != nil {
		return c, fmt.Errorf("cannot count the outcome labels of company %d: %w", id, err)
	}
	return c, nil
}

// CompanyLabels is the training aggregate of one company: every customer's labels of it that
// occurred in the training window.
type CompanyLabels struct {
	CompanyID          int64
	Positive, Negative int
}

// MaxTrainingCompanies bounds the training aggregate: the companies with the most labels first.
const MaxTrainingCompanies = 200_000

// TrainingLabels aggregates every customer's labels that occurred at or after since, per company.
func TrainingLabels(ctx context.Context, pool *pgxpool.Pool, since time.Time) ([]CompanyLabels, error) {
	rows, err := pool.Query(ctx, `SELECT company_id, count(*) FILTER (WHERE positive), count(*) FILTER (WHERE NOT positive)
		FROM outcome_labels WHERE occurred_at >= $1 GROUP BY company_id ORDER BY count(*) DESC, company_id LIMIT $2`, since, MaxTrainingCompanies)
	if err != nil {
		return nil, fmt.Errorf("cannot read the outcome labels to train on: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (CompanyLabels, error) {
		var c CompanyLabels
		err := r.Scan(&c.CompanyID, &c.Positive, &c.Negative)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("cannot read the outcome labels to train on: %w", err)
	}
	return out, nil
}

// PruneOutcomeLabels deletes the labels whose occurred_at is before now - OutcomeRetention.
func PruneOutcomeLabels(ctx context.Context, pool *pgxpool.Pool, now time.Time) (int64, error) {
	tag, err := pool.Exec(ctx, `DELETE FROM outcome_labels WHERE occurred_at < $1`, now.Add(-OutcomeRetention))
	if err != nil {
		return 0, fmt.Errorf("cannot delete outcome labels past their retention: %w", err)
	}
	return tag.RowsAffected(), nil
}
