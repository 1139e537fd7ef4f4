package companies

import (
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// historyWindow tells the caller how far back a history read reaches.
type historyWindow struct {
	HistoryCapped bool       `json:"history_capped"`
	HistoryFrom   *time.Time `json:"history_from"` // null when uncapped
}

// historyProps adds the historyWindow fields to p.
func historyProps(p map[string]any) map[string]any {
	p["history_capped"] = api.Type("boolean")
	p["history_from"] = api.Nullable(api.DateTime())
	return p
}

func nullableArr(items map[string]any) map[string]any {
	return map[string]any{"type": []any{"array", "null"}, "items": items}
}

func windowOf(c *api.Call, m *readmodel.Model) (time.Time, historyWindow) {
	cut, capped := historyCutoff(c, m)
	if !capped {
		return time.Time{}, historyWindow{}
	}
	return cut, historyWindow{HistoryCapped: true, HistoryFrom: &cut}
}

// firstHireRow is the earliest req observed in one function at the company.
type firstHireRow struct {
	Function     string    `json:"function"`
	FunctionName *string   `json:"function_name"`
	FunctionIDs  []string  `json:"function_ids"`
	FirstSeen    time.Time `json:"first_seen"`
	ReqKey       string    `json:"req_key"`
	RawTitle     string    `json:"raw_title"`
	SourceBoard  string    `json:"source_board"`
}

func firstHireSchema() map[string]any {
	ids := api.ArrayOf("string")
	ids["description"] = "every taxonomy id of function_name the company has a first hire in (function is the id of the earliest)"
	s := api.Object(map[string]any{"function": api.Type("string"), "function_name": api.Nullable(api.Type("string")), "function_ids": ids,
		"first_seen": api.DateTime(), "req_key": api.Type("string"), "raw_title": api.Type("string"), "source_board": api.Enum("role_slot_recompute")})
	s["description"] = "One row per function name (the name a person reads; an id outside the named vocabulary keeps a row of its own): the earliest req of any of its ids. " +
		"A function in which the company already had a req live when observation began (a left-censored req) has no row: its first hire predates coverage."
	return s
}

type firstHireView struct {
	CompanyID      uint64         `json:"company_id"`
	CoverageStatus string         `json:"coverage_status"`
	FirstHires     []firstHireRow `json:"first_hires"` // null without coverage
	AsOf           time.Time      `json:"as_of"`
	historyWindow
}

func firstHiresSchema() map[string]any {
	return api.Object(historyProps(map[string]any{"company_id": api.Type("integer"), "coverage_status": api.Type("string"), "first_hires": nullableArr(firstHireSchema()),
		"as_of": asOfSchema()}))
}

// firstHires is one row per function name (unnamed ids by id), the earliest first hire of its
// ids, oldest first; a name with any left-censored id has none (its first hire predates
// observation). fns filters by id, cut drops rows before the caller's history window; a first
// hire first seen after fresh (the caller's freshness floor, zero: none) is not served, nor
// counted among its name's ids.
func firstHires(co *readmodel.Company, fns map[string]bool, cut, fresh time.Time) []firstHireRow {
	if !co.Covered() {
		return nil
	}
	keyOf := func(id string) string {
		if n, ok := normalize.FunctionName(id); ok {
			return n
		}
		return id
	}
	censored := map[string]bool{}
	for id := range co.CensoredFunctions() {
		censored[keyOf(id)] = true
	}
	out := []firstHireRow{}
	at := map[string]int{}
	for _, f := range co.FirstHires() { // oldest first: the first row of a name is its earliest
		k := keyOf(f.Function)
		if censored[k] || fns != nil && !fns[f.Function] || readmodel.Hides(fresh, f.FirstSeen.Unix()) {
			continue
		}
		if i, ok := at[k]; ok {
			if i >= 0 {
				out[i].FunctionIDs = append(out[i].FunctionIDs, f.Function)
			}
			continue
		}
		if f.FirstSeen.Before(cut) {
			at[k] = -1 // the name's first hire is before the caller's history window: none of its ids is first
			continue
		}
		name, _ := normalize.FunctionName(f.Function)
		at[k] = len(out)
		out = append(out, firstHireRow{Function: f.Function, FunctionName: nullable.String(name), FunctionIDs: []string{f.Function},
			FirstSeen: f.FirstSeen, ReqKey: f.ReqKey, RawTitle: f.RawTitle, SourceBoard: readmodel.FirstHireSource})
	}
	return out
}

func (h *handlers) firstHire(c *api.Call) (int, error) {
	m, co, err := h.company(c)
	if err != nil {
		return 0, err
	}
	fns, err := functionFilter(c)
	if err != nil {
		return 0, err
	}
	cut, win := windowOf(c, m)
	return 0, c.JSON(200, firstHireView{CompanyID: co.ID, CoverageStatus: co.Coverage(), FirstHires: firstHires(co, fns, cut, freshBefore(c, m)), AsOf: m.AsOf,
		historyWindow: win})
}

type repostPainView struct {
	CompanyID      uint64      `json:"company_id"`
	CoverageStatus string      `json:"coverage_status"`
	Total          *int        `json:"total"`
	Reqs           []repostRow `json:"reqs"` // null without coverage
	AsOf           time.Time   `json:"as_of"`
	historyWindow
}

func repostPainSchema() map[string]any {
	return api.Object(historyProps(map[string]any{"company_id": api.Type("integer"), "coverage_status": api.Type("string"), "total": api.Nullable(api.Type("integer")),
		"reqs": nullableArr(repostSchema()), "as_of": asOfSchema()}))
}

// repostPain lists reqs that came back after going away, hardest (most reposts) first; a capped
// caller sees those active (latest event) within its history window, and none first seen after
// fresh (its freshness floor; zero: none). max bounds the rows.
func repostPain(x *searchindex.Index, co *readmodel.Company, cut, fresh time.Time, max int) ([]repostRow, int) {
	if !co.Covered() {
		return nil, 0
	}
	out := []repostRow{}
	total := 0
	reposted := co.Reposted()
	for i := range reposted {
		r := &reposted[i]
		if r.LastEventTime().Before(cut) || readmodel.Hides(fresh, r.FirstSeen) {
			continue
		}
		total++
		if len(out) < max {
			out = append(out, repostRow{reqRow: rowOf(x, co, r), Live: r.Live, LastEventAt: r.LastEventTime()})
		}
	}
	return out, total
}

func (h *handlers) repostPain(c *api.Call) (int, error) {
	snap, co, err := h.companyAt(c)
	if err != nil {
		return 0, err
	}
	m := snap.Model
	cut, win := windowOf(c, m)
	rows, total := repostPain(snap.Index, co, cut, freshBefore(c, m), c.PageCap(RepostPainMax))
	v := repostPainView{CompanyID: co.ID, CoverageStatus: co.Coverage(), Reqs: rows, AsOf: m.AsOf, historyWindow: win}
	if co.Covered() {
		v.Total = &total
	}
	return 0, c.JSON(200, v)
}

// provenance wraps a value with where and when it was observed (occurred_at on ats-migrations).
type provenance struct {
	Value      time.Time `json:"value"`
	Source     string    `json:"source"`
	ObservedAt time.Time `json:"observed_at"`
}

type migrationRow struct {
	FromVendor string     `json:"from_vendor"`
	ToVendor   string     `json:"to_vendor"`
	OccurredAt provenance `json:"occurred_at"`
}

func migrationSchema() map[string]any {
	return api.Object(map[string]any{"from_vendor": api.Type("string"), "to_vendor": api.Type("string"),
		"occurred_at": api.Object(map[string]any{"value": api.DateTime(), "source": api.Enum("ats_history"), "observed_at": api.DateTime()})})
}

type migrationsView struct {
	CompanyID      uint64         `json:"company_id"`
	CoverageStatus string         `json:"coverage_status"`
	ATSVendor      *string        `json:"ats_vendor"`
	Migrations     []migrationRow `json:"migrations"` // null without coverage
	AsOf           time.Time      `json:"as_of"`
}

func migrationsSchema() map[string]any {
	return api.Object(map[string]any{"company_id": api.Type("integer"), "coverage_status": api.Type("string"), "ats_vendor": api.Nullable(api.Type("string")),
		"migrations": nullableArr(migrationSchema()), "as_of": asOfSchema()})
}

// migrations: occurred_at is when the crawl first read the new vendor's tenant (the move happened
// at or before it, after the last read of the old one).
func migrations(co *readmodel.Company) []migrationRow {
	if !co.Covered() {
		return nil
	}
	out := make([]migrationRow, 0, len(co.Migrations()))
	for _, mg := range co.Migrations() {
		out = append(out, migrationRow{FromVendor: mg.FromVendor, ToVendor: mg.ToVendor,
			OccurredAt: provenance{Value: mg.ObservedAt, Source: "ats_history", ObservedAt: mg.ObservedAt}})
	}
	return out
}

func (h *handlers) atsMigrations(c *api.Call) (int, error) {
	m, co, err := h.company(c)
	if err != nil {
		return 0, err
	}
	return 0, c.JSON(200, migrationsView{CompanyID: co.ID, CoverageStatus: co.Coverage(), ATSVendor: nullable.String(co.ATSVendor()), Migrations: migrations(co),
		AsOf: m.AsOf})
}

// briefView is the pre-action brief: pulse, top open reqs, first hires, repost pain and
// migrations in one bounded answer.
type briefView struct {
	CompanyID      uint64          `json:"company_id"`
	Name           string          `json:"name"`
	Domain         string          `json:"domain"`
	HQCountry      *string         `json:"hq_country"`
	HQCountryCode  *string         `json:"hq_country_code"`
	CoverageStatus string          `json:"coverage_status"`
	Pulse          readmodel.Pulse `json:"pulse"`
	OpenReqs       []reqRow        `json:"open_reqs"`
	OpenReqTotal   *int            `json:"open_req_total"`
	FirstHires     []firstHireRow  `json:"first_hires"`
	RepostPain     []repostRow     `json:"repost_pain"`
	Migrations     []migrationRow  `json:"migrations"`
	AsOf           time.Time       `json:"as_of"`
	historyWindow
}

func briefSchema() map[string]any {
	return api.Object(historyProps(map[string]any{"company_id": api.Type("integer"), "name": api.Type("string"), "domain": api.Type("string"),
		"hq_country": api.Nullable(api.Type("string")), "hq_country_code": api.Nullable(api.Type("string")), "coverage_status": api.Type("string"),
		"pulse": api.Object(pulseProps()), "open_reqs": nullableArr(reqSchema()), "open_req_total": api.Nullable(api.Type("integer")),
		"first_hires": nullableArr(firstHireSchema()), "repost_pain": nullableArr(repostSchema()), "migrations": nullableArr(migrationSchema()),
		"as_of": asOfSchema()}))
}

func (h *handlers) preActionBrief(c *api.Call) (int, error) {
	snap, co, err := h.companyAt(c)
	if err != nil {
		return 0, err
	}
	m := snap.Model
	if done, err := h.freshnessDemand(c, co); done || err != nil {
		return 0, err
	}
	cut, win := windowOf(c, m)
	fresh := freshBefore(c, m)
	p := snap.PulseUnder(co, true, fresh)
	if n := len(p.Momentum); n > BriefMomentumWeeks {
		p.Momentum = p.Momentum[n-BriefMomentumWeeks:]
	}
	v := briefView{CompanyID: co.ID, Name: co.Name, Domain: co.Domain, HQCountry: nullable.String(co.HQCountry()), HQCountryCode: nullable.String(co.HQCountryCode()),
		CoverageStatus: co.Coverage(), Pulse: p, FirstHires: firstHires(co, nil, cut, fresh), Migrations: migrations(co), AsOf: m.AsOf, historyWindow: win}
	v.RepostPain, _ = repostPain(snap.Index, co, cut, fresh, BriefReposts)
	if co.Covered() {
		n := 0
		v.OpenReqs = make([]reqRow, 0, min(len(co.Live), BriefReqs))
		for i := range co.Live {
			if readmodel.Hides(fresh, co.Live[i].FirstSeen) {
				continue
			}
			if n++; len(v.OpenReqs) < BriefReqs {
				v.OpenReqs = append(v.OpenReqs, rowOf(snap.Index, co, &co.Live[i]))
			}
		}
		v.OpenReqTotal = &n
	}
	return 0, c.JSON(200, v)
}
