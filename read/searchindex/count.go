package searchindex

import "sort"

// Totals: every list answer says how many rows match its query (after the freshness floor and
// the relevance floor). Counting is exact up to MaxCount matching rows; there it stops and the
// total is an estimate: MaxCount divided by the share of the query's candidates examined so far
// (Count.Exact false), which for jobs/search with q, whose candidates are walked lazily (their
// merged list is never made), is the share of the index's ordinals walked. So a total costs at
// most MaxCount matches of work beside the page (a large world's "engineer" would otherwise score
// a million titles per call).

// MaxCount is where exact counting stops.
const MaxCount = 1000

// Count is a total: N rows match, exactly when Exact, else about N (an extrapolation).
type Count struct {
	N     int
	Exact bool
}

type counter struct {
	n, max int
	est    int // the estimate, once counting stopped
}

// add counts one row found at position pos of a candidate space of size of (pos < of), and
// reports whether counting goes on.
func (c *counter) add(pos, of int) bool {
	c.n++
	if c.n < c.max {
		return true
	}
	c.est = max(c.n, int(float64(c.n)*float64(of)/float64(pos+1)+0.5))
	return false
}

func (c *counter) result() Count {
	if c.n < c.max {
		return Count{N: c.n, Exact: true}
	}
	return Count{N: c.est}
}

// CountJobs counts the rows jobs/search serves for q over all its pages (q.After, q.Sort and
// q.Limit are ignored).
func (x *Index) CountJobs(q JobQuery) Count {
	cnt := counter{max: MaxCount}
	c := x.compile(&q.Filter)
	defer c.release()
	if c.none {
		return cnt.result()
	}
	sc := x.newScorer(q.Q, q.Literal, q.MinRelevance)
	if !sc.present {
		var lists []postingIter
		if c.singleCountry >= 0 {
			lists = []postingIter{listOf(x.byCountry[c.singleCountry])}
		}
		x.walk(lists, 0, func(ord uint32) bool {
			if c.reqAt(ord) {
				return cnt.add(int(ord), len(x.reqs))
			}
			return true
		})
		return cnt.result()
	}
	cands := sc.candidates()
	if sc.minRel <= functionCeiling(len(sc.terms)) {
		cands = unionOf(cands, sc.sameFunction())
	}
	each(cands, func(ord uint32) bool {
		return !c.reqAt(ord) || sc.score(&x.reqs[ord]) == 0 || cnt.add(int(ord), len(x.reqs))
	})
	return cnt.result()
}

// CountCompanies counts the companies reqs/search serves for q over all its pages (q.After and
// q.Limit are ignored).
func (x *Index) CountCompanies(q CompanyQuery) Count {
	cnt := counter{max: MaxCount}
	c := x.compile(&q.Filter)
	defer c.release()
	if c.none {
		return cnt.result()
	}
	lists, ok := x.compileWords(q.Q, !q.Literal).iters()
	if !ok {
		return cnt.result()
	}
	if c.singleCountry >= 0 {
		lists = append(lists, listOf(x.byCountry[c.singleCountry]))
	}
	last := uint32(1<<32 - 1)
	x.walk(lists, 0, func(ord uint32) bool {
		co := x.reqs[ord].company
		if co == last || !c.reqAt(ord) {
			return true
		}
		last = co
		return cnt.add(int(ord), len(x.reqs))
	})
	return cnt.result()
}

// CountQualified counts the rows reqs/qualified serves for q after its cursor (q.After), up to
// the first req still under the freshness floor, as its pages do (q.Limit is ignored).
func (x *Index) CountQualified(q QualifiedQuery) Count {
	cnt := counter{max: MaxCount}
	m := x.qualifier(&q)
	defer m.c.release()
	if m.c.none || m.noWord {
		return cnt.result()
	}
	if it, ok := m.c.valuesIter(); ok && !m.c.hasFresh {
		// No floor to stop at: the rows are the qualifying reqs opened after the cursor, in any
		// order, so those of the asked countries and functions are walked on their lists.
		each(it, func(ord uint32) bool {
			return !m.qualifiesAt(ord) || q.After > 0 && x.reqs[ord].OpenSeq <= q.After || cnt.add(int(ord), len(x.reqs))
		})
		return cnt.result()
	}
	start := sort.Search(len(x.bySeq), func(i int) bool { return x.reqs[x.bySeq[i]].OpenSeq > q.After })
	rest := x.bySeq[start:]
	for i, ord := range rest {
		if !m.c.freshOKAt(ord) {
			break
		}
		if m.qualifiesAt(ord) && !cnt.add(i, len(rest)) {
			break
		}
	}
	return cnt.result()
}
