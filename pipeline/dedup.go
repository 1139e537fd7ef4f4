package pipeline

import (
	"sort"
)

// reqAgg merges every posting of one req seen this cycle.
type reqAgg struct {
	best    observation
	salary  *observation
	boards  []string // a req sits on a handful of boards: small sets as slices
	sources []string
}

// better orders postings deterministically: ATS tenant first, then by source key and url, so the
// req's attributes do not depend on the order workers finished in.
func better(a, b *observation) bool {
	if (a.sourceType == "ats_tenant") != (b.sourceType == "ats_tenant") {
		return a.sourceType == "ats_tenant"
	}
	if a.sourceKey != b.sourceKey {
		return a.sourceKey < b.sourceKey
	}
	if a.url != b.url {
		return a.url < b.url
	}
	return a.rawTitle < b.rawTitle
}

// deduper groups observations into reqs: one per company, normalized title and country.
type deduper struct {
	reqs map[string]*reqAgg
}

func newDeduper() *deduper { return &deduper{reqs: map[string]*reqAgg{}} }

func (d *deduper) add(o *observation) {
	a, ok := d.reqs[o.reqKey]
	if !ok {
		a = &reqAgg{best: *o}
		d.reqs[o.reqKey] = a
	} else if better(o, &a.best) {
		a.best = *o
	}
	if o.salary && (a.salary == nil || better(o, a.salary)) {
		c := *o
		a.salary = &c
	}
	if !contains(a.boards, o.board) {
		a.boards = append(a.boards, o.board)
	}
	if !contains(a.sources, o.sourceKey) {
		a.sources = append(a.sources, o.sourceKey)
	}
}

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}
