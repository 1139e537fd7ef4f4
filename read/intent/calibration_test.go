package intent_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/read/intent"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// calibrationWorld: 300 companies crawled every 6 days for 60 days, so every pulse window (the
// 8-week direction and surge) is observed at the end.
var calibrationWorld = readmodeltest.Config{Seed: 13, Companies: 300, First: 300, Last: 300 + 48*10, Step: 48}

// labelsPerCompany is how many outcomes the simulated customers report per company.
const labelsPerCompany = 30

// The score is fitted on the simulated labels of half the companies (pulses from the real crawl
// and read model) and checked on the other half's labels, drawn independently from the world's
// hidden propensities: calibrated within an ECE of 0.05 and better than the base rate by Brier.
func TestScoreIsCalibratedOnHeldOutSimulatedLabels(t *testing.T) {
	t.Parallel()
	w := readmodeltest.Crawl(t, calibrationWorld)
	snap, err := snapshot.Build(context.Background(), w.CH)
	require.NoError(t, err)
	tick := w.Ticks[len(w.Ticks)-1]

	type company struct {
		x        []float64
		pos, neg float64 // training draw
		hpos     float64 // held-out draw
		hneg     float64
	}
	cos := map[uint64]*company{}
	for id := range w.Companies {
		x, _, ok := intent.Features(snap.Model.PulseOf(snap.Model.Company(id), false))
		if ok {
			cos[id] = &company{x: x}
		}
	}
	count := func(draw uint64, pos, neg func(*company) *float64) {
		for _, l := range w.Sim.OutcomeLabels(tick, labelsPerCompany, draw) {
			if c := cos[pipeline.CompanyID(l.CompanyDomain)]; c != nil {
				if l.Positive {
					*pos(c)++
				} else {
					*neg(c)++
				}
			}
		}
	}
	count(1, func(c *company) *float64 { return &c.pos }, func(c *company) *float64 { return &c.neg })
	count(2, func(c *company) *float64 { return &c.hpos }, func(c *company) *float64 { return &c.hneg })

	var train []intent.Example
	var trainPos, trainN float64
	for id, c := range cos {
		if id%2 == 0 {
			train = append(train, intent.Example{X: c.x, Positive: c.pos, Negative: c.neg, Fold: int(id / 2 % intent.Folds)})
			trainPos += c.pos
			trainN += c.pos + c.neg
		}
	}
	m, err := intent.Fit(train)
	require.NoError(t, err)

	var held, raw, truth []intent.Scored
	for id, c := range cos {
		if id%2 == 1 {
			held = append(held, intent.Scored{P: m.Score(c.x), Positive: c.hpos, Negative: c.hneg})
			raw = append(raw, intent.Scored{P: m.Uncalibrated(c.x), Positive: c.hpos, Negative: c.hneg})
		}
	}
	for _, co := range w.Companies {
		if c := cos[pipeline.CompanyID(co.Domain)]; c != nil && pipeline.CompanyID(co.Domain)%2 == 1 {
			p, _, ok := w.Sim.Propensity(co.Domain, tick)
			require.True(t, ok)
			truth = append(truth, intent.Scored{P: p, Positive: c.hpos, Negative: c.hneg})
		}
	}
	base := trainPos / trainN
	ece, brier := intent.ECE(held), intent.Brier(held)
	baseBrier := intent.Brier(intent.WithConstant(held, base))
	t.Logf("train: %d companies, %.0f labels (base rate %.3f); held out: %d companies, %d labels", len(train), trainN, base, len(held), len(held)*labelsPerCompany)
	t.Logf("held out: ECE %.4f; Brier %.4f vs base rate %.4f (skill %.3f); the hidden propensity itself: ECE %.4f, Brier %.4f",
		ece, brier, baseBrier, 1-brier/baseBrier, intent.ECE(truth), intent.Brier(truth))
	t.Logf("the regression before Platt scaling: ECE %.4f, Brier %.4f", intent.ECE(raw), intent.Brier(raw))
	require.Greater(t, len(held), 100)
	require.LessOrEqual(t, ece, 0.05)
	require.Less(t, brier, baseBrier)
}
