package pipeline

import (
	"sort"
	"sync"
	"sync/atomic"
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
	// fills what best's facts leave unset (withText). fullest is the posting with the longest
	// text (ties: better): where it is at least twice as long as text's or best's own, it is the
	// text read instead (fullerText).
	text      *observation
	fullest   *observation
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

// add merges o into its req. A posting taken as the req's best, text or fullest keeps what
// reading its facts needs (the normalize stage of a cycle leaves them to be read), and the facts
// are read once every posting is in (readFacts), of the postings an event reads: the reqs' best
// and the text readText picks. A posting a later, better one displaces is not read, nor a copy
// whose text gives way to the best posting's. The copy kept for the req's salary needs no facts.
// The roles o takes share one copy of it: nothing but readFacts writes a kept copy.
func (d *deduper) add(o *observation) {
	var kept *observation
	keep := func() *observation {
		if kept == nil || kept.later == nil && kept.facts == nil && o.later != nil {
			c := *o
			kept = &c
		}
		return kept
	}
	a, ok := d.reqs[o.reqKey]
	if !ok {
		a = &reqAgg{companyID: o.companyID}
		if d.needAttrs(o.reqKey) {
			a.best = keep()
		}
		d.reqs[o.reqKey] = a
	} else if a.best != nil && better(o, a.best) {
		a.best = keep()
	}
	if a.best != nil && o.salary && (a.salary == nil || better(o, a.salary)) {
		if kept == nil {
			c := *o
			c.later = nil // its pay is read, not its facts: the text is not kept
			kept = &c
		}
		a.salary = kept
	}
	if a.best != nil && o.descHash() != 0 {
		if a.text == nil || better(o, a.text) {
			a.text = keep()
		}
		if f := a.fullest; f == nil || o.textLen > f.textLen || o.textLen == f.textLen && better(o, f) {
			a.fullest = keep()
		}
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

// readFacts reads the facts left to be read of the postings the reqs' events read from: each
// req's best and the text readText picks for it, with workers goroutines, each reading whole reqs
// (a req's roles may share a copy). It ends the collect: no add follows. The texts of the roles
// not read stay held until the req is released.
func (d *deduper) readFacts(workers int) {
	aggs := make([]*reqAgg, 0, len(d.reqs))
	for _, a := range d.reqs {
		if a.best != nil {
			aggs = append(aggs, a)
		}
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(readFactsChunk)) - readFactsChunk
				if i >= len(aggs) {
					return
				}
				for _, a := range aggs[i:min(i+readFactsChunk, len(aggs))] {
					a.best.readFacts()
					if t := a.readText(); t != nil {
						t.readFacts()
					}
				}
			}
		}()
	}
	wg.Wait()
}

// readFactsChunk is how many reqs a worker of readFacts takes at a time.
const readFactsChunk = 256

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}

// release drops the attributes once the cycle's events are built from them.
func (a *reqAgg) release() { a.best, a.salary, a.text, a.fullest = nil, nil, nil, nil }

// fuller reports whether text x is the more complete of x and y: at least twice as long. Texts
// within a factor of two are comparable, and the better posting's (the employer's own) stands.
func fuller(x, y *observation) bool { return x.textLen >= 2*y.textLen }

// readText is the text of another posting the req's facts are read from (nil: best's own, or
// none): where best has no text, the better posting's text, or the fullest when it is fuller
// than that; where best has a text, the fullest when it is fuller than best's (an iCIMS card's
// opening beside a board's whole copy).
func (a *reqAgg) readText() *observation {
	b, t := a.best, a.text
	if t == nil {
		return nil
	}
	if b.descHash() == 0 {
		if a.fullest != nil && fuller(a.fullest, t) {
			return a.fullest
		}
		return t
	}
	if f := a.fullest; f != nil && f.descHash() != b.descHash() && fuller(f, b) {
		return f
	}
	return nil
}
