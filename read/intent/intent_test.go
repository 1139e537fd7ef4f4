package intent_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/read/intent"
	"github.com/planehq/hiringsignal/read/readmodel"
)

func ptr[T any](v T) *T { return &v }

func pulse(open, active, new30 int, velocity float64, direction string, surge bool) readmodel.Pulse {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	return readmodel.Pulse{CoverageStatus: readmodel.CoverageCovered, IsHiring: ptr(open > 0), OpenReqCount: ptr(open), ActiveReqs: ptr(active),
		NewRoles30d: ptr(new30), Velocity: ptr(velocity), Direction: ptr(direction), IsSurge: ptr(surge), MotionAsOf: &at}
}

// Coverage is the share of the six motion inputs known; below the minimum there are no inputs.
func TestFeaturesAndCoverage(t *testing.T) {
	t.Parallel()
	x, cov, ok := intent.Features(pulse(10, 8, 6, 1.5, "accelerating", true))
	require.True(t, ok)
	require.Equal(t, 1.0, cov)
	require.Len(t, x, 8)
	require.InDelta(t, math.Log1p(10), x[0], 1e-12)
	require.Equal(t, []float64{1, 0, 1, 0}, x[4:])

	p := pulse(10, 8, 6, 1.5, "", false)
	p.Direction, p.IsSurge = nil, nil // observed for 5 weeks: the 8-week windows are unknown
	x, cov, ok = intent.Features(p)
	require.True(t, ok)
	require.InDelta(t, 4.0/6, cov, 0.001)
	require.Equal(t, []float64{0, 0, 0, 1}, x[4:], "unknown windows are an input of their own, not a guess")

	p.NewRoles30d = nil // observed for 29 days
	x, cov, ok = intent.Features(p)
	require.False(t, ok)
	require.Nil(t, x)
	require.InDelta(t, 3.0/6, cov, 0.001)

	_, cov, ok = intent.Features(readmodel.Pulse{CoverageStatus: readmodel.CoverageNoATSSignal})
	require.False(t, ok)
	require.Zero(t, cov)
}

// No model is fitted below the training minimums.
func TestFitNeedsEnoughLabelsOfBothPolarities(t *testing.T) {
	t.Parallel()
	x, _, _ := intent.Features(pulse(3, 3, 1, 0.25, "steady", false))
	_, err := intent.Fit([]intent.Example{{X: x, Positive: 150, Negative: 49}})
	require.ErrorIs(t, err, intent.ErrTooFewLabels)
	_, err = intent.Fit([]intent.Example{{X: x, Positive: 19, Negative: 500}})
	require.ErrorIs(t, err, intent.ErrTooFewLabels)
	m, err := intent.Fit([]intent.Example{{X: x, Positive: 20, Negative: 180}})
	require.NoError(t, err)
	require.InDelta(t, 0.1, m.Score(x), 0.01, "one kind of company: its rate")
}

// On labels drawn from a known logistic law of the inputs the fitted score recovers the law.
func TestFitRecoversAKnownLaw(t *testing.T) {
	t.Parallel()
	var train []intent.Example
	var truth []intent.Scored
	var xs [][]float64
	i := 0
	for open := 0; open <= 40; open += 2 {
		for new30 := 0; new30 <= 30; new30 += 3 {
			x, _, _ := intent.Features(pulse(open, open/2, new30, float64(new30)/4.3, "steady", false))
			p := 1 / (1 + math.Exp(-(-2.5 + 0.9*math.Log1p(float64(new30)) - 0.3*math.Log1p(float64(open)))))
			n := 200.0
			pos := math.Round(n * p)
			train = append(train, intent.Example{X: x, Positive: pos, Negative: n - pos, Fold: i})
			truth = append(truth, intent.Scored{P: p, Positive: pos, Negative: n - pos})
			xs = append(xs, x)
			i++
		}
	}
	m, err := intent.Fit(train)
	require.NoError(t, err)
	var got []intent.Scored
	for j, x := range xs {
		require.InDelta(t, truth[j].P, m.Score(x), 0.03)
		got = append(got, intent.Scored{P: m.Score(x), Positive: truth[j].Positive, Negative: truth[j].Negative})
	}
	require.Less(t, intent.ECE(got), 0.01)
	require.Less(t, intent.Brier(got), intent.Brier(intent.WithConstant(got, 0.3)))
}

// ECE and Brier on hand-computed cases.
func TestECEAndBrier(t *testing.T) {
	t.Parallel()
	s := []intent.Scored{{P: 0.25, Positive: 1, Negative: 3}, {P: 0.95, Positive: 1, Negative: 1}}
	// bin 2: |0.25-0.25| = 0 (weight 4); bin 9: |0.95-0.5| = 0.45 (weight 2)
	require.InDelta(t, 0.45*2/6, intent.ECE(s), 1e-12)
	require.InDelta(t, (0.75*0.75+3*0.0625+0.0025+0.9025)/6, intent.Brier(s), 1e-12)
	require.Zero(t, intent.ECE(nil))
}
