package search

import (
	"encoding/json"
	"fmt"
	"math"
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
	"event.function (function names or ids) and event.event_type (opened, reobserved, reposted, closed) belong to the vocabulary for watches and are 422 on reqs/qualified (use req.function and /v1/events). " +
	"Bounds (over a bound is 422, never cut): a field takes at most 100 values (company.company_id 1,000), each string at most 200 characters; " +
	"req.q and each req.q_excludes phrase at most 300 characters and 32 words (every word must match). Validation reports at most 50 problems."

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
		item := map[string]any{"type": "string", "maxLength": MaxValueLength}
		if cr.Name == "q_excludes" {
			item["maxLength"] = MaxQLength
		}
		if len(cr.Enum) > 0 {
			item["enum"] = cr.Enum
		}
		switch cr.Type {
		case "string":
			s = map[string]any{"type": "string", "maxLength": MaxQLength}
		case "date-time":
			s = map[string]any{"type": "string", "format": "date-time"}
		case "integers":
			id := map[string]any{"type": "integer", "minimum": 1}
			s = map[string]any{"oneOf": []any{id, map[string]any{"type": "array", "items": id, "minItems": 1, "maxItems": cr.maxItems()}}}
		default:
			s = map[string]any{"oneOf": []any{item, map[string]any{"type": "array", "items": item, "minItems": 1, "maxItems": cr.maxItems()}}}
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
// (unknown group or field, event.* here) come first and alone: nothing else is looked at. It
// collects at most MaxFieldErrors items and lists each vocabulary once, so a large bad body
// costs bounded work and a bounded answer.
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
	var p problems
	listed := false // the allowed fields are listed in the first extra_forbidden item only
	forbidden := func(msg string, input string, loc ...any) {
		ctx := map[string]any{}
		if listed {
			msg += " (the allowed fields are listed in the first item)"
		} else {
			ctx["allowed"], listed = names, true
		}
		p.add(api.FieldError{Type: "extra_forbidden", Loc: loc, Msg: msg, Input: clip(input), Ctx: ctx})
	}
	gnames := sortedKeys(groups)
	for _, g := range gnames {
		if p.full() {
			break
		}
		if g != "company" && g != "req" && g != "event" {
			forbidden("Extra inputs are not permitted: the criteria groups are company, req and event", g, "body", "criteria", clip(g))
			continue
		}
		for _, f := range sortedKeys(groups[g]) {
			if p.full() {
				break
			}
			cr, ok := vocab[g+"."+f]
			switch {
			case !ok:
				forbidden(fmt.Sprintf("Extra inputs are not permitted: %s.%s is not in the criteria vocabulary", g, clip(f)), f, "body", "criteria", g, clip(f))
			case cr.RefusedOnQualified != "":
				p.add(api.FieldError{Type: "value_error", Loc: api.Loc("body", "criteria", g, f),
					Msg: "Value error, " + cr.RefusedOnQualified, Input: f, Ctx: map[string]any{"error": cr.RefusedOnQualified}})
			}
		}
	}
	if len(p.items) > 0 {
		return p.items
	}
	for _, g := range gnames {
		for _, f := range sortedKeys(groups[g]) {
			if p.full() {
				return p.items
			}
			applyCriterion(vocab[g+"."+f], groups[g][f], q, &p)
		}
	}
	return p.items
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// maxItems is the most values the criterion takes (one for the single-value types).
func (cr Criterion) maxItems() int {
	switch cr.Type {
	case "integers":
		return MaxCompanyIDs
	case "strings":
		return MaxCriterionValues
	}
	return 1
}

// maxSafeID is the largest integer a JSON number carries exactly (company ids are 48-bit).
const maxSafeID = 1 << 53

// applyCriterion checks one field's value against its type and bounds and resolves it into q,
// adding its problems to p. An array over its bound is one item and its values are not looked
// at; each later problem is about one value, echoed (clipped) on its own.
func applyCriterion(cr Criterion, raw json.RawMessage, q *searchindex.QualifiedQuery, p *problems) {
	loc := api.Loc("body", "criteria", cr.Group, cr.Name)
	at := func(i int) []any { return append(append([]any{}, loc...), i) }
	var in any
	_ = json.Unmarshal(raw, &in) // raw is a member of an object already parsed: valid JSON
	switch cr.Type {
	case "string", "date-time":
		s, ok := in.(string)
		if !ok {
			p.add(api.FieldError{Type: "string_type", Loc: loc, Msg: "Input should be a valid string", Input: echo(in), Ctx: map[string]any{}})
			return
		}
		if cr.Type == "date-time" {
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				p.add(api.FieldError{Type: "datetime_parsing", Loc: loc, Msg: "Input should be a valid datetime (ISO 8601, e.g. 2026-01-31T00:00:00Z)", Input: clip(s), Ctx: map[string]any{}})
				return
			}
			q.Filter.Since = t.UTC()
			return
		}
		if fe := checkQ(s, loc...); fe != nil {
			p.add(*fe)
			return
		}
		q.Q = s
		return
	}
	vals, isArr := in.([]any)
	if !isArr {
		vals = []any{in}
	}
	if n, limit := len(vals), cr.maxItems(); n > limit {
		p.add(tooLong(n, limit, loc...))
		return
	}
	if len(vals) == 0 {
		p.add(api.FieldError{Type: "too_short", Loc: loc, Msg: "List should have at least 1 item (omit the field to not filter on it)", Input: []any{}, Ctx: map[string]any{"min_length": 1}})
		return
	}
	if cr.Type == "integers" {
		ids := make([]uint64, 0, len(vals))
		for i, v := range vals {
			n, ok := v.(float64)
			if !ok || n != math.Trunc(n) || n < 1 || n > maxSafeID {
				l := loc
				if isArr {
					l = at(i)
				}
				p.add(api.FieldError{Type: "int_type", Loc: l, Msg: "Input should be a positive integer or an array of positive integers", Input: echo(v), Ctx: map[string]any{}})
				if p.full() {
					return
				}
				continue
			}
			ids = append(ids, uint64(n))
		}
		q.CompanyIDs = ids
		return
	}
	strs := make([]string, 0, len(vals))
	enumListed := false // the enum is listed in the field's first enum item only
	for i, v := range vals {
		var fe *api.FieldError
		switch s, ok := v.(string); {
		case !ok:
			fe = &api.FieldError{Type: "string_type", Loc: at(i), Msg: "Input should be a string or an array of strings", Input: echo(v), Ctx: map[string]any{}}
		case cr.Name == "q_excludes":
			fe = checkQ(s, at(i)...)
		default:
			fe = checkValue(s, at(i)...)
			if fe == nil && len(cr.Enum) > 0 && !containsStr(cr.Enum, s) {
				item := enumItem(s, cr.Enum, enumListed, at(i)...)
				fe, enumListed = &item, true
			}
		}
		if fe == nil {
			strs = append(strs, v.(string))
			continue
		}
		p.add(*fe)
		if p.full() {
			return
		}
	}
	if len(strs) < len(vals) {
		return
	}
	switch cr.Group + "." + cr.Name {
	case "company.domain":
		for _, v := range strs {
			q.Domains = append(q.Domains, strings.ToLower(strings.TrimSpace(v)))
		}
	case "company.industry":
		q.Filter.Industry = strs
	case "company.industry_terms":
		q.Filter.IndustryTerms = strs
	case "company.headcount_band":
		q.Filter.Headcount = strs
	case "company.hq_country":
		var errs []api.FieldError
		q.HQCountries, errs = countryNames(strs, loc...)
		p.add(errs...)
	case "company.agency_kind":
		q.AgencyKinds = strs
	case "req.q_excludes":
		q.QExcludes = strs
	case "req.function":
		listed := false
		for i, v := range strs {
			ids, fe := resolveFunction(v, !listed, at(i)...)
			if fe != nil {
				listed = true
				p.add(*fe)
				if p.full() {
					return
				}
			}
			q.Filter.Functions = append(q.Filter.Functions, ids...)
		}
	case "req.country":
		var errs []api.FieldError
		q.Filter.Countries, errs = countryNames(strs, loc...)
		p.add(errs...)
	case "req.source_type":
		q.SourceTypes = strs
	case "req.boards":
		q.Boards = strs
	case "req.seniority":
		q.Seniority = strs
	}
}

// enumItem is the 422 item of a value outside an enum; once the field has one (listed), later
// items refer to it instead of listing the values again.
func enumItem(v string, enum []string, listed bool, loc ...any) api.FieldError {
	if !listed {
		return api.EnumError(v, enum, loc...)
	}
	return api.FieldError{Type: "enum", Loc: loc, Msg: "Input should be one of the values listed in the first item of this field", Input: v, Ctx: map[string]any{}}
}

// echo is a value of the caller's body as a 422 item echoes it: strings clipped, arrays and
// objects not at all (their size is the caller's).
func echo(v any) any {
	switch x := v.(type) {
	case string:
		return clip(x)
	case []any, map[string]any:
		return nil
	}
	return v
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

// parseQualified validates a reqs/qualified body and resolves it into a query (all but the
// caller's freshness floor). maxLimit is the caller's largest page. Criteria problems come alone;
// at most MaxFieldErrors items are returned.
func parseQualified(b *qualifiedBody, maxLimit int64) (searchindex.QualifiedQuery, []api.FieldError) {
	q := searchindex.QualifiedQuery{}
	if errs := parseCriteria(b.Criteria, &q); len(errs) > 0 {
		return q, errs
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
	limit := min(int64(DefaultLimit), maxLimit)
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
		return q, errs
	}
	q.SalaryMin, q.SalaryMax = b.SalaryMinUSD, b.SalaryMaxUSD
	q.Filter.ExcludeAgencies = b.ExcludeAgencies == nil || *b.ExcludeAgencies
	q.Filter.IncludeClosed = b.LiveOnly != nil && !*b.LiveOnly
	if b.Cursor != nil {
		q.After = uint64(*b.Cursor)
	}
	q.Limit = int(limit)
	return q, nil
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
	q, errs := parseQualified(&b, int64(c.PageCap(PageMax)))
	if len(errs) > 0 {
		return 0, api.Invalid(errs...)
	}
	q.Filter.FreshBefore = freshBefore(c, x)
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
