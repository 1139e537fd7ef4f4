package outcomes_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/oltp"
)

func labelRows(t *testing.T, h *harness, customerID string) int {
	t.Helper()
	var n int
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT count(*) FROM outcome_labels WHERE customer_id = $1", customerID).Scan(&n))
	return n
}

// A label is appended (201) with its polarity and retention; re-sending its external_id with the
// same content answers the stored label (200, replayed) and writes nothing; with other content it
// is 409; labels without external_id are appended each time; external_ids are per customer.
func TestOutcomeIsAppendedAndReSendsAreIdempotent(t *testing.T) {
	t.Parallel()
	h := start(t)
	a, b := h.account(t, "growth"), h.account(t, "free")
	co := h.f.scorable[0]
	at := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Second)
	body := map[string]any{"outcome": "won", "occurred_at": at.Format(time.RFC3339), "external_id": "crm-deal-42", "note": "closed after the surge"}

	r := h.post(t, a.Key, co, body)
	require.Equal(t, 201, r.Status, string(r.Body))
	var first label
	r.Decode(t, 201, &first)
	require.Equal(t, int64(co), first.CompanyID)
	require.Equal(t, "won", first.Outcome)
	require.Equal(t, "positive", first.Polarity)
	require.True(t, at.Equal(first.OccurredAt))
	require.True(t, at.Add(oltp.OutcomeRetention).Equal(first.RetainedUntil))
	require.False(t, first.Replayed)

	var again label
	h.post(t, a.Key, co, body).Decode(t, 200, &again)
	require.Equal(t, first.OutcomeID, again.OutcomeID)
	require.True(t, again.Replayed)
	noTime := map[string]any{"outcome": "won", "external_id": "crm-deal-42", "note": "closed after the surge"}
	h.post(t, a.Key, co, noTime).Decode(t, 200, &again) // occurred_at left out matches the stored one
	require.Equal(t, first.OutcomeID, again.OutcomeID)
	require.Equal(t, 1, labelRows(t, h, a.CustomerID))

	for _, changed := range []map[string]any{
		{"outcome": "lost", "occurred_at": at.Format(time.RFC3339), "external_id": "crm-deal-42", "note": "closed after the surge"},
		{"outcome": "won", "occurred_at": at.Add(time.Hour).Format(time.RFC3339), "external_id": "crm-deal-42", "note": "closed after the surge"},
		{"outcome": "won", "occurred_at": at.Format(time.RFC3339), "external_id": "crm-deal-42"},
	} {
		r := h.post(t, a.Key, co, changed)
		require.Equal(t, 409, r.Status, string(r.Body))
		require.Contains(t, string(r.Body), `"reason":"external_id_conflict"`)
	}
	r = h.post(t, a.Key, h.f.scorable[1], body) // the same external_id on another company
	require.Equal(t, 409, r.Status, string(r.Body))
	require.Equal(t, 1, labelRows(t, h, a.CustomerID))

	// Another customer's external_id space is its own.
	var other label
	h.post(t, b.Key, co, body).Decode(t, 201, &other)
	require.NotEqual(t, first.OutcomeID, other.OutcomeID)

	// Without external_id every call appends; occurred_at defaults to now.
	for range 2 {
		var l label
		h.post(t, a.Key, co, map[string]any{"outcome": "no_response"}).Decode(t, 201, &l)
		require.Equal(t, "negative", l.Polarity)
		require.Nil(t, l.ExternalID)
		require.WithinDuration(t, time.Now(), l.OccurredAt, time.Minute)
	}
	require.Equal(t, 3, labelRows(t, h, a.CustomerID))
	require.Equal(t, 1, labelRows(t, h, b.CustomerID))

	// Not billable: nothing metered, and a paused account still writes labels and reads attribution.
	require.NoError(t, h.API.FlushUsage(t.Context()))
	var u struct{ Calls int }
	h.Get(t, "/v1/usage", a.Key, nil).Decode(t, 200, &u)
	require.Zero(t, u.Calls)
	require.Equal(t, 200, h.Post(t, "/v1/account/pause", a.Key, nil).Status)
	h.post(t, a.Key, co, map[string]any{"outcome": "lost"}).Decode(t, 201, &label{})
	require.Equal(t, 200, h.Get(t, "/v1/attribution", a.Key, nil).Status)
	require.Equal(t, 403, h.Get(t, intentPath(co), a.Key, nil).Status, "intent is a billable company read")
}

// An unknown company is 404 (after the body was found valid); every bad body is 422 in the spec's
// shape and writes nothing; a key without the write scope is 403.
func TestOutcomeRefusals(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.account(t, "starter")
	co := h.f.scorable[0]

	r := h.post(t, a.Key, 1, map[string]any{"outcome": "won"})
	require.Equal(t, 404, r.Status, string(r.Body))
	r = h.post(t, a.Key, h.f.uncovered, map[string]any{"outcome": "meeting"}) // known, no signal: labels are welcome
	require.Equal(t, 201, r.Status, string(r.Body))

	now := time.Now().UTC()
	cases := map[string]struct {
		body map[string]any
		loc  string
	}{
		"missing outcome":       {map[string]any{"note": "x"}, "body.outcome"},
		"outcome outside vocab": {map[string]any{"outcome": "maybe"}, "body.outcome"},
		"outcome not a string":  {map[string]any{"outcome": 1}, "body.outcome"},
		"unknown field":         {map[string]any{"outcome": "won", "amount": 10}, "body.amount"},
		"occurred_at garbled":   {map[string]any{"outcome": "won", "occurred_at": "yesterday"}, "body.occurred_at"},
		"occurred_at future":    {map[string]any{"outcome": "won", "occurred_at": now.Add(50 * time.Hour).Format(time.RFC3339)}, "body.occurred_at"},
		"occurred_at too old":   {map[string]any{"outcome": "won", "occurred_at": now.Add(-oltp.OutcomeRetention - time.Hour).Format(time.RFC3339)}, "body.occurred_at"},
		"external_id too long":  {map[string]any{"outcome": "won", "external_id": strings.Repeat("x", 256)}, "body.external_id"},
		"external_id empty":     {map[string]any{"outcome": "won", "external_id": ""}, "body.external_id"},
		"external_id non-ASCII": {map[string]any{"outcome": "won", "external_id": "dealé"}, "body.external_id"},
		"note too long":         {map[string]any{"outcome": "won", "note": strings.Repeat("é", 2001)}, "body.note"},
		"note with NUL":         {map[string]any{"outcome": "won", "note": "a\x00b"}, "body.note"},
	}
	for name, c := range cases {
		r := h.post(t, a.Key, co, c.body)
		require.Equal(t, 422, r.Status, "%s: %s", name, r.Body)
		require.Contains(t, r.Invalid(t).Locs(), c.loc, name)
		r = h.post(t, a.Key, 1, c.body) // validation comes first: a bad body is 422 even for an unknown company
		require.Equal(t, 422, r.Status, "%s: %s", name, r.Body)
	}
	r = h.Post(t, outcomesPath(co), a.Key, "not an object")
	require.Equal(t, 422, r.Status)
	require.Equal(t, 1, labelRows(t, h, a.CustomerID))

	// A key minted with the read scope only cannot write labels.
	var minted struct{ Key string }
	h.Post(t, "/v1/keys", a.Key, map[string]any{"scopes": []string{"read"}}).Decode(t, 201, &minted)
	r = h.post(t, minted.Key, co, map[string]any{"outcome": "won"})
	require.Equal(t, 403, r.Status, string(r.Body))
	require.Contains(t, string(r.Body), "insufficient_scope")
	require.Equal(t, 1, labelRows(t, h, a.CustomerID))
}

// Labels older than the retention are deleted by the janitor's statement; younger ones stay.
func TestLabelsAreDeletedAfterTheirRetention(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.account(t, "growth")
	co := h.f.scorable[0]
	old := time.Now().UTC().Add(-oltp.OutcomeRetention + time.Hour)
	h.post(t, a.Key, co, map[string]any{"outcome": "won", "occurred_at": old.Format(time.RFC3339)}).Decode(t, 201, &label{})
	h.post(t, a.Key, co, map[string]any{"outcome": "lost"}).Decode(t, 201, &label{})
	n, err := oltp.PruneOutcomeLabels(context.Background(), h.Pool, time.Now())
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = oltp.PruneOutcomeLabels(context.Background(), h.Pool, time.Now().Add(2*time.Hour))
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	require.Equal(t, 1, labelRows(t, h, a.CustomerID))
}

// A Free key appending a label per call of its minute limit stops at the daily budget: 409
// label_budget_exhausted in the documented shape, with Retry-After, and nothing written.
func TestLabelsPastTheDailyBudgetAreRefused(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.account(t, "free")
	co := h.f.scorable[0]
	_, err := h.Pool.Exec(context.Background(), `INSERT INTO outcome_labels (customer_id, account_id, company_id, outcome, positive, occurred_at, created_at)
		SELECT $1, $2, $3, 'won', true, now(), now() - interval '2 hours' FROM generate_series(1, $4)`, a.CustomerID, a.AccountID, int64(co), oltp.MaxLabelsPerDay-1)
	require.NoError(t, err)
	h.post(t, a.Key, co, map[string]any{"outcome": "won"}).Decode(t, 201, &label{})

	r := h.post(t, a.Key, co, map[string]any{"outcome": "lost"})
	var refused struct {
		Detail struct {
			Reason     string `json:"reason"`
			Limit      int    `json:"limit"`
			RetryAfter int64  `json:"retry_after"`
		} `json:"detail"`
	}
	r.Decode(t, 409, &refused)
	require.Equal(t, "label_budget_exhausted", refused.Detail.Reason)
	require.Equal(t, oltp.MaxLabelsPerDay, refused.Detail.Limit)
	require.InDelta(t, (22 * time.Hour).Seconds(), float64(refused.Detail.RetryAfter), 120)
	require.Equal(t, strconv.FormatInt(refused.Detail.RetryAfter, 10), r.Header["Retry-After"])
	require.Equal(t, oltp.MaxLabelsPerDay, labelRows(t, h, a.CustomerID))
}
