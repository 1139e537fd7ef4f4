package searchindex

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
)

// payIndex indexes, at one company in Germany, declared ranges for six Junior and six Principal
// Data Engineers and six Senior Accountants, plus the undeclared reqs whose estimates the test reads.
func payIndex(t *testing.T) *Index {
	t.Helper()
	b := NewBuilder(100, syntheticAt, []analytics.Company{{CompanyID: 1, Name: "Co", Domain: "co.example"}})
	n := 0
	add := func(title, function string, lo, hi float64) {
		n++
		r := &analytics.LedgerReq{OpenSeq: uint64(n), Req: analytics.Req{ReqKey: fmt.Sprintf("%016x", n), CompanyID: 1,
			EventType: analytics.EventOpened, RawTitle: title, Function: function, Country: "Germany", SourceType: "board",
			Board: "indeed", FirstSeen: syntheticAt, LastEventAt: syntheticAt}}
		if lo > 0 {
			r.SalaryDeclared, r.SalaryMinUSD, r.SalaryMaxUSD = true, &lo, &hi
		}
		b.Add(r)
	}
	for i := range 6 {
		step := float64(i) * 2000
		add("Junior Data Engineer", "fn_d4ta", 55000+step, 65000+step)
		add("Principal Data Engineer", "fn_d4ta", 140000+step, 160000+step)
		add("Senior Accountant", "fn_f1na", 70000+step, 80000+step)
	}
	add("Junior Data Engineer (m/w/d)", "fn_d4ta", 0, 0)
	add("Principal Data Engineer", "fn_d4ta", 0, 0)
	add("Staff Data Engineer", "fn_d4ta", 0, 0)
	add("Data Engineer", "fn_d4ta", 0, 0)
	return b.Build(nil)
}

// Estimates are per seniority, kind estimated, and never a declared range: every Junior to
// Principal Data Engineer in Germany was once estimated at one figure, written into both declared
// range fields.
func TestSalaryEstimatesFollowSeniority(t *testing.T) {
	t.Parallel()
	x := payIndex(t)
	salary := func(n int) Salary {
		r, ok := x.Lookup(1, fmt.Sprintf("%016x", n))
		require.True(t, ok)
		return x.Salary(r)
	}
	junior, principal, staff, plain := salary(19), salary(20), salary(21), salary(22)
	for _, s := range []Salary{junior, principal, staff, plain} {
		require.Equal(t, SalaryEstimated, s.Kind)
		require.Nil(t, s.MinUSD, "an estimate is never a declared bound")
		require.Nil(t, s.MaxUSD)
	}
	require.Equal(t, BasisFunctionCountrySeniority, junior.Estimate.Basis)
	require.Equal(t, 6, junior.Estimate.Samples)
	require.Equal(t, "junior", junior.Estimate.Seniority)
	require.Equal(t, 65000.0, junior.Estimate.MedianUSD)
	require.Equal(t, 155000.0, principal.Estimate.MedianUSD)
	require.Less(t, junior.Estimate.MedianUSD*2, principal.Estimate.MedianUSD, "Junior and Principal estimates differ")
	// No staff salary was declared and no staff factor is known: the function-and-country median,
	// labelled so.
	require.Equal(t, BasisFunctionCountry, staff.Estimate.Basis)
	require.Equal(t, 12, staff.Estimate.Samples)
	require.Equal(t, "staff", staff.Estimate.Seniority)
	require.Equal(t, "", plain.Estimate.Seniority)

	declared := salary(1)
	require.Equal(t, SalaryDeclared, declared.Kind)
	require.Equal(t, 55000.0, *declared.MinUSD)
	require.Equal(t, 65000.0, *declared.MaxUSD)
}

// A seniority without a cell of its own in a function and country is scaled by how it is paid
// against function-and-country medians elsewhere in the corpus.
func TestSalaryEstimateScalesBySeniorityAcrossTheCorpus(t *testing.T) {
	t.Parallel()
	samples := []paySample{}
	for i := range 6 {
		f := float64(i) * 1000
		samples = append(samples,
			paySample{"fn_a", "Germany", "", 100000 + f}, paySample{"fn_a", "Germany", "senior", 130000 + f},
			paySample{"fn_b", "France", "", 50000 + f})
	}
	p := newPayTable(samples)
	e, ok := p.estimate("fn_b", "France", "senior")
	require.True(t, ok)
	require.Equal(t, BasisFunctionCountryScaled, e.Basis)
	require.Greater(t, e.MedianUSD, 52500.0*1.1, "a senior estimate in France is scaled up from its function's median")
	_, ok = p.estimate("fn_b", "Spain", "senior")
	require.False(t, ok, "too few declared salaries: no estimate")
}
