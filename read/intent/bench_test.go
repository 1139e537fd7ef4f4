package intent_test

import (
	"math"
	"testing"

	"github.com/planehq/hiringsignal/read/intent"
)

// BenchmarkFit fits the model on 100,000 labelled companies (the refit a call pays at most once a
// minute or per snapshot).
func BenchmarkFit(b *testing.B) {
	var ex []intent.Example
	for i := 0; i < 100_000; i++ {
		open := i % 97
		new30 := (i / 97) % 41
		x, _, _ := intent.Features(pulse(open, open/2, new30, float64(new30)/4.3, []string{"steady", "accelerating", "decelerating"}[i%3], i%50 == 0))
		p := 1 / (1 + math.Exp(-(-2.5 + 0.9*math.Log1p(float64(new30)) - 0.3*math.Log1p(float64(open)))))
		pos := math.Round(5 * p)
		ex = append(ex, intent.Example{X: x, Positive: pos, Negative: 5 - pos, Fold: i})
	}
	b.ResetTimer()
	for range b.N {
		if _, err := intent.Fit(ex); err != nil {
			b.Fatal(err)
		}
	}
}
