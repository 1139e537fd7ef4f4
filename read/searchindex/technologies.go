package searchindex

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/planehq/hiringsignal/analytics"
)

// Technographics: which technologies a company's postings name, and which companies' postings
// name a technology, over the reqs the index holds (live, and closed within ClosedWindow), as the
// posting facts state them (facts.go).
//
// A company's technologies are derived on demand from its reqs (contiguous in the index) and the
// interned technology lists: nothing is kept for them. A technology's companies are kept, since
// finding them on demand means reading every req: per technology, one entry per company whose
// reqs name it (12 bytes: the company and the earliest first_seen of its reqs naming it, all and
// live ones), newest first mention first. Counts, dates and evidence of a served row are derived
// from that company's reqs, the caller's freshness floor applied, as the company's own read is.

// EvidenceMax is the most req_keys a technology row lists as its evidence.
const EvidenceMax = 10

// techCompany is one company whose indexed reqs name a technology: the earliest first_seen
// (unix seconds) of those reqs, and of the live ones (0: none live).
type techCompany struct {
	company   uint32 // index in Index.companies
	first     uint32
	firstLive uint32
}

// TechnologyRow is one row of the technology vocabulary (jobtext's): slug, display name, category.
type TechnologyRow struct{ Slug, Name, Category string }

// TechnologyVocabulary is every technology the index knows, in the vocabulary's order.
func TechnologyVocabulary() []TechnologyRow {
	out := make([]TechnologyRow, len(techRows))
	for i, t := range techRows {
		out[i] = TechnologyRow{Slug: t.Slug, Name: t.Name, Category: t.Category}
	}
	return out
}

// TechnologyOf finds a technology by slug.
func TechnologyOf(slug string) (TechnologyRow, bool) {
	id, ok := techIDs[slug]
	if !ok {
		return TechnologyRow{}, false
	}
	t := techRows[id]
	return TechnologyRow{Slug: t.Slug, Name: t.Name, Category: t.Category}, true
}

// TechnologyUse is one technology as the reqs of one company name it: the reqs the index holds
// (live, and closed within ClosedWindow) past the caller's freshness floor.
type TechnologyUse struct {
	TechnologyRow
	Live     int // live reqs naming it
	Past     int // reqs naming it closed within ClosedWindow
	Required int // of those, the reqs naming it as required (in the title or as a requirement)
	// FirstSeen is the earliest first_seen of the reqs naming it (unix seconds): when the company's
	// postings first named it, as far as the index holds them.
	FirstSeen int64
	// LastSeen is when a req naming it was last seen live (unix seconds): the index's CycleTime
	// while one is live, else the latest close among them.
	LastSeen int64
	// Evidence are reqs naming it, live first, then newest first_seen first, then req_key; at
	// most as many as asked.
	Evidence []*Req
}

// techUses accumulates the TechnologyUse of one company's reqs.
type techUses struct {
	x        *Index
	evidence int
	pos      []int32 // technology id → index+1 in uses
	uses     []TechnologyUse
	last     []*Req // per use: the req counted last (a list naming a technology twice counts once)
}

// visibleTechReqs is the company's reqs naming a technology that the floor cutoff (unix seconds,
// 0: none) does not hide, in evidence order: live first, newest first_seen first, req_key.
func (x *Index) visibleTechReqs(co *Company, cutoff int64) []*Req {
	var out []*Req
	for i := co.first; i < co.end; i++ {
		r := &x.reqs[i]
		if r.facts.tech == 0 || cutoff != 0 && r.FirstSeen > cutoff {
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Live != b.Live {
			return a.Live
		}
		if a.FirstSeen != b.FirstSeen {
			return a.FirstSeen > b.FirstSeen
		}
		return a.Key < b.Key
	})
	return out
}

// add counts r's naming of technology id (kind analytics.TechNamed, TechRequired or TechNiceToHave).
func (u *techUses) add(r *Req, id uint16, kind uint16) {
	p := u.pos[id]
	if p == 0 {
		t := techRows[id]
		u.uses = append(u.uses, TechnologyUse{TechnologyRow: TechnologyRow{Slug: t.Slug, Name: t.Name, Category: t.Category}, FirstSeen: r.FirstSeen})
		u.last = append(u.last, nil)
		p = int32(len(u.uses))
		u.pos[id] = p
	}
	if u.last[p-1] == r {
		return
	}
	u.last[p-1] = r
	t := &u.uses[p-1]
	if r.Live {
		t.Live++
		t.LastSeen = u.x.CycleTime.Unix()
	} else {
		t.Past++
		if t.Live == 0 { // reqs come live first: a live one already set CycleTime
			t.LastSeen = max(t.LastSeen, r.LastEventAt)
		}
	}
	if uint8(kind) == analytics.TechRequired {
		t.Required++
	}
	t.FirstSeen = min(t.FirstSeen, r.FirstSeen)
	if len(t.Evidence) < u.evidence {
		t.Evidence = append(t.Evidence, r)
	}
}

// CompanyTechnologies is every technology the company's indexed reqs name, past the floor
// freshBefore (zero: none; reqs first seen after it are hidden, as every company read hides
// them), with at most evidence reqs each (0..EvidenceMax): most live reqs first, then most past
// reqs, then slug. Nil when the index holds no req of the company naming one.
func (x *Index) CompanyTechnologies(companyID uint64, freshBefore time.Time, evidence int) []TechnologyUse {
	co, ok := x.Company(companyID)
	if !ok {
		return nil
	}
	uses := x.companyUses(co, cutoffOf(freshBefore), evidence, -1)
	sort.Slice(uses, func(i, j int) bool {
		a, b := &uses[i], &uses[j]
		if a.Live != b.Live {
			return a.Live > b.Live
		}
		if a.Past != b.Past {
			return a.Past > b.Past
		}
		return a.Slug < b.Slug
	})
	return uses
}

// CompanyTextCoverage counts the company's indexed reqs past the floor freshBefore (zero: none)
// and those whose posting text the crawl read (a description hash): technologies come from the
// text and the title, so a company whose reqs have no text names none it may use.
func (x *Index) CompanyTextCoverage(companyID uint64, freshBefore time.Time) (reqs, described int) {
	co, ok := x.Company(companyID)
	if !ok {
		return 0, 0
	}
	cutoff := cutoffOf(freshBefore)
	for i := co.first; i < co.end; i++ {
		r := &x.reqs[i]
		if cutoff != 0 && r.FirstSeen > cutoff {
			continue
		}
		reqs++
		if r.descHash != 0 {
			described++
		}
	}
	return reqs, described
}

// companyUses counts the technologies of co's visible reqs (only technology id only, when >= 0).
func (x *Index) companyUses(co *Company, cutoff int64, evidence, only int) []TechnologyUse {
	u := techUses{x: x, evidence: min(max(evidence, 0), EvidenceMax), pos: make([]int32, len(techRows))}
	for _, r := range x.visibleTechReqs(co, cutoff) {
		for _, e := range x.techList(&r.facts) {
			id := e >> techKindBits
			if only >= 0 && int(id) != only {
				continue
			}
			u.add(r, id, e&3)
		}
	}
	return u.uses
}

// cutoffOf is the floor as unix seconds (0: none).
func cutoffOf(freshBefore time.Time) int64 {
	if freshBefore.IsZero() {
		return 0
	}
	return freshBefore.Unix()
}

// TechCompanyCursor is the position of a row of a technology's companies: its first mention
// and its company (rows after it come next).
type TechCompanyCursor struct {
	FirstSeen int64
	CompanyID uint64
}

// TechCompanyQuery is one page of a technology's companies.
type TechCompanyQuery struct {
	Slug string
	// Since keeps the companies whose first mention (the earliest first_seen of their reqs naming
	// it) is at or after it (zero: every one).
	Since time.Time
	// FreshBefore is the caller's freshness floor: reqs first seen after it are hidden (zero: none).
	FreshBefore     time.Time
	LiveOnly        bool // only companies with a live req naming it
	ExcludeAgencies bool // drop companies positively classified as agencies (Company.Agency)
	After           *TechCompanyCursor
	Limit           int
	Evidence        int // req_keys per row, 0..EvidenceMax
}

// TechCompanyHit is one company of a technology's page and its use of it.
type TechCompanyHit struct {
	Company *Company
	Use     TechnologyUse
}

// TechCompanyPage is a page of a technology's companies: newest first mention first, then
// company_id. Total counts every company of the query (the cursor aside); More says companies
// follow the page.
type TechCompanyPage struct {
	Companies []TechCompanyHit
	More      bool
	Total     int
}

// TechnologyCompanies answers a page of the companies whose indexed reqs name q.Slug (an unknown
// slug has none). The total is exact: it reads the technology's entries from the newest first
// mention down to Since, one comparison each.
func (x *Index) TechnologyCompanies(q TechCompanyQuery) TechCompanyPage {
	var page TechCompanyPage
	id, ok := techIDs[q.Slug]
	if !ok || q.Limit <= 0 {
		return page
	}
	cutoff := cutoffOf(q.FreshBefore)
	var since int64
	if !q.Since.IsZero() {
		since = q.Since.Unix()
		if q.Since.Nanosecond() != 0 {
			since++
		}
	}
	entries := x.techCompanies[id]
	for _, e := range entries {
		first := int64(e.first)
		if first < since {
			break // newest first mention first: the rest are older
		}
		co := &x.companies[e.company]
		switch {
		case cutoff != 0 && first > cutoff: // every req naming it is under the floor
			continue
		case q.LiveOnly && (e.firstLive == 0 || cutoff != 0 && int64(e.firstLive) > cutoff):
			continue
		case q.ExcludeAgencies && co.Agency():
			continue
		}
		page.Total++
		if q.After != nil && (first > q.After.FirstSeen || first == q.After.FirstSeen && co.ID <= q.After.CompanyID) {
			continue
		}
		if len(page.Companies) == q.Limit {
			page.More = true
			continue
		}
		uses := x.companyUses(co, cutoff, q.Evidence, int(id))
		if len(uses) == 0 {
			continue // cannot be: the entry says a visible req names it
		}
		page.Companies = append(page.Companies, TechCompanyHit{Company: co, Use: uses[0]})
	}
	return page
}

// buildTechCompanies keeps, per technology, the companies whose reqs name it (finish calls it
// once the companies and their req ranges are known).
func (x *Index) buildTechCompanies() {
	x.techCompanies = make([][]techCompany, len(techRows))
	first := make([]uint32, len(techRows))
	firstLive := make([]uint32, len(techRows))
	var touched []uint16
	for ci := range x.companies {
		co := &x.companies[ci]
		touched = touched[:0]
		for i := co.first; i < co.end; i++ {
			r := &x.reqs[i]
			fs := clampUnix(r.FirstSeen)
			for _, e := range x.techList(&r.facts) {
				id := e >> techKindBits
				if first[id] == 0 {
					touched = append(touched, id)
					first[id] = fs
				}
				first[id] = min(first[id], fs)
				if r.Live && (firstLive[id] == 0 || fs < firstLive[id]) {
					firstLive[id] = fs
				}
			}
		}
		for _, id := range touched {
			x.techCompanies[id] = append(x.techCompanies[id], techCompany{company: uint32(ci), first: first[id], firstLive: firstLive[id]})
			first[id], firstLive[id] = 0, 0
		}
	}
	for id := range x.techCompanies {
		l := x.techCompanies[id]
		slices.SortFunc(l, func(a, b techCompany) int {
			if a.first != b.first {
				if a.first > b.first {
					return -1
				}
				return 1
			}
			return int(a.company) - int(b.company)
		})
		x.techCompanies[id] = slices.Clip(l)
	}
}

// clampUnix is unix seconds as the entries keep them: at least 1 (0 means "none"), at most
// MaxUint32 (the year 2106).
func clampUnix(s int64) uint32 {
	return uint32(min(max(s, 1), math.MaxUint32))
}
