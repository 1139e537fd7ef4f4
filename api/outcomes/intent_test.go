package outcomes_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/read/intent"
)

type intentAnswer struct {
	CompanyID     int64     `json:"company_id"`
	Score         *float64  `json:"score"`
	ScoreStatus   string    `json:"score_status"`
	Coverage      float64   `json:"coverage"`
	MinCoverage   float64   `json:"min_coverage"`
	LabelCount    int       `json:"label_count"`
	PositiveCount int       `json:"positive_count"`
	NegativeCount int       `json:"negative_count"`
	ModelLabels   int       `json:"model_labels"`
	AsOf          time.Time `json:"as_of"`
}

func (h *harness) intent(t *testing.T, key string, company uint64) intentAnswer {
	t.Helper()
	r := h.Get(t, intentPath(company), key, nil)
	h.Conforms(t, "GET", "/v1/companies/{company_id}/intent", r)
	var out intentAnswer
	r.Decode(t, 200, &out)
	return out
}

// The score is null (never a number) below the coverage minimum and until enough labels exist
// across customers; then it is a probability for every company whose coverage reaches the
// minimum, and the counts are every customer's labels of the company.
func TestIntentIsGatedByCoverageAndLabels(t *testing.T) {
	t.Parallel()
	h := start(t)
	a, b, c := h.account(t, "growth"), h.account(t, "starter"), h.account(t, "free")
	f := h.f
	co := f.scorable[0]

	r := h.Get(t, intentPath(1), a.Key, nil)
	require.Equal(t, 404, r.Status, string(r.Body))

	none := h.intent(t, a.Key, f.uncovered)
	require.Nil(t, none.Score)
	require.Equal(t, "insufficient_coverage", none.ScoreStatus)
	require.Zero(t, none.Coverage)
	require.InDelta(t, intent.MinCoverage, none.MinCoverage, 0.001)
	require.True(t, f.snaps.Current().AsOf.Equal(none.AsOf), "as_of is the snapshot's latest committed cycle: %s", none.AsOf)

	early := h.intent(t, a.Key, co)
	require.Nil(t, early.Score)
	require.Equal(t, "insufficient_labels", early.ScoreStatus)
	require.Equal(t, 1.0, early.Coverage)
	require.Zero(t, early.LabelCount)

	// Customers a and b report the world's outcomes (drawn from its hidden propensities), and
	// labels of the uncovered company too.
	tick := f.w.Ticks[len(f.w.Ticks)-1]
	scorable := map[uint64]bool{}
	for _, id := range f.scorable {
		scorable[id] = true
	}
	want := map[uint64][2]int{} // company → positives, negatives
	n := 0
	for _, l := range f.w.Sim.OutcomeLabels(tick, 6, 1) {
		id := pipeline.CompanyID(l.CompanyDomain)
		if !scorable[id] && id != f.uncovered {
			continue
		}
		key, outcome := a.Key, "lost"
		if n%2 == 1 {
			key = b.Key
		}
		if l.Positive {
			outcome = "won"
		}
		h.post(t, key, id, map[string]any{"outcome": outcome}).Decode(t, 201, &label{})
		w := want[id]
		if l.Positive {
			w[0]++
		} else {
			w[1]++
		}
		want[id] = w
		n++
	}
	require.GreaterOrEqual(t, n, intent.MinTrainingLabels)

	trained := len(f.scorable) * 6
	var scores []float64
	for _, id := range f.scorable {
		got := h.intent(t, c.Key, id) // c has no labels: the score and counts are shared
		require.Equal(t, "scored", got.ScoreStatus)
		require.NotNil(t, got.Score)
		require.GreaterOrEqual(t, *got.Score, 0.0)
		require.LessOrEqual(t, *got.Score, 1.0)
		require.Equal(t, want[id][0], got.PositiveCount)
		require.Equal(t, want[id][1], got.NegativeCount)
		require.Equal(t, want[id][0]+want[id][1], got.LabelCount)
		require.Equal(t, trained, got.ModelLabels)
		scores = append(scores, *got.Score)
	}
	require.Greater(t, slicesMax(scores)-slicesMin(scores), 0.05, "the score follows the companies' motion")

	still := h.intent(t, a.Key, f.uncovered)
	require.Nil(t, still.Score, "labels never stand in for unknown motion")
	require.Equal(t, "insufficient_coverage", still.ScoreStatus)
	require.Equal(t, want[f.uncovered][0]+want[f.uncovered][1], still.LabelCount)
	require.Positive(t, still.LabelCount)

	// Metered as one call per 200; the 404 is not metered.
	require.NoError(t, h.API.FlushUsage(t.Context()))
	var u struct{ Calls int }
	h.Get(t, "/v1/usage", c.Key, url.Values{}).Decode(t, 200, &u)
	require.Equal(t, len(f.scorable), u.Calls)
}

func slicesMax(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func slicesMin(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

// The counts are read live on every call; the fitted model is kept until it is RefitEvery old
// (or the snapshot moves), so labels sent since show in the counts before they reach the model.
func TestIntentCountsAreLiveAndTheModelIsKept(t *testing.T) {
	t.Parallel()
	h := startRefit(t, time.Hour)
	a := h.account(t, "growth")
	f := h.f
	tick := f.w.Ticks[len(f.w.Ticks)-1]
	scorable := map[uint64]bool{}
	for _, id := range f.scorable {
		scorable[id] = true
	}
	n := 0
	for _, l := range f.w.Sim.OutcomeLabels(tick, 6, 3) {
		if id := pipeline.CompanyID(l.CompanyDomain); scorable[id] {
			outcome := "no_response"
			if l.Positive {
				outcome = "meeting"
			}
			h.post(t, a.Key, id, map[string]any{"outcome": outcome}).Decode(t, 201, &label{})
			n++
		}
	}
	co := f.scorable[0]
	first := h.intent(t, a.Key, co)
	require.Equal(t, "scored", first.ScoreStatus)
	require.Equal(t, n, first.ModelLabels)
	b := h.account(t, "starter") // a has 6 labels of co; a customer counts at most 10 of a company
	for range 5 {
		h.post(t, b.Key, co, map[string]any{"outcome": "won"}).Decode(t, 201, &label{})
	}
	later := h.intent(t, a.Key, co)
	require.Equal(t, first.LabelCount+5, later.LabelCount)
	require.Equal(t, first.PositiveCount+5, later.PositiveCount)
	require.Equal(t, n, later.ModelLabels, "the model fitted an hour's worth ago is kept")
	require.Equal(t, *first.Score, *later.Score)
}
