package criteria

import (
	"github.com/planehq/hiringsignal/internal/normalize"
)

// Criterion is one field of the closed criteria vocabulary: the criteria object holds groups
// (company, req, event) of fields. Fields AND across groups and fields; the values of one field
// OR. A NULL fact never matches (fail-closed).
type Criterion struct {
	Group, Name string
	Type        string // "string" (one string), "strings" (a string or an array of strings), "integers", "date-time"
	Enum        []string
	Description string
	// RefusedOnQualified: allowed for watches, 422 on reqs/qualified (with this advice).
	RefusedOnQualified string
	// MaxItems bounds a "strings" field below MaxCriterionValues (0: MaxCriterionValues).
	MaxItems int
}

// AgencyKinds are the values of company.agency_kind.
var AgencyKinds = []string{"employer", "staffing_agency", "subcontractor_network", "aggregator", "job_board"}

// EventTypes are the values of event.event_type: the ledger's event types.
var EventTypes = []string{"opened", "reobserved", "reposted", "closed"}

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
		{Group: "req", Name: "q", Type: "string", Description: "every word must match raw_title (inflections or another spelling of the word, ml = machine learning; any order, case-insensitive)"},
		{Group: "req", Name: "q_excludes", Type: "strings", Description: "veto: a req whose raw_title holds every word of one of these phrases is dropped; never fires on an absent title"},
		{Group: "req", Name: "function", Type: "strings", Description: "function name or taxonomy id (a name covers every id serving it)"},
		{Group: "req", Name: "country", Type: "strings", Description: "country name of the posting"},
		{Group: "req", Name: "source_type", Type: "strings", Enum: []string{"ats_tenant", "board"}, Description: "source type of the req"},
		{Group: "req", Name: "boards", Type: "strings", Description: "a board reporting the req (case-insensitive)"},
		{Group: "req", Name: FactTechnologies, Type: "strings", MaxItems: MaxFactValues, Description: FactDescription(FactTechnologies)},
		{Group: "req", Name: FactSeniority, Type: "strings", Enum: FactValuesOf(FactSeniority), MaxItems: MaxFactValues, Description: FactDescription(FactSeniority) + "; a posting that states none matches no value"},
		{Group: "req", Name: FactEmploymentType, Type: "strings", Enum: FactValuesOf(FactEmploymentType), MaxItems: MaxFactValues, Description: FactDescription(FactEmploymentType) + "; a posting that states none matches no value"},
		{Group: "req", Name: FactWorkplaceType, Type: "strings", Enum: FactValuesOf(FactWorkplaceType), MaxItems: MaxFactValues, Description: FactDescription(FactWorkplaceType) + "; a posting that states none matches no value"},
		{Group: "req", Name: "since", Type: "date-time", Description: "lower bound on first_seen"},
		{Group: "event", Name: "function", Type: "strings", Description: "function of the ledger event (watches only)", RefusedOnQualified: "event.function is for watches; on reqs/qualified use req.function"},
		{Group: "event", Name: "event_type", Type: "strings", Enum: EventTypes, Description: "ledger event type (watches only)", RefusedOnQualified: "event.event_type is for watches; read events with GET /v1/events"},
	}
}

// refused reports whether the criterion is outside the vocabulary of use.
func (cr Criterion) refused(use Use) bool { return use == Qualified && cr.RefusedOnQualified != "" }

// maxItems is the most values the criterion takes (one for the single-value types).
func (cr Criterion) maxItems() int {
	switch cr.Type {
	case "integers":
		return MaxCompanyIDs
	case "strings":
		if cr.MaxItems > 0 {
			return cr.MaxItems
		}
		return MaxCriterionValues
	}
	return 1
}

// The prose of Doc: the groups and fields, then what the event group does for each use, then the
// bounds.
const (
	docFields = "Closed vocabulary: an object of groups company, req and event, each an object of fields. " +
		"AND across groups and fields, OR within a field (a field takes one value or an array of values). A NULL fact never matches (fail-closed). " +
		"Any other group or field is 422 (raised before anything else). " +
		"company.company_id (integer or integers); company.domain (exact, case-insensitive); company.industry (exact, case-insensitive); " +
		"company.industry_terms (case-insensitive substring of the industry); company.headcount_band (1-10, 11-50, 51-200, 201-500, 501-1000, 1001-5000, 5001+); " +
		"company.hq_country (country names); company.agency_kind (employer, staffing_agency, subcontractor_network, aggregator, job_board). " +
		"req.q (one string: every word matches raw_title, inflections or another spelling of the word such as ml = machine learning, any order); req.q_excludes (phrases: a raw_title holding every word of one is vetoed; never fires on an absent title); " +
		"req.function (function names or taxonomy ids; unresolvable is 422 listing the names); req.country (country names); req.source_type (ats_tenant, board); " +
		"req.boards (board names, case-insensitive); req.technologies (technology slugs or names, e.g. go, kubernetes, salesforce: the req names any of them in its title or description; a value outside the vocabulary is 422 listing the slugs); " +
		"req.seniority (intern, junior, mid, senior, staff, principal, lead, manager, director, vp, executive: the title's words, else the feed's experience level, else the description's); " +
		"req.employment_type (full_time, part_time, contract, temporary, internship) and req.workplace_type (onsite, hybrid, remote): the feed's, else the description's; the four posting-fact fields take at most 20 values and a posting that does not state the fact matches no value; " +
		"req.since (date-time, lower bound on first_seen). "
	docQualifiedEvents = "event.function (function names or ids) and event.event_type (opened, reobserved, reposted, closed) belong to the vocabulary for watches and are 422 on reqs/qualified (use req.function and /v1/events). "
	docWatchEvents     = "event.function (function names or taxonomy ids; unresolvable is 422 listing the names: the function of the ledger event) and event.event_type (opened, reobserved, reposted, closed) choose which ledger events fire. " +
		"An event fires when it matches the event group and its req, as the search index holds it when the event is matched, matches the company and req groups exactly as POST /v1/reqs/qualified with live_only=false and exclude_agencies=true would answer for that req (a req that just closed still matches, so closed events fire; agencies never match). "
	docBounds = "Bounds (over a bound is 422, never cut): a field takes at most 100 values (company.company_id 1,000), each string at most 200 characters; " +
		"req.q and each req.q_excludes phrase at most 300 characters and 32 words (every word must match). Validation reports at most 50 problems."
)

// Doc is the prose of the criteria object for use (the OpenAPI description of the criteria field).
func Doc(use Use) string {
	if use == Watch {
		return docFields + docWatchEvents + docBounds
	}
	return docFields + docQualifiedEvents + docBounds
}

// Schema is the JSON Schema of the criteria object for use (for the OpenAPI document). On
// reqs/qualified the event fields are listed with the advice their 422 carries.
func Schema(use Use) map[string]any {
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
		if cr.refused(use) {
			s["description"] = cr.Description + ". Refused (422) on reqs/qualified: " + cr.RefusedOnQualified
		}
		groups[cr.Group][cr.Name] = s
	}
	props := map[string]any{}
	for g, fields := range groups {
		props[g] = map[string]any{"type": "object", "additionalProperties": false, "properties": fields, "required": []string{}}
	}
	// Every group and field is the caller's choice (a watch answers its criteria as sent): none
	// is required, in the request or in the answer echoing it.
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props, "required": []string{},
		"description": "Closed vocabulary: groups company, req, event; AND across groups and fields, OR within a field; a NULL fact never matches; any other field is 422."}
}
