package ats

import (
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/normalize"
)

func num(v float64) flexNum { return flexNum{V: v, OK: true} }

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func mustParse(t *testing.T, vendor string, body []byte, pageURL string) Page {
	t.Helper()
	a, ok := For(vendor)
	require.True(t, ok, vendor)
	require.Equal(t, vendor, a.Vendor())
	page, err := a.Parse(body, pageURL)
	require.NoError(t, err)
	checkPage(t, page)
	return page
}

func parseErr(t *testing.T, vendor string, body []byte) {
	t.Helper()
	a, _ := For(vendor)
	_, err := a.Parse(body, "http://127.0.0.1:7070/x")
	require.Error(t, err, "body %.60q", body)
}

func bySourceID(t *testing.T, page Page) map[string]Posting {
	t.Helper()
	m := make(map[string]Posting, len(page.Postings))
	for _, p := range page.Postings {
		_, dup := m[p.SourceID]
		require.False(t, dup, "duplicate SourceID %q", p.SourceID)
		m[p.SourceID] = p
	}
	return m
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

var validPeriods = map[string]bool{"year": true, "month": true, "week": true, "day": true, "hour": true}

// checkPage asserts the invariants every Parse result must satisfy; the fuzz targets use it too.
func checkPage(t testing.TB, page Page) {
	t.Helper()
	require.GreaterOrEqual(t, page.Malformed, 0)
	if page.NextURL != "" {
		u, err := url.Parse(page.NextURL)
		require.NoError(t, err, page.NextURL)
		require.True(t, u.IsAbs() && u.Host != "", "NextURL not absolute: %q", page.NextURL)
	}
	for _, p := range page.Postings {
		require.NotEmpty(t, strings.TrimSpace(p.SourceID))
		require.NotEmpty(t, strings.TrimSpace(p.Title))
		require.LessOrEqual(t, len(p.Description), MaxDescription, "description bounded")
		if p.EmploymentType != "" {
			require.Contains(t, normalize.EmploymentTypes, p.EmploymentType)
		}
		if p.WorkplaceType != "" {
			require.Contains(t, normalize.WorkplaceTypes, p.WorkplaceType)
		}
		require.False(t, p.WorkplaceType == normalize.Remote && !p.Remote, "a remote workplace type is Remote")
		if p.Seniority != "" {
			require.GreaterOrEqual(t, normalize.SeniorityRank(p.Seniority), 0, "seniority %q", p.Seniority)
		}
		if y := p.YearsExperienceMin; y != nil {
			require.True(t, *y >= 0 && *y <= 50, "years %d", *y)
		}
		if s := p.Salary; s != nil {
			require.True(t, validPeriods[s.Period], "period %q", s.Period)
			require.False(t, math.IsNaN(s.Min) || math.IsInf(s.Min, 0) || math.IsNaN(s.Max) || math.IsInf(s.Max, 0))
			require.True(t, s.Min >= 0 && s.Max >= 0 && s.Min+s.Max > 0, "%+v", *s)
			require.Equal(t, strings.ToUpper(s.Currency), s.Currency)
		}
	}
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	want := []string{"aggregator", "ashby", "bamboohr", "breezy", "greenhouse", "icims", "jazzhr", "jobvite", "join", "jsonld", "lever", "personio", "pinpoint", "recruitee", "rippling", "smartrecruiters", "teamtailor", "workable", "workday"}
	require.Equal(t, want, Vendors())
	for _, v := range want {
		a, ok := For(v)
		require.True(t, ok)
		require.Equal(t, v, a.Vendor())
	}
	_, ok := For("taleo")
	require.False(t, ok)
}

func TestNormPeriod(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in     string
		period string
		factor float64
	}{
		{"YEAR", "year", 1}, {"1 YEAR", "year", 1}, {"per-year-salary", "year", 1}, {"yearly", "year", 1},
		{"Annual", "year", 1}, {"annually", "year", 1}, {"per annum", "year", 1}, {"P1Y", "year", 1},
		{"MONTH", "month", 1}, {"1 MONTH", "month", 1}, {"per-month-salary", "month", 1}, {"monthly", "month", 1},
		{"semi-month-salary", "month", 2}, {"bi-month-salary", "month", 0.5}, {"6 MONTH", "month", 1.0 / 6},
		{"WEEK", "week", 1}, {"per-week-salary", "week", 1}, {"weekly", "week", 1}, {"bi-week-salary", "week", 0.5},
		{"2 WEEK", "week", 0.5}, {"DAY", "day", 1}, {"per-day-wage", "day", 1}, {"daily", "day", 1},
		{"HOUR", "hour", 1}, {"1 HOUR", "hour", 1}, {"per-hour-wage", "hour", 1}, {"hourly", "hour", 1}, {"PT1H", "hour", 1},
		{" hour ", "hour", 1},
	}
	for _, c := range cases {
		p, f, ok := normPeriod(c.in)
		require.True(t, ok, c.in)
		require.Equal(t, c.period, p, c.in)
		require.InDelta(t, c.factor, f, 1e-9, c.in)
	}
	for _, in := range []string{"", "NONE", "one-time", "0 YEAR", "per-project", "sometimes"} {
		_, _, ok := normPeriod(in)
		require.False(t, ok, in)
	}
}

func TestMakeSalary(t *testing.T) {
	t.Parallel()
	require.Nil(t, makeSalary(flexNum{}, flexNum{}, "", ""), "all blank")
	require.Nil(t, makeSalary(flexNum{}, flexNum{}, "EUR", "year"), "no amounts")
	require.Nil(t, makeSalary(num(0), num(0), "EUR", "year"), "zero amounts")
	require.Nil(t, makeSalary(num(50000), num(60000), "EUR", "one-time"), "unknown period")
	require.Equal(t, &Salary{Min: 50000, Max: 0, Currency: "EUR", Period: "year"}, makeSalary(num(50000), flexNum{}, " eur ", "annual"))
	require.Equal(t, &Salary{Min: 0, Max: 30, Currency: "", Period: "hour"}, makeSalary(num(-1), num(30), "", "HOUR"))
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"2026-01-14T10:55:28-05:00":     "2026-01-14T15:55:28Z",
		"2021-04-30T16:21:55.393+00:00": "2021-04-30T16:21:55.393Z",
		"2014-02-19T19:36:42.346Z":      "2014-02-19T19:36:42.346Z",
		"2026-08-19 09:02:14 UTC":       "2026-08-19T09:02:14Z",
		"2026-01-12":                    "2026-01-12T00:00:00Z",
		"2026-01-06T10:00:00+01:00":     "2026-01-06T09:00:00Z",
		"2026-01-06T10:00:00+0100":      "2026-01-06T09:00:00Z",
		"2026-01-06T10:00:00":           "2026-01-06T10:00:00Z",
		"2026-01-06 10:00:00":           "2026-01-06T10:00:00Z",
		"1767607200000":                 "2026-01-05T10:00:00Z",
		"1767607200":                    "2026-01-05T10:00:00Z",
		" 2026-01-12 ":                  "2026-01-12T00:00:00Z",
	}
	for in, want := range cases {
		require.Equal(t, ts(want), parseTime(in), in)
	}
	for _, in := range []string{"", "last tuesday", "2026/01/09", "0", "-5", "12/01/2026"} {
		require.True(t, parseTime(in).IsZero(), in)
	}
}

func TestFlexTypes(t *testing.T) {
	t.Parallel()
	var n flexNum
	for in, want := range map[string]float64{`85000`: 85000, `"85000"`: 85000, `"85,000.50"`: 85000.5, `" 12 "`: 12, `-3`: -3, `"1e3"`: 1000} {
		require.NoError(t, n.UnmarshalJSON([]byte(in)))
		require.True(t, n.OK, in)
		require.Equal(t, want, n.V, in)
	}
	for _, in := range []string{`null`, `""`, `"  "`, `"abc"`, `"NaN"`, `"Inf"`, `true`, `{}`, `[]`} {
		require.NoError(t, n.UnmarshalJSON([]byte(in)))
		require.False(t, n.OK, in)
	}
	var s flexString
	for in, want := range map[string]string{`"abc"`: "abc", `"a\"b"`: `a"b`, `4012345678901234567`: "4012345678901234567", `null`: "", `{}`: "", `[1]`: "", `true`: ""} {
		require.NoError(t, s.UnmarshalJSON([]byte(in)))
		require.Equal(t, want, string(s), in)
	}
	var tm flexTime
	require.NoError(t, tm.UnmarshalJSON([]byte(`1767607200000`)))
	require.Equal(t, ts("2026-01-05T10:00:00Z"), tm.T)
	require.NoError(t, tm.UnmarshalJSON([]byte(`"garbage"`)))
	require.True(t, tm.T.IsZero())
	var b flexBool
	for in, want := range map[string]bool{`true`: true, `false`: false, `"true"`: true, `"no"`: false, `1`: true, `0`: false, `null`: false} {
		require.NoError(t, b.UnmarshalJSON([]byte(in)))
		require.Equal(t, want, bool(b), in)
	}
}

func TestWithQuery(t *testing.T) {
	t.Parallel()
	require.Equal(t, "http://h/p?a=1&skip=100&limit=100", withQuery("http://h/p?a=1&skip=0&limit=100", "skip", "100"))
	require.Equal(t, "http://h/p?a=1&cursor=x%2By", withQuery("http://h/p?a=1", "cursor", "x+y"))
	require.Equal(t, "http://h/p?cursor=new&b=2", withQuery("http://h/p?cursor=old&b=2&cursor=older", "cursor", "new"))
	require.Equal(t, "", withQuery("/relative?x=1", "cursor", "a"))
	require.Equal(t, "", withQuery("mailto:someone@example.com", "cursor", "a"))
}

func TestHostOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://www.acme.com":            "acme.com",
		"https://www.Acme.com/about?x=1":  "acme.com",
		"acme.com":                        "acme.com",
		"//careers.acme.co.uk/":           "careers.acme.co.uk",
		"http://acme.com:8080/":           "acme.com",
		"":                                "",
		"not a url":                       "",
		"https://localhost/":              "",
		"https://user@evil.example/x y z": "evil.example",
	} {
		require.Equal(t, want, hostOf(in), in)
	}
}
