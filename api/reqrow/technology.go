package reqrow

import (
	"fmt"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// The technographics' shapes, written once like the req row: a technology of the vocabulary, and
// how one company's reqs name a technology (TechnologyUse), which a company's technologies
// (api/companies) and a technology's companies (api/search) both serve.

// VocabularyPath is the route listing the technology vocabulary (api/search serves it): where a
// bad slug's 422 and the documents send a caller to find valid ones.
const VocabularyPath = "/v1/technologies"

// TechnologyTerm is one technology of the vocabulary: its slug (what filters and paths take), its
// display name and its category.
type TechnologyTerm struct {
	Slug     string `json:"slug"`
	Name     string `json:"name"`
	Category string `json:"category"`
}

// TermOf is the served form of a vocabulary row.
func TermOf(t searchindex.TechnologyRow) TechnologyTerm {
	return TechnologyTerm{Slug: t.Slug, Name: t.Name, Category: t.Category}
}

// TermProps are the schema properties of a TechnologyTerm, categories listed.
func TermProps() map[string]any {
	slug := api.Type("string")
	slug["description"] = "the technology's slug: what the technologies filters and /v1/technologies/{slug}/companies take"
	slug["example"] = "kafka"
	name := api.Type("string")
	name["example"] = "Kafka"
	cat := api.Enum(Categories()...)
	cat["example"] = "data_ml"
	return map[string]any{"slug": slug, "name": name, "category": cat}
}

// Categories are the vocabulary's categories, in its order.
func Categories() []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range searchindex.TechnologyVocabulary() {
		if !seen[t.Category] {
			seen[t.Category] = true
			out = append(out, t.Category)
		}
	}
	return out
}

// TechnologyUse is how the reqs of one company name a technology: the reqs the read snapshot holds
// (live, and closed within the last 30 days) past the caller's freshness floor.
type TechnologyUse struct {
	LiveReqs     int       `json:"live_reqs"`
	PastReqs     int       `json:"past_reqs"`
	RequiredReqs int       `json:"required_reqs"`
	FirstSeen    time.Time `json:"first_seen"`
	LastSeen     time.Time `json:"last_seen"`
	Evidence     []string  `json:"evidence"`
}

// UseOf is the served form of an index TechnologyUse.
func UseOf(u searchindex.TechnologyUse) TechnologyUse {
	out := TechnologyUse{LiveReqs: u.Live, PastReqs: u.Past, RequiredReqs: u.Required, FirstSeen: time.Unix(u.FirstSeen, 0).UTC(),
		LastSeen: time.Unix(u.LastSeen, 0).UTC(), Evidence: make([]string, len(u.Evidence))}
	for i, r := range u.Evidence {
		out.Evidence[i] = r.Key
	}
	return out
}

// UseProps are the schema properties of a TechnologyUse.
func UseProps() map[string]any {
	count := func(desc string, ex int) map[string]any {
		return map[string]any{"type": "integer", "minimum": 0, "description": desc, "example": ex}
	}
	first := api.DateTime()
	first["description"] = "the earliest first_seen of the reqs naming it: when this company's postings first named it, as far as live reqs and reqs closed in the last 30 days go " +
		"(a technology named again after 30 days without a req naming it reads as new)"
	first["example"] = "2026-11-03T09:00:00Z"
	last := api.DateTime()
	last["description"] = "when a req naming it was last seen live: as_of while one is live, else the latest close among them"
	last["example"] = "2026-11-27T18:00:00Z"
	return map[string]any{
		"live_reqs":     count("live reqs naming it (in the title or the description)", 3),
		"past_reqs":     count("reqs naming it closed in the last 30 days", 1),
		"required_reqs": count("of live_reqs and past_reqs, the reqs naming it as required (in the title or as a requirement)", 2),
		"first_seen":    first, "last_seen": last,
		"evidence": map[string]any{"type": "array", "items": api.Type("string"), "maxItems": searchindex.EvidenceMax,
			"description": fmt.Sprintf("req_keys of reqs naming it, live first, newest first_seen first: at most %d (jobs/role with company_id and req_key "+
				"serves one; /v1/events carries them)", searchindex.EvidenceMax),
			"example": []any{"c0ffee00d15ea5e1", "0ddba11c0ffee000"}},
	}
}
