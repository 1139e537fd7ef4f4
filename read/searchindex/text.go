package searchindex

import (
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// Seniorities is the seniority vocabulary derived from titles (req.seniority of reqs/qualified),
// most junior first.
var Seniorities = []string{"intern", "junior", "mid", "senior", "staff", "principal", "lead", "manager", "director", "vp", "executive"}

// seniorityWords maps a title token to a seniority; the most senior word of a title wins.
var seniorityWords = map[string]string{
	"intern": "intern", "internship": "intern", "trainee": "intern", "apprentice": "intern", "werkstudent": "intern",
	"junior": "junior", "jr": "junior", "graduate": "junior", "entry": "junior", "associate": "junior",
	"mid": "mid", "intermediate": "mid",
	"senior": "senior", "sr": "senior", "experienced": "senior",
	"staff":     "staff",
	"principal": "principal", "distinguished": "principal",
	"lead": "lead", "head": "director",
	"manager": "manager", "management": "manager",
	"director": "director",
	"vp":       "vp", "vice": "vp", "svp": "vp", "evp": "vp",
	"chief": "executive", "cto": "executive", "ceo": "executive", "cfo": "executive", "coo": "executive", "cmo": "executive", "cio": "executive", "ciso": "executive",
}

func seniorityRank(s string) int {
	for i, v := range Seniorities {
		if v == s {
			return i
		}
	}
	return -1
}

// skillWords is the skill lexicon matched against title tokens (reqs/qualified skills).
var skillWords = map[string]bool{
	"go": true, "golang": true, "python": true, "java": true, "javascript": true, "typescript": true, "rust": true,
	"ruby": true, "rails": true, "php": true, "scala": true, "kotlin": true, "swift": true, "c": true, "c++": true, "cpp": true,
	"csharp": true, "c#": true, ".net": true, "dotnet": true, "node": true, "nodejs": true, "react": true, "angular": true,
	"vue": true, "ios": true, "android": true, "sql": true, "postgres": true, "postgresql": true, "mysql": true,
	"kubernetes": true, "k8s": true, "docker": true, "terraform": true, "aws": true, "azure": true, "gcp": true,
	"linux": true, "spark": true, "kafka": true, "hadoop": true, "airflow": true, "dbt": true, "snowflake": true,
	"tableau": true, "excel": true, "salesforce": true, "hubspot": true, "sap": true, "figma": true, "seo": true,
	"sem": true, "ml": true, "ai": true, "llm": true, "nlp": true, "devops": true, "sre": true, "embedded": true,
	"fpga": true, "qa": true, "selenium": true, "cybersecurity": true, "security": true, "cloud": true, "data": true,
	"frontend": true, "backend": true, "fullstack": true, "mobile": true, "payroll": true, "accounting": true, "gaap": true,
}

// deriveTitle fills the title's derived fields.
func deriveTitle(t *Title) {
	toks := normalize.Tokens(t.Raw)
	t.words = len(toks)
	best := -1
	seen := map[string]bool{}
	for _, tok := range toks {
		if s, ok := seniorityWords[tok]; ok {
			if r := seniorityRank(s); r > best {
				best = r
			}
		}
		if skillWords[tok] && !seen[tok] {
			seen[tok] = true
			t.Skills = append(t.Skills, tok)
		}
	}
	if best >= 0 {
		t.Seniority = Seniorities[best]
	}
	if t.Skills == nil {
		t.Skills = []string{}
	}
}

// jobFamilies names the sub-family of each taxonomy id (reqs/qualified job_family); ids outside
// the map have none.
var jobFamilies = map[string]string{
	"fn_7k2q": "software_engineering", "fn_b3xw": "backend_engineering", "fn_f9m1": "frontend_engineering",
	"fn_m4pz": "mobile_engineering", "fn_i8vc": "infrastructure_engineering", "fn_h2ne": "hardware_engineering",
	"fn_q5ta": "quality_engineering", "fn_d6rj": "data_analytics", "fn_m7lx": "data_science_ml", "fn_p3gh": "product",
	"fn_g8ds": "design", "fn_s2kv": "account_executive", "fn_s9dr": "sales_development", "fn_s4pe": "sales_engineering",
	"fn_k5mc": "marketing", "fn_c1uw": "customer_success", "fn_u6sp": "support", "fn_n4fa": "finance", "fn_l7gq": "legal",
	"fn_r3tq": "recruiting", "fn_e9hp": "hr", "fn_o2bx": "operations", "fn_t5iy": "it", "fn_y8sc": "security",
}

// JobFamily returns the job family of a taxonomy id ("" when it has none).
func JobFamily(function string) string { return jobFamilies[function] }

// Remote reports whether the req is remote: its posting's workplace type when it states one,
// else its location or title saying so.
func (r *Req) Remote() bool {
	if w := vocabOf(normalize.WorkplaceTypes, r.facts.work); w != "" {
		return w == normalize.Remote
	}
	return strings.Contains(strings.ToLower(r.Location()), "remote") || strings.Contains(strings.ToLower(r.Title.Raw), "remote")
}
