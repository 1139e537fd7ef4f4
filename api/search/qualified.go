package search

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/pipeline/normalize"
	"github.com/planehq/hiringsignal/readmodel"
	"github.com/planehq/hiringsignal/searchindex"
	"github.com/planehq/hiringsignal/snapshot"
)

// Criterion is one field of the closed criteria vocabulary (watches and reqs/qualified): the
// criteria object holds groups (company, req, event) of fields. Fields AND across groups and
// fields; the values of one field OR. A NULL fact never matches (fail-closed).
type Criterion struct {
	Group, Name string
	Type        string // "string" (one string), "strings" (a string or an array of strings), "integers", "date-time"
	Enum        []string
	Description string
	// RefusedOnQualified: allowed for watches, 422 on reqs/qualified (with this advice).
	RefusedOnQualified string
}

// AgencyKinds are the values of company.agency_kind.
var AgencyKinds = []string{"employer", "staffing_agency", "subcontractor_network", "aggregator", "job_board"}

// CriteriaVocabularyDoc documents the closed criteria vocabulary of reqs/qualified and watches.
const CriteriaVocabularyDoc = "Closed vocabulary: an object of groups company, req and event, each an object of fields. " +
	"AND across groups and fields, OR within a field (a field takes one value or an array of values). A NULL fact never matches (fail-closed). " +
	"Any other group or field is 422 (raised before anything else). " +
	"company.company_id (integer or integers); company.domain (exact, case-insensitive); company.industry (exact, case-insensitive); " +
	"company.industry_terms (case-insensitive substring of the industry); company.headcount_band (1-10, 11-50, 51-200, 201-500, 501-1000, 1001-5000, 5001+); " +
	"company.hq_country (country names); company.agency_kind (employer, staffing_agency, subcontractor_network, aggregator, job_board). " +
	"req.q (one string: every word matches raw_title, inflections, any order); req.q_excludes (phrases: a raw_title holding every word of one is vetoed; never fires on an absent title); " +
	"req.function (function names or taxonomy ids; unresolvable is 422 listing the names); req.country (country names); req.source_type (ats_tenant, board); " +
	"req.boards (board names, case-insensitive); req.seniority (intern, junior, mid, senior, staff, principal, lead, manager, director, vp, executive; derived from the title); " +
	"req.since (date-time, lower bound on first_seen). " +
	"event.function (function names or ids) and event.event_type (opened, reobserved, reposted, closed) belong to the vocabulary for watches and are 422 on reqs/qualified (use req.function and /v1/events)."

// Vocabulary is the closed criteria vocabulary, in the order it is documented.
func Vocabulary() []Criterion {
	return []Criterion{
		{Group: "company", Name: "company_id", Type: "integers", Description: "company ids"},
		{Group: "company", Name: "domain", Type: "strings", Description: "company website domain, exact, case-insensitive"},
		{Group: "company", Name: "industry", Type: "strings", Description: "company industry, exact, case-insensitive"},
		{Group: "company", Name: "industry_terms", Type: "strings", Description: "case-insensitive substring of the company industry"},
		{Group: "company", Name: "headcount_band", Type: "strings", Enum: normalize.HeadcountBands(), Description: "headcount band of the ladder"},
		{Group: "company", Name: "hq_country", Type: "strings", Description: "country name of the company headquarters"},
		{Group: "company", Name: "agency_kind", Type: "strings", Enum: AgencyKinds, Description: "classification of the company (employer: classified as none of the others; unclassified companies match no value)"},
		{Group: "req", Name: "q", Type: "string", Description: "every word must match raw_title (inflections, any order, case-insensitive)"},
		{Group: "req", Name: "q_excludes", Type: "strings", Description: "veto: a req whose raw_title holds every word of one of these phrases is dropped; never fires on an absent title"},
		{Group: "req", Name: "function", Type: "strings", Description: "function name or taxonomy id (a name covers every id serving it)"},
		{Group: "req", Name: "country", Type: "strings", Description: "country name of the posting"},
		{Group: "req", Name: "source_type", Type: "strings", Enum: []string{"ats_tenant", "board"}, Description: "source type of the req"},
		{Group: "req", Name: "boards", Type: "strings", Description: "a board reporting the req (case-insensitive)"},
		{Group: "req", Name: "seniority", Type: "strings", Enum: searchindex.Seniorities, Description: "seniority derived from the title (titles that state none match no value)"},
		{Group: "req", Name: "since", Type: "date-time", Description: "lower bound on first_seen"},
		{Group: "event", Name: "function", Type: "strings", Description: "function of the ledger event (watches only)", RefusedOnQualified: "event.function is for watches; on reqs/qualified use req.function"},
		{Group: "event", Name: "event_type", Type: "strings", Enum: []string{"opened", "reobserved", "reposted", "closed"}, Description: "ledger event type (watches only)", RefusedOnQualified: "event.event_type is for watches; read events with GET /v1/events"},
	}
}

// VocabularySchema is the JSON Schema of the criteria object (published in the OpenAPI document).
func VocabularySchema() map[string]any {
	groups := map[string]map[string]any{}
	for _, cr := range Vocabulary() {
		if groups[cr.Group] == nil {
			groups[cr.Group] = map[string]any{}
		}
		var s map[string]any
		item := map[string]any{"type": "string"}
		if len(cr.Enum) > 0 {
			item["enum"] = cr.Enum
		}
		switch cr.Type {
		case "string":
			s = map[string]any{"type": "string"}
		case "date-time":
			s = map[string]any{"type": "string", "format": "date-time"}
		case "integers":
			s = map[string]any{"oneOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}}}
		default:
			s = map[string]any{"oneOf": []any{item, map[string]any{"type": "array", "items": item}}}
		}
		s["description"] = cr.Description
		if cr.RefusedOnQualified != "" {
			s["description"] = cr.Description + ". Refused (422) on reqs/qualified: " + cr.RefusedOnQualified
		}
		groups[cr.Group][cr.Name] = s
	}
	props := map[string]any{}
	for g, fields := range groups {
		props[g] = map[string]any{"type": "object", "additionalProperties": false, "properties": fields}
	}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props,
		"description": "Closed vocabulary: groups company, req, event; AND across groups and fields, OR within a field; a NULL fact never matches; any other field is 422."}
}

type qualifiedBody struct {
	Criteria        json.RawMessage `json:"criteria"`
	SalaryMinUSD    *float64        `json:"salary_min_usd"`
	SalaryMaxUSD    *float64        `json:"salary_max_usd"`
	ExcludeAgencies *bool           `json:"exclude_agencies"`
	LiveOnly        *bool           `json:"live_only"`
	IncludePulse    bool            `json:"include_pulse"`
	Cursor          *int64          `json:"cursor"`
	Limit           *int64          `json:"limit"`
}

// parseCriteria checks criteria against the vocabulary and resolves it into q. Vocabulary errors
// (unknown group or field, event.* here) come first and alone: nothing else is looked at.
func parseCriteria(raw json.RawMessage, q *searchindex.QualifiedQuery) []api.FieldError {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var groups map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &groups); err != nil {
		return []api.FieldError{{Type: "dict_type", Loc: api.Loc("body", "criteria"), Msg: "Input should be an object of groups (company, req, event), each an object of fields", Input: nil, Ctx: map[string]any{}}}
	}
	vocab := map[string]Criterion{}
	var names []string
	for _, cr := range Vocabulary() {
		vocab[cr.Group+"."+cr.Name] = cr
		if cr.RefusedOnQualified == "" {
			names = append(names, cr.Group+"."+cr.Name)
		}
	}
	var errs []api.FieldError
	gnames := sortedKeys(groups)
	for _, g := range gnames {
		if g != "company" && g != "req" && g != "event" {
			errs = append(errs, api.FieldError{Type: "extra_forbidden", Loc: api.Loc("body", "criteria", g),
				Msg: "Extra inputs are not permitted: the criteria groups are company, req and event", Input: g, Ctx: map[string]any{"allowed": names}})
			continue
		}
		for _, f := range sortedKeys(groups[g]) {
			cr, ok := vocab[g+"."+f]
			switch {
			case !ok:
				errs = append(errs, api.FieldError{Type: "extra_forbidden", Loc: api.Loc("body", "criteria", g, f),
					Msg: fmt.Sprintf("Extra inputs are not permitted: %s.%s is not in the criteria vocabulary", g, f), Input: f, Ctx: map[string]any{"allowed": names}})
			case cr.RefusedOnQualified != "":
				errs = append(errs, api.FieldError{Type: "value_error", Loc: api.Loc("body", "criteria", g, f),
					Msg: "Value error, " + cr.RefusedOnQualified, Input: f, Ctx: map[string]any{"error": cr.RefusedOnQualified}})
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	for _, g := range gnames {
		for _, f := range sortedKeys(groups[g]) {
			errs = append(errs, applyCriterion(vocab[g+"."+f], groups[g][f], q)...)
		}
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func applyCriterion(cr Criterion, raw json.RawMessage, q *searchindex.QualifiedQuery) []api.FieldError {
	loc := api.Loc("body", "criteria", cr.Group, cr.Name)
	var in any
	_ = json.Unmarshal(raw, &in)
	bad := func(typ, msg string) []api.FieldError {
		return []api.FieldError{{Type: typ, Loc: loc, Msg: msg, Input: in, Ctx: map[string]any{}}}
	}
	switch cr.Type {
	case "string", "date-time":
		s, ok := in.(string)
		if !ok {
			return bad("string_type", "Input should be a valid string")
		}
		if cr.Type == "date-time" {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				return bad("datetime_parsing", "Input should be a valid datetime (ISO 8601, e.g. 2026-01-31T00:00:00Z)")
			}
			q.Filter.Since = t.UTC()
			return nil
		}
		q.Q = s
		return nil
	case "integers":
		var ids []uint64
		vals, isArr := in.([]any)
		if !isArr {
			vals = []any{in}
		}
		for _, v := range vals {
			n, ok := v.(float64)
			if !ok || n != float64(int64(n)) || n < 1 {
				return bad("int_type", "Input should be a positive integer or an array of positive integers")
			}
			ids = append(ids, uint64(n))
		}
		q.CompanyIDs = ids
		return nil
	}
	var vals []string
	switch v := in.(type) {
	case string:
		vals = []string{v}
	case []any:
		for _, it := range v {
			s, ok := it.(string)
			if !ok {
				return bad("string_type", "Input should be a string or an array of strings")
			}
			vals = append(vals, s)
		}
	default:
		return bad("string_type", "Input should be a string or an array of strings")
	}
	if len(vals) == 0 {
		return bad("too_short", "List should have at least 1 item (omit the field to not filter on it)")
	}
	var errs []api.FieldError
	if len(cr.Enum) > 0 {
		for i, v := range vals {
			if !containsStr(cr.Enum, v) {
				errs = append(errs, api.EnumError(v, cr.Enum, append(append([]any{}, loc...), i)...))
			}
		}
		if len(errs) > 0 {
			return errs
		}
	}
	switch cr.Group + "." + cr.Name {
	case "company.domain":
		for _, v := range vals {
			q.Domains = append(q.Domains, strings.ToLower(strings.TrimSpace(v)))
		}
	case "company.industry":
		q.Filter.Industry = vals
	case "company.industry_terms":
		q.Filter.IndustryTerms = vals
	case "company.headcount_band":
		q.Filter.Headcount = vals
	case "company.hq_country":
		q.HQCountries, errs = countryNames(vals, loc...)
	case "company.agency_kind":
		q.AgencyKinds = vals
	case "req.q_excludes":
		q.QExcludes = vals
	case "req.function":
		for i, v := range vals {
			ids, fe := functionIDs(v, append(append([]any{}, loc...), i)...)
			if fe != nil {
				errs = append(errs, *fe)
			}
			q.Filter.Functions = append(q.Filter.Functions, ids...)
		}
	case "req.country":
		q.Filter.Countries, errs = countryNames(vals, loc...)
	case "req.source_type":
		q.SourceTypes = vals
	case "req.boards":
		q.Boards = vals
	case "req.seniority":
		q.Seniority = vals
	}
	return errs
}

func containsStr(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// qualifiedRow is one reqs/qualified row: the req fields plus the qualification blocks.
type qualifiedRow struct {
	reqRow
	CompanyName   *string      `json:"company_name"`
	CompanyDomain *string      `json:"company_domain"`
	Skills        []string     `json:"skills"`
	Seniority     *string      `json:"seniority"`
	JobFamily     *string      `json:"job_family"`
	Compensation  compensation `json:"compensation"`
	Eligibility   eligibility  `json:"eligibility"`
	Apply         apply        `json:"apply"`
	Lifecycle     lifecycle    `json:"lifecycle"`
	Dedup         dedup        `json:"dedup"`
	LedgerSeq     uint64       `json:"ledger_seq"`
}

func qualifiedSchema() map[string]any {
	row := reqSchema()
	p := row["properties"].(map[string]any)
	p["company_name"] = api.Nullable(api.Type("string"))
	p["company_domain"] = api.Nullable(api.Type("string"))
	p["skills"] = api.ArrayOf("string")
	p["seniority"] = api.Nullable(api.Type("string"))
	p["job_family"] = api.Nullable(api.Type("string"))
	p["ledger_seq"] = api.Type("integer")
	p["compensation"] = api.Object(map[string]any{
		"declared":   api.Nullable(api.Object(map[string]any{"min_usd": api.Nullable(api.Type("number")), "max_usd": api.Nullable(api.Type("number"))})),
		"inferred":   api.Nullable(api.Object(map[string]any{"median_usd": api.Type("number"), "samples": api.Type("integer")})),
		"figure_usd": api.Nullable(api.Type("number")), "basis": api.Nullable(api.Enum("declared", "inferred")),
	})
	p["eligibility"] = api.Object(map[string]any{"country": api.Nullable(api.Type("string")), "country_code": api.Nullable(api.Type("string")), "location": api.Nullable(api.Type("string")), "remote": api.Type("boolean")})
	p["apply"] = api.Object(map[string]any{"url": api.Nullable(api.Type("string")), "actionable": api.Type("boolean")})
	p["lifecycle"] = api.Object(map[string]any{"first_seen": api.DateTime(), "last_event_at": api.DateTime(), "status": api.Enum("opened", "reobserved", "reposted", "closed"), "live": api.Type("boolean"), "repost_count": api.Type("integer")})
	p["dedup"] = api.Object(map[string]any{"boards": api.ArrayOf("string"), "board_count": api.Type("integer"), "board": api.Type("string"), "source_type": api.Type("string")})
	s := api.Object(map[string]any{"rows": map[string]any{"type": "array", "items": row},
		"next_cursor": map[string]any{"type": "integer", "description": "monotone ledger position: pass it back to get only reqs that opened after"},
		"companies":   map[string]any{"type": "object", "additionalProperties": pulseSchema(), "description": "with include_pulse: the pulse of every company on the page, keyed by company_id"}})
	s["description"] = "One source_row unit per row."
	return s
}

type compensation struct {
	Declared  *declaredPay `json:"declared"`
	Inferred  *inferredPay `json:"inferred"`
	FigureUSD *float64     `json:"figure_usd"` // what salary_min_usd/salary_max_usd bracket
	Basis     *string      `json:"basis"`      // declared or inferred
}

type declaredPay struct {
	MinUSD *float64 `json:"min_usd"`
	MaxUSD *float64 `json:"max_usd"`
}

type inferredPay struct {
	MedianUSD float64 `json:"median_usd"`
	Samples   int     `json:"samples"`
}

type eligibility struct {
	Country     *string `json:"country"`
	CountryCode *string `json:"country_code"`
	Location    *string `json:"location"`
	Remote      bool    `json:"remote"`
}

type apply struct {
	URL        *string `json:"url"`
	Actionable bool    `json:"actionable"`
}

type lifecycle struct {
	FirstSeen   string `json:"first_seen"`
	LastEventAt string `json:"last_event_at"`
	Status      string `json:"status"`
	Live        bool   `json:"live"`
	RepostCount uint32 `json:"repost_count"`
}

type dedup struct {
	Boards     []string `json:"boards"`
	BoardCount int      `json:"board_count"`
	Board      string   `json:"board"`
	SourceType string   `json:"source_type"`
}

func newQualifiedRow(x *searchindex.Index, r *searchindex.Req) qualifiedRow {
	co := x.CompanyOf(r)
	row := qualifiedRow{reqRow: newReqRow(x, r), CompanyName: strPtr(co.Name), CompanyDomain: strPtr(co.Domain),
		Skills: r.Title.Skills, Seniority: strPtr(r.Title.Seniority), JobFamily: strPtr(searchindex.JobFamily(r.Function)),
		Eligibility: eligibility{Country: strPtr(r.Country), CountryCode: countryCode(r.Country), Location: strPtr(r.Location), Remote: r.Remote()},
		Apply:       apply{URL: strPtr(r.URL), Actionable: r.URL != "" && r.Live},
		Lifecycle:   lifecycle{FirstSeen: ts(r.FirstSeen), LastEventAt: ts(r.LastEventAt), Status: r.EventType, Live: r.Live, RepostCount: r.RepostCount},
		Dedup:       dedup{Boards: r.Boards, BoardCount: len(r.Boards), Board: r.Board, SourceType: r.SourceType},
		LedgerSeq:   r.OpenSeq,
	}
	if lo, hi := r.DeclaredSalary(); lo != nil || hi != nil {
		row.Compensation.Declared = &declaredPay{MinUSD: lo, MaxUSD: hi}
	}
	if e, ok := x.SalaryEstimate(r); ok {
		row.Compensation.Inferred = &inferredPay{MedianUSD: e.MedianUSD, Samples: e.Samples}
	}
	if f, basis, ok := x.SalaryFigure(r); ok {
		row.Compensation.FigureUSD, row.Compensation.Basis = &f, &basis
	}
	return row
}

// reqsQualified serves POST /v1/reqs/qualified: reqs matching the criteria in ledger order
// (the order they opened), one source_row unit per row. next_cursor is always present and
// monotone: pass it back to get only reqs that opened after.
func (h *handlers) reqsQualified(c *api.Call, snap *snapshot.Snapshot) (int, error) {
	x := snap.Index
	var b qualifiedBody
	if err := c.Decode(&b); err != nil {
		return 0, err
	}
	q := searchindex.QualifiedQuery{}
	if errs := parseCriteria(b.Criteria, &q); len(errs) > 0 {
		return 0, api.Invalid(errs...)
	}
	var errs []api.FieldError
	for _, s := range []struct {
		name string
		v    *float64
	}{{"salary_min_usd", b.SalaryMinUSD}, {"salary_max_usd", b.SalaryMaxUSD}} {
		if s.v != nil && *s.v < 0 {
			errs = append(errs, api.FieldError{Type: "greater_than_equal", Loc: api.Loc("body", s.name), Msg: "Input should be greater than or equal to 0", Input: *s.v, Ctx: map[string]any{"ge": 0}})
		}
	}
	if b.SalaryMinUSD != nil && b.SalaryMaxUSD != nil && *b.SalaryMinUSD > *b.SalaryMaxUSD {
		errs = append(errs, api.ValueError(map[string]any{"salary_min_usd": *b.SalaryMinUSD, "salary_max_usd": *b.SalaryMaxUSD},
			"inverted pay band: salary_min_usd must not exceed salary_max_usd", "body", "salary_min_usd"))
	}
	limit := int64(DefaultLimit)
	maxLimit := int64(c.PageCap(PageMax))
	if limit > maxLimit {
		limit = maxLimit
	}
	if b.Limit != nil {
		limit = *b.Limit
		if limit < 1 {
			errs = append(errs, api.FieldError{Type: "greater_than_equal", Loc: api.Loc("body", "limit"), Msg: "Input should be greater than or equal to 1", Input: limit, Ctx: map[string]any{"ge": 1}})
		} else if limit > maxLimit {
			errs = append(errs, api.FieldError{Type: "less_than_equal", Loc: api.Loc("body", "limit"), Msg: "Input should be less than or equal to " + strconv.FormatInt(maxLimit, 10), Input: limit, Ctx: map[string]any{"le": maxLimit}})
		}
	}
	if b.Cursor != nil && *b.Cursor < 0 {
		errs = append(errs, api.FieldError{Type: "greater_than_equal", Loc: api.Loc("body", "cursor"), Msg: "Input should be greater than or equal to 0", Input: *b.Cursor, Ctx: map[string]any{"ge": 0}})
	}
	if len(errs) > 0 {
		return 0, api.Invalid(errs...)
	}
	q.SalaryMin, q.SalaryMax = b.SalaryMinUSD, b.SalaryMaxUSD
	q.Filter.ExcludeAgencies = b.ExcludeAgencies == nil || *b.ExcludeAgencies
	q.Filter.IncludeClosed = b.LiveOnly != nil && !*b.LiveOnly
	q.Filter.FreshBefore = freshBefore(c, x)
	if b.Cursor != nil {
		q.After = uint64(*b.Cursor)
	}
	q.Limit = int(limit)
	page := x.Qualified(q)

	out := struct {
		Rows       []qualifiedRow               `json:"rows"`
		NextCursor uint64                       `json:"next_cursor"`
		Companies  *map[string]*readmodel.Pulse `json:"companies,omitempty"`
	}{Rows: make([]qualifiedRow, 0, len(page.Rows)), NextCursor: page.Next}
	pulses := map[string]*readmodel.Pulse{}
	if b.IncludePulse {
		out.Companies = &pulses
	}
	for _, r := range page.Rows {
		out.Rows = append(out.Rows, newQualifiedRow(x, r))
		if b.IncludePulse {
			k := strconv.FormatUint(r.CompanyID, 10)
			if _, done := pulses[k]; !done {
				pulses[k] = h.pulse(snap, r.CompanyID)
			}
		}
	}
	return len(out.Rows), c.JSON(200, out)
}
