package outcomes

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/intent"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// Words of score_status: why score is what it is.
const (
	StatusScored               = "scored"                // score is the calibrated probability
	StatusInsufficientCoverage = "insufficient_coverage" // coverage is below min_coverage: score null
	StatusInsufficientLabels   = "insufficient_labels"   // too few labels across customers to fit the model: score null
)

// intentJSON is the answer of GET /v1/companies/{company_id}/intent.
type intentJSON struct {
	CompanyID     int64      `json:"company_id"`
	Score         *float64   `json:"score"`
	ScoreStatus   string     `json:"score_status"`
	Coverage      float64    `json:"coverage"`
	MinCoverage   float64    `json:"min_coverage"`
	LabelCount    int        `json:"label_count"`
	PositiveCount int        `json:"positive_count"`
	NegativeCount int        `json:"negative_count"`
	ModelLabels   int        `json:"model_labels"`
	MotionAsOf    *time.Time `json:"motion_as_of"`
	AsOf          time.Time  `json:"as_of"` // the latest committed crawl cycle of the read snapshot the pulse comes from
}

func (h *handlers) intent(c *api.Call) (int, error) {
	id, _ := c.Int("company_id")
	s, err := h.current(id)
	if err != nil {
		return 0, err
	}
	pulse := s.Model.PulseOf(s.Model.Company(uint64(id)), false)
	x, coverage, ok := intent.Features(pulse)
	counts, err := oltp.CompanyLabelCounts(c.Context(), h.d.Pool, id)
	if err != nil {
		return 0, err
	}
	out := intentJSON{CompanyID: id, Coverage: coverage, MinCoverage: math.Round(intent.MinCoverage*1000) / 1000,
		LabelCount: counts.Labels, PositiveCount: counts.Positive, NegativeCount: counts.Negative, MotionAsOf: pulse.MotionAsOf,
		AsOf: s.Model.AsOf}
	m, err := h.fitted(c.Context(), s, c.Now())
	if err != nil && !errors.Is(err, intent.ErrTooFewLabels) {
		return 0, err
	}
	if m != nil {
		out.ModelLabels = m.Labels
	}
	switch {
	case !ok:
		out.ScoreStatus = StatusInsufficientCoverage
	case m == nil:
		out.ScoreStatus = StatusInsufficientLabels
	default:
		v := math.Round(m.Score(x)*10000) / 10000
		out.Score, out.ScoreStatus = &v, StatusScored
	}
	return 0, c.JSON(200, out)
}

// fitted is the model fitted on every customer's labels of the training window joined to the
// pulses of snapshot s, refitted when s is not the snapshot it was fitted on or it is older than
// RefitEvery. One call refits at a time; while it does, other calls are answered with the
// previous model (the first fit is waited for). intent.ErrTooFewLabels says there are not enough
// labels yet (also kept, like a model).
func (h *handlers) fitted(ctx context.Context, s *snapshot.Snapshot, now time.Time) (*intent.Model, error) {
	m, have, fresh, ferr := h.cached(s, now)
	if fresh {
		return m, ferr
	}
	if have {
		if !h.refit.TryLock() {
			return m, ferr // another call is refitting
		}
	} else {
		h.refit.Lock()
	}
	defer h.refit.Unlock()
	if m, _, fresh, ferr := h.cached(s, now); fresh {
		return m, ferr // refitted while this call waited
	}
	labels, err := oltp.TrainingLabels(ctx, h.d.Pool, now.Add(-TrainingWindow))
	if err != nil {
		return nil, err
	}
	var examples []intent.Example
	for _, l := range labels {
		co := s.Model.Company(uint64(l.CompanyID))
		if co == nil {
			continue // a company the corpus no longer has
		}
		x, _, ok := intent.Features(s.Model.PulseOf(co, false))
		if !ok {
			continue
		}
		examples = append(examples, intent.Example{X: x, Positive: float64(l.Positive), Negative: float64(l.Negative), Fold: int(l.CompanyID % intent.Folds)})
	}
	m, err = intent.Fit(examples)
	if err != nil && !errors.Is(err, intent.ErrTooFewLabels) {
		return nil, err
	}
	h.mu.Lock()
	h.model, h.fitErr, h.fittedWM, h.fittedAt = m, err, s.Model.Watermark, now
	h.mu.Unlock()
	if m != nil {
		h.d.Log.Info("intent model fitted", "labels", m.Labels, "companies", len(examples), "watermark", s.Model.Watermark)
	}
	return m, err
}

// cached is the model kept, whether there is one (or a kept ErrTooFewLabels), and whether it is
// still fresh for snapshot s at now.
func (h *handlers) cached(s *snapshot.Snapshot, now time.Time) (m *intent.Model, have, fresh bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	have = !h.fittedAt.IsZero()
	fresh = have && h.fittedWM == s.Model.Watermark && now.Sub(h.fittedAt) < h.d.RefitEvery && now.After(h.fittedAt.Add(-time.Minute))
	return h.model, have, fresh, h.fitErr
}
