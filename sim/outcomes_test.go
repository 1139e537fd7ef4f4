package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Labels are a pure function of (seed, tick, draw); another draw is another sample of the same
// propensities.
func TestOutcomeLabelsAreDeterministicBySeed(t *testing.T) {
	t.Parallel()
	a := New(Config{Seed: 3, Companies: 200}).OutcomeLabels(500, 5, 1)
	b := New(Config{Seed: 3, Companies: 200}).OutcomeLabels(500, 5, 1)
	c := New(Config{Seed: 3, Companies: 200}).OutcomeLabels(500, 5, 2)
	require.Len(t, a, 1000)
	require.Equal(t, a, b)
	require.NotEqual(t, a, c)
}

// The propensity follows hiring motion: companies that opened many reqs lately convert more often
// than quiet ones, and the labels drawn from it show the same.
func TestPropensityIsTiedToHiringMotion(t *testing.T) {
	t.Parallel()
	w := New(Config{Seed: 3, Companies: 600})
	const tick = 500
	var hot, cold, hotPos, coldPos, all, allPos float64
	labels := w.OutcomeLabels(tick, 20, 1)
	for i := range w.companies {
		c := &w.companies[i]
		m := w.motion(c, tick)
		pos := 0.0
		for _, l := range labels[i*20 : (i+1)*20] {
			require.Equal(t, c.domain, l.CompanyDomain)
			if l.Positive {
				pos++
			}
		}
		all += 20
		allPos += pos
		switch {
		case c.vendor != vNone && m.Opened28 >= 25:
			hot += 20
			hotPos += pos
		case m.Opened28 <= 8:
			cold += 20
			coldPos += pos
		}
	}
	t.Logf("base rate %.3f, hot %.0f labels at %.3f, cold %.0f labels at %.3f", allPos/all, hot, hotPos/hot, cold, coldPos/cold)
	require.Greater(t, hot, 500.0)
	require.Greater(t, cold, 500.0)
	require.Greater(t, hotPos/hot, coldPos/cold+0.1)
	p, m, ok := w.Propensity(w.companies[0].domain, tick)
	require.True(t, ok)
	require.Equal(t, w.propensity(&w.companies[0], tick), p)
	require.Equal(t, w.motion(&w.companies[0], tick), m)
	_, _, ok = w.Propensity("nowhere.example", tick)
	require.False(t, ok)
}
