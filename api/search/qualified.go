package search

import (
	"encoding/json"
	"strconv"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

type qualifiedBody struct {
	Criteria        json.RawMessage `json:"criteria"`
	SalaryMinUSD    *float64        `json:"salary_min_usd"`
	SalaryMaxUSD    *float64        `json:"salary_max_usd"`
	ExcludeAgencies *bool           `json:"exclude_agencies"`
	LiveOnly        *bool           `json:"live_only"`
	IncludePulse    bool            `json:"include_pulse"`
	Include         []string        `json:"include"`
	Cursor          *int64          `json:"cursor"`
	Limit           *int64          `json:"limit"`
}

// qualifiedRow is one reqs/qualified row: the req fields plus the qualification blocks.
type qualifiedRow struct {
	reqRow
	CompanyName   *string      `json:"company_name"`
	CompanyDomain *string      `json:"company_domain"`
	Skills        []string     `json:"skills"`
	JobFamily     *string      `json:"job_family"`
	Compensation  compensation `json:"compensation"`
	Eligibility   eligibility  `json:"eligibility"`
	Apply         apply        `json:"apply"`
	Lifecycle     lifecycle    `json:"lifecycle"`
	Dedup         dedup        `json:"dedup"`
	LedgerSeq     uint64       `json:"ledger_seq"`
}

func qualifiedSchema() map[string]any {
	p := map[string]any{}
	p["company_name"] = api.Nullable(api.Type("string"))
	p["company_domain"] = api.Nullable(api.Type("string"))
	p["skills"] = map[string]any{"type": "array", "items": api.Type("string"), "description": "skill words of the title (lower case); technologies lists what the title and description name"}
	p["job_family"] = api.Nullable(api.Type("string"))
	p["ledger_seq"] = api.Type("integer")
	p["compensation"] = api.Object(map[string]any{
		"declared": api.Nullable(api.Object(map[string]any{"min_usd": api.Nullable(api.Type("number")), "max_usd": api.Nullable(api.Type("number"))})),
		"inferred": api.Nullable(api.Object(map[string]any{"median_usd": api.Type("number"), "samples": api.Type("integer"),
			"basis": api.Type("string"), "seniority": api.Nullable(api.Type("string"))})),
		"figure_usd": api.Nullable(api.Type("number")), "basis": api.Nullable(api.Enum("declared", "inferred")),
	})
	p["eligibility"] = api.Object(map[string]any{"country": api.Nullable(api.Type("string")), "country_code": api.Nullable(api.Type("string")), "location": api.Nullable(api.Type("string")), "remote": api.Type("boolean")})
	p["apply"] = api.Object(map[string]any{"url": api.Nullable(api.Type("string")), "actionable": api.Type("boolean")})
	p["lifecycle"] = api.Object(map[string]any{"first_seen": api.DateTime(), "last_event_at": api.DateTime(), "status": api.Enum("opened", "reobserved", "reposted", "closed"), "live": api.Type("boolean"), "repost_count": api.Type("integer")})
	p["dedup"] = api.Object(map[string]any{"boards": api.ArrayOf("string"), "board_count": api.Type("integer"), "board": api.Type("string"), "source_type": api.Type("string")})
	row := api.Extend(reqSchema(), p)
	s := api.Object(metaProps(map[string]any{"rows": map[string]any{"type": "array", "items": row},
		"next_cursor": map[string]any{"type": "integer", "description": "monotone ledger position: pass it back to get only reqs that opened after"},
		"companies":   api.Optional(map[string]any{"type": "object", "additionalProperties": pulseSchema(), "description": "with include_pulse: the pulse of every company on the page, keyed by company_id; absent without it"})}, "rows matching after the cursor, up to the first req still under the floor (what this and the following pages serve now)"))
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
	Basis     string  `json:"basis"`
	Seniority *string `json:"seniority"`
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
	row := qualifiedRow{reqRow: newReqRow(x, r), CompanyName: nullable.String(co.Name), CompanyDomain: nullable.String(co.Domain),
		Skills: r.Title.Skills, JobFamily: nullable.String(searchindex.JobFamily(r.Function())),
		Eligibility: eligibility{Country: nullable.String(r.Country()), CountryCode: countryCode(r.Country()), Location: nullable.String(r.Location()), Remote: r.Remote()},
		Apply:       apply{URL: nullable.String(r.URL), Actionable: r.URL != "" && r.Live},
		Lifecycle:   lifecycle{FirstSeen: ts(r.FirstSeen), LastEventAt: ts(r.LastEventAt), Status: r.EventType(), Live: r.Live, RepostCount: r.RepostCount},
		Dedup:       dedup{Boards: r.Boards(), BoardCount: len(r.Boards()), Board: r.Board(), SourceType: r.SourceType()},
		LedgerSeq:   r.OpenSeq,
	}
	if lo, hi := r.DeclaredSalary(); lo != nil || hi != nil {
		row.Compensation.Declared = &declaredPay{MinUSD: lo, MaxUSD: hi}
	}
	if e, ok := x.SalaryEstimate(r); ok {
		row.Compensation.Inferred = &inferredPay{MedianUSD: e.MedianUSD, Samples: e.Samples, Basis: e.Basis, Seniority: nullable.String(e.Seniority)}
	}
	if f, basis, ok := x.SalaryFigure(r); ok {
		row.Compensation.FigureUSD, row.Compensation.Basis = &f, &basis
	}
	return row
}

// parseQualified validates a reqs/qualified body and resolves it into a query (all but the
// caller's freshness floor). maxLimit is the caller's largest page. Criteria problems come alone;
// at most MaxFieldErrors items are returned.
func parseQualified(b *qualifiedBody, maxLimit int64) (searchindex.QualifiedQuery, []problem.FieldError) {
	cr, errs := criteria.Parse(b.Criteria, criteria.Qualified)
	q := cr.Query
	if len(errs) > 0 {
		return q, errs
	}
	for _, s := range []struct {
		name string
		v    *float64
	}{{"salary_min_usd", b.SalaryMinUSD}, {"salary_max_usd", b.SalaryMaxUSD}} {
		if s.v != nil && *s.v < 0 {
			errs = append(errs, problem.FieldError{Type: "greater_than_equal", Loc: problem.Loc("body", s.name), Msg: "Input should be greater than or equal to 0", Input: *s.v, Ctx: map[string]any{"ge": 0}})
		}
	}
	if b.SalaryMinUSD != nil && b.SalaryMaxUSD != nil && *b.SalaryMinUSD > *b.SalaryMaxUSD {
		errs = append(errs, problem.ValueError(map[string]any{"salary_min_usd": *b.SalaryMinUSD, "salary_max_usd": *b.SalaryMaxUSD},
			"inverted pay band: salary_min_usd must not exceed salary_max_usd", "body", "salary_min_usd"))
	}
	limit := min(int64(DefaultLimit), maxLimit)
	if b.Limit != nil {
		limit = *b.Limit
		if limit < 1 {
			errs = append(errs, problem.FieldError{Type: "greater_than_equal", Loc: problem.Loc("body", "limit"), Msg: "Input should be greater than or equal to 1", Input: limit, Ctx: map[string]any{"ge": 1}})
		} else if limit > maxLimit {
			errs = append(errs, problem.FieldError{Type: "less_than_equal", Loc: problem.Loc("body", "limit"), Msg: "Input should be less than or equal to " + strconv.FormatInt(maxLimit, 10), Input: limit, Ctx: map[string]any{"le": maxLimit}})
		}
	}
	if b.Cursor != nil && *b.Cursor < 0 {
		errs = append(errs, problem.FieldError{Type: "greater_than_equal", Loc: problem.Loc("body", "cursor"), Msg: "Input should be greater than or equal to 0", Input: *b.Cursor, Ctx: map[string]any{"ge": 0}})
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
	if q.After > x.Watermark {
		return 0, api.CursorAhead(q.After, x.Watermark, "body", "cursor")
	}
	q.Filter.FreshBefore = freshBefore(c, x)
	page := x.Qualified(q)
	inc := includesOf(b.Include)

	out := struct {
		freshness
		paging
		Rows       []qualifiedRow               `json:"rows"`
		NextCursor uint64                       `json:"next_cursor"`
		Companies  *map[string]*readmodel.Pulse `json:"companies,omitempty"`
	}{freshness: freshnessOf(c, x), paging: pagingOf(page.More, x.CountQualified(q)), Rows: make([]qualifiedRow, 0, len(page.Rows)), NextCursor: page.Next}
	pulses := map[string]*readmodel.Pulse{}
	if b.IncludePulse {
		out.Companies = &pulses
	}
	for _, r := range page.Rows {
		out.Rows = append(out.Rows, newQualifiedRow(x, r))
		if b.IncludePulse {
			k := strconv.FormatUint(r.CompanyID, 10)
			if _, done := pulses[k]; !done {
				pulses[k] = flooredPulse(snap, q.Filter.FreshBefore, r.CompanyID, inc)
			}
		}
	}
	if inc.description {
		if err := h.describe(c, page.Rows, func(i int, text string, ok bool) { out.Rows[i].SetDescription(text, ok) }); err != nil {
			return 0, err
		}
	}
	return len(out.Rows), c.JSON(200, out)
}
