package criteria

import (
	"slices"
	"sync/atomic"

	"github.com/planehq/hiringsignal/read/searchindex"
)

// compiledCache holds the Query compiled against the latest index Match was asked about: a new
// snapshot's index compiles anew, once (two goroutines meeting a new index at once may both
// compile; either result is the same).
type compiledCache struct {
	q atomic.Pointer[searchindex.Qualifier]
}

// Match reports whether a ledger event matches: its req r, as the index x holds it at that
// moment, gets the same answer reqs/qualified gives for r with Query (ignoring paging, the
// freshness floor and the cursor), and the event is of one of EventTypes and its function
// (eventFunction, the event row's taxonomy id; "" unattributed) one of EventFunctions. A req x
// does not hold (nil) never matches. r must be a req of x.
func (c *Criteria) Match(x *searchindex.Index, r *searchindex.Req, eventType, eventFunction string) bool {
	if x == nil || r == nil {
		return false
	}
	if c.EventTypes != nil && !slices.Contains(c.EventTypes, eventType) {
		return false
	}
	if c.EventFunctions != nil && (eventFunction == "" || !slices.Contains(c.EventFunctions, eventFunction)) {
		return false
	}
	return c.qualifier(x).Qualifies(r)
}

// qualifier is Query compiled against x, from the cache when it was compiled against x last.
func (c *Criteria) qualifier(x *searchindex.Index) *searchindex.Qualifier {
	if c.compiled == nil {
		return x.Qualifier(&c.Query)
	}
	if m := c.compiled.q.Load(); m != nil && m.Index() == x {
		return m
	}
	m := x.Qualifier(&c.Query)
	c.compiled.q.Store(m)
	return m
}
