package connector

import (
	"fmt"

	"github.com/planehq/hiringsignal/api"
)

// Gate is the plans' gated_endpoints entry of the enrichment connector (spec 8.1).
const Gate = "connector/enrich"

// CoveragePageMax is the largest page of GET /v1/coverage-requests.
const CoveragePageMax = 200

// Routes are the connector, migration-import and coverage-request routes with their handlers over d.
func Routes(d Deps) []*api.Route {
	h := newHandlers(d)
	str := func(name, desc string) api.Field {
		return api.Field{Name: name, Type: "string", Schema: map[string]any{"type": "string", "maxLength": MaxInputLength, "description": desc}}
	}
	rowFields := []api.Field{
		str("domain", "the company's website domain, in any URL or host form (resolved first)"),
		str("name", "the company's name (resolved when the domain is absent or matches nothing; legal suffixes may differ)"),
		str("row_id", "the table tool's own id of the row, echoed as row_id (null when not sent)"),
	}
	rowItem := api.Object(map[string]any{"domain": api.Type("string"), "name": api.Type("string"), "row_id": api.Type("string")})
	return []*api.Route{
		{Name: "connector.enrich", Method: "POST", Path: "/v1/connector/enrich", Tag: "connector", Meter: api.MeterCall, Scope: api.ScopeRead, Gate: Gate,
			Summary: "Enrich one table row: a flat object (no nested object) of the company and its hiring pulse, resolved by domain, else by name. " +
				"A miss is 200 with company_id null, coverage_status no_ats_signal, message, checked_at and null motion fields. A hit is one metered call; " +
				"a miss still meters to the presented key but is not billable, as companies/resolve: no call against the daily quota, no unit",
			Body: &api.Body{Required: true, Fields: rowFields}, Statuses: []int{200}, Response: api.Object(rowProps()), Handler: h.enrich},
		{Name: "connector.enrich_batch", Method: "POST", Path: "/v1/connector/enrich/batch", Tag: "connector", Meter: api.MeterSourceRow, Scope: api.ScopeRead, Gate: Gate,
			Summary: fmt.Sprintf("Enrich up to %d table rows in one call: rows answered in the order sent, each exactly as POST /v1/connector/enrich answers it. "+
				"Metered as one call plus one source_row per row that found a company; a row that missed bills nothing, and a batch whose every row missed "+
				"is not billable (metered to the presented key, no call against the daily quota, no unit)", BatchMax),
			Body: &api.Body{Required: true, Fields: []api.Field{{Name: "rows", Type: "array", Items: "object", Required: true, MaxItems: BatchMax,
				Schema: map[string]any{"type": "array", "minItems": 1, "maxItems": BatchMax, "items": rowItem, "x-demo-maximum": api.DemoPageLimit,
					"description": fmt.Sprintf("the table rows, 1..%d (the shared demo key 1..%d); more is 422", BatchMax, api.DemoPageLimit)}}}},
			Statuses: []int{200}, Response: api.Object(map[string]any{"rows": map[string]any{"type": "array", "items": api.Object(rowProps())}}), Handler: h.enrichBatch},
		{Name: "migration_import", Method: "POST", Path: "/v1/migration-import", Tag: "connector", Scope: api.ScopeWrite,
			Summary: fmt.Sprintf("Import a company list from another data vendor: JSON {\"companies\": [{domain, name}, ...]} or a text/csv upload (a CRM export: "+
				"Company Name, Account Name, Website, Domain, ... columns); each item a domain, a name or both, at most %d (422 past it). Answers resolved (with company_id and "+
				"match_confidence), misses, covered and total, and for a CSV the columns it ignored and the rows it skipped (line and reason); "+
				"each miss becomes a coverage request (GET /v1/coverage-requests). Not billable", ImportMax),
			Body: &api.Body{Required: true, CSV: []string{"domain", "name"}, CSVDoc: csvDoc, Fields: []api.Field{{Name: "companies", Type: "array", Items: "object", Required: true, MaxItems: ImportMax,
				Schema: map[string]any{"type": "array", "minItems": 1, "maxItems": ImportMax, "items": itemSchema()}}}},
			Statuses: []int{200}, Response: importSchema(), Handler: h.migrationImport},
		{Name: "coverage_requests.list", Method: "GET", Path: "/v1/coverage-requests", Tag: "connector", Scope: api.ScopeRead,
			Summary: "The caller's coverage requests (companies imported that the service does not know yet), newest first, each with where the search for its " +
				"job sources stands: status searching, covered (with the sources found), candidates, no_ats_found (with what was tried), blocked_by_robots, " +
				"unreachable or needs_domain, and last_tried_at. A company found is crawled from the next 3-hour window. Not billable",
			Params: []api.Param{
				{Name: "limit", In: "query", Type: "integer", Min: new(int64(1)), Max: new(int64(CoveragePageMax)), Default: int64(50)},
				{Name: "cursor", In: "query", Type: "integer", Min: new(int64(1)), Description: "next_cursor of the previous page"},
			},
			Statuses: []int{200}, Response: coverageSchema(), Handler: h.coverageRequests},
	}
}
