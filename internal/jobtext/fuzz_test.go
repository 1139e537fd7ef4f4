package jobtext

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/stretchr/testify/require"
)

// Seeds of a few hundred bytes at most (docs/decisions.md, "Tests and fuzzing").
var cleanSeeds = []string{
	"", "<", "&", "&lt;", "&lt;p", "&amp;lt;p&amp;gt;x", "<p>a</p><ul><li>b</li></ul>", "<script>x</script>y",
	"<!-- c -->", "<pre>a\nb</pre>", "a\r\nb\r\n\r\nc", "• a\n* b", "\xff\xfe", "<li>", "</li></ul></p>",
	"&lt;div&gt;&lt;p&gt;Tom &amp;amp; Jerry&lt;/p&gt;&lt;/div&gt;", "<table><tr><td>a</td></tr></table>",
	"Ja\u200bva\u00ad", "<p>• Python<br>• Go</p>", "List<T> a < b", "<svg><text>x</text></svg>z",
}

// Clean never panics, returns valid UTF-8 without leading, trailing or repeated whitespace, at
// most max bytes, and a bounded result is a prefix of the unbounded one.
func FuzzClean(f *testing.F) {
	for i, s := range cleanSeeds {
		f.Add(s, i%7*5)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 4096
		full := Clean(s, 0)
		got := Clean(s, max)
		for _, out := range []string{full, got} {
			require.True(t, utf8.ValidString(out), "%q", out)
			require.Equal(t, strings.TrimSpace(out), out)
			require.NotContains(t, out, "  ")
			require.NotContains(t, out, "\n\n\n")
			require.NotContains(t, out, " \n")
			require.NotContains(t, out, "\n ")
			require.NotContains(t, out, "\r")
			require.NotContains(t, out, "\t")
		}
		if max > 0 {
			require.LessOrEqual(t, len(got), max)
			require.True(t, strings.HasPrefix(full, got), "%q is not a prefix of %q", got, full)
		} else {
			require.Equal(t, full, got)
		}
	})
}

var deriveSeeds = [][2]string{
	{"", ""},
	{"Senior Go Engineer - Remote (US)", "Requirements\n- 5+ years with Go\nNice to have\n- Kafka\nSalary: $120,000 - $150,000 per year"},
	{"Werkstudent (m/w/d)", "Teilzeit, 2 Tage Homeoffice, 15 € pro Stunde, mindestens 1 Jahr Erfahrung"},
	{"Stage", "CDI, télétravail partiel, 45 000 € bruts annuels, 3 ans d'expérience, un plus"},
	{"", "Remoto desde España, contrato indefinido, 40.000€ - 50.000€, deseable: AWS"},
	{"", "We cannot sponsor visas. R&D, C-level, Go-to-market, Spring 2026, remote control."},
	{"", "- Go\n- \n- C\n: :\n$ - $ k €60k–5 1.2M 99999999999999999999 €"},
}

// Derive never panics and answers only from its vocabularies.
func FuzzDerive(f *testing.F) {
	for _, s := range deriveSeeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, title, text string) {
		for _, d := range []Derived{Derive(title, text), Derive(title, Clean(text, 4096))} {
			checkDerived(t, d)
		}
	})
}

func checkDerived(t *testing.T, d Derived) {
	slugs := map[string]bool{}
	for _, x := range d.Technologies {
		_, ok := Lookup(x.Slug)
		require.True(t, ok, x.Slug)
		require.False(t, slugs[x.Slug], "twice: %s", x.Slug)
		require.False(t, x.Required && x.NiceToHave, x.Slug)
		slugs[x.Slug] = true
	}
	require.True(t, d.Seniority == "" || slices.Contains(normalize.Seniorities, d.Seniority), d.Seniority)
	require.Contains(t, []string{"", FullTime, PartTime, Contract, Temporary, Internship}, d.EmploymentType)
	require.Contains(t, []string{"", Onsite, Hybrid, Remote}, d.WorkplaceType)
	if d.WorkplaceType != Remote && d.WorkplaceType != Hybrid {
		require.Nil(t, d.RemoteCountries)
		require.Nil(t, d.RemoteRegions)
	}
	require.True(t, slices.IsSorted(d.RemoteCountries))
	for _, c := range d.RemoteCountries {
		n, ok := normalize.CountryName(c)
		require.True(t, ok && n == c, c)
	}
	if d.YearsExperienceMin != nil {
		require.GreaterOrEqual(t, *d.YearsExperienceMin, 0)
		require.LessOrEqual(t, *d.YearsExperienceMin, 30)
	}
	if p := d.Pay; p != nil {
		require.Equal(t, PaySourceText, p.Source)
		require.Len(t, p.Currency, 3)
		require.Contains(t, []string{"", "year", "month", "week", "day", "hour"}, p.Period)
		require.True(t, p.Min > 0 || p.Max > 0)
		require.True(t, p.Min == 0 || p.Max == 0 || p.Min <= p.Max, "%+v", *p)
		require.NotEmpty(t, p.Stated)
	}
}

// htmlSeeds are markup the tokenizer and scanHTML must cut alike: attributes quoted and not,
// "=" first, "/" before ">", upper-case names, "<" that opens nothing, "</>", a tag cut off.
var htmlSeeds = []string{
	`<p class="a>b" id=x>Hi</p>`, `<P>a<BR/>b<Br>c</P>`, `<div =a b='c' d = e/>x</div>`, `<pre a=/>x
y</pre>z`,
	"a < b <1 <<p>c</>d</ p>e</3>", `<ul><li>- a<li>* b</ul>`, `<pre>a` + "\r\n" + `b&#13;c</pre>`, `<p a="x`,
	`<template/>x</template>y`, `<select a=b/>x</select>`, "<li>•</li><li>• x</li>", `<p>&amp;lt;p&gt;&nbsp;&#x1F600;</p>`,
	`<td>a</td><th>b<tr>c`, `<pre/>x<pre a="b"/>y</pre>`, "<p>x</p\n>y<p\ta\fb>z", `<İ>a</İ><P İ=1>b`,
}

// scanHTML writes what the tokenizer writes for every fragment it reads.
func FuzzScanHTML(f *testing.F) {
	for i, s := range append(append([]string{}, cleanSeeds...), htmlSeeds...) {
		f.Add(s, i%5*7)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 4096
		if max < 0 {
			max = -max
		}
		fast := writer{max: max}
		if !fast.scanHTML(s) {
			return
		}
		slow := writer{max: max}
		slow.tokenizeHTML(s)
		require.Equal(t, slow.result(), fast.result(), "%q", s)
	})
}
