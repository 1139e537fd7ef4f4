package notifier

import (
	"fmt"
	"slices"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/criteria"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// The watch index: which live watches an event can match, without asking every watch. Each
// watch is filed under exactly one key, the most selective one it has, in this order:
//
//  1. a company watch, or a criteria watch with company.company_id: under each company id;
//  2. req.function: under each taxonomy id (the req's function as the search index holds it), or
//     with req.country too under each (function, country) pair;
//  3. event.function: under each taxonomy id (the event's own function);
//  4. req.country: under each country name (the req's country as the search index holds it);
//  5. company.hq_country: under each country name (the req's company as the search index holds it);
//  6. fewer than all four event types (the watch's event_types and event.event_type): under each;
//  7. none of these: the fallback list, asked about every event.
//
// A watch filed under a key can match only events with that key (every field is an AND of its
// group, a field's values an OR), so an event's candidates are the watches under its company,
// its req's function, its own function, its req's country, its company's headquarters country,
// its type, and the fallback list; a
// watch sits in one list per key value and an event has one value per key, so no candidate is
// asked twice. Each candidate is then asked the full question (watch.matches), so the index
// gives exactly the naive answer, only faster.

// eventTypeBit is the bit of each ledger event type in a watch's type set.
var eventTypeBit = map[string]uint8{analytics.EventOpened: 1, analytics.EventReobserved: 2, analytics.EventReposted: 4, analytics.EventClosed: 8}

const allTypes uint8 = 15

// watch is a live watch compiled for matching.
type watch struct {
	oltp.LiveWatch
	types   uint8              // event types it fires on (its event_types and its criteria's event.event_type)
	company uint64             // a company watch's company (0: a criteria watch)
	crit    *criteria.Criteria // a criteria watch's criteria (nil: a company watch)
}

// compile prepares w for matching; a criteria document that no longer parses is an error (the
// watch is then never matched: the route validated it, so this means the vocabulary changed).
func compile(w oltp.LiveWatch) (*watch, error) {
	c := &watch{LiveWatch: w}
	for _, t := range w.EventTypes {
		c.types |= eventTypeBit[t]
	}
	if len(w.EventTypes) == 0 {
		c.types = allTypes
	}
	if w.CompanyID != nil {
		c.company = uint64(*w.CompanyID)
		return c, nil
	}
	crit, problems := criteria.Parse(w.Criteria, criteria.Watch)
	if len(problems) > 0 {
		return nil, fmt.Errorf("cannot parse the criteria of watch %d: %s", w.ID, problems[0].Msg)
	}
	if crit.EventTypes != nil {
		var ct uint8
		for _, t := range crit.EventTypes {
			ct |= eventTypeBit[t]
		}
		c.types &= ct
	}
	c.crit = &crit
	return c, nil
}

// matches is the full question, asked of one watch and one event: the event's type is one the
// watch fires on, and a company watch's company is the event's, or the req r (the event's req as
// the search index x holds it, nil when x does not hold it) matches a criteria watch.
func (w *watch) matches(x *searchindex.Index, r *searchindex.Req, e *analytics.FeedEvent) bool {
	if w.types&eventTypeBit[e.Type] == 0 {
		return false
	}
	if w.crit == nil {
		return w.company == e.CompanyID
	}
	return w.crit.Match(x, r, e.Type, e.Function)
}

// watchIndex files live watches by their most selective key (see above). It is immutable once
// built.
type watchIndex struct {
	byCompany       map[uint64][]*watch
	byReqFunction   map[string][]*watch
	byReqFnCountry  map[[2]string][]*watch
	byEventFunction map[string][]*watch
	byCountry       map[string][]*watch
	byHQCountry     map[string][]*watch
	byType          map[string][]*watch
	fallback        []*watch
	all             []*watch
}

func newWatchIndex(ws []*watch) *watchIndex {
	x := &watchIndex{byCompany: map[uint64][]*watch{}, byReqFunction: map[string][]*watch{}, byReqFnCountry: map[[2]string][]*watch{}, byEventFunction: map[string][]*watch{},
		byCountry: map[string][]*watch{}, byHQCountry: map[string][]*watch{}, byType: map[string][]*watch{}, all: ws}
	for _, w := range ws {
		x.file(w)
	}
	return x
}

func (x *watchIndex) file(w *watch) {
	if w.types == 0 {
		return // fires on no event type: never matches
	}
	if w.crit == nil {
		x.byCompany[w.company] = append(x.byCompany[w.company], w)
		return
	}
	q := &w.crit.Query
	switch {
	case len(q.CompanyIDs) > 0:
		for _, id := range dedupe(q.CompanyIDs) {
			x.byCompany[id] = append(x.byCompany[id], w)
		}
	case len(q.Filter.Functions) > 0 && len(q.Filter.Countries) > 0:
		for _, f := range dedupe(q.Filter.Functions) {
			for _, c := range dedupe(q.Filter.Countries) {
				k := [2]string{f, c}
				x.byReqFnCountry[k] = append(x.byReqFnCountry[k], w)
			}
		}
	case len(q.Filter.Functions) > 0:
		for _, f := range dedupe(q.Filter.Functions) {
			x.byReqFunction[f] = append(x.byReqFunction[f], w)
		}
	case len(w.crit.EventFunctions) > 0:
		for _, f := range dedupe(w.crit.EventFunctions) {
			x.byEventFunction[f] = append(x.byEventFunction[f], w)
		}
	case len(q.Filter.Countries) > 0:
		for _, c := range dedupe(q.Filter.Countries) {
			x.byCountry[c] = append(x.byCountry[c], w)
		}
	case len(q.HQCountries) > 0:
		for _, c := range dedupe(q.HQCountries) {
			x.byHQCountry[c] = append(x.byHQCountry[c], w)
		}
	case w.types != allTypes:
		for t, bit := range eventTypeBit {
			if w.types&bit != 0 {
				x.byType[t] = append(x.byType[t], w)
			}
		}
	default:
		x.fallback = append(x.fallback, w)
	}
}

// Len is the number of live watches indexed.
func (x *watchIndex) Len() int { return len(x.all) }

// match calls fn for every watch that e matches, r being e's req as si holds it (nil: none).
// A watch is reported at most once per event.
func (x *watchIndex) match(si *searchindex.Index, r *searchindex.Req, e *analytics.FeedEvent, fn func(*watch)) {
	ask := func(ws []*watch) {
		for _, w := range ws {
			if w.matches(si, r, e) {
				fn(w)
			}
		}
	}
	ask(x.byCompany[e.CompanyID])
	if e.Function != "" {
		ask(x.byEventFunction[e.Function])
	}
	if r != nil {
		if r.Function() != "" {
			ask(x.byReqFunction[r.Function()])
		}
		if r.Country() != "" {
			ask(x.byCountry[r.Country()])
			if r.Function() != "" {
				ask(x.byReqFnCountry[[2]string{r.Function(), r.Country()}])
			}
		}
		if co := si.CompanyOf(r); co.HQCountry != "" {
			ask(x.byHQCountry[co.HQCountry])
		}
	}
	ask(x.byType[e.Type])
	ask(x.fallback)
}

// matchNaive is the answer without the index: every watch asked about e. The tests hold the
// index to it.
func (x *watchIndex) matchNaive(si *searchindex.Index, r *searchindex.Req, e *analytics.FeedEvent, fn func(*watch)) {
	for _, w := range x.all {
		if w.matches(si, r, e) {
			fn(w)
		}
	}
}

// lookup is e's req as si holds it, or nil.
func lookup(si *searchindex.Index, e *analytics.FeedEvent) *searchindex.Req {
	if si == nil {
		return nil
	}
	r, ok := si.Lookup(e.CompanyID, e.ReqKey)
	if !ok {
		return nil
	}
	return r
}

func dedupe[T comparable](vs []T) []T {
	out := make([]T, 0, len(vs))
	for _, v := range vs {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
