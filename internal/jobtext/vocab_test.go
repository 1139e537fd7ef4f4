package jobtext

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The vocabulary's rows are well formed, and no alias belongs to two rows.
func TestVocabularyIsConsistent(t *testing.T) {
	t.Parallel()
	cats := []string{CatLanguage, CatFramework, CatDataStore, CatCloud, CatDevOps, CatDataML, CatAnalytics, CatCRM,
		CatCMS, CatDesign, CatProductivity, CatTesting, CatMobile, CatSecurity, CatFinance, CatHR, CatInfra, CatHardware}
	slugRE := regexp.MustCompile(`^[a-z0-9][a-z0-9_]*$`)
	require.GreaterOrEqual(t, len(vocabulary), 300, "a few hundred technologies")
	slugs := map[string]bool{}
	owner := map[string]string{} // folded alias key → slug
	for _, v := range vocabulary {
		require.Regexp(t, slugRE, v.Slug)
		require.False(t, slugs[v.Slug], "slug %s twice", v.Slug)
		slugs[v.Slug] = true
		require.NotEmpty(t, v.Name, v.Slug)
		require.Contains(t, cats, v.Category, v.Slug)
		for _, alias := range strings.Split(v.aliases, "|") {
			require.Equal(t, strings.TrimSpace(alias), alias, "%s: alias %q has spaces around it", v.Slug, alias)
			require.NotEmpty(t, alias, v.Slug)
			d := lexDoc("", strings.TrimLeft(alias, "=~"))
			require.Len(t, d.lines, 1, "%s: alias %q", v.Slug, alias)
			require.LessOrEqual(t, len(d.words), maxWords, "%s: alias %q", v.Slug, alias)
			if o, ok := owner[d.low]; ok && o != v.Slug {
				t.Errorf("alias %q of %s is also an alias of %s", alias, v.Slug, o)
			}
			owner[d.low] = v.Slug
		}
		got, ok := Lookup(v.Slug)
		require.True(t, ok)
		require.Equal(t, v, got)
	}
	_, ok := Lookup("cobol-2")
	require.False(t, ok)
	all := Vocabulary()
	all[0].Slug = "changed"
	require.Equal(t, "python", vocabulary[0].Slug, "Vocabulary returns a copy")
}

// Every technology is found by its display name in a list of technologies, whatever its aliases'
// modes.
func TestEveryNameIsFound(t *testing.T) {
	t.Parallel()
	for _, v := range vocabulary {
		text := "Experience with Kafka, " + v.Name + " and SQL."
		got := Derive("", text).Technologies
		if !slices.ContainsFunc(got, func(x Technology) bool { return x.Slug == v.Slug }) {
			t.Errorf("%s: %q found %v", v.Slug, text, got)
		}
	}
}
