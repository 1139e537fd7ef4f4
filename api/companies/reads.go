package companies

import (
	"slices"
	"strconv"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/reqrow"
	"github.com/planehq/hiringsignal/internal/jsonw"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// isHiringView is the is-hiring answer.
type isHiringView struct {
	CompanyID      uint64     `json:"company_id"`
	Name           string     `json:"name"`
	Domain         string     `json:"domain"`
	IsHiring       *bool      `json:"is_hiring"`
	OpenReqCount   *int       `json:"open_req_count"`
	CoverageStatus string     `json:"coverage_status"`
	MotionAsOf     *time.Time `json:"motion_as_of"`
	AsOf           time.Time  `json:"as_of"`
}

func isHiringSchema() map[string]any {
	count := api.Nullable(api.Type("integer"))
	count["description"] = "live reqs, after your plan's freshness floor (as open-reqs total); null without coverage"
	return api.Object(map[string]any{"company_id": api.Type("integer"), "name": api.Type("string"), "domain": api.Type("string"), "is_hiring": api.Nullable(api.Type("boolean")),
		"open_req_count": count, "coverage_status": api.Enum("covered", "no_ats_signal"), "motion_as_of": api.Nullable(api.DateTime()),
		"as_of": asOfSchema()})
}

func (h *handlers) isHiring(c *api.Call) (int, error) {
	snap, co, err := h.companyAt(c)
	if err != nil {
		return 0, err
	}
	if over, err := h.pastCostCap(c, co); over || err != nil {
		return 0, err
	}
	if h.cold(co) {
		return h.crawl(c, co, "no read of this company's sources is recent enough to answer")
	}
	p := snap.PulseUnder(co, false, freshBefore(c, snap.Model))
	v := isHiringView{CompanyID: co.ID, Name: co.Name, Domain: co.Domain, IsHiring: p.IsHiring,
		OpenReqCount: p.OpenReqCount, CoverageStatus: p.CoverageStatus, MotionAsOf: p.MotionAsOf, AsOf: snap.Model.AsOf}
	var buf [512]byte
	if b, ok := v.appendJSON(buf[:0]); ok {
		return 0, c.RawJSON(200, b)
	}
	return 0, c.JSON(200, v)
}

// appendJSON appends v as api.Call.JSON writes it (the company read answered most: no
// reflection); ok is false for a view JSON alone can write (a time it refuses).
func (v isHiringView) appendJSON(b []byte) (_ []byte, ok bool) {
	b = append(b, `{"company_id":`...)
	b = strconv.AppendUint(b, v.CompanyID, 10)
	b = append(b, `,"name":`...)
	b = jsonw.AppendString(b, v.Name)
	b = append(b, `,"domain":`...)
	b = jsonw.AppendString(b, v.Domain)
	b = append(b, `,"is_hiring":`...)
	if v.IsHiring == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendBool(b, *v.IsHiring)
	}
	b = append(b, `,"open_req_count":`...)
	if v.OpenReqCount == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*v.OpenReqCount), 10)
	}
	b = append(b, `,"coverage_status":`...)
	b = jsonw.AppendString(b, v.CoverageStatus)
	b = append(b, `,"motion_as_of":`...)
	if v.MotionAsOf == nil {
		b = append(b, "null"...)
	} else if b, ok = api.AppendJSONTime(b, *v.MotionAsOf); !ok {
		return b, false
	}
	b = append(b, `,"as_of":`...)
	if b, ok = api.AppendJSONTime(b, v.AsOf); !ok {
		return b, false
	}
	return append(b, "}\n"...), true
}

// freshnessDemand answers 202 crawling (a forced-fresh call: see crawl) when the caller's max_age
// demands fresher data than the latest read of co, or, without max_age, when co is cold as on
// is-hiring. done is false when the read may be served.
func (h *handlers) freshnessDemand(c *api.Call, co *readmodel.Company) (done bool, err error) {
	maxAge, ok := c.Int("max_age")
	switch {
	case ok && h.staleFor(co, maxAge):
		_, err = h.crawl(c, co, "the latest read of this company is older than max_age")
		return true, err
	case !ok && h.cold(co):
		_, err = h.crawl(c, co, "no read of this company's sources is recent enough to answer")
		return true, err
	}
	return false, nil
}

// pulseProps are the schema properties of the hiring-pulse answer (readmodel.Pulse).
func pulseProps() map[string]any {
	partial := api.Type("boolean")
	partial["description"] = "the week was not observed whole: it began before the company's coverage start (reqs already live then are left-censored: no opening counted), " +
		"a gap in the crawl of the company's region touches it (3-hour crawl windows no cycle crawled, or the week of the first cycle after them, which counts every change of the gap; X-History-Gap names the most recent), " +
		"or it has not ended at motion_as_of (the current week)"
	week := api.Object(map[string]any{"bucket_start": api.DateTime(), "opened": api.Type("integer"), "reposted": api.Type("integer"), "closed": api.Type("integer"), "partial": partial})
	week["description"] = "opened counts reqs first observed after the company's coverage start only"
	return map[string]any{
		"company_id": api.Type("integer"), "coverage_status": api.Enum("covered", "no_ats_signal"), "is_hiring": api.Nullable(api.Type("boolean")),
		"open_req_count": api.Nullable(api.Type("integer")), "active_reqs": api.Nullable(api.Type("integer")), "new_roles_30d": api.Nullable(api.Type("integer")),
		"velocity": api.Nullable(api.Type("number")), "direction": map[string]any{"type": []any{"string", "null"}, "enum": []any{"accelerating", "steady", "decelerating", nil}},
		"is_surge": api.Nullable(api.Type("boolean")), "momentum": map[string]any{"type": []any{"array", "null"}, "items": week}, "motion_as_of": api.Nullable(api.DateTime()),
	}
}

func (h *handlers) hiringPulse(c *api.Call) (int, error) {
	snap, co, err := h.companyAt(c)
	if err != nil {
		return 0, err
	}
	if done, err := h.freshnessDemand(c, co); done || err != nil {
		return 0, err
	}
	p := snap.PulseUnder(co, true, freshBefore(c, snap.Model))
	return 0, c.JSON(200, pulseView{Pulse: p, AsOf: snap.Model.AsOf})
}

// pulseSchema is the hiring-pulse answer's schema: the pulse's members and as_of.
func pulseSchema() map[string]any {
	p := pulseProps()
	p["as_of"] = asOfSchema()
	return api.Object(p)
}

// pulseView is the hiring-pulse answer: the pulse and the cycle it is as of.
type pulseView struct {
	readmodel.Pulse
	AsOf time.Time `json:"as_of"`
}

// asOfSchema is the as_of member every company read answers.
func asOfSchema() map[string]any {
	s := api.DateTime()
	s["description"] = "the latest committed crawl cycle this answer reflects (every row, count and pulse is as of it); " +
		"motion_as_of and enrichment_as_of say when this company's own sources were last read"
	return s
}

// openReqsView is the open-reqs answer.
type openReqsView struct {
	CompanyID      uint64    `json:"company_id"`
	CoverageStatus string    `json:"coverage_status"`
	Total          *int      `json:"total"` // live reqs matching the filters past the freshness floor; null without coverage
	HasMore        bool      `json:"has_more"`
	NextCursor     *string   `json:"next_cursor,omitempty"`
	Reqs           []reqRow  `json:"reqs"`
	AsOf           time.Time `json:"as_of"`
}

func openReqsSchema() map[string]any {
	return api.Object(map[string]any{"company_id": api.Type("integer"), "coverage_status": api.Type("string"),
		"total":       map[string]any{"type": []any{"integer", "null"}, "description": "exact count of the live reqs matching the filters, across every page (the cursor aside), after your plan's freshness floor; free; null without coverage"},
		"has_more":    map[string]any{"type": "boolean", "description": "another page follows: pass next_cursor as cursor"},
		"next_cursor": api.Optional(map[string]any{"type": "string", "description": "opaque (the page's last first_seen:req_key); absent on the last page"}),
		"reqs":        map[string]any{"type": "array", "items": reqSchema()}, "as_of": asOfSchema()})
}

func (h *handlers) openReqs(c *api.Call) (int, error) {
	snap, co, err := h.companyAt(c)
	if err != nil {
		return 0, err
	}
	fns, err := functionFilter(c)
	if err != nil {
		return 0, err
	}
	country, err := countryFilter(c)
	if err != nil {
		return 0, err
	}
	var after *openReqsCursor
	if v, ok := c.String("cursor"); ok {
		k, ok := parseOpenReqsCursor(v)
		if !ok {
			return 0, api.Invalid(problem.ValueError(v, "not an open-reqs cursor: pass the next_cursor of the previous page unchanged", "query", "cursor"))
		}
		after = &k
	}
	limit := c.Limit()
	cutoff := freshBefore(c, snap.Model)
	out := openReqsView{CompanyID: co.ID, CoverageStatus: co.Coverage(), Reqs: []reqRow{}, AsOf: snap.Model.AsOf}
	total := 0
	var last *readmodel.Req
	for i := range co.Live {
		r := &co.Live[i]
		if readmodel.Hides(cutoff, r.FirstSeen) {
			continue // under the caller's freshness floor: neither served nor counted
		}
		if fns != nil && !fns[r.Function()] {
			continue
		}
		if country != "" && r.Country() != country {
			continue
		}
		total++
		if after != nil && !after.after(r) {
			continue
		}
		switch {
		case len(out.Reqs) < limit:
			out.Reqs = append(out.Reqs, rowOf(snap.Index, co, r))
			last = r
		case !out.HasMore:
			out.HasMore = true
			next := openReqsCursor{firstSeen: last.FirstSeen, key: last.Key}.String()
			out.NextCursor = &next
		}
	}
	if co.Covered() {
		out.Total = &total
	}
	if slices.Contains(c.Strings("include"), "description") && snap.Index != nil {
		reqs := make([]*searchindex.Req, len(out.Reqs))
		for i := range out.Reqs {
			reqs[i], _ = snap.Index.Lookup(co.ID, out.Reqs[i].ReqKey)
		}
		if err := reqrow.Describe(c, h.d.Descriptions, h.d.Log, reqs, func(i int, text string, ok bool) { out.Reqs[i].SetDescription(text, ok) }); err != nil {
			return 0, err
		}
	}
	return 0, c.JSON(200, out)
}

// enrichmentView is the enrichment answer: firmographics from ATS tenants and boards only.
type enrichmentView struct {
	CompanyID      uint64     `json:"company_id"`
	Name           string     `json:"name"`
	Domain         string     `json:"domain"`
	HQCountry      *string    `json:"hq_country"`
	HQCountryCode  *string    `json:"hq_country_code"`
	Industry       *string    `json:"industry"`
	HeadcountBand  *string    `json:"headcount_band"`
	AgencyKind     *string    `json:"agency_kind"`
	ATSVendor      *string    `json:"ats_vendor"`
	CoverageStatus string     `json:"coverage_status"`
	Boards         []string   `json:"boards"`
	EnrichmentAsOf *time.Time `json:"enrichment_as_of"`
	FreshnessFloor int        `json:"freshness_floor_s"`
	AsOf           time.Time  `json:"as_of"`
}

func enrichmentSchema() map[string]any {
	return api.Object(map[string]any{"company_id": api.Type("integer"), "name": api.Type("string"), "domain": api.Type("string"),
		"hq_country": api.Nullable(api.Type("string")), "hq_country_code": api.Nullable(api.Type("string")), "industry": api.Nullable(api.Type("string")),
		"headcount_band": api.Nullable(api.Type("string")), "agency_kind": agencyKindSchema(), "ats_vendor": api.Nullable(api.Type("string")),
		"coverage_status": api.Enum("covered", "no_ats_signal"), "boards": api.ArrayOf("string"), "enrichment_as_of": api.Nullable(api.DateTime()),
		"freshness_floor_s": api.Type("integer"), "as_of": asOfSchema()})
}

func (h *handlers) enrichment(c *api.Call) (int, error) {
	m, co, err := h.company(c)
	if err != nil {
		return 0, err
	}
	floor := c.Caller.Plan().FreshnessFloorS
	cutoff := freshBefore(c, m)
	v := enrichmentView{CompanyID: co.ID, Name: co.Name, Domain: co.Domain, HQCountry: nullable.String(co.HQCountry()),
		HQCountryCode: nullable.String(co.HQCountryCode()), Industry: nullable.String(co.Industry()), HeadcountBand: nullable.String(co.HeadcountBand()),
		AgencyKind: nullable.String(normalize.ServedAgencyKind(co.AgencyKind(), co.Name)), ATSVendor: nullable.String(co.ATSVendor()), CoverageStatus: co.Coverage(), Boards: []string{},
		FreshnessFloor: floor, AsOf: m.AsOf}
	for _, b := range co.Boards() {
		if cutoff.IsZero() || !b.FirstSeen.After(cutoff) {
			v.Boards = append(v.Boards, b.Board)
		}
	}
	if !co.LastRead().IsZero() {
		at := co.LastRead()
		v.EnrichmentAsOf = &at
	}
	return 0, c.JSON(200, v)
}

func agencyKindSchema() map[string]any {
	s := api.Nullable(api.Type("string"))
	s["enum"] = []any{"employer", "staffing_agency", "subcontractor_network", "aggregator", "job_board", nil}
	s["description"] = "the values criteria company.agency_kind accepts: employer (a named company classified as none of the others), staffing_agency, subcontractor_network, aggregator, job_board; null when unclassified (matches no criteria value)"
	return s
}
