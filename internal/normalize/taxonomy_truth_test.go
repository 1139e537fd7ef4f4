package normalize_test

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/sim"
)

// TestFunctionAttributionAgainstTruth classifies the title of every live req of the simulated
// world (2,000 companies, three ticks a week apart, each req weighted by how many postings carry
// it) and prints, per function name, the precision and recall of the attribution against the
// simulator's own function; none may be below 0.95.
func TestFunctionAttributionAgainstTruth(t *testing.T) {
	t.Parallel()
	w := sim.New(sim.Config{Seed: 42})
	tp, fp, fn := map[string]int{}, map[string]int{}, map[string]int{}
	wrong := map[[3]string]int{}
	total := 0
	for _, tick := range []int{0, 56, 112} {
		for _, r := range w.Truth(tick).Reqs {
			weight := max(len(r.Postings), 1)
			total += weight
			got := ""
			if id, ok := normalize.Classify(r.Title); ok {
				got, _ = normalize.FunctionName(id)
			}
			if got == r.Function {
				tp[r.Function] += weight
				continue
			}
			fn[r.Function] += weight
			if got != "" {
				fp[got] += weight
			}
			wrong[[3]string{r.Title, r.Function, got}] += weight
		}
	}
	require.Greater(t, total, 10000, "the world has postings to check")
	names := make([]string, 0, len(tp)+len(fn))
	for n := range tp {
		names = append(names, n)
	}
	for n := range fn {
		if _, ok := tp[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for k, n := range wrong {
		t.Logf("misattributed: %q (truth %s, got %q) ×%d", k[0], k[1], k[2], n)
	}
	t.Logf("%-18s %9s %9s %8s", "function", "precision", "recall", "postings")
	for _, n := range names {
		prec := float64(tp[n]) / float64(max(tp[n]+fp[n], 1))
		rec := float64(tp[n]) / float64(max(tp[n]+fn[n], 1))
		t.Logf("%-18s %9.4f %9.4f %8d", n, prec, rec, tp[n]+fn[n])
		require.GreaterOrEqual(t, prec, 0.95, "precision of %s", n)
		require.GreaterOrEqual(t, rec, 0.95, "recall of %s", n)
	}
}
