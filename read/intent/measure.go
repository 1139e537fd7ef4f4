package intent

import "math"

// Scored is one predicted probability and the labels it predicted (counts, so a company's many
// labels are one entry).
type Scored struct {
	P                  float64
	Positive, Negative float64
}

// CalibrationBins is the number of equal-width probability bins of ECE.
const CalibrationBins = 10

// ECE is the expected calibration error over equal-width bins of the predicted probability: the
// label-weighted mean over bins of |mean prediction − observed positive rate|.
func ECE(s []Scored) float64 {
	var n, sumP, sumY [CalibrationBins]float64
	var total float64
	for _, x := range s {
		b := min(int(x.P*CalibrationBins), CalibrationBins-1)
		w := x.Positive + x.Negative
		n[b] += w
		sumP[b] += w * x.P
		sumY[b] += x.Positive
		total += w
	}
	if total == 0 {
		return 0
	}
	var e float64
	for b := range n {
		if n[b] > 0 {
			e += n[b] / total * math.Abs(sumP[b]/n[b]-sumY[b]/n[b])
		}
	}
	return e
}

// Brier is the mean squared error of the predictions over every label.
func Brier(s []Scored) float64 {
	var se, n float64
	for _, x := range s {
		se += x.Positive*(1-x.P)*(1-x.P) + x.Negative*x.P*x.P
		n += x.Positive + x.Negative
	}
	if n == 0 {
		return 0
	}
	return se / n
}

// WithConstant is s with every prediction replaced by p (e.g. the training base rate).
func WithConstant(s []Scored, p float64) []Scored {
	out := make([]Scored, len(s))
	for i, x := range s {
		out[i] = Scored{P: p, Positive: x.Positive, Negative: x.Negative}
	}
	return out
}
