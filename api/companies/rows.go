package companies

import (
	"strings"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/reqrow"
	"github.com/planehq/hiringsignal/pipeline/normalize"
	"github.com/planehq/hiringsignal/readmodel"
)

// reqRow is one served req (spec 2.3) and how often it was reposted.
type reqRow struct {
	reqrow.Row
	RepostCount uint32 `json:"repost_count"`
}

func reqSchema() map[string]any {
	p := reqrow.Props()
	p["repost_count"] = api.Type("integer")
	return api.Object(p)
}

// repostRow is a repost-pain row: a req and whether it is still open.
type repostRow struct {
	reqRow
	Live        bool      `json:"live"`
	LastEventAt time.Time `json:"last_event_at"`
}

func repostSchema() map[string]any {
	s := reqSchema()
	p := s["properties"].(map[string]any)
	p["live"] = api.Type("boolean")
	p["last_event_at"] = api.DateTime()
	return s
}

func rowOf(companyID uint64, r *readmodel.Req) reqRow {
	row := reqRow{Row: reqrow.Row{ReqKey: r.Key, CompanyID: companyID, RawTitle: r.RawTitle, Title: strOrNil(r.Title),
		Function: strOrNil(r.Function), FunctionName: strOrNil(r.FunctionName()), Country: strOrNil(r.Country),
		CountryCode: strOrNil(r.CountryCode()), Boards: r.Boards, SourceType: r.SourceType, FirstSeen: r.FirstSeenTime()},
		RepostCount: r.RepostCount}
	if row.Boards == nil {
		row.Boards = []string{}
	}
	if r.HasSalaryMin {
		v := r.SalaryMinUSD
		row.SalaryMinUSD = &v
	}
	if r.HasSalaryMax {
		v := r.SalaryMaxUSD
		row.SalaryMaxUSD = &v
	}
	return row
}

// functionFilter resolves the `function` parameter (a name, any case, or a taxonomy id) to the
// set of ids it covers; nil when absent. Unresolvable is 422 listing the names.
func functionFilter(c *api.Call) (map[string]bool, error) {
	v, ok := c.String("function")
	if !ok {
		return nil, nil
	}
	ids, found := normalize.ResolveFunction(strings.TrimSpace(v))
	if !found {
		names := normalize.FunctionNames()
		msg := "unknown function '" + v + "': send a function name or taxonomy id; names: " + strings.Join(names, ", ")
		fe := api.ValueError(v, msg, "query", "function")
		fe.Ctx["names"] = names
		return nil, api.Invalid(fe)
	}
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	if len(ids) == 1 {
		c.SetFunction(ids[0])
	}
	return set, nil
}

// countryFilter resolves the `country` parameter (a country name or alias) to the canonical
// name; "" when absent. Unresolvable is 422.
func countryFilter(c *api.Call) (string, error) {
	v, ok := c.String("country")
	if !ok {
		return "", nil
	}
	name, found := normalize.CountryName(v)
	if !found {
		return "", api.Invalid(api.ValueError(v, "unknown country '"+v+"': send a country name, e.g. Germany or United States", "query", "country"))
	}
	return name, nil
}
