package normalize

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

var fuzzSeeds = []string{
	"", " ", "(", ")", "((", "))(", "&", "&amp;", "&#", "&#39;", ".", ".NET", "c++", "C#", "a.b.c.",
	"U.S.", "Sr. Software Eng. (m/w/d) - Berlin", "Engineer – Remote – EMEA", "m/f/d", "*in", ":in",
	"Entwickler*in", "(m/w/d", "Engineer - ", " - Berlin", "Berlin, ", ", , ,", "Acme GmbH & Co. KG",
	"Ｅｎｇｉｎｅｅｒ", "İstanbul", "ß", "\xff\xfe", "Engineer\u00a0-\u00a0Berlin", "S.à r.l.",
}

// The rules must never panic, must return valid UTF-8, and must survive
// inputs far beyond the lexer's capacity.
func FuzzNormalize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		key := TitleKey(s)
		clean := CleanTitle(s)
		if utf8.ValidString(s) {
			require.True(t, utf8.ValidString(key), "%q", key)
			require.True(t, utf8.ValidString(clean), "%q", clean)
		}
		require.Equal(t, strings.TrimSpace(key), key)
		require.NotContains(t, key, "  ")
		_, _ = Classify(s)
		_ = CompanyKey(s)
		_, _ = StripLegalSuffix(s)
		_ = DomainKey(s)
		_, _ = CountryName(s)
		_, _ = CountryFromLocation(s)
		_ = Tokens(s)
		_ = AgencyKind(s, s)
	})
}

func TestLongInputs(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Senior Software Engineer ", 200) + "- Berlin"
	require.NotPanics(t, func() {
		require.True(t, strings.HasPrefix(TitleKey(long), "senior software engineer senior"))
		_ = CleanTitle(long)
		_, _ = Classify(long)
		_ = CompanyKey(long)
		_, _ = CountryFromLocation(long)
		require.NotEmpty(t, Tokens(long))
	})
	many := strings.Repeat("(x) ", 100) + strings.Repeat(", y", 100)
	require.NotPanics(t, func() {
		_ = TitleKey(many)
		_ = CleanTitle(many)
	})
	wide := strings.Repeat("ä", 1000)
	require.NotPanics(t, func() { _ = TitleKey(wide) })
}

// A clean title keeps the dedup key of its raw title.
func TestCleanTitleKeepsKey(t *testing.T) {
	t.Parallel()
	for _, s := range append(fuzzSeeds,
		"Senior Backend Engineer (f/m/x) – Remote", "Sales Manager, London", "Engineer - AI",
		"Entwickler*in Backend (all genders)", "Senior Engineer, Payments - Remote", "Sales Manager in Berlin",
		"Account Executive - New York, NY", "Sales Manager (Berlin) (m/w/d)") {
		require.Equal(t, TitleKey(s), TitleKey(CleanTitle(s)), "%q → %q", s, CleanTitle(s))
	}
}
