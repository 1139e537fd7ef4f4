package searchindex

import (
	"math"
	"sort"
)

// Salary kinds: what a served salary is.
const (
	SalaryDeclared  = "declared"  // the employer published the range
	SalaryEstimated = "estimated" // nothing was published: a median of declared salaries of similar reqs
)

// Estimate bases: which declared salaries an estimate is the median of.
const (
	// BasisFunctionCountrySeniority: the same function, country and seniority.
	BasisFunctionCountrySeniority = "function_country_seniority"
	// BasisFunctionCountryScaled: the same function and country, scaled by how the req's seniority
	// is paid against its function-and-country median across the whole corpus.
	BasisFunctionCountryScaled = "function_country_scaled"
	// BasisFunctionCountry: the same function and country (the title names no seniority the
	// corpus can scale by).
	BasisFunctionCountry = "function_country"
)

// MinSalarySamples is how many declared salaries a median needs before it is served (an
// estimate, or a seniority's scale factor).
const MinSalarySamples = 5

// SalaryEstimate is an inferred yearly-USD salary: the median of Samples declared salaries of
// Basis, for Seniority ("" when the title names none).
type SalaryEstimate struct {
	MedianUSD float64
	Samples   int
	Basis     string
	Seniority string
}

// Salary is the one salary a req is served with on every route: the declared range when the
// employer published one (MinUSD/MaxUSD, either may be nil), else an estimate labelled as one
// (Estimate), else none (Kind "").
type Salary struct {
	Kind           string
	MinUSD, MaxUSD *float64
	Estimate       SalaryEstimate
}

type payKey struct{ function, country, seniority string }
type payCell struct {
	median  float64
	samples int
}

// paySample is one declared salary figure (midpoint of the range) of a req.
type paySample struct {
	function, country, seniority string
	figure                       float64
}

// payTable holds the medians estimates are made of: per function, country and seniority; per
// function and country; and per seniority the median ratio of its declared salaries to their
// function-and-country median.
type payTable struct {
	cells  map[payKey]payCell
	fc     map[payKey]payCell // seniority ""
	factor map[string]float64
}

func newPayTable(samples []paySample) payTable {
	t := payTable{cells: map[payKey]payCell{}, fc: map[payKey]payCell{}, factor: map[string]float64{}}
	cells, fc := map[payKey][]float64{}, map[payKey][]float64{}
	for _, s := range samples {
		k := payKey{s.function, s.country, s.seniority}
		cells[k] = append(cells[k], s.figure)
		k.seniority = ""
		fc[k] = append(fc[k], s.figure)
	}
	for k, v := range cells {
		t.cells[k] = payCell{median(v), len(v)}
	}
	for k, v := range fc {
		t.fc[k] = payCell{median(v), len(v)}
	}
	ratios := map[string][]float64{}
	for _, s := range samples {
		if c := t.fc[payKey{s.function, s.country, ""}]; c.samples >= MinSalarySamples && c.median > 0 {
			ratios[s.seniority] = append(ratios[s.seniority], s.figure/c.median)
		}
	}
	for sen, v := range ratios {
		if len(v) >= MinSalarySamples {
			t.factor[sen] = median(v)
		}
	}
	return t
}

// median sorts v and returns its median.
func median(v []float64) float64 {
	sort.Float64s(v)
	m := v[len(v)/2]
	if len(v)%2 == 0 {
		m = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return m
}

// estimate is the estimate for a req of function and country whose title says seniority.
func (t payTable) estimate(function, country, seniority string) (SalaryEstimate, bool) {
	if function == "" || country == "" {
		return SalaryEstimate{}, false
	}
	if c, ok := t.cells[payKey{function, country, seniority}]; ok && c.samples >= MinSalarySamples {
		return SalaryEstimate{MedianUSD: math.Round(c.median), Samples: c.samples, Basis: BasisFunctionCountrySeniority, Seniority: seniority}, true
	}
	c, ok := t.fc[payKey{function, country, ""}]
	if !ok || c.samples < MinSalarySamples {
		return SalaryEstimate{}, false
	}
	if f, ok := t.factor[seniority]; ok {
		return SalaryEstimate{MedianUSD: math.Round(c.median * f), Samples: c.samples, Basis: BasisFunctionCountryScaled, Seniority: seniority}, true
	}
	return SalaryEstimate{MedianUSD: math.Round(c.median), Samples: c.samples, Basis: BasisFunctionCountry, Seniority: seniority}, true
}

// SalaryEstimate returns the req's inferred salary (whether or not it declared one) when enough
// declared salaries back it.
func (x *Index) SalaryEstimate(r *Req) (SalaryEstimate, bool) {
	return x.pay.estimate(r.Function(), r.Country(), r.Title.Seniority)
}

// EstimateFor is SalaryEstimate for a req this index does not hold (a company read's closed req):
// its function, country and raw title.
func (x *Index) EstimateFor(function, country, rawTitle string) (SalaryEstimate, bool) {
	if x == nil {
		return SalaryEstimate{}, false
	}
	return x.pay.estimate(function, country, SeniorityOf(rawTitle))
}

// SeniorityOf is the seniority a raw title names ("" when none), as reqs/qualified serves it.
func SeniorityOf(rawTitle string) string {
	t := Title{Raw: rawTitle}
	deriveTitle(&t)
	return t.Seniority
}

// Salary is the one salary served for r: declared when published, else estimated, else none.
func (x *Index) Salary(r *Req) Salary {
	if lo, hi := r.DeclaredSalary(); lo != nil || hi != nil {
		return Salary{Kind: SalaryDeclared, MinUSD: lo, MaxUSD: hi}
	}
	if e, ok := x.SalaryEstimate(r); ok {
		return Salary{Kind: SalaryEstimated, Estimate: e}
	}
	return Salary{}
}

// SalaryFigure is the one yearly-USD figure a pay band brackets: the declared salary (midpoint of
// a declared range) when present, else the estimate.
func (x *Index) SalaryFigure(r *Req) (figure float64, basis string, ok bool) {
	if f, ok := r.declaredFigure(); ok {
		return f, "declared", true
	}
	if e, ok := x.SalaryEstimate(r); ok {
		return e.MedianUSD, "inferred", true
	}
	return 0, "", false
}
