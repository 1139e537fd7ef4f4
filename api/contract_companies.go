package api

// Response schemas of the company reads (spec 4.2), served by package api/companies. Fields named
// in spec 2 keep their names; motion fields are null for coverage_status no_ats_signal.

func withResponse(rt *Route, schema map[string]any) *Route {
	rt.Response = schema
	return rt
}

func companyReqProps() map[string]any {
	return map[string]any{
		"req_key": typ("string"), "company_id": typ("integer"), "raw_title": typ("string"), "title": nullable(typ("string")),
		"function": nullable(typ("string")), "function_name": nullable(typ("string")), "country": nullable(typ("string")),
		"country_code": nullable(typ("string")), "boards": arr("string"), "source_type": enum("ats_tenant", "board"),
		"first_seen": dt(), "salary_min_usd": nullable(typ("number")), "salary_max_usd": nullable(typ("number")), "repost_count": typ("integer"),
	}
}

func companyReqSchema() map[string]any { return obj(companyReqProps()) }

func repostReqSchema() map[string]any {
	p := companyReqProps()
	p["live"] = typ("boolean")
	p["last_event_at"] = dt()
	return obj(p)
}

func companyPulseProps() map[string]any {
	week := obj(map[string]any{"bucket_start": dt(), "opened": typ("integer"), "reposted": typ("integer"), "closed": typ("integer")})
	return map[string]any{
		"company_id": typ("integer"), "coverage_status": enum("covered", "no_ats_signal"), "is_hiring": nullable(typ("boolean")),
		"open_req_count": nullable(typ("integer")), "active_reqs": nullable(typ("integer")), "new_roles_30d": nullable(typ("integer")),
		"velocity": nullable(typ("number")), "direction": map[string]any{"type": []any{"string", "null"}, "enum": []any{"accelerating", "steady", "decelerating", nil}},
		"is_surge": nullable(typ("boolean")), "momentum": map[string]any{"type": []any{"array", "null"}, "items": week}, "motion_as_of": nullable(dt()),
	}
}

func nullableArr(items map[string]any) map[string]any {
	return map[string]any{"type": []any{"array", "null"}, "items": items}
}

func firstHireSchema() map[string]any {
	return obj(map[string]any{"function": typ("string"), "function_name": nullable(typ("string")), "first_seen": dt(),
		"req_key": typ("string"), "raw_title": typ("string"), "source_board": enum("role_slot_recompute")})
}

func migrationSchema() map[string]any {
	return obj(map[string]any{"from_vendor": typ("string"), "to_vendor": typ("string"),
		"occurred_at": obj(map[string]any{"value": dt(), "source": enum("ats_history"), "observed_at": dt()})})
}

func historyProps(p map[string]any) map[string]any {
	p["history_capped"] = typ("boolean")
	p["history_from"] = nullable(dt())
	return p
}

func isHiringSchema() map[string]any {
	return obj(map[string]any{"company_id": typ("integer"), "name": typ("string"), "domain": typ("string"), "is_hiring": nullable(typ("boolean")),
		"open_req_count": nullable(typ("integer")), "coverage_status": enum("covered", "no_ats_signal"), "motion_as_of": nullable(dt())})
}

func openReqsSchema() map[string]any {
	return obj(map[string]any{"company_id": typ("integer"), "coverage_status": typ("string"), "total": nullable(typ("integer")),
		"reqs": map[string]any{"type": "array", "items": companyReqSchema()}})
}

func enrichmentSchema() map[string]any {
	return obj(map[string]any{"company_id": typ("integer"), "name": typ("string"), "domain": typ("string"),
		"hq_country": nullable(typ("string")), "hq_country_code": nullable(typ("string")), "industry": nullable(typ("string")),
		"headcount_band": nullable(typ("string")), "agency_kind": nullable(typ("string")), "ats_vendor": nullable(typ("string")),
		"coverage_status": enum("covered", "no_ats_signal"), "boards": arr("string"), "enrichment_as_of": nullable(dt()),
		"freshness_floor_s": typ("integer")})
}

func firstHiresSchema() map[string]any {
	return obj(historyProps(map[string]any{"company_id": typ("integer"), "coverage_status": typ("string"), "first_hires": nullableArr(firstHireSchema())}))
}

func repostPainSchema() map[string]any {
	return obj(historyProps(map[string]any{"company_id": typ("integer"), "coverage_status": typ("string"), "total": nullable(typ("integer")),
		"reqs": nullableArr(repostReqSchema())}))
}

func migrationsSchema() map[string]any {
	return obj(map[string]any{"company_id": typ("integer"), "coverage_status": typ("string"), "ats_vendor": nullable(typ("string")),
		"migrations": nullableArr(migrationSchema())})
}

func briefSchema() map[string]any {
	return obj(historyProps(map[string]any{"company_id": typ("integer"), "name": typ("string"), "domain": typ("string"),
		"hq_country": nullable(typ("string")), "hq_country_code": nullable(typ("string")), "coverage_status": typ("string"),
		"pulse": obj(companyPulseProps()), "open_reqs": nullableArr(companyReqSchema()), "open_req_total": nullable(typ("integer")),
		"first_hires": nullableArr(firstHireSchema()), "repost_pain": nullableArr(repostReqSchema()), "migrations": nullableArr(migrationSchema()),
		"as_of": dt()}))
}

func resolveSchema() map[string]any {
	return obj(map[string]any{"companies": map[string]any{"type": "array", "maxItems": 5, "items": obj(map[string]any{
		"company_id": typ("integer"), "name": typ("string"), "domain": typ("string"), "hq_country": nullable(typ("string")),
		"hq_country_code": nullable(typ("string")), "country_code": nullable(typ("string")),
		"coverage_status": enum("covered", "no_ats_signal"), "match_confidence": typ("number")})}})
}
