package searchindex

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
)

// syntheticAt is the cycle time of the synthetic indexes.
var syntheticAt = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

var syntheticTitles = []string{"Senior Backend Engineer", "Account Executive", "Data Scientist (m/w/d)", "VP of Sales",
	"Frontend Developer - Berlin", "Product Manager", "Recruiter", "Staff Site Reliability Engineer", "Sr. Accountant", "Werkstudent Marketing"}

var syntheticCountries = []string{"Germany", "United States", "France", ""}

var syntheticFunctions = []string{"fn_7k2q", "fn_s2kv", "fn_m7lx", "fn_p3gh", ""}

var (
	syntheticTechs      = [][]string{{"go", "postgresql"}, {"salesforce"}, {"python", "sql", "spark"}, nil, {"react", "typescript"}}
	syntheticWorkplaces = []string{"remote", "hybrid", "onsite", ""}
	syntheticEmployment = []string{"full_time", "full_time", "part_time", "contract", "", "internship"}
)

// syntheticFacts are the posting facts of synthetic req n: its title's seniority, technologies,
// workplace and employment types cycling (some not stated), a remote role open to Germany.
func syntheticFacts(n int, title string) analytics.Facts {
	f := analytics.Facts{Seniority: normalize.TitleSeniority(title), WorkplaceType: syntheticWorkplaces[n%len(syntheticWorkplaces)],
		EmploymentType: syntheticEmployment[n%len(syntheticEmployment)], DescriptionHash: uint64(n + 1)}
	for i, t := range syntheticTechs[n%len(syntheticTechs)] {
		f.Technologies = append(f.Technologies, t)
		f.TechKinds = append(f.TechKinds, uint8(i%3))
	}
	if f.WorkplaceType == "remote" {
		f.RemoteCountries = []string{"Germany"}
		if n%2 == 0 {
			f.RemoteRegions = []string{"emea", "europe"}
		}
	}
	return f
}

// synthetic builds an index of companies × perCompany reqs without ClickHouse: company ids
// 1000, 2000, ..., titles, countries and functions cycling, every fifth req closed recently.
func synthetic(tb testing.TB, companies, perCompany int) *Index {
	tb.Helper()
	var cos []analytics.Company
	for c := range companies {
		cos = append(cos, analytics.Company{CompanyID: uint64(c+1) * 1000, Domain: fmt.Sprintf("co%d.example", c), Name: fmt.Sprintf("Co %d", c),
			HQCountry: syntheticCountries[c%len(syntheticCountries)], Industry: "Software", HeadcountBand: "51-200"})
	}
	b := NewBuilder(uint64(companies*perCompany), syntheticAt, cos)
	seq := uint64(0)
	for i := range perCompany {
		for c := range companies {
			seq++
			n := c*perCompany + i
			min, max := 50000.0+float64(n%7)*10000, 90000.0+float64(n%7)*10000
			r := &analytics.LedgerReq{OpenSeq: seq, SalaryDeclared: n%3 == 0, Req: analytics.Req{
				ReqKey: fmt.Sprintf("%016x", n), CompanyID: uint64(c+1) * 1000, EventType: analytics.EventOpened,
				RawTitle: syntheticTitles[n%len(syntheticTitles)], Function: syntheticFunctions[n%len(syntheticFunctions)],
				Country: syntheticCountries[n%len(syntheticCountries)], SourceType: "board", Board: "indeed",
				FirstSeen: syntheticAt.Add(-time.Duration(n%200) * time.Hour), LastEventAt: syntheticAt.Add(-time.Duration(n%50) * time.Hour)}}
			if n%5 == 4 {
				r.EventType = analytics.EventClosed
			}
			r.Facts = syntheticFacts(n, r.RawTitle)
			if r.SalaryDeclared {
				r.SalaryMinUSD, r.SalaryMaxUSD = &min, &max
			}
			r.Boards, r.AnyBoards = []string{"indeed"}, []string{"indeed", "linkedin"}
			b.Add(r)
		}
	}
	x := b.Build(nil)
	require.Equal(tb, companies, len(x.companies))
	return x
}

// The company.company_id values are a set looked up once per req: asking for 1,000 companies
// costs about what asking for one does. Compared value by value with every req, 120,000 values
// took 0.76 s on a 2,000-company world.
func TestQualifiedCompanyIDsAreOneLookupPerReq(t *testing.T) {
	// Not parallel: it compares two timings, which tests running beside it would skew.
	x := synthetic(t, 2000, 20)
	one := []uint64{7} // no such company: every req is examined
	many := make([]uint64, 1000)
	for i := range many {
		many[i] = uint64(i*1000 + 7)
	}
	run := func(ids []uint64) time.Duration {
		best := time.Duration(1 << 62)
		for range 5 {
			t0 := time.Now()
			page := x.Qualified(QualifiedQuery{CompanyIDs: ids, Limit: 100, Filter: Filter{IncludeClosed: true}})
			best = min(best, time.Since(t0))
			require.Empty(t, page.Rows)
		}
		return best
	}
	t1, tMany := run(one), run(many)
	require.Less(t, tMany, 4*t1+2*time.Millisecond, "1 id: %v, 1,000 ids: %v", t1, tMany)

	// And the set selects exactly the companies asked for.
	page := x.Qualified(QualifiedQuery{CompanyIDs: []uint64{3000, 1_999_000, 5}, Limit: 1000})
	require.NotEmpty(t, page.Rows)
	for _, r := range page.Rows {
		require.Contains(t, []uint64{3000, 1_999_000}, r.CompanyID)
	}
}
