// Package intent is the calibrated intent score: the probability that a sales touch on a company
// converts, learned from every customer's outcome labels and the company's hiring motion (its
// pulse in the read model). It turns a pulse into model inputs and a coverage, fits a
// ridge-regularised logistic regression on per-company label counts, calibrates it with Platt
// scaling fitted on out-of-fold predictions, and measures calibration (expected calibration
// error, Brier score). docs/decisions.md ("Outcomes, intent and attribution") says why.
//
// It owns the method and its constants (the coverage minimum, the training minimums). It does no
// I/O: it must not read Postgres or ClickHouse, cache models or serve HTTP (api/outcomes reads
// the labels, keeps the fitted model and answers).
package intent

import (
	"errors"
	"fmt"
	"math"

	"github.com/planehq/hiringsignal/read/readmodel"
)

// Inputs are the pulse fields the score reads; coverage is the share of them known.
var Inputs = []string{"open_req_count", "active_reqs", "new_roles_30d", "velocity", "direction", "is_surge"}

// MinCoverage is the coverage below which no score is given (score null): open_req_count,
// active_reqs, new_roles_30d and velocity must be known (a covered company observed for at least
// 30 days). direction and is_surge (8-week windows) may still be unknown: the model carries that
// as an input of its own, learned from labels of such companies, never as a guessed value.
const MinCoverage = 4.0 / 6.0

// Training minimums: below them no model is fitted and every score is null.
const (
	MinTrainingLabels = 200 // labels with a scored company in the training window
	MinClassLabels    = 20  // of each polarity
)

// ErrTooFewLabels says the labels cannot support a fitted model yet.
var ErrTooFewLabels = fmt.Errorf("fewer than %d labels of scored companies, or fewer than %d of either polarity", MinTrainingLabels, MinClassLabels)

// dims is the length of a feature vector.
const dims = 8

// Features are the model inputs of a pulse and its coverage (0 for a company with no ATS or
// board signal: every motion field is unknown). ok is false below MinCoverage.
func Features(p readmodel.Pulse) (x []float64, coverage float64, ok bool) {
	known := 0
	for _, k := range []bool{p.OpenReqCount != nil, p.ActiveReqs != nil, p.NewRoles30d != nil, p.Velocity != nil, p.Direction != nil, p.IsSurge != nil} {
		if k {
			known++
		}
	}
	coverage = math.Round(float64(known)/float64(len(Inputs))*1000) / 1000
	if coverage < MinCoverage-1e-9 || p.OpenReqCount == nil || p.ActiveReqs == nil || p.NewRoles30d == nil || p.Velocity == nil {
		return nil, coverage, false
	}
	x = make([]float64, dims)
	x[0] = math.Log1p(float64(*p.OpenReqCount))
	x[1] = math.Log1p(float64(*p.ActiveReqs))
	x[2] = math.Log1p(float64(*p.NewRoles30d))
	x[3] = math.Log1p(4 * *p.Velocity) // reqs first observed in the trailing 4 weeks
	if p.Direction != nil && p.IsSurge != nil {
		x[4] = b2f(*p.Direction == "accelerating")
		x[5] = b2f(*p.Direction == "decelerating")
		x[6] = b2f(*p.IsSurge)
	} else {
		x[7] = 1 // the 8-week windows are not observed yet
	}
	return x, coverage, true
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Example is one company's labels in the training window with its features.
type Example struct {
	X                  []float64
	Positive, Negative float64
	Fold               int // cross-fitting fold (e.g. company_id mod Folds)
}

// Folds is the number of cross-fitting folds of the calibration step.
const Folds = 5

// Model is a fitted, calibrated score.
type Model struct {
	mean, scale []float64 // standardisation of the inputs
	w           []float64 // logistic weights over the standardised inputs, w[dims] the intercept
	a, b        float64   // Platt calibration of the logit: p = σ(a·z + b)
	Labels      int       // labels the model was fitted on
	Positive    int
}

// Fit fits the model on examples: ridge logistic regression (Newton's method) over standardised
// inputs, then Platt scaling fitted on the out-of-fold logits of Folds cross-fitted regressions.
func Fit(examples []Example) (*Model, error) {
	var pos, neg float64
	for _, e := range examples {
		pos += e.Positive
		neg += e.Negative
	}
	if pos+neg < MinTrainingLabels || pos < MinClassLabels || neg < MinClassLabels {
		return nil, ErrTooFewLabels
	}
	m := &Model{Labels: int(pos + neg), Positive: int(pos), a: 1}
	m.standardise(examples)
	zs := make([][]float64, len(examples))
	for i, e := range examples {
		zs[i] = m.z(e.X)
	}
	w, err := logistic(zs, examples, func(int) bool { return true })
	if err != nil {
		return nil, err
	}
	m.w = w
	// Out-of-fold logits: each example scored by a regression that did not see its fold.
	oof := make([]float64, len(examples))
	have := make([]bool, len(examples))
	for f := 0; f < Folds; f++ {
		wf, err := logistic(zs, examples, func(i int) bool { return examples[i].Fold%Folds != f })
		if errors.Is(err, errNoData) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for i, e := range examples {
			if e.Fold%Folds == f {
				oof[i], have[i] = dot(wf, zs[i]), true
			}
		}
	}
	m.a, m.b = platt(oof, have, examples)
	return m, nil
}

// Score is the calibrated probability of a positive outcome for inputs x (from Features).
func (m *Model) Score(x []float64) float64 {
	return sigmoid(m.a*dot(m.w, m.z(x)) + m.b)
}

// Uncalibrated is the regression's own probability for x, before Platt scaling (to measure what
// the calibration step changes).
func (m *Model) Uncalibrated(x []float64) float64 { return sigmoid(dot(m.w, m.z(x))) }

func (m *Model) standardise(examples []Example) {
	m.mean, m.scale = make([]float64, dims), make([]float64, dims)
	var n float64
	for _, e := range examples {
		wt := e.Positive + e.Negative
		n += wt
		for j, v := range e.X {
			m.mean[j] += wt * v
		}
	}
	for j := range m.mean {
		m.mean[j] /= n
	}
	for _, e := range examples {
		wt := e.Positive + e.Negative
		for j, v := range e.X {
			m.scale[j] += wt * (v - m.mean[j]) * (v - m.mean[j])
		}
	}
	for j := range m.scale {
		m.scale[j] = math.Sqrt(m.scale[j] / n)
		if m.scale[j] < 1e-9 {
			m.scale[j] = 1 // a constant input: its weight stays at the ridge's zero
		}
	}
}

// z is x standardised, with a trailing 1 for the intercept.
func (m *Model) z(x []float64) []float64 {
	z := make([]float64, dims+1)
	for j := 0; j < dims; j++ {
		z[j] = (x[j] - m.mean[j]) / m.scale[j]
	}
	z[dims] = 1
	return z
}

// ridge is the L2 penalty on the standardised weights (the intercept is not penalised).
const ridge = 1.0

var errNoData = errors.New("no training data in the fold")

// logistic fits weighted logistic regression on the examples use selects, by Newton's method.
func logistic(zs [][]float64, examples []Example, use func(int) bool) ([]float64, error) {
	k := dims + 1
	w := make([]float64, k)
	seen := false
	for iter := 0; iter < 50; iter++ {
		g := make([]float64, k)
		h := make([][]float64, k)
		for j := range h {
			h[j] = make([]float64, k)
		}
		for i, e := range examples {
			if !use(i) {
				continue
			}
			seen = true
			z := zs[i]
			p := sigmoid(dot(w, z))
			n := e.Positive + e.Negative
			r := e.Positive - n*p // gradient of the log-likelihood along z
			v := n * p * (1 - p)
			for a := 0; a < k; a++ {
				g[a] += r * z[a]
				for b := 0; b <= a; b++ {
					h[a][b] += v * z[a] * z[b]
				}
			}
		}
		if !seen {
			return nil, errNoData
		}
		for a := 0; a < k; a++ {
			for b := 0; b < a; b++ {
				h[b][a] = h[a][b]
			}
			if a < dims {
				g[a] -= ridge * w[a]
				h[a][a] += ridge
			}
			h[a][a] += 1e-9
		}
		step, err := solve(h, g)
		if err != nil {
			return nil, err
		}
		var size float64
		for j := range w {
			w[j] += step[j]
			size = math.Max(size, math.Abs(step[j]))
		}
		if size < 1e-8 {
			break
		}
	}
	return w, nil
}

// platt fits p = σ(a·z + b) to the labels by Newton's method on the logits z that have one; with
// no out-of-fold logit it keeps the regression as it is (a = 1, b = 0).
func platt(zs []float64, have []bool, examples []Example) (a, b float64) {
	a = 1
	any := false
	for _, h := range have {
		any = any || h
	}
	if !any {
		return 1, 0
	}
	for iter := 0; iter < 50; iter++ {
		var ga, gb, haa, hab, hbb float64
		for i, e := range examples {
			if !have[i] {
				continue
			}
			z := zs[i]
			p := sigmoid(a*z + b)
			n := e.Positive + e.Negative
			r := e.Positive - n*p
			v := n * p * (1 - p)
			ga += r * z
			gb += r
			haa += v * z * z
			hab += v * z
			hbb += v
		}
		haa += 1e-9
		hbb += 1e-9
		det := haa*hbb - hab*hab
		if det <= 0 {
			break
		}
		da := (hbb*ga - hab*gb) / det
		db := (haa*gb - hab*ga) / det
		a += da
		b += db
		if math.Max(math.Abs(da), math.Abs(db)) < 1e-10 {
			break
		}
	}
	return a, b
}

func sigmoid(v float64) float64 {
	if v >= 0 {
		return 1 / (1 + math.Exp(-v))
	}
	e := math.Exp(v)
	return e / (1 + e)
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// solve solves h·x = g for a symmetric positive definite h (Gaussian elimination with partial
// pivoting; h and g are consumed).
func solve(h [][]float64, g []float64) ([]float64, error) {
	n := len(g)
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(h[r][c]) > math.Abs(h[p][c]) {
				p = r
			}
		}
		if math.Abs(h[p][c]) < 1e-300 {
			return nil, errors.New("cannot fit the intent model: the inputs are degenerate (singular Hessian)")
		}
		h[c], h[p] = h[p], h[c]
		g[c], g[p] = g[p], g[c]
		for r := c + 1; r < n; r++ {
			f := h[r][c] / h[c][c]
			for k := c; k < n; k++ {
				h[r][k] -= f * h[c][k]
			}
			g[r] -= f * g[c]
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := g[r]
		for k := r + 1; k < n; k++ {
			s -= h[r][k] * x[k]
		}
		x[r] = s / h[r][r]
	}
	return x, nil
}
