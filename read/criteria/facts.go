package criteria

import (
	"fmt"
	"slices"
	"strings"

	"github.com/planehq/hiringsignal/internal/jobtext"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/problem"
)

// The posting-fact filters: what a req's posting states of itself (its technologies, seniority,
// employment type and workplace type), one vocabulary and one parser for every place that
// filters on them: the query parameters of reqs/search and jobs/search, and the req group of the
// criteria of reqs/qualified and watches (req.technologies, req.seniority, req.employment_type,
// req.workplace_type). Values of one filter OR; a req whose posting does not state the fact
// matches no value. At most MaxFactValues values a filter; a value outside the vocabulary is 422
// listing it (once per filter and call).

// MaxFactValues is the most values of one posting-fact filter.
const MaxFactValues = 20

// Names of the posting-fact filters (query parameters; criteria fields of the req group).
const (
	FactTechnologies   = "technologies"
	FactSeniority      = "seniority"
	FactEmploymentType = "employment_type"
	FactWorkplaceType  = "workplace_type"
)

// FactFilterNames are the posting-fact filters, in the order documented.
var FactFilterNames = []string{FactTechnologies, FactSeniority, FactEmploymentType, FactWorkplaceType}

// technologySlugs are the technology slugs of jobtext's vocabulary, in its order; technologyFold
// maps a slug or display name, lower case, to its slug.
var technologySlugs, technologyFold = func() ([]string, map[string]string) {
	rows := jobtext.Vocabulary()
	slugs := make([]string, len(rows))
	fold := make(map[string]string, 2*len(rows))
	for i, t := range rows {
		slugs[i] = t.Slug
		fold[strings.ToLower(t.Name)] = t.Slug
	}
	for _, s := range slugs { // a slug wins over a name that folds to it
		fold[s] = s
	}
	return slugs, fold
}()

// TechnologySlug resolves one technology as the technologies filter does: its slug, or its
// display name, any case.
func TechnologySlug(v string) (string, bool) {
	slug, ok := technologyFold[strings.ToLower(strings.TrimSpace(v))]
	return slug, ok
}

// Technologies are the technology slugs a filter takes, in the vocabulary's order.
func Technologies() []string { return slices.Clone(technologySlugs) }

// FactValuesOf is the closed vocabulary of a posting-fact filter (nil for an unknown name).
func FactValuesOf(name string) []string {
	switch name {
	case FactTechnologies:
		return technologySlugs
	case FactSeniority:
		return normalize.Seniorities
	case FactEmploymentType:
		return normalize.EmploymentTypes
	case FactWorkplaceType:
		return normalize.WorkplaceTypes
	}
	return nil
}

// FactDescription is the documentation of a posting-fact filter.
func FactDescription(name string) string {
	switch name {
	case FactTechnologies:
		return fmt.Sprintf("technology slugs (or names, any case) of the vocabulary, e.g. go, python, kubernetes, react, salesforce: a req naming any of them (required or not) in its title or description; a value outside it is 422 listing the %d slugs", len(technologySlugs))
	case FactSeniority:
		return "seniority the posting states: its title's words, else its feed's experience level, else its description (" + strings.Join(normalize.Seniorities, ", ") + ")"
	case FactEmploymentType:
		return "employment type the posting states: its feed's, else its description's (" + strings.Join(normalize.EmploymentTypes, ", ") + ")"
	case FactWorkplaceType:
		return "workplace type the posting states: its feed's, else its description's (" + strings.Join(normalize.WorkplaceTypes, ", ") + ")"
	}
	return ""
}

// FactValues validates and resolves the values of the posting-fact filter name (at most
// MaxFactValues; technologies by slug or name, any case; the others exactly): the canonical
// values, or 422 items at loc (indexed by position; a single query value's at loc itself). The
// vocabulary is listed in the first bad value's item only.
func FactValues(name string, vals []string, loc ...any) ([]string, []problem.FieldError) {
	if len(vals) > MaxFactValues {
		return nil, []problem.FieldError{TooLong(len(vals), MaxFactValues, loc...)}
	}
	vocab := FactValuesOf(name)
	var out []string
	var errs []problem.FieldError
	listed := false
	for i, v := range vals {
		l := append(append([]any{}, loc...), i)
		if len(vals) == 1 && len(loc) > 0 && loc[0] == "query" {
			l = loc
		}
		if fe := CheckValue(v, l...); fe != nil {
			errs = append(errs, *fe)
			continue
		}
		if name == FactTechnologies {
			if slug, ok := TechnologySlug(v); ok {
				out = append(out, slug)
				continue
			}
			msg := "'" + Clip(v) + "' is not a technology of the vocabulary: send a slug such as go, python, kubernetes"
			fe := problem.ValueError(Clip(v), msg+" (the slugs are listed in the first item of this field)", l...)
			if !listed {
				fe = problem.ValueError(Clip(v), msg+"; ctx.expected lists every slug", l...)
				fe.Ctx["expected"] = technologySlugs
				listed = true
			}
			errs = append(errs, fe)
			continue
		}
		if slices.Contains(vocab, v) {
			out = append(out, v)
			continue
		}
		errs = append(errs, enumItem(Clip(v), vocab, listed, l...))
		listed = true
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}
