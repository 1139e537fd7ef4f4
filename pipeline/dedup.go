package pipeline

import (
	"sort"
)

// reqAgg merges every posting of one req seen this cycle. best (and salary) are kept only for a
// req that may produce an event this cycle (new, coming back, or due for reobserved): for the
// steady majority the ledger already holds its attributes, and copying them for nothing would
// double the crawl's memory.
type reqAgg struct {
	companyID uint64
	best      *observation
	salary    *observation
	// text is the best posting whose description was read: where best's feed carries none (a
	// SmartRecruiters or Workday list), a board's or the aggregator's copy of the req's text
	// fills what best's facts leave unset (withText).
	text      *observation
	boards    []string // a req sits on a handful of boards: small sets as slices
	sources   []string
	atsBoards []string // boards among boards that are ATS tenants (for req_boards source_type)
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
// needAttrs says whether a req may produce an event this cycle (read from the ledger state, which
// does not change while the cycle collects).
type deduper struct {
	reqs      map[string]*reqAgg
	needAttrs func(reqKey string) bool
}

func newDeduper(needAttrs func(string) bool) *deduper {
	return &deduper{reqs: map[string]*reqAgg{}, needAttrs: needAttrs}
}

func (d *deduper) add(o *observation) {
	a, ok := d.reqs[o.reqKey]
	if !ok {
		a = &reqAgg{companyID: o.companyID}
		if d.needAttrs(o.reqKey) {
			c := *o
			a.best = &c
		}
		d.reqs[o.reqKey] = a
	} else if a.best != nil && better(o, a.best) {
		c := *o
		a.best = &c
	}
	if a.best != nil && o.salary && (a.salary == nil || better(o, a.salary)) {
		c := *o
		a.salary = &c
	}
	if a.best != nil && o.facts != nil && o.facts.DescriptionHash != 0 && (a.text == nil || better(o, a.text)) {
		c := *o
		a.text = &c
	}
	if o.sourceType == "ats_tenant" && !contains(a.atsBoards, o.board) {
		a.atsBoards = append(a.atsBoards, o.board)
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

// release drops the attributes once the cycle's events are built from them.
func (a *reqAgg) release() { a.best, a.salary, a.text = nil, nil, nil }
