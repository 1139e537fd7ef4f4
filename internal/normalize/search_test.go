package normalize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"Sr. Software Eng.":             {"senior", "software", "engineer"},
		"VP, Sales & Marketing":         {"vice", "president", "sales", "and", "marketing"},
		"Front-End Developer (m/w/d)":   {"frontend", "developer", "m", "w", "d"},
		"Data/ML Engineer":              {"data", "ml", "engineer"},
		"  ":                            nil,
		"":                              nil,
		"Engineer – Berlin":             {"engineer", "berlin"},
		"C++ / C# Dev":                  {"cpp", "csharp", "developer"},
		"Zürich-based Développeur":      {"zurich", "based", "developpeur"},
		"Women's Health Product Mgr II": {"womens", "health", "product", "manager", "ii"},
	}
	for in, want := range cases {
		require.Equal(t, want, Tokens(in), in)
	}
}

func TestStemsInflections(t *testing.T) {
	t.Parallel()
	groups := [][]string{
		{"engineer", "engineers", "engineering", "Engineer", "ENGINEERS"},
		{"manager", "managers", "managing"},
		{"developer", "developers"},
		{"analyst", "analysts"},
		{"designer", "designers"},
		{"recruiter", "recruiters", "recruiting"},
		{"sales", "sale"},
	}
	for _, g := range groups {
		want := Stems(g[0])
		require.Len(t, want, 1)
		for _, w := range g[1:] {
			require.Equal(t, want, Stems(w), "%q vs %q", g[0], w)
		}
	}
	require.NotEqual(t, Stems("engineer"), Stems("manager"))
	require.Equal(t, []string{"senior", "softwar", "engin"}, Stems("Sr. Software Eng."))
}

func TestMatchAll(t *testing.T) {
	t.Parallel()
	title := Stems("Senior Software Engineers - Platform Team (m/w/d)")
	cases := map[string]bool{
		"engineer":                 true,
		"software engineering":     true,
		"engineers senior":         true,
		"platform":                 true,
		"Sr engineer":              true,
		"engineer manager":         false,
		"backend engineer":         false,
		"":                         true,
		"senior software engineer": true,
	}
	for q, want := range cases {
		require.Equal(t, want, MatchAll(Stems(q), title), q)
	}
	require.True(t, MatchAll(Stems("managing director"), Stems("Managing Directors")))
	require.True(t, MatchAll(Stems("developers"), Stems("Lead Developer")))
}

func TestExpand(t *testing.T) {
	t.Parallel()
	require.Contains(t, Expand("developer"), "engineer")
	require.Contains(t, Expand("engineer"), "developer")
	require.Contains(t, Expand("SWE"), "software engineer")
	require.Contains(t, Expand("pm"), "product manager")
	require.Contains(t, Expand("ml"), "machine learning")
	require.ElementsMatch(t, []string{"front-end", "front end"}, Expand("frontend"))
	require.ElementsMatch(t, []string{"frontend", "front end"}, Expand("front-end"))
	require.ElementsMatch(t, []string{"frontend", "front-end"}, Expand("Front  End"))
	require.Contains(t, Expand("devops"), "site reliability")
	require.Contains(t, Expand("site reliability"), "devops")
	require.Nil(t, Expand("banana"))
	require.Nil(t, Expand(""))
	require.Less(t, ExpansionWeight, 1.0)
	for term, exp := range synonyms {
		require.NotContains(t, exp, term, "a term never expands to itself")
	}
	e := Expand("developer")
	e[0] = "x"
	require.NotContains(t, Expand("developer"), "x")
}
