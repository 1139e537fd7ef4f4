package connector

import (
	"fmt"
	"slices"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/readmodel"
)

// Row is one enrichment answer: a flat object (one spreadsheet row, no nested object) of who the
// company is and its hiring pulse. A miss (no company in the cache matches) has company_id null,
// coverage_status no_ats_signal, a message and null motion fields, as has a company without ATS or
// board coverage: unknown is never "not hiring".
type Row struct {
	RowID           *string    `json:"row_id"` // echoed as sent (null when not sent)
	InputDomain     *string    `json:"input_domain"`
	InputName       *string    `json:"input_name"`
	CompanyID       *uint64    `json:"company_id"`
	Name            *string    `json:"name"`
	Domain          *string    `json:"domain"`
	MatchConfidence *float64   `json:"match_confidence"`
	HQCountry       *string    `json:"hq_country"`
	HQCountryCode   *string    `json:"hq_country_code"`
	Industry        *string    `json:"industry"`
	HeadcountBand   *string    `json:"headcount_band"`
	ATSVendor       *string    `json:"ats_vendor"`
	CoverageStatus  string     `json:"coverage_status"`
	IsHiring        *bool      `json:"is_hiring"`
	OpenReqCount    *int       `json:"open_req_count"`
	ActiveReqs      *int       `json:"active_reqs"`
	NewRoles30d     *int       `json:"new_roles_30d"`
	Velocity        *float64   `json:"velocity"`
	Direction       *string    `json:"direction"`
	IsSurge         *bool      `json:"is_surge"`
	MotionAsOf      *time.Time `json:"motion_as_of"`
	Message         *string    `json:"message"`
	CheckedAt       time.Time  `json:"checked_at"`
}

// rowProps are the schema properties of Row.
func rowProps() map[string]any {
	s, n := api.Nullable(api.Type("string")), api.Nullable(api.Type("integer"))
	return map[string]any{
		"row_id": s, "input_domain": s, "input_name": s, "company_id": n, "name": s, "domain": s,
		"match_confidence": api.Nullable(api.Type("number")), "hq_country": s, "hq_country_code": s, "industry": s,
		"headcount_band": s, "ats_vendor": s, "coverage_status": api.Enum(readmodel.CoverageCovered, readmodel.CoverageNoATSSignal),
		"is_hiring": api.Nullable(api.Type("boolean")), "open_req_count": n, "active_reqs": n, "new_roles_30d": n,
		"velocity": api.Nullable(api.Type("number")), "direction": map[string]any{"type": []any{"string", "null"}, "enum": []any{"accelerating", "steady", "decelerating", nil}},
		"is_surge": api.Nullable(api.Type("boolean")), "motion_as_of": api.Nullable(api.DateTime()), "message": s, "checked_at": api.DateTime(),
	}
}

// enrichBody is one row a table tool sends.
type enrichBody struct {
	item
	RowID *string `json:"row_id"`
}

func (b *enrichBody) check(loc ...any) []problem.FieldError {
	b.trim()
	errs := b.item.check(loc...)
	if b.RowID != nil && len(*b.RowID) > MaxInputLength {
		errs = append(errs, problem.FieldError{Type: "string_too_long", Loc: slices.Concat(loc, []any{"row_id"}),
			Msg: "String should have at most 253 characters", Input: *b.RowID, Ctx: map[string]any{"max_length": MaxInputLength}})
	}
	return errs
}

// enrichRow answers one row from m at now.
func enrichRow(m *readmodel.Model, b *enrichBody, now time.Time) Row {
	r := Row{RowID: b.RowID, InputDomain: nullable.String(b.Domain), InputName: nullable.String(b.Name), CheckedAt: now.UTC().Truncate(time.Second)}
	co, conf := resolveOne(m, b.Domain, b.Name)
	if co == nil {
		msg := fmt.Sprintf("No company in our cache matches %s: no hiring signal is known for it (unknown, not 'not hiring'). "+
			"POST /v1/migration-import with it to request coverage.", described(b.Domain, b.Name))
		r.CoverageStatus, r.Message = readmodel.CoverageNoATSSignal, &msg
		return r
	}
	id := co.ID
	r.CompanyID, r.Name, r.Domain, r.MatchConfidence = &id, &co.Name, &co.Domain, &conf
	r.HQCountry, r.HQCountryCode = nullable.String(co.HQCountry()), nullable.String(co.HQCountryCode())
	r.Industry, r.HeadcountBand, r.ATSVendor = nullable.String(co.Industry()), nullable.String(co.HeadcountBand()), nullable.String(co.ATSVendor())
	p := m.PulseOf(co, false)
	r.CoverageStatus = p.CoverageStatus
	r.IsHiring, r.OpenReqCount, r.ActiveReqs, r.NewRoles30d = p.IsHiring, p.OpenReqCount, p.ActiveReqs, p.NewRoles30d
	r.Velocity, r.Direction, r.IsSurge, r.MotionAsOf = p.Velocity, p.Direction, p.IsSurge, p.MotionAsOf
	if !co.Covered() {
		msg := "The company is known but none of its ATS tenants or job boards is observable: its motion is unknown (null), not zero."
		r.Message = &msg
	}
	return r
}

func described(domain, name string) string {
	switch {
	case domain != "" && name != "":
		return fmt.Sprintf("domain %q or name %q", domain, name)
	case domain != "":
		return fmt.Sprintf("domain %q", domain)
	}
	return fmt.Sprintf("name %q", name)
}

func (h *handlers) enrich(c *api.Call) (int, error) {
	var b enrichBody
	if err := c.Decode(&b); err != nil {
		return 0, err
	}
	if errs := b.check("body"); len(errs) > 0 {
		return 0, api.Invalid(errs...)
	}
	m, err := h.model()
	if err != nil {
		return 0, err
	}
	r := enrichRow(m, &b, c.Now())
	if r.CompanyID == nil {
		c.NotBilled() // a miss is free, as on companies/resolve: metered to the key, no call, no unit
	}
	return 0, c.JSON(200, r)
}

// batchView is the batch answer: one Row per row sent, in order.
type batchView struct {
	Rows []Row `json:"rows"`
}

func (h *handlers) enrichBatch(c *api.Call) (int, error) {
	var b struct {
		Rows []enrichBody `json:"rows"`
	}
	if err := c.Decode(&b); err != nil {
		return 0, err
	}
	// The rows are the batch's page: the shared demo key gets at most api.DemoPageLimit of them,
	// as on every paged route (more is 422, as its limit past the cap is; the route's own
	// BatchMax was checked with the body).
	if max := c.PageCap(BatchMax); len(b.Rows) > max {
		return 0, api.Invalid(problem.FieldError{Type: "too_long", Loc: problem.Loc("body", "rows"),
			Msg:   fmt.Sprintf("List should have at most %d items after validation, not %d", max, len(b.Rows)),
			Input: b.Rows[:min(len(b.Rows), 10)], Ctx: map[string]any{"field_type": "List", "max_length": max, "actual_length": len(b.Rows)}})
	}
	var errs []problem.FieldError
	for i := range b.Rows {
		errs = append(errs, b.Rows[i].check("body", "rows", i)...)
	}
	if len(b.Rows) == 0 {
		errs = append(errs, problem.FieldError{Type: "too_short", Loc: problem.Loc("body", "rows"), Msg: "List should have at least 1 item after validation, not 0",
			Input: []any{}, Ctx: map[string]any{"min_length": 1}})
	}
	if len(errs) > 0 {
		return 0, api.Invalid(errs...)
	}
	m, err := h.model()
	if err != nil {
		return 0, err
	}
	now := c.Now()
	out := batchView{Rows: make([]Row, len(b.Rows))}
	hits := 0
	for i := range b.Rows {
		out.Rows[i] = enrichRow(m, &b.Rows[i], now)
		if out.Rows[i].CompanyID != nil {
			hits++
		}
	}
	if hits == 0 {
		c.NotBilled() // every row missed: free, as a single miss is
	}
	return hits, c.JSON(200, out) // one source_row per row that found a company; misses are free
}
