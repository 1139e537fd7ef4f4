package api

// Schemas and texts of the search routes (spec 4.3) used by their entries in contract.go. The
// criteria vocabulary text must list every field of search.Vocabulary (api/search checks it).

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

func searchReqSchema() map[string]any {
	return obj(map[string]any{
		"req_key": typ("string"), "company_id": typ("integer"), "raw_title": typ("string"), "title": nullable(typ("string")),
		"function": nullable(typ("string")), "function_name": nullable(typ("string")), "country": nullable(typ("string")),
		"country_code": nullable(typ("string")), "board": typ("string"), "boards": arr("string"), "source_type": enum("ats_tenant", "board"),
		"first_seen": dt(), "url": nullable(typ("string")),
		"salary_min_usd": nullable(typ("number")), "salary_max_usd": nullable(typ("number")), "salary_estimate_samples": nullable(typ("integer")),
	})
}

func searchPulseSchema() map[string]any {
	week := obj(map[string]any{"bucket_start": dt(), "opened": typ("integer"), "reposted": typ("integer"), "closed": typ("integer")})
	return nullable(obj(map[string]any{
		"company_id": typ("integer"), "coverage_status": typ("string"), "is_hiring": nullable(typ("boolean")),
		"open_req_count": nullable(typ("integer")), "active_reqs": nullable(typ("integer")), "new_roles_30d": nullable(typ("integer")),
		"velocity": nullable(typ("number")), "direction": nullable(typ("string")), "is_surge": nullable(typ("boolean")),
		"momentum": map[string]any{"type": "array", "items": week}, "motion_as_of": nullable(dt()),
	}))
}

func reqsSearchSchema() map[string]any {
	co := obj(map[string]any{
		"company_id": typ("integer"), "company_name": nullable(typ("string")), "company_domain": nullable(typ("string")),
		"hq_country": nullable(typ("string")), "country_code": nullable(typ("string")), "pulse": searchPulseSchema(),
		"matched_req_count": typ("integer"), "matched_reqs": map[string]any{"type": "array", "items": searchReqSchema(), "maxItems": 50},
	})
	s := obj(map[string]any{"companies": map[string]any{"type": "array", "items": co},
		"next_cursor": map[string]any{"type": "integer", "description": "highest company_id of the page; absent on the last page"}})
	s["description"] = "One source_row unit per company row. matched_reqs: the company's matching reqs, newest first, at most 50 (matched_req_count counts them all)."
	return s
}

func qualifiedSchema() map[string]any {
	row := searchReqSchema()
	p := row["properties"].(map[string]any)
	p["company_name"] = nullable(typ("string"))
	p["company_domain"] = nullable(typ("string"))
	p["skills"] = arr("string")
	p["seniority"] = nullable(typ("string"))
	p["job_family"] = nullable(typ("string"))
	p["ledger_seq"] = typ("integer")
	p["compensation"] = obj(map[string]any{
		"declared":   nullable(obj(map[string]any{"min_usd": nullable(typ("number")), "max_usd": nullable(typ("number"))})),
		"inferred":   nullable(obj(map[string]any{"median_usd": typ("number"), "samples": typ("integer")})),
		"figure_usd": nullable(typ("number")), "basis": nullable(enum("declared", "inferred")),
	})
	p["eligibility"] = obj(map[string]any{"country": nullable(typ("string")), "country_code": nullable(typ("string")), "location": nullable(typ("string")), "remote": typ("boolean")})
	p["apply"] = obj(map[string]any{"url": nullable(typ("string")), "actionable": typ("boolean")})
	p["lifecycle"] = obj(map[string]any{"first_seen": dt(), "last_event_at": dt(), "status": enum("opened", "reobserved", "reposted", "closed"), "live": typ("boolean"), "repost_count": typ("integer")})
	p["dedup"] = obj(map[string]any{"boards": arr("string"), "board_count": typ("integer"), "board": typ("string"), "source_type": typ("string")})
	s := obj(map[string]any{"rows": map[string]any{"type": "array", "items": row},
		"next_cursor": map[string]any{"type": "integer", "description": "monotone ledger position: pass it back to get only reqs that opened after"},
		"companies":   map[string]any{"type": "object", "additionalProperties": searchPulseSchema(), "description": "with include_pulse: the pulse of every company on the page, keyed by company_id"}})
	s["description"] = "One source_row unit per row."
	return s
}

func jobRowProps() map[string]any {
	return map[string]any{
		"board": typ("string"), "company_id": typ("integer"), "req_key": typ("string"), "raw_title": typ("string"), "title": nullable(typ("string")),
		"first_seen": dt(), "function": nullable(typ("string")), "function_name": nullable(typ("string")), "country": nullable(typ("string")),
		"country_code": nullable(typ("string")), "source_type": enum("ats_tenant", "board"), "relevance": nullable(typ("number")),
	}
}

func jobsSearchSchema() map[string]any {
	s := obj(map[string]any{"jobs": map[string]any{"type": "array", "items": obj(jobRowProps())},
		"next_cursor": map[string]any{"type": "string", "description": "opaque (the page's last company_id:req_key, with the sort key when sorted); absent on the last page"}})
	s["description"] = "One source_row unit per job row. relevance is null without q."
	return s
}

func jobsRoleSchema() map[string]any {
	p := jobRowProps()
	p["boards"] = arr("string")
	p["url"] = nullable(typ("string"))
	p["company_name"] = nullable(typ("string"))
	p["repost_count"] = typ("integer")
	p["salary_min_usd"] = nullable(typ("number"))
	p["salary_max_usd"] = nullable(typ("number"))
	p["salary_estimate_samples"] = nullable(typ("integer"))
	return obj(p)
}

func roleDemandSchema() map[string]any {
	week := obj(map[string]any{"bucket_start": dt(), "opened": typ("integer"), "reposted": typ("integer"), "closed": typ("integer")})
	return obj(map[string]any{"role": typ("string"), "functions": arr("string"), "function_name": nullable(typ("string")),
		"geo": nullable(typ("string")), "country_code": nullable(typ("string")),
		"series": map[string]any{"type": "array", "items": week, "description": "weekly buckets (Monday 00:00 UTC), oldest first, zero-filled"}})
}
