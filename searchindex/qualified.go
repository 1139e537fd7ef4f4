package searchindex

import (
	"sort"
	"strings"
)

// QualifiedQuery is one reqs/qualified page request: the criteria already validated and resolved
// by the caller. Every non-empty field must hold (AND); the values of one field OR. A NULL fact
// never matches a field that asks about it (fail-closed).
type QualifiedQuery struct {
	Filter      Filter   // req countries and functions, industry, industry_terms, headcount, agencies, floor, live_only
	SourceTypes []string // req.source_type
	Boards      []string // req.boards: any of these boards carries the req (case-insensitive)
	Seniority   []string // req.seniority
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

// Qualified answers reqs/qualified in ledger order (the order reqs opened).
func (x *Index) Qualified(q QualifiedQuery) QualifiedPage {
	page := QualifiedPage{Next: q.After}
	c := x.compile(&q.Filter)
	if c.none || q.Limit <= 0 {
		return page
	}
	var want []uint32
	if q.Q != "" {
		ids, ok := x.stemIDsOf(q.Q)
		if !ok {
			// No title holds some word: nothing can match, now or later in this build.
			if n := len(x.bySeq); n > 0 {
				page.Next = max(q.After, x.reqs[x.bySeq[n-1]].OpenSeq)
			}
			return page
		}
		want = ids
	}
	var vetoes [][]uint32
	for _, p := range q.QExcludes {
		if ids, ok := x.stemIDsOf(p); ok && len(ids) > 0 {
			vetoes = append(vetoes, ids)
		}
	}
	boards := make([]string, len(q.Boards))
	for i, b := range q.Boards {
		boards[i] = strings.ToLower(b)
	}
	if len(q.CompanyIDs) > 0 {
		c.companyIn = x.companySet(q.CompanyIDs)
	}
	start := sort.Search(len(x.bySeq), func(i int) bool { return x.reqs[x.bySeq[i]].OpenSeq > q.After })
	for _, ord := range x.bySeq[start:] {
		r := &x.reqs[ord]
		if !c.freshOK(r) {
			// Not served yet on this plan; stop so that the cursor never passes it.
			break
		}
		if x.qualifies(r, c, &q, want, vetoes, boards) {
			if len(page.Rows) == q.Limit {
				page.More = true
				break
			}
			page.Rows = append(page.Rows, r)
		}
		page.Next = r.OpenSeq
	}
	return page
}

func (x *Index) qualifies(r *Req, c *compiled, q *QualifiedQuery, want []uint32, vetoes [][]uint32, boards []string) bool {
	if !c.req(r) {
		return false
	}
	if len(q.SourceTypes) > 0 && !containsStr(q.SourceTypes, r.SourceType) {
		return false
	}
	if len(want) > 0 && !r.Title.hasAll(want) {
		return false
	}
	if r.Title.Raw != "" {
		for _, v := range vetoes {
			if r.Title.hasAll(v) {
				return false
			}
		}
	}
	if len(q.Seniority) > 0 && (r.Title.Seniority == "" || !containsStr(q.Seniority, r.Title.Seniority)) {
		return false
	}
	if len(boards) > 0 {
		ok := false
		for _, b := range r.Boards {
			if containsStr(boards, strings.ToLower(b)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	co := &x.companies[r.company]
	if len(q.HQCountries) > 0 && (co.HQCountry == "" || !containsStr(q.HQCountries, co.HQCountry)) {
		return false
	}
	if len(q.AgencyKinds) > 0 {
		kind := co.AgencyKind
		if kind == "" && co.Name != "" {
			kind = "employer"
		}
		if kind == "" || kind == "unknown" || !containsStr(q.AgencyKinds, kind) {
			return false
		}
	}
	if len(q.Domains) > 0 && (co.Domain == "" || !containsStr(q.Domains, strings.ToLower(co.Domain))) {
		return false
	}
	if c.companyIn != nil && !c.companyIn[r.company] {
		return false
	}
	if q.SalaryMin != nil || q.SalaryMax != nil {
		f, _, ok := x.SalaryFigure(r)
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
