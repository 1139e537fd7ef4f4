package searchindex

import (
	"strings"
	"time"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// Filter is what reqs/search and jobs/search filter on. Values are already validated and
// resolved by the caller (canonical country names, taxonomy ids, ladder bands). Different fields
// AND; the values of one field OR. A company or req whose fact is unknown never matches a filter
// on that fact.
type Filter struct {
	Countries       []string  // canonical country names
	Since           time.Time // lower bound on first_seen (zero: none)
	FreshBefore     time.Time // the freshness floor: first_seen at or before it (zero: none)
	SourceType      string    // ats_tenant or board ("" both)
	Functions       []string  // taxonomy ids
	ExcludeAgencies bool
	Industry        []string // exact, case-insensitive
	IndustryTerms   []string // case-insensitive substring
	Headcount       []string
	IncludeClosed   bool // reqs/qualified live_only=false
	// What the req's posting states (facts.go): technology slugs (any of them, required or
	// not), seniorities, employment types, workplace types. A req whose posting does not state
	// the fact matches no value.
	Technologies    []string
	Seniority       []string
	EmploymentTypes []string
	WorkplaceTypes  []string
}

type compiled struct {
	x                  *Index
	countries          []bool // by country index; nil: any
	setPass            []bool // by set id (Record.values): whether its country, function and source type pass; nil: any
	recordFree         bool   // nothing is asked of a req's record beyond pre's tests (posting facts; since and freshness when the index has no first_seen by ordinal)
	functions          []bool // by function index; nil: any
	since, fresh       int64
	hasSince, hasFresh bool
	source             string
	f                  *Filter
	industry, terms    []string
	headcount          []string
	facts              factFilter
	none               bool     // a filter that cannot match anything (a country or function the index has no req of)
	singleCountry      int      // country index when exactly one country is asked (a posting list to drive on), else -1
	companyIn          []bool   // by company ordinal: reqs/qualified company.company_id; nil: any
	hq, kinds, domains []string // reqs/qualified company.hq_country, company.agency_kind, company.domain

	// Company facts are asked once per company and query: memo holds the answer of company by
	// company ordinal (0 not asked yet, memoPass, memoFail), allocated at the first company asked.
	// A compiled query is owned by the one call that compiled it, memo included; a compiled query
	// that goroutines share (a Qualifier's, shared) keeps no memo and asks company on every req.
	asksCompany bool // some company fact is asked: without, every company passes
	shared      bool
	memo        []uint8
	evals       int // company evaluations (with the memo), for tests
}

const (
	memoPass = 1
	memoFail = 2
)

// onCompile, when set (tests only), sees every compiled query.
var onCompile func(*compiled)

// valueID is the id of v (a country name or a function id) when a req of the index has it, by
// the index's lists of reqs per id (byCountry, byFunction).
func (x *Index) valueID(v string, lists [][]uint32) (uint16, bool) {
	if v == "" {
		return 0, false
	}
	if x.dict == nil {
		return 0, false
	}
	id, ok := x.dict.values.lookup(v)
	if !ok || int(id) >= len(lists) || len(lists[id]) == 0 {
		return 0, false
	}
	return uint16(id), true
}

func (x *Index) compile(f *Filter) *compiled {
	c := &compiled{x: x, f: f, source: f.SourceType, singleCountry: -1}
	if len(f.Countries) > 0 {
		c.countries = make([]bool, len(x.byCountry))
		n := 0
		for _, name := range f.Countries {
			if i, ok := x.valueID(name, x.byCountry); ok {
				if !c.countries[i] {
					n++
					c.singleCountry = int(i)
				}
				c.countries[i] = true
			}
		}
		if n == 0 {
			c.none = true
		}
		if n != 1 {
			c.singleCountry = -1
		}
	}
	if len(f.Functions) > 0 {
		c.functions = make([]bool, len(x.byFunction))
		n := 0
		for _, id := range f.Functions {
			if i, ok := x.valueID(id, x.byFunction); ok {
				c.functions[i] = true
				n++
			}
		}
		if n == 0 {
			c.none = true
		}
	}
	if !f.Since.IsZero() {
		c.since, c.hasSince = f.Since.Unix(), true
		if f.Since.Nanosecond() != 0 {
			c.since++
		}
	}
	if !f.FreshBefore.IsZero() {
		c.fresh, c.hasFresh = f.FreshBefore.Unix(), true
	}
	for _, s := range f.Industry {
		c.industry = append(c.industry, strings.ToLower(strings.TrimSpace(s)))
	}
	for _, s := range f.IndustryTerms {
		c.terms = append(c.terms, strings.ToLower(strings.TrimSpace(s)))
	}
	if c.countries != nil || c.functions != nil || c.source != "" {
		c.setPass = c.passingSets()
	}
	c.headcount = f.Headcount
	c.facts = compileFacts(f)
	c.recordFree = (x.ordFirstSeen != nil || !c.hasSince && !c.hasFresh) && !c.facts.asks
	c.asksCompany = c.asksCompanyFacts()
	if onCompile != nil {
		onCompile(c)
	}
	return c
}

// passingSets is, by set id of the index's lineage, whether a req with that (function, country,
// source type) passes the filter's countries, functions and source type: one lookup per req
// instead of three (sets number in the thousands; the ids are those of the sets the dictionary
// held now, a superset of the index's).
func (c *compiled) passingSets() []bool {
	all := *c.x.dict.sets.all.Load()
	pass := make([]bool, len(all))
	for id := range all {
		vs := &all[id]
		pass[id] = (c.countries == nil || int(vs.countryID) < len(c.countries) && c.countries[vs.countryID]) &&
			(c.functions == nil || int(vs.functionID) < len(c.functions) && c.functions[vs.functionID]) &&
			(c.source == "" || vs.source == c.source)
	}
	return pass
}

// valuesIter walks the reqs of the filter's countries and functions on their posting lists; ok is
// false when it names neither.
func (c *compiled) valuesIter() (postingIter, bool) {
	var parts []postingIter
	for _, by := range []struct {
		want  []bool
		lists [][]uint32
	}{{c.countries, c.x.byCountry}, {c.functions, c.x.byFunction}} {
		if by.want == nil {
			continue
		}
		var any []postingIter
		for id, ok := range by.want {
			if ok {
				any = append(any, listOf(by.lists[id]))
			}
		}
		parts = append(parts, unionOf(any...))
	}
	if len(parts) == 0 {
		return nil, false
	}
	return interOf(parts...), true
}

// pre reports whether the req of ordinal ord can pass req: its liveness, country, function and
// source type, read from the index's arrays by ordinal without its record. A false is final; a
// true still needs req.
func (c *compiled) pre(ord uint32) bool {
	x := c.x
	if x.ordFlags[ord]&ordLive == 0 && !c.f.IncludeClosed {
		return false
	}
	if c.hasSince && x.ordFirstSeen != nil && int64(x.ordFirstSeen[ord]) < c.since {
		return false
	}
	if !c.freshOKAt(ord) {
		return false
	}
	return c.setPass == nil || c.setPass[x.ordSet[ord]]
}

// freshOKAt is freshOK for the req of ordinal ord, read by ordinal when the index can.
func (c *compiled) freshOKAt(ord uint32) bool {
	if !c.hasFresh {
		return true
	}
	if fs := c.x.ordFirstSeen; fs != nil {
		return int64(fs[ord]) <= c.fresh
	}
	return c.x.reqs[ord].FirstSeen <= c.fresh
}

// reqAt is req for the req of ordinal ord, its cheap tests first (pre).
func (c *compiled) reqAt(ord uint32) bool { return c.pre(ord) && c.afterPre(ord) }

// afterPre is what req asks of the req of ordinal ord beyond pre: without a test of its record
// (recordFree), only its company's facts, which its ordinal's company names.
func (c *compiled) afterPre(ord uint32) bool {
	if c.recordFree {
		return c.companyOK(c.x.reqs[ord].company)
	}
	return c.req(&c.x.reqs[ord])
}

// asksCompanyFacts reports whether company has anything to check.
func (c *compiled) asksCompanyFacts() bool {
	return c.f.ExcludeAgencies || len(c.industry) > 0 || len(c.terms) > 0 || len(c.headcount) > 0 ||
		c.companyIn != nil || len(c.hq) > 0 || len(c.kinds) > 0 || len(c.domains) > 0
}

// fresh reports whether the req has reached the freshness floor.
func (c *compiled) freshOK(r *Req) bool { return !c.hasFresh || r.FirstSeen <= c.fresh }

func (c *compiled) req(r *Req) bool {
	if !r.Live && !c.f.IncludeClosed {
		return false
	}
	if c.countries != nil || c.functions != nil {
		vs := r.set()
		if c.countries != nil && !c.countries[vs.countryID] || c.functions != nil && !c.functions[vs.functionID] {
			return false
		}
	}
	if c.hasSince && r.FirstSeen < c.since {
		return false
	}
	if !c.freshOK(r) {
		return false
	}
	if c.source != "" && r.SourceType() != c.source {
		return false
	}
	if c.facts.asks && !c.facts.match(c.x, r) {
		return false
	}
	return c.companyOK(r.company)
}

// getMemo is a company memo of the index's size, all zero: one a query used before (release
// cleared it) when there is one, since at a million companies a new one is a megabyte a query.
func (x *Index) getMemo() []uint8 {
	if p, ok := x.memos.Get().(*[]uint8); ok {
		return *p
	}
	return make([]uint8, len(x.companies))
}

// release hands the query's company memo back to its index, cleared; the compiled query must not
// be used after.
func (c *compiled) release() {
	if c.memo == nil {
		return
	}
	clear(c.memo)
	m := c.memo
	c.memo = nil
	c.x.memos.Put(&m)
}

// companyOK is company for the company of ordinal i: asked once per query (see memo).
func (c *compiled) companyOK(i uint32) bool {
	if !c.asksCompany {
		return true
	}
	if c.shared {
		return c.company(i)
	}
	if c.memo == nil {
		c.memo = c.x.getMemo()
	}
	switch c.memo[i] {
	case memoPass:
		return true
	case memoFail:
		return false
	}
	c.evals++
	ok := c.company(i)
	c.memo[i] = memoFail
	if ok {
		c.memo[i] = memoPass
	}
	return ok
}

// company reports whether the company of ordinal i has the facts the query asks.
func (c *compiled) company(i uint32) bool {
	co := &c.x.companies[i]
	if c.companyIn != nil && !c.companyIn[i] {
		return false
	}
	if c.f.ExcludeAgencies && co.Agency() {
		return false
	}
	if len(c.industry) > 0 {
		if co.industryFold == "" || !containsStr(c.industry, co.industryFold) {
			return false
		}
	}
	if len(c.terms) > 0 {
		ok := false
		for _, t := range c.terms {
			if co.industryFold != "" && strings.Contains(co.industryFold, t) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(c.headcount) > 0 && (co.HeadcountBand == "" || !containsStr(c.headcount, co.HeadcountBand)) {
		return false
	}
	if len(c.hq) > 0 && (co.HQCountry == "" || !containsStr(c.hq, co.HQCountry)) {
		return false
	}
	if len(c.kinds) > 0 {
		kind := normalize.ServedAgencyKind(co.AgencyKind, co.Name)
		if kind == "" || !containsStr(c.kinds, kind) {
			return false
		}
	}
	if len(c.domains) > 0 && (co.Domain == "" || !containsStr(c.domains, strings.ToLower(co.Domain))) {
		return false
	}
	return true
}

func containsStr(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// walk calls fn for every ordinal at or after from that every iterator walks (every ordinal when
// there are none), ascending, until fn returns false.
func (x *Index) walk(its []postingIter, from uint32, fn func(ord uint32) bool) {
	if len(its) == 0 {
		for o := from; int(o) < len(x.reqs); o++ {
			if !fn(o) {
				return
			}
		}
		return
	}
	it := interOf(its...)
	for ord, ok := it.seek(from); ok && fn(ord); ord, ok = it.seek(ord + 1) {
	}
}

// matchStems reports whether the title holds every stem id of want (sorted or not).
func (t *Title) hasAll(want []uint32) bool {
	for _, w := range want {
		if !t.has(w) {
			return false
		}
	}
	return true
}

func (t *Title) has(id uint32) bool {
	for _, s := range t.stems {
		if s == id {
			return true
		}
		if s > id {
			return false
		}
	}
	return false
}

// stemIDsOf maps the stems of s to ids; ok is false when one is unknown to the index.
func (x *Index) stemIDsOf(s string) (ids []uint32, ok bool) {
	for _, st := range normalize.Stems(s) {
		id, found := x.stemIDs[st]
		if !found {
			return nil, false
		}
		ids = append(ids, id)
	}
	return ids, true
}
