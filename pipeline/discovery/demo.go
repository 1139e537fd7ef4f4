package discovery

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// The demo rule: vendors keep demo and sandbox tenants (Lever documents "leverdemo"; Greenhouse's
// API documentation answers for "vaulttec", the board of "Vault-Tec"), and templates of careers
// sites link them. Such a tenant is no company's: a link to one is rejected, whatever the site.

// demoWords are tenant words that name a demo, test or sandbox tenant.
var demoWords = []string{"demo", "test", "testing", "sandbox", "example", "sample", "staging"}

// demoTenant reports whether a tenant names itself a demo: one of its words (split at '-', '_'
// and '.') is a demo word, or starts or ends with "demo" or "sandbox" ("leverdemo").
func demoTenant(tenant string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(tenant), func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if slices.Contains(demoWords, w) {
			return true
		}
		for _, d := range []string{"demo", "sandbox"} {
			if strings.HasPrefix(w, d) || strings.HasSuffix(w, d) {
				return true
			}
		}
	}
	return false
}

// demoCompanies are the company names vendors' demo tenants state.
var demoCompanies = map[string]bool{
	normalize.CompanyKey("Vault-Tec"): true, // Greenhouse's job board API documentation
}

// demoName reports whether a vendor's stated company name is a demo company's: a known one, or a
// name with the word demo, sandbox or example.
func demoName(name string) bool {
	k := normalize.CompanyKey(name)
	if k == "" {
		return false
	}
	if demoCompanies[k] {
		return true
	}
	for _, w := range strings.Fields(k) {
		if w == "demo" || w == "sandbox" || w == "example" {
			return true
		}
	}
	return false
}

// jsonName is the top-level "name" of a JSON object (Greenhouse's board endpoint, Workable's
// account), "" when there is none.
func jsonName(body []byte) string {
	var v struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	return strings.TrimSpace(v.Name)
}
