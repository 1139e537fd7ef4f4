package criteria

import (
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/problem"
)

// CountryNames resolves country names (never codes); bad values become 422 items at loc, indexed
// by their position (a single query parameter's item is at loc itself).
func CountryNames(vals []string, loc ...any) ([]string, []problem.FieldError) {
	var out []string
	var errs []problem.FieldError
	for i, v := range vals {
		name, ok := countryName(v)
		if !ok {
			l := append(append([]any{}, loc...), i)
			if len(vals) == 1 && len(loc) > 0 && loc[0] == "query" {
				l = loc
			}
			errs = append(errs, countryError(v, l))
			continue
		}
		out = append(out, name)
	}
	return out, errs
}

// CountryRule is the country parameter rule of every route (geo, country, hq_country, criteria),
// as the 422 states it.
const CountryRule = "country filters take a country name or alias (e.g. 'Germany', 'United States', 'USA') on every route; two-letter ISO codes are refused everywhere (the spec's names-only rule), and the answer names the country a code stands for"

// countryError is the 422 item of a value that is no country name: a two-letter code gets the
// name to send instead (ctx.suggestion).
func countryError(v string, loc []any) problem.FieldError {
	t := strings.TrimSpace(v)
	if len(t) == 2 {
		if name, ok := normalize.CountryName(t); ok {
			fe := problem.ValueError(v, "'"+v+"' is a two-letter country code: "+CountryRule+". Send '"+name+"'", loc...)
			fe.Ctx["expected"] = "a country name"
			fe.Ctx["suggestion"] = name
			return fe
		}
	}
	fe := problem.ValueError(v, "'"+v+"' is not a country name: "+CountryRule, loc...)
	fe.Ctx["expected"] = "a country name"
	return fe
}

func countryName(v string) (string, bool) {
	t := strings.TrimSpace(v)
	if len(t) <= 2 { // alpha-2 codes are refused: the filter takes names (spec 2.2)
		return "", false
	}
	return normalize.CountryName(t)
}

// FunctionIDs resolves a function name or taxonomy id; a bad value is a 422 item listing the names.
func FunctionIDs(v string, loc ...any) ([]string, *problem.FieldError) {
	return ResolveFunction(v, true, loc...)
}

// ResolveFunction is FunctionIDs; with listNames false a bad value's item refers to the first
// item of its field for the names instead of listing them again (a vocabulary is listed once).
func ResolveFunction(v string, listNames bool, loc ...any) ([]string, *problem.FieldError) {
	ids, ok := normalize.ResolveFunction(strings.TrimSpace(v))
	if ok {
		return ids, nil
	}
	if !listNames {
		fe := problem.ValueError(v, "'"+v+"' is not a function name or taxonomy id (the names are listed in the first item of this field)", loc...)
		return nil, &fe
	}
	names := normalize.FunctionNames()
	fe := problem.ValueError(v, "'"+v+"' is not a function name or taxonomy id; the names are: "+strings.Join(names, ", "), loc...)
	fe.Ctx["expected"] = names
	return nil, &fe
}
