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

// MaxLabelsPerDay bounds the labels one customer appends in any 24 hours. Appending is not
// billable, so without it a key could write a label per call of its minute limit for 730 days
// (a Free key about 28,800 a day); a CRM's daily sync of closed deals fits well under it.
const MaxLabelsPerDay = 10_000

// LabelBudgetError is returned by AppendLabel when the customer appended MaxLabelsPerDay labels
// in the last BudgetWindow; nothing is written.
type LabelBudgetError struct {
	RetryAfter time.Duration // until the budget has room for one more label
}

func (e *LabelBudgetError) Error() string {
	return fmt.Sprintf("you appended %d outcome labels in the last 24 hours, the most a customer may: send the next one in %s",
		MaxLabelsPerDay, e.RetryAfter.Round(time.Second))
}

// AppendLabel appends nl to its customer's labels. With an external_id the customer already used,
// nothing is written: the stored label is returned with created false when it says the same
// thing (an idempotent re-send), or with ErrLabelConflict when it does not. A new label past the
// customer's daily budget is a *LabelBudgetError (a customer's appends are serialized by an advisory
// lock, so the budget holds under concurrent calls).
func AppendLabel(ctx context.Context, pool *pgxpool.Pool, nl NewLabel) (l Label, created bool, err error) {
	if nl.ExternalID != nil {
		if l, err := sameExternalID(ctx, pool, nl); !errors.Is(err, pgx.ErrNoRows) {
			return l, false, err
		}
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return Label{}, false, fmt.Errorf("cannot append the outcome label: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('labels:' || $1))", nl.CustomerID); err != nil {
		return Label{}, false, fmt.Errorf("cannot append the outcome label: %w", err)
	}
	full, left, err := windowFull(ctx, tx, "outcome_labels", "customer_id", nl.CustomerID, MaxLabelsPerDay)
	if err != nil {
		return Label{}, false, fmt.Errorf("cannot count the outcome labels of the last 24 hours: %w", err)
	}
	if full {
		return Label{}, false, &LabelBudgetError{RetryAfter: left}
	}
	var key any
	if nl.KeyID != 0 {
		key = nl.KeyID
	}
	l, err = scanLabel(tx.QueryRow(ctx, `INSERT INTO outcome_labels (customer_id, account_id, key_id, company_id, outcome, positive, occurred_at, external_id, note)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (customer_id, external_id) DO NOTHING
		RETURNING `+labelCols, nl.CustomerID, nl.AccountID, key, nl.CompanyID, nl.Outcome, nl.Positive, nl.OccurredAt, nl.ExternalID, nl.Note))
	switch {
	case err == nil:
		if err := tx.Commit(ctx); err != nil {
			return Label{}, false, fmt.Errorf("cannot append the outcome label: %w", err)
		}
		return l, true, nil
	case errors.Is(err, pgx.ErrNoRows) && nl.ExternalID != nil:
		// The same external_id was appended by a concurrent call since the look above.
		_ = tx.Rollback(ctx)
		l, err := sameExternalID(ctx, pool, nl)
		return l, false, err
	}
	return Label{}, false, fmt.Errorf("cannot append the outcome label: %w", err)
}

// sameExternalID reads the label the customer stored under nl's external_id: pgx.ErrNoRows when
// there is none, ErrLabelConflict (with it) when it says something else than nl, nil when nl is
// its idempotent re-send.
func sameExternalID(ctx context.Context, pool *pgxpool.Pool, nl NewLabel) (Label, error) {
	l, err := scanLabel(pool.QueryRow(ctx, `SELECT `+labelCols+` FROM outcome_labels WHERE customer_id = $1 AND external_id = $2`,
		nl.CustomerID, *nl.ExternalID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Label{}, err
	}
	if err != nil {
		return Label{}, fmt.Errorf("cannot read the outcome label of external_id %q: %w", *nl.ExternalID, err)
	}
	same := l.CompanyID == nl.CompanyID && l.Outcome == nl.Outcome && eqStr(l.Note, nl.Note) &&
		(!nl.OccurredSent || l.OccurredAt.Equal(nl.OccurredAt))
	if !same {
		return l, ErrLabelConflict
	}
	return l, nil
}

func eqStr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Votes: how much of the labels reach the shared score. Every customer's labels feed it, and
// appending is not billable, so one customer's labels count at most MaxVotesPerCompany of one
// company (its newest) and MaxVotesPerCustomer in all (its newest): a customer labelling one
// company thousands of times, or every company, moves the score as one customer, not as thousands.
//
// The votes per company are kept in outcome_votes (migration 0024): each (customer, company)'s
// newest MaxVotesPerCompany labels by (occurred_at, outcome_id), maintained by triggers on
// outcome_labels. The reads below go through its indexes and read a bounded number of rows
// whatever the labels behind them: a company's counts at most MaxVotesPerCompany per customer,
// the training aggregate at most MaxVotesPerCustomer per customer (docs/decisions.md, "Outcome
// votes: a maintained aggregate with bounded reads").
const (
	MaxVotesPerCompany  = 10 // the migration's triggers keep this many; change both together
	MaxVotesPerCustomer = 2_000
)

// LabelCounts are one company's labels across every customer, at most MaxVotesPerCompany of
// each customer.
type LabelCounts struct {
	Labels, Positive, Negative int
}

// CompanyLabelCounts counts every customer's retained labels of company id, each customer's
// newest MaxVotesPerCompany at most (MaxVotesPerCustomer is the model's bound, not applied here:
// it depends on the customer's other companies). It reads the company's votes only.
func CompanyLabelCounts(ctx context.Context, pool *pgxpool.Pool, id int64) (LabelCounts, error) {
	var c LabelCounts
	err := pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE positive), count(*) FILTER (WHERE NOT positive)
		FROM outcome_votes WHERE company_id = $1`, id).Scan(&c.Labels, &c.Positive, &c.Negative)
	if err != nil {
		return c, fmt.Errorf("cannot count the outcome labels of company %d: %w", id, err)
	}
	return c, nil
}

// CompanyLabels is the training aggregate of one company: every customer's votes of it that
// occurred in the training window.
type CompanyLabels struct {
	CompanyID          int64
	Positive, Negative int
}

// MaxTrainingCompanies bounds the training aggregate: the companies with the most labels first.
const MaxTrainingCompanies = 200_000

// trainingVotes are, per customer with votes (found by a skip scan of outcome_votes_customer_idx,
// one index probe per customer), its newest $2 votes that occurred at or after $1 (an index range
// scan that stops there). A pair's newest votes of the window are its newest labels of the
// window: both are ordered by occurred_at.
const trainingVotes = `WITH RECURSIVE voters AS (
		(SELECT customer_id FROM outcome_votes ORDER BY customer_id LIMIT 1)
		UNION ALL
		SELECT (SELECT v.customer_id FROM outcome_votes v WHERE v.customer_id > voters.customer_id ORDER BY v.customer_id LIMIT 1)
		FROM voters WHERE voters.customer_id IS NOT NULL
	)
	SELECT t.company_id, t.positive FROM voters CROSS JOIN LATERAL (
		SELECT v.company_id, v.positive FROM outcome_votes v
		WHERE v.customer_id = voters.customer_id AND v.occurred_at >= $1
		ORDER BY v.occurred_at DESC, v.outcome_id DESC LIMIT $2) t`

// TrainingLabels aggregates every customer's votes (MaxVotesPerCompany, MaxVotesPerCustomer)
// whose labels occurred at or after since, per company.
func TrainingLabels(ctx context.Context, pool *pgxpool.Pool, since time.Time) ([]CompanyLabels, error) {
	rows, err := pool.Query(ctx, `SELECT company_id, count(*) FILTER (WHERE positive), count(*) FILTER (WHERE NOT positive)
		FROM (`+trainingVotes+`) v GROUP BY company_id ORDER BY count(*) DESC, company_id LIMIT $3`, since, MaxVotesPerCustomer, MaxTrainingCompanies)
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

// pruneBatch is the most labels one statement of PruneOutcomeLabels deletes: each statement also
// refreshes the votes of the pairs it took votes from (migration 0024), so a large backlog is
// deleted in statements well inside the store's statement timeout.
const pruneBatch = 5_000

// PruneOutcomeLabels deletes the labels whose occurred_at is before now - OutcomeRetention, in
// statements of at most pruneBatch labels; the votes follow (migration 0024's triggers).
func PruneOutcomeLabels(ctx context.Context, pool *pgxpool.Pool, now time.Time) (int64, error) {
	var total int64
	for {
		tag, err := pool.Exec(ctx, `DELETE FROM outcome_labels WHERE outcome_id IN (
			SELECT outcome_id FROM outcome_labels WHERE occurred_at < $1 LIMIT $2)`, now.Add(-OutcomeRetention), pruneBatch)
		if err != nil {
			return total, fmt.Errorf("cannot delete outcome labels past their retention: %w", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < pruneBatch {
			return total, nil
		}
	}
}
