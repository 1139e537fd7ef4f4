package normalize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A title's seniority is its most senior seniority word, abbreviations expanded; a title that
// names none has none.
func TestTitleSeniority(t *testing.T) {
	t.Parallel()
	for title, want := range map[string]string{
		"Senior Software Engineer":          "senior",
		"Sr. Backend Eng. (m/w/d) - Berlin": "senior",
		"Junior Data Analyst":               "junior",
		"Software Engineering Intern":       "intern",
		"Werkstudent Marketing (m/w/d)":     "intern",
		"Staff Engineer":                    "staff",
		"Principal Product Designer":        "principal",
		"Tech Lead, Payments":               "lead",
		"Engineering Manager":               "manager",
		"Head of Sales":                     "director",
		"Associate Director, Finance":       "director",
		"VP of Engineering":                 "vp",
		"SVP Sales":                         "vp",
		"Chief Technology Officer":          "executive",
		"CTO":                               "executive",
		"Software Engineer":                 "",
		"Mid-Market Account Executive":      "",
		"Senior Living Sales Director":      "director",
		"Data Entry Clerk":                  "",
		"Mid-level Data Analyst":            "mid",
		"Account Executive":                 "",
		"":                                  "",
	} {
		require.Equal(t, want, TitleSeniority(title), title)
	}
}

// The vocabulary is ordered and every word maps into it.
func TestSeniorityVocabulary(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0, SeniorityRank("intern"))
	require.Equal(t, len(Seniorities)-1, SeniorityRank("executive"))
	require.Equal(t, -1, SeniorityRank("wizard"))
	for w, s := range seniorityWords {
		require.GreaterOrEqual(t, SeniorityRank(s), 0, w)
		require.Equal(t, s, SeniorityOfWord(w))
	}
}
