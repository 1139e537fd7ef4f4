package searchindex

import (
	"sort"
)

// CompanyQuery is one reqs/search page request.
type CompanyQuery struct {
	Q string // every word must match raw_title (stems or other spellings, any order); "" matches every req
	// Literal keeps each word to its own stem (expand=false): no other spellings.
	Literal bool
	Filter  Filter
	After   uint64 // cursor: only companies with company_id > After
	Limit   int    // companies per page
	// MaxReqs caps matched_reqs per company (newest first): 0 no cap, negative none listed;
	// MatchedCount still counts them all.
	MaxReqs int
}

// CompanyHit is one company of a page and its matching reqs.
type CompanyHit struct {
	Company      *Company
	Reqs         []*Req // newest first_seen first, then req_key; at most MaxReqs
	MatchedCount int
}

// CompanyPage is a reqs/search page. More reports that companies past the page match too.
type CompanyPage struct {
	Companies []CompanyHit
	More      bool
}

// SearchCompanies answers reqs/search: companies (ascending company_id, after the cursor) with at
// least one live req matching q and the filter, each with its matching reqs.
func (x *Index) SearchCompanies(q CompanyQuery) CompanyPage {
	var page CompanyPage
	c := x.compile(&q.Filter)
	defer c.release()
	if c.none || q.Limit <= 0 {
		return page
	}
	lists, ok := x.compileWords(q.Q, !q.Literal).iters()
	if !ok {
		return page
	}
	if c.singleCountry >= 0 {
		lists = append(lists, listOf(x.byCountry[c.singleCountry]))
	}
	ci := sort.Search(len(x.companies), func(i int) bool { return x.companies[i].ID > q.After })
	if ci == len(x.companies) {
		return page
	}
	from := x.companies[ci].first
	var cur *CompanyHit
	var curCo uint32
	x.walk(lists, from, func(ord uint32) bool {
		if !c.reqAt(ord) {
			return true
		}
		r := &x.reqs[ord]
		if cur == nil || r.company != curCo {
			if len(page.Companies) == q.Limit {
				page.More = true
				return false
			}
			page.Companies = append(page.Companies, CompanyHit{Company: &x.companies[r.company]})
			cur = &page.Companies[len(page.Companies)-1]
			curCo = r.company
		}
		cur.MatchedCount++
		cur.Reqs = append(cur.Reqs, r)
		return true
	})
	for i := range page.Companies {
		h := &page.Companies[i]
		sort.Slice(h.Reqs, func(a, b int) bool {
			ra, rb := h.Reqs[a], h.Reqs[b]
			return ra.FirstSeen > rb.FirstSeen || ra.FirstSeen == rb.FirstSeen && ra.Key < rb.Key
		})
		if q.MaxReqs != 0 && len(h.Reqs) > max(q.MaxReqs, 0) {
			h.Reqs = h.Reqs[:max(q.MaxReqs, 0)]
		}
	}
	return page
}
