package readmodel

import (
	"slices"
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// Match confidences of companies/resolve (spec 2.2).
const (
	ConfidenceExact      = 1.0 // the name as registered (case and spacing aside)
	ConfidenceLegalForms = 0.8 // equal once legal suffixes are dropped
)

// Candidate is one companies/resolve answer.
type Candidate struct {
	Company    *Company
	Confidence float64
}

// ByDomain returns the companies registered at domain (any URL or host form), by company_id.
func (m *Model) ByDomain(domain string) []*Company {
	d := normalize.DomainKey(domain)
	if m == nil || d == "" {
		return nil
	}
	out := m.byDomain.get(nil, domainKeyOf, d)
	slices.SortFunc(out, func(a, b *Company) int { return cmpInt(int64(a.ID), int64(b.ID)) })
	return out
}

// ResolveName returns up to max candidates for name: companies whose name equals it (1.0) or
// equals it once legal suffixes are dropped (0.8); exact first, then covered before uncovered,
// then by company_id.
func (m *Model) ResolveName(name string, max int) []Candidate {
	k := normalize.CompanyKey(name)
	if m == nil || k == "" {
		return nil
	}
	q := foldSpaces(name)
	var out []Candidate
	for _, c := range m.byNameKey.get(nil, nameKeyOf, k) {
		conf := ConfidenceLegalForms
		if strings.EqualFold(q, foldSpaces(c.Name)) {
			conf = ConfidenceExact
		}
		out = append(out, Candidate{Company: c, Confidence: conf})
	}
	slices.SortFunc(out, func(a, b Candidate) int {
		switch {
		case a.Confidence != b.Confidence:
			if a.Confidence > b.Confidence {
				return -1
			}
			return 1
		case a.Company.Covered() != b.Company.Covered():
			if a.Company.Covered() {
				return -1
			}
			return 1
		}
		return cmpInt(int64(a.Company.ID), int64(b.Company.ID))
	})
	if len(out) > max {
		out = out[:max]
	}
	return out
}

func foldSpaces(s string) string { return strings.Join(strings.Fields(s), " ") }

// HighMotion returns the covered company whose publication changed most in the last 4 weeks
// (reqs opened, reposted and closed, from its weekly flow), ties broken by more open reqs, then
// the lower company_id; nil when no covered company changed. It scans every company: for rare
// calls (a quickstart), not per read.
func (m *Model) HighMotion() *Company {
	if m == nil {
		return nil
	}
	from := mondayDay(m.AsOf.Add(-VelocityWeeks * Week))
	var best *Company
	bestFlow := 0
	for _, c := range m.companies {
		if !c.Covered() {
			continue
		}
		flow := 0
		for _, w := range c.momentum {
			if w.day >= from {
				flow += int(w.opened + w.reposted + w.closed)
			}
		}
		if flow == 0 {
			continue
		}
		switch {
		case best == nil, flow > bestFlow,
			flow == bestFlow && c.stats.open > best.stats.open,
			flow == bestFlow && c.stats.open == best.stats.open && c.ID < best.ID:
			best, bestFlow = c, flow
		}
	}
	return best
}
