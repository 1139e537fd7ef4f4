package normalize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Every variant in a group must share one key, and the groups must differ.
func TestTitleKeyVariantsCollapse(t *testing.T) {
	t.Parallel()
	groups := []struct {
		key      string
		variants []string
	}{
		{"senior software engineer", []string{
			"Senior Software Engineer",
			"senior software engineer",
			"SENIOR SOFTWARE ENGINEER",
			"Sr. Software Engineer",
			"Sr Software Engineer",
			"Snr Software Engineer",
			"Senior Software Eng.",
			"Sr. Software Engr",
			"  Senior   Software\tEngineer  ",
			"Senior Software Engineer (m/w/d)",
			"Senior Software Engineer (m/f/d)",
			"Senior Software Engineer (f/m/x)",
			"Senior Software Engineer (w/m/d)",
			"Senior Software Engineer (all genders)",
			"Senior Software Engineer (h/f)",
			"Senior Software Engineer m/f/d",
			"Senior Software Engineer - m/w/d",
			"Senior Software Engineer (M/W/D)",
			"Senior Software Engineer (gn)",
			"Senior Software Engineer - Berlin",
			"Senior Software Engineer – Remote",
			"Senior Software Engineer — Remote",
			"Senior Software Engineer, London",
			"Senior Software Engineer (Remote)",
			"Senior Software Engineer | Hybrid",
			"Senior Software Engineer - Onsite",
			"Senior Software Engineer - On-site",
			"Senior Software Engineer - Berlin, Germany",
			"Senior Software Engineer - Berlin, DE",
			"Senior Software Engineer, London, GB",
			"Senior Software Engineer - Remote (US)",
			"Senior Software Engineer - Remote, US",
			"Senior Software Engineer - USA",
			"Senior Software Engineer - U.S.",
			"Senior Software Engineer (Remote - EMEA)",
			"Senior Software Engineer - Berlin or Remote",
			"Senior Software Engineer - New York, NY",
			"Senior Software Engineer - San Francisco Bay Area",
			"Senior Software Engineer (m/w/d) - Berlin",
			"Senior Software Engineer - Berlin (m/w/d)",
			"Sr. Software Eng. (m/w/d) – München",
			"Senior Software Engineer in Berlin",
			"Senior Software Engineer (Berlin, m/w/d)",
			"Senior Software-Engineer",
			"Senior Software Engineer.",
		}},
		{"junior developer", []string{"Junior Developer", "Jr. Developer", "Jr Dev", "Jnr Developer", "junior dev (m/w/d)"}},
		{"sales manager", []string{"Sales Manager", "Sales Mgr", "Sales Manager - Berlin", "Sales Manager (Berlin)", "SALES MANAGER, PARIS"}},
		{"vice president of engineering", []string{"VP of Engineering", "Vice President of Engineering", "VP of Eng", "V.P. of Engineering"}},
		{"director product", []string{"Dir. Product", "Director, Product", "Director - Product", "Director Product"}},
		{"associate product manager", []string{"Assoc. Product Manager", "Associate Product Manager", "Assoc Product Mgr"}},
		{"research and development engineer", []string{"Research & Development Engineer", "Research and Development Engineer", "Research &amp; Development Engineer"}},
		{"frontend developer", []string{"Frontend Developer", "Front-End Developer", "Front End Developer", "Front-end Dev"}},
		{"backend engineer", []string{"Backend Engineer", "Back-End Engineer", "Back End Engineer", "Backend Eng."}},
		{"entwickler backend", []string{"Entwickler*in Backend", "Entwickler:in Backend", "Entwickler Backend (w/m/d)", "Entwickler_in Backend"}},
		{"business development manager", []string{"Business Development Manager", "Business Dev Mgr", "Business Dev. Manager"}},
		{"cpp developer", []string{"C++ Developer", "c++ developer (m/f/d)"}},
	}
	keys := map[string]string{}
	for _, g := range groups {
		for _, v := range g.variants {
			require.Equal(t, g.key, TitleKey(v), "variant %q", v)
		}
		if other, dup := keys[g.key]; dup {
			t.Fatalf("groups %q and %q share a key", other, g.key)
		}
		keys[g.key] = g.variants[0]
	}
}

// Different roles must keep different keys.
func TestTitleKeyNearMissesStayApart(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{"Senior Engineer", "Engineer"},
		{"Engineer II", "Engineer III"},
		{"Engineer I", "Engineer II"},
		{"Backend Engineer", "Frontend Engineer"},
		{"Product Manager", "Product Marketing Manager"},
		{"Junior Developer", "Senior Developer"},
		{"Staff Engineer", "Principal Engineer"},
		{"Engineering Manager", "Engineer"},
		{"C++ Developer", "C# Developer"},
		{"C++ Developer", "C Developer"},
		{"Engineer - AI", "Engineer"},
		{"Manager, HR", "Manager"},
		{"Engineer - IT", "Engineer"},
		{"Engineer - ML", "Engineer"},
		{"Senior Engineer, Payments", "Senior Engineer"},
		{"Software Engineer in Test", "Software Engineer"},
		{"Account Executive", "Account Manager"},
		{"Sales Manager", "Sales Manager II"},
		{"Data Engineer", "Data Analyst"},
		{"Software Engineer, Backend", "Software Engineer, Frontend"},
		{"H/W Engineer", "Engineer"},
	}
	for _, p := range pairs {
		require.NotEqual(t, TitleKey(p[0]), TitleKey(p[1]), "%q vs %q", p[0], p[1])
	}
	require.Equal(t, TitleKey("Sales Manager"), TitleKey("Sales Manager - Berlin"))
}

func TestTitleKeyEdges(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"":                                   "",
		"   ":                                "",
		"(m/w/d)":                            "",
		"Remote":                             "remote", // the first part of a title is never a location suffix
		"Berlin":                             "berlin",
		"Head of R&D":                        "head of r and d",
		".NET Developer":                     "dotnet developer",
		"C# Engineer":                        "csharp engineer",
		"Engineer - AI":                      "engineer ai",
		"Manager, HR":                        "manager hr",
		"Engineer - ML, Remote":              "engineer ml",
		"Développeur Backend H/F":            "developpeur backend",
		"Sales Manager DACH":                 "sales manager dach", // no separator: kept
		"Senior Engineer, Payments - Remote": "senior engineer payments",
		"VP Sales":                           "vice president sales",
		"SVP, Marketing":                     "senior vice president marketing",
		"Node.js Developer":                  "node developer",
		"NodeJS Developer":                   "node developer",
		"DevOps Engineer":                    "devops engineer",
		"Dev Ops Engineer":                   "devops engineer",
		"Director of Eng.":                   "director of engineering",
		"Eng Manager":                        "engineering manager",
	}
	for in, want := range cases {
		require.Equal(t, want, TitleKey(in), in)
	}
}

func TestCleanTitle(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"Senior Software Engineer":                 "Senior Software Engineer",
		"  Senior   Software  Engineer ":           "Senior Software Engineer",
		"Sr. Software Eng. (m/w/d) - Berlin":       "Sr. Software Eng.",
		"Senior Backend Engineer (f/m/x) – Remote": "Senior Backend Engineer",
		"Sales Manager, London":                    "Sales Manager",
		"Product Manager (Remote)":                 "Product Manager",
		"Engineer | Hybrid":                        "Engineer",
		"Account Executive - New York, NY":         "Account Executive",
		"Engineer - AI":                            "Engineer - AI",
		"Senior Engineer, Payments - Remote":       "Senior Engineer, Payments",
		"Entwickler*in Backend (all genders)":      "Entwickler Backend",
		"Engineer m/f/d":                           "Engineer",
		"Sales Manager in Berlin":                  "Sales Manager",
		"Sales Manager (Berlin) (m/w/d)":           "Sales Manager",
		"Software Engineer (m/w/d) Backend":        "Software Engineer Backend",
		"(m/w/d)":                                  "",
		"":                                         "",
		"Head of R&D":                              "Head of R&D",
		"C++ Developer - Remote":                   "C++ Developer",
		"Développeur Backend H/F - Paris":          "Développeur Backend",
		"Senior Software Engineer (Remote, US)":    "Senior Software Engineer",
		"Engineer\u00a0- Berlin":                   "Engineer",
		"Data Scientist [Remote]":                  "Data Scientist",
		"R&amp;D Engineer - Berlin":                "R&D Engineer",
	}
	for in, want := range cases {
		require.Equal(t, want, CleanTitle(in), in)
	}
}

func TestTitleTablesFolded(t *testing.T) {
	t.Parallel()
	for k := range abbreviations {
		require.Equal(t, lexKey(k), k)
	}
	for k := range compounds {
		require.Equal(t, lexKey(k), k)
	}
	for k := range genderWords {
		require.Equal(t, lexKey(k), k)
	}
}
