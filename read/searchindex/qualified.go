package searchindex

import (
	"sort"
	"strings"
	"time"
)

// QualifiedQuery is one reqs/qualified page request: the criteria already validated and resolved
// by the caller. Every non-empty field must hold (AND); the values of one field OR. A NULL fact
// never matches a field that asks about it (fail-closed).
type QualifiedQuery struct {
	Filter      Filter   // req countries, functions and posting facts (seniority, ...), industry, industry_terms, headcount, agencies, floor, live_only
	SourceTypes []string // req.source_type
	Boards      []string // req.boards: any of these boards carries the req (case-insensitive)
	Q           string   // req.q: every word matches raw_title
	QExcludes   []string // req.q_excludes: a title holding every word of one phrase is vetoed; an absent title is not
	HQCountries []string // company.hq_country (canonical names)
	AgencyKinds []string // company.agency_kind; "employer" is a company classified as none
	Domains     []string // company.domain (lower case)
	CompanyIDs  []uint64 // company.company_id
	SalaryMin   *float64 // yearly USD; the row's one salary figure must be >= SalaryMin
	SalaryMax   *float64 // yearly USD; ... <= SalaryMax
	After       uint64   // cursor: rows whose ledger opening is after it
	Limit       int
}

// QualifiedPage is one page. Next is the monotone cursor to pass next time: the ledger position
// of the last row served, or of the last req examined when the page ran out of reqs, so a later
// call with it returns only reqs that opened after.
type QualifiedPage struct {
	Rows []*Req
	Next uint64
	More bool
}

// Qualifier is a QualifiedQuery compiled against one Index: the per-req predicate of
// reqs/qualified. Qualified builds one per page; a caller asking about reqs one at a time (the
// notifier matching ledger events) builds one per query and index and keeps it. It is immutable
// and safe for concurrent use (so, unlike one page's, it keeps no per-company memo: it checks the
// company facts on every req it is asked about); it answers only for reqs of the Index it was
// compiled on.
type Qualifier struct {
	x      *Index
	q      QualifiedQuery // a copy: c.f points into it
	c      *compiled
	noWord bool       // some word of q.Q is covered by no title of the index: no req matches
	want   *words     // q.Q: every word (or its other spelling) in the title
	vetoes [][]uint32 // stem ids of each q.QExcludes phrase whose words all occur in the index
	boards []bool     // by board id: a board of q.Boards (case-insensitive); nil: any
	// recordFree: nothing is asked of a req's record beyond what its ordinal's arrays and company
	// say (compiled.pre and the company's facts).
	recordFree bool
}

// Qualifier compiles q for Qualifies: its criteria, salary band, exclude_agencies and live_only
// (Filter.IncludeClosed). The page fields (After, Limit) and the freshness floor
// (Filter.FreshBefore) are not part of the predicate and are ignored.
func (x *Index) Qualifier(q *QualifiedQuery) *Qualifier {
	qq := *q
	qq.Filter.FreshBefore, qq.After, qq.Limit = time.Time{}, 0, 0
	m := x.qualifier(&qq)
	m.c.shared = true // goroutines may share it: no per-query memo
	return m
}

// Qualifies reports whether r qualifies for q (see Qualifier); to ask about many reqs, compile q
// once with Qualifier.
func (x *Index) Qualifies(r *Req, q *QualifiedQuery) bool { return x.Qualifier(q).Qualifies(r) }

// Index is the index the Qualifier was compiled on.
func (m *Qualifier) Index() *Index { return m.x }

// qualifier compiles a copy of q as it is, freshness floor included.
func (x *Index) qualifier(q *QualifiedQuery) *Qualifier {
	m := &Qualifier{x: x, q: *q}
	m.c = x.compile(&m.q.Filter)
	m.want = x.compileWords(m.q.Q, true)
	m.noWord = m.want.none
	for _, p := range m.q.QExcludes {
		if ids, ok := x.stemIDsOf(p); ok && len(ids) > 0 {
			m.vetoes = append(m.vetoes, ids)
		}
	}
	if len(m.q.Boards) > 0 {
		// One lookup per board asked; a req then looks up the ids of its boards.
		m.boards = make([]bool, x.nBoards)
		for _, b := range m.q.Boards {
			for _, id := range x.boardsByFold[strings.ToLower(b)] {
				m.boards[id] = true
			}
		}
	}
	if len(m.q.CompanyIDs) > 0 {
		m.c.companyIn = x.companySet(m.q.CompanyIDs)
	}
	// The company facts reqs/qualified asks are checked with the Filter's, once per company.
	m.c.hq, m.c.kinds, m.c.domains = m.q.HQCountries, m.q.AgencyKinds, m.q.Domains
	m.c.asksCompany = m.c.asksCompanyFacts()
	m.recordFree = m.c.recordFree && len(m.q.SourceTypes) == 0 && m.want.empty() && len(m.vetoes) == 0 && m.boards == nil &&
		m.q.SalaryMin == nil && m.q.SalaryMax == nil
	return m
}

// qualifiesAt is Qualifies for the req of ordinal ord, its record read only when some field asks
// what only the record says.
func (m *Qualifier) qualifiesAt(ord uint32) bool {
	if m.noWord || m.c.none || !m.c.pre(ord) {
		return false
	}
	if m.recordFree {
		return m.c.companyOK(m.x.reqs[ord].company)
	}
	return m.Qualifies(&m.x.reqs[ord])
}

// Qualified answers reqs/qualified in ledger order (the order reqs opened).
func (x *Index) Qualified(q QualifiedQuery) QualifiedPage {
	page := QualifiedPage{Next: q.After}
	m := x.qualifier(&q)
	defer m.c.release()
	if m.c.none || q.Limit <= 0 {
		return page
	}
	if m.noWord {
		// No title holds some word: nothing can match, now or later in this build.
		if n := len(x.bySeq); n > 0 {
			page.Next = max(q.After, x.reqs[x.bySeq[n-1]].OpenSeq)
		}
		return page
	}
	start := sort.Search(len(x.bySeq), func(i int) bool { return x.reqs[x.bySeq[i]].OpenSeq > q.After })
	last := -1 // the last req examined: the cursor goes past it
	for _, ord := range x.bySeq[start:] {
		if !m.c.freshOKAt(ord) {
			// Not served yet on this plan; stop so that the cursor never passes it.
			break
		}
		if m.qualifiesAt(ord) {
			if len(page.Rows) == q.Limit {
				page.More = true
				break
			}
			page.Rows = append(page.Rows, &x.reqs[ord])
		}
		last = int(ord)
	}
	if last >= 0 {
		page.Next = x.reqs[last].OpenSeq
	}
	return page
}

// Qualifies reports whether r, a req of the Qualifier's index, qualifies: every field of the
// query holds (AND), one value of each (OR), and a NULL fact matches no field asking about it.
func (m *Qualifier) Qualifies(r *Req) bool {
	c, q := m.c, &m.q
	if m.noWord || c.none || !c.req(r) {
		return false
	}
	if len(q.SourceTypes) > 0 && !containsStr(q.SourceTypes, r.SourceType()) {
		return false
	}
	if !m.want.empty() && !m.want.matches(r.Title) {
		return false
	}
	if len(m.vetoes) > 0 && r.Title.Raw != "" {
		for _, v := range m.vetoes {
			if r.Title.hasAll(v) {
				return false
			}
		}
	}
	if m.boards != nil {
		ok := false
		for _, id := range r.boardList().ids {
			if m.boards[id] {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if q.SalaryMin != nil || q.SalaryMax != nil {
		f, _, ok := m.x.SalaryFigure(r)
		if !ok || q.SalaryMin != nil && f < *q.SalaryMin || q.SalaryMax != nil && f > *q.SalaryMax {
			return false
		}
	}
	return true
}

// companySet marks the companies of ids (by company ordinal; ids the index does not hold mark
// nothing): one binary search per id, then one lookup per req, whatever the number of ids.
func (x *Index) companySet(ids []uint64) []bool {
	in := make([]bool, len(x.companies))
	for _, id := range ids {
		i := sort.Search(len(x.companies), func(i int) bool { return x.companies[i].ID >= id })
		if i < len(x.companies) && x.companies[i].ID == id {
			in[i] = true
		}
	}
	return in
}
