package searchindex

import "sort"

// Totals: every list answer says how many rows match its query (after the freshness floor and
// the relevance floor, before the cursor). Counting stops at MaxCount, so a total costs at most
// one pass over the query's candidates and never more rows than MaxCount: a total that reached
// it is a lower bound (Count.Exact false), as a search engine's "10,000+".

// MaxCount is where counting stops.
const MaxCount = 10000

// Count is a total: N rows match, exactly when Exact, else at least N (N == MaxCount).
type Count struct {
	N     int
	Exact bool
}

type counter struct {
	n, max int
}

// add counts one row and reports whether counting goes on.
func (c *counter) add() bool {
	c.n++
	return c.n < c.max
}

func (c *counter) result() Count { return Count{N: c.n, Exact: c.n < c.max} }

// CountJobs counts the rows jobs/search serves for q over all its pages (q.After, q.Sort and
// q.Limit are ignored).
func (x *Index) CountJobs(q JobQuery) Count {
	cnt := counter{max: MaxCount}
	c := x.compile(&q.Filter)
	if c.none {
		return cnt.result()
	}
	sc := x.newScorer(q.Q, q.Literal, q.MinRelevance)
	if !sc.present {
		var lists [][]uint32
		if c.singleCountry >= 0 {
			lists = [][]uint32{x.byCountry[c.singleCountry]}
		}
		x.walk(lists, 0, func(ord uint32) bool {
			if c.req(&x.reqs[ord]) {
				return cnt.add()
			}
			return true
		})
		return cnt.result()
	}
	cands := sc.candidates()
	if sc.minRel < 5001 {
		cands = union(cands, sc.sameFunction())
	}
	for _, ord := range cands {
		r := &x.reqs[ord]
		if sc.score(r) > 0 && c.req(r) && !cnt.add() {
			break
		}
	}
	return cnt.result()
}

// CountCompanies counts the companies reqs/search serves for q over all its pages (q.After and
// q.Limit are ignored).
func (x *Index) CountCompanies(q CompanyQuery) Count {
	cnt := counter{max: MaxCount}
	c := x.compile(&q.Filter)
	if c.none {
		return cnt.result()
	}
	lists, ok := x.compileWords(q.Q, !q.Literal).lists()
	if !ok {
		return cnt.result()
	}
	if c.singleCountry >= 0 {
		lists = append(lists, x.byCountry[c.singleCountry])
	}
	last := uint32(1<<32 - 1)
	x.walk(lists, 0, func(ord uint32) bool {
		r := &x.reqs[ord]
		if r.company == last || !c.req(r) {
			return true
		}
		last = r.company
		return cnt.add()
	})
	return cnt.result()
}

// CountQualified counts the rows reqs/qualified serves for q after its cursor (q.After), up to
// the first req still under the freshness floor, as its pages do (q.Limit is ignored).
func (x *Index) CountQualified(q QualifiedQuery) Count {
	cnt := counter{max: MaxCount}
	m := x.qualifier(&q)
	if m.c.none || m.noWord {
		return cnt.result()
	}
	start := sort.Search(len(x.bySeq), func(i int) bool { return x.reqs[x.bySeq[i]].OpenSeq > q.After })
	for _, ord := range x.bySeq[start:] {
		r := &x.reqs[ord]
		if !m.c.freshOK(r) {
			break
		}
		if m.Qualifies(r) && !cnt.add() {
			break
		}
	}
	return cnt.result()
}
