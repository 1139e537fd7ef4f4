package search

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/reqrow"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// The technographics by technology: GET /v1/technologies/{slug}/companies (the companies whose
// reqs name a technology, newest first mention first: who started hiring for Kafka this month) and
// GET /v1/technologies (the vocabulary its slug comes from).

// maxSuggestions is how many close slugs a bad slug's 422 suggests.
const maxSuggestions = 5

// techCompanyRow is one company of a technology's companies: the company and how its reqs name
// the technology (one source_row unit).
type techCompanyRow struct {
	CompanyID     uint64  `json:"company_id"`
	CompanyName   *string `json:"company_name"`
	CompanyDomain *string `json:"company_domain"`
	HQCountry     *string `json:"hq_country"`
	CountryCode   *string `json:"country_code"`
	reqrow.TechnologyUse
}

func techCompaniesSchema() map[string]any {
	row := reqrow.UseProps()
	row["company_id"] = map[string]any{"type": "integer", "example": 4211}
	row["company_name"] = api.Nullable(map[string]any{"type": "string", "example": "Acme Payments"})
	row["company_domain"] = api.Nullable(map[string]any{"type": "string", "example": "acmepay.example"})
	row["hq_country"] = api.Nullable(api.Type("string"))
	row["country_code"] = api.Nullable(map[string]any{"type": "string", "description": "ISO 3166-1 alpha-2 of hq_country"})
	first := row["first_seen"].(map[string]any)
	first["description"] = "the company's first mention of the technology (the order of the page, what since bounds): " + first["description"].(string)
	p := metaProps(map[string]any{
		"technology": api.Object(reqrow.TermProps()),
		"companies": map[string]any{"type": "array", "items": api.Object(row),
			"description": "companies whose reqs name the technology, newest first mention (first_seen) first, then company_id"},
		"next_cursor": api.Optional(map[string]any{"type": "string", "description": "opaque (the page's last first_seen:company_id); absent on the last page", "example": "1764151200:4211"}),
	}, "companies matching the query")
	p["total"].(map[string]any)["description"] = "companies matching the query across every page (the cursor aside), after the freshness floor; not metered; always exact"
	return api.Object(p)
}

// techCompanyCursor is "<first_seen unix>:<company_id>" of a page's last row.
func techCompanyCursor(k searchindex.TechCompanyCursor) string {
	return strconv.FormatInt(k.FirstSeen, 10) + ":" + strconv.FormatUint(k.CompanyID, 10)
}

func parseTechCompanyCursor(s string) (searchindex.TechCompanyCursor, bool) {
	fs, id, ok := strings.Cut(s, ":")
	n, err1 := strconv.ParseInt(fs, 10, 64)
	co, err2 := strconv.ParseUint(id, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return searchindex.TechCompanyCursor{}, false
	}
	return searchindex.TechCompanyCursor{FirstSeen: n, CompanyID: co}, true
}

// technologyOf resolves the path's slug (or a display name, any case, as the technologies filter
// takes it): 422 at ["path","slug"] naming where the slugs are, with close ones suggested.
func technologyOf(c *api.Call) (searchindex.TechnologyRow, error) {
	v, _ := c.String("slug")
	if slug, ok := criteria.TechnologySlug(v); ok {
		if t, ok := searchindex.TechnologyOf(slug); ok {
			return t, nil
		}
	}
	slugs := criteria.Technologies()
	msg := fmt.Sprintf("'%s' is not a technology of the vocabulary: GET %s lists its %d slugs with their names and categories (a name, any case, is taken too)",
		criteria.Clip(v), reqrow.VocabularyPath, len(slugs))
	fe := problem.ValueError(criteria.Clip(v), msg, "path", "slug")
	fe.Ctx["vocabulary"] = reqrow.VocabularyPath
	fe.Ctx["suggestions"] = suggestTechnologies(v)
	fe.Ctx["expected"] = slugs
	return searchindex.TechnologyRow{}, api.Invalid(fe)
}

// suggestTechnologies are up to maxSuggestions slugs close to v: a slug or name containing it, or
// contained in it ("apache-kafka" suggests kafka, "postgres" postgresql), in the vocabulary's order.
func suggestTechnologies(v string) []string {
	fold := func(s string) string {
		return strings.NewReplacer(" ", "", "-", "", "_", "", ".", "").Replace(strings.ToLower(s))
	}
	in := fold(v)
	out := []string{}
	if len(in) < 2 {
		return out
	}
	for _, t := range searchindex.TechnologyVocabulary() {
		s, n := fold(t.Slug), fold(t.Name)
		if strings.Contains(s, in) || strings.Contains(n, in) || len(s) >= 3 && strings.Contains(in, s) || len(n) >= 3 && strings.Contains(in, n) {
			out = append(out, t.Slug)
			if len(out) == maxSuggestions {
				break
			}
		}
	}
	return out
}

// technologyCompanies serves GET /v1/technologies/{slug}/companies: the companies whose reqs name
// the technology, newest first mention first, from the search index (its per-technology
// entries; each row's counts and evidence from that company's reqs), the caller's freshness floor
// applied. One source_row unit per company row, as reqs/search bills its company rows.
func (h *handlers) technologyCompanies(c *api.Call, snap *snapshot.Snapshot) (int, error) {
	x := snap.Index
	tech, err := technologyOf(c)
	if err != nil {
		return 0, err
	}
	q := searchindex.TechCompanyQuery{Slug: tech.Slug, FreshBefore: freshBefore(c, x), Limit: c.Limit(), Evidence: searchindex.EvidenceMax}
	q.Since, _ = c.Time("since")
	q.LiveOnly, _ = c.Bool("live_only")
	q.ExcludeAgencies, _ = c.Bool("exclude_agencies")
	if v, ok := c.String("cursor"); ok {
		k, ok := parseTechCompanyCursor(v)
		if !ok {
			return 0, api.Invalid(problem.ValueError(v, "not a cursor of this route: pass the next_cursor of the previous page unchanged", "query", "cursor"))
		}
		q.After = &k
	}
	page := x.TechnologyCompanies(q)
	out := struct {
		freshness
		paging
		Technology reqrow.TechnologyTerm `json:"technology"`
		Companies  []techCompanyRow      `json:"companies"`
		NextCursor *string               `json:"next_cursor,omitempty"`
	}{freshness: freshnessOf(c, x), paging: paging{HasMore: page.More, Total: page.Total, TotalExact: true}, Technology: reqrow.TermOf(tech),
		Companies: make([]techCompanyRow, 0, len(page.Companies))}
	for _, hit := range page.Companies {
		co := hit.Company
		out.Companies = append(out.Companies, techCompanyRow{CompanyID: co.ID, CompanyName: nullable.String(co.Name), CompanyDomain: nullable.String(co.Domain),
			HQCountry: nullable.String(co.HQCountry), CountryCode: countryCode(co.HQCountry), TechnologyUse: reqrow.UseOf(hit.Use)})
	}
	if page.More && len(page.Companies) > 0 {
		last := page.Companies[len(page.Companies)-1]
		next := techCompanyCursor(searchindex.TechCompanyCursor{FirstSeen: last.Use.FirstSeen, CompanyID: last.Company.ID})
		out.NextCursor = &next
	}
	return len(out.Companies), c.JSON(200, out)
}

// vocabularyView is the answer of GET /v1/technologies.
type vocabularyView struct {
	Technologies []reqrow.TechnologyTerm `json:"technologies"`
	Categories   []string                `json:"categories"`
	Total        int                     `json:"total"`
}

func vocabularySchema() map[string]any {
	return api.Object(map[string]any{
		"technologies": map[string]any{"type": "array", "items": api.Object(reqrow.TermProps()),
			"description": "every technology of the vocabulary (or of the category asked), in the vocabulary's order: the slugs the technologies filters and " +
				"/v1/technologies/{slug}/companies take"},
		"categories": map[string]any{"type": "array", "items": api.Enum(reqrow.Categories()...), "description": "every category of the vocabulary"},
		"total":      map[string]any{"type": "integer", "minimum": 0, "description": "technologies listed", "example": 564},
	})
}

// vocabulary serves GET /v1/technologies: the technology vocabulary, the same for every caller
// and every snapshot (it changes only with a release). Not billable.
func (h *handlers) vocabulary(c *api.Call) (int, error) {
	category, _ := c.String("category")
	out := vocabularyView{Technologies: []reqrow.TechnologyTerm{}, Categories: reqrow.Categories()}
	for _, t := range searchindex.TechnologyVocabulary() {
		if category == "" || t.Category == category {
			out.Technologies = append(out.Technologies, reqrow.TermOf(t))
		}
	}
	out.Total = len(out.Technologies)
	return 0, c.JSON(200, out)
}
