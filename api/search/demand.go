package search

import (
	"strings"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/snapshot"
)

type weekRow struct {
	BucketStart string `json:"bucket_start"`
	Opened      uint64 `json:"opened"`
	Reposted    uint64 `json:"reposted"`
	Closed      uint64 `json:"closed"`
	Partial     bool   `json:"partial"`
}

// weekSchema is one weekly bucket (weekRow, and readmodel.MomentumWeek in a pulse).
func weekSchema() map[string]any {
	partial := api.Type("boolean")
	partial["description"] = "the week was not observed whole: it began before observation started (openings of reqs already live then are left-censored and not counted), " +
		"a gap in the crawl touches it (3-hour crawl windows no cycle crawled, or the week of the first cycle after them, which counts every change of the gap; " +
		"on a company's pulse a gap of its own region, on role-demand of any region; X-History-Gap names the most recent), " +
		"or it has not ended at the latest committed cycle (the current week)"
	return api.Object(map[string]any{"bucket_start": api.DateTime(), "opened": api.Type("integer"), "reposted": api.Type("integer"), "closed": api.Type("integer"), "partial": partial})
}

func roleDemandSchema() map[string]any {
	return api.Object(map[string]any{"role": api.Type("string"), "functions": api.ArrayOf("string"), "function_name": api.Nullable(api.Type("string")),
		"geo": api.Nullable(api.Type("string")), "country_code": api.Nullable(api.Type("string")),
		"series": map[string]any{"type": "array", "items": weekSchema(), "description": "weekly buckets (Monday 00:00 UTC), oldest first, zero-filled"},
		"as_of":  map[string]any{"type": "string", "format": "date-time", "description": "the latest committed crawl cycle the series reflects (its last week ends there)"}})
}

// roleDemand serves GET /v1/markets/role-demand: the market-wide weekly series of reqs opened,
// reposted and closed for a function (taxonomy id, or a name covering its ids) in a country (or
// every country), oldest first, zero-filled.
func (h *handlers) roleDemand(c *api.Call, snap *snapshot.Snapshot) (int, error) {
	x := snap.Index
	var errs []problem.FieldError
	role, _ := c.String("role")
	ids, fe := criteria.FunctionIDs(role, "query", "role")
	if fe != nil {
		errs = append(errs, *fe)
	}
	var countries []string
	geo, hasGeo := c.String("geo")
	if hasGeo {
		var es []problem.FieldError
		countries, es = criteria.CountryNames([]string{geo}, "query", "geo")
		errs = append(errs, es...)
	}
	if len(errs) > 0 {
		return 0, api.Invalid(errs...)
	}
	c.SetFunction(ids[0])
	weeks := x.RoleDemand(ids, countries)
	out := struct {
		Role         string    `json:"role"`
		Functions    []string  `json:"functions"`
		FunctionName *string   `json:"function_name"`
		Geo          *string   `json:"geo"`
		CountryCode  *string   `json:"country_code"`
		Series       []weekRow `json:"series"`
		AsOf         string    `json:"as_of"`
	}{Role: strings.TrimSpace(role), Functions: ids, FunctionName: functionName(ids[0]), Series: make([]weekRow, 0, len(weeks)),
		AsOf: x.CycleTime.UTC().Format(time.RFC3339)}
	if len(countries) == 1 {
		out.Geo, out.CountryCode = &countries[0], countryCode(countries[0])
	}
	for _, w := range weeks {
		out.Series = append(out.Series, weekRow{BucketStart: w.BucketStart.Format("2006-01-02T15:04:05Z"), Opened: w.Opened, Reposted: w.Reposted, Closed: w.Closed, Partial: w.Partial})
	}
	return 0, c.JSON(200, out)
}
