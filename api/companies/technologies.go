package companies

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/reqrow"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// TechnologiesPageMax is the largest page of a company's technologies.
const TechnologiesPageMax = 100

// companyTech is one technology of a company's technologies answer.
type companyTech struct {
	reqrow.TechnologyTerm
	reqrow.TechnologyUse
}

// technologiesView is the answer of GET /v1/companies/{company_id}/technologies.
type technologiesView struct {
	CompanyID      uint64        `json:"company_id"`
	CoverageStatus string        `json:"coverage_status"`
	Total          *int          `json:"total"`
	HasMore        bool          `json:"has_more"`
	NextCursor     *string       `json:"next_cursor,omitempty"`
	Technologies   []companyTech `json:"technologies"`
	Reqs           int           `json:"reqs"`
	DescribedReqs  int           `json:"described_reqs"`
	FreshnessFloor int           `json:"freshness_floor_s"`
	AsOf           time.Time     `json:"as_of"`
}

func technologiesSchema() map[string]any {
	row := reqrow.UseProps()
	for k, v := range reqrow.TermProps() {
		row[k] = v
	}
	return api.Object(map[string]any{"company_id": api.Type("integer"), "coverage_status": api.Enum("covered", "no_ats_signal"),
		"total": map[string]any{"type": []any{"integer", "null"}, "minimum": 0, "example": 14,
			"description": "technologies matching the filters across every page (the cursor aside), after your plan's freshness floor; free; null without coverage"},
		"has_more":    map[string]any{"type": "boolean", "description": "another page follows: pass next_cursor as cursor"},
		"next_cursor": api.Optional(map[string]any{"type": "string", "description": "opaque (the page's last live_reqs:past_reqs:slug); absent on the last page", "example": "3:1:kafka"}),
		"technologies": map[string]any{"type": "array", "items": api.Object(row),
			"description": "the technologies this company's reqs name, most live reqs first, then most past reqs, then slug"},
		"reqs": map[string]any{"type": "integer", "minimum": 0, "example": 40,
			"description": "this company's live reqs and reqs closed in the last 30 days, after your plan's freshness floor: the reqs the technologies are read from"},
		"described_reqs": map[string]any{"type": "integer", "minimum": 0, "example": 31,
			"description": "of reqs, those whose posting text was read (technologies come from the text and the title; some ATS feeds give no text): " +
				"few or none means this company's technologies are unknown, not absent"},
		"freshness_floor_s": map[string]any{"type": "integer", "minimum": 0,
			"description": "your plan's freshness floor in seconds (Free 86400, paid 0): reqs first seen less than this before as_of are not counted"},
		"as_of": asOfSchema()})
}

// techCursor is the position of a row in the technologies' order (most live reqs first, then
// most past reqs, then slug): "<live>:<past>:<slug>".
type techCursor struct {
	live, past int
	slug       string
}

func (k techCursor) String() string { return fmt.Sprintf("%d:%d:%s", k.live, k.past, k.slug) }

func parseTechCursor(s string) (techCursor, bool) {
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 || parts[2] == "" {
		return techCursor{}, false
	}
	live, err1 := strconv.Atoi(parts[0])
	past, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || live < 0 || past < 0 {
		return techCursor{}, false
	}
	return techCursor{live: live, past: past, slug: parts[2]}, true
}

// after reports whether u comes after the cursor.
func (k techCursor) after(u *searchindex.TechnologyUse) bool {
	return u.Live < k.live || u.Live == k.live && (u.Past < k.past || u.Past == k.past && u.Slug > k.slug)
}

// technologies serves GET /v1/companies/{company_id}/technologies: the technologies the company's
// reqs name, derived from the search index of the same snapshot (its reqs and their interned
// technology lists), the caller's freshness floor applied. Metered as one call, like every
// company read.
func (h *handlers) technologies(c *api.Call) (int, error) {
	snap, co, err := h.companyAt(c)
	if err != nil {
		return 0, err
	}
	var after *techCursor
	if v, ok := c.String("cursor"); ok {
		k, ok := parseTechCursor(v)
		if !ok {
			return 0, api.Invalid(problem.ValueError(v, "not a technologies cursor: pass the next_cursor of the previous page unchanged", "query", "cursor"))
		}
		after = &k
	}
	category, _ := c.String("category")
	out := technologiesView{CompanyID: co.ID, CoverageStatus: co.Coverage(), Technologies: []companyTech{},
		FreshnessFloor: c.Caller.Plan().FreshnessFloorS, AsOf: snap.Model.AsOf}
	var uses []searchindex.TechnologyUse
	if snap.Index != nil {
		cutoff := freshBefore(c, snap.Model)
		uses = snap.Index.CompanyTechnologies(co.ID, cutoff, searchindex.EvidenceMax)
		out.Reqs, out.DescribedReqs = snap.Index.CompanyTextCoverage(co.ID, cutoff)
	}
	total, limit := 0, c.Limit()
	for i := range uses {
		u := &uses[i]
		if category != "" && u.Category != category {
			continue
		}
		total++
		if after != nil && !after.after(u) {
			continue
		}
		switch {
		case len(out.Technologies) < limit:
			out.Technologies = append(out.Technologies, companyTech{TechnologyTerm: reqrow.TermOf(u.TechnologyRow), TechnologyUse: reqrow.UseOf(*u)})
		case !out.HasMore:
			out.HasMore = true
			last := out.Technologies[len(out.Technologies)-1]
			next := techCursor{live: last.LiveReqs, past: last.PastReqs, slug: last.Slug}.String()
			out.NextCursor = &next
		}
	}
	if co.Covered() {
		out.Total = &total
	}
	return 0, c.JSON(200, out)
}
