package searchindex

import (
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
)

// ClosedWindow is how long a closed req stays in the index (reqs/qualified live_only=false).
const ClosedWindow = 30 * 24 * time.Hour

// Builder builds one Index from rows already read from the committed ledger at one watermark:
// NewBuilder with the company directory, Add with every current req (in any order), then Build
// with the role-demand series. It does no I/O.
type Builder struct {
	b           *builder
	wm          uint64
	at          time.Time
	closedSince time.Time
	facts       map[uint64]*analytics.Company
	from        time.Time
	gaps        []analytics.Gap
	coverage    func(companyID uint64) time.Time
	prev        *Index // Over: the index whose companies not touched are carried
	touched     func(companyID uint64) bool
}

// Over makes Build carry into the index every req of prev whose company touched reports false
// (and that the index still keeps: live, or closed within ClosedWindow of its cycle time), with
// that company's facts: the Builder then holds the directory rows and reqs of the touched
// companies only. A carried company's reqs and directory row must be prev's (none of its rows
// changed since prev was built). A carried req shares its title, boards, strings and fact lists
// with prev; the interned tables it names (stems, board sets, fact lists) are prev's, extended
// (copied on the first addition, never written in place), so the ids in carried reqs keep their
// meaning. Call Over before the first Add. prev is not modified.
func (b *Builder) Over(prev *Index, touched func(companyID uint64) bool) {
	b.prev, b.touched = prev, touched
	bb := b.b
	bb.stemIDs = maps.Clone(prev.stemIDs)
	bb.boardIDs = maps.Clone(prev.boardIDs)
	bb.boardSets = slices.Clip(prev.boardSets)
	bb.facts.t = factTables{techArena: slices.Clip(prev.facts.techArena), remoteSets: slices.Clip(prev.facts.remoteSets),
		pays: slices.Clip(prev.facts.pays)}
}

// carry appends to b.b.reqs the reqs of b.prev's companies not touched that the index keeps, in
// prev's order, and files those companies' facts in facts.
func (b *Builder) carry() {
	p := b.prev
	touched := b.b.reqs
	sort.Slice(touched, func(i, j int) bool { return reqLess(&touched[i], &touched[j]) })
	out := make([]Req, 0, len(p.reqs)+len(touched))
	k := 0
	closedSince := b.closedSince.Unix()
	for ci := range p.companies {
		co := &p.companies[ci]
		if b.touched(co.ID) {
			continue
		}
		for k < len(touched) && touched[k].CompanyID < co.ID {
			out = append(out, touched[k])
			k++
		}
		kept := false
		for i := co.first; i < co.end; i++ {
			if r := &p.reqs[i]; r.Live || r.LastEventAt >= closedSince {
				out = append(out, *r)
				kept = true
			}
		}
		if kept {
			b.facts[co.ID] = &analytics.Company{CompanyID: co.ID, Name: co.Name, Domain: co.Domain, HQCountry: co.HQCountry,
				Industry: co.Industry, HeadcountBand: co.HeadcountBand, AgencyKind: co.AgencyKind}
		}
	}
	out = append(out, touched[k:]...)
	b.b.reqs = out
}

func reqLess(a, c *Req) bool {
	return a.CompanyID < c.CompanyID || a.CompanyID == c.CompanyID && a.Key < c.Key
}

// CoverageStarts sets where each company's coverage began (the read model's ObservedFrom; zero
// when unknown): reqs first seen at or before it are left-censored.
func (b *Builder) CoverageStarts(f func(companyID uint64) time.Time) { b.coverage = f }

// ObservedFrom sets when observation began (the first committed cycle of any region): role-demand
// weeks that began before it are marked partial.
func (b *Builder) ObservedFrom(t time.Time) { b.from = t.UTC() }

// Gaps sets the gaps in the committed cycles of the crawl regions (analytics.Gaps at the index's
// watermark): role-demand weeks that any of them touches are marked partial. A country's postings
// come from companies of any region, so a gap of any region counts. The index keeps gaps.
func (b *Builder) Gaps(gaps []analytics.Gap) { b.gaps = gaps }

// NewBuilder starts an index at watermark wm, whose latest committed cycle ran at at, over the
// company directory (kept, not copied, until Build).
func NewBuilder(wm uint64, at time.Time, cos []analytics.Company) *Builder {
	facts := make(map[uint64]*analytics.Company, len(cos))
	for i := range cos {
		facts[cos[i].CompanyID] = &cos[i]
	}
	return &Builder{b: newBuilder(), wm: wm, at: at.UTC(), closedSince: at.Add(-ClosedWindow), facts: facts}
}

// Add indexes one req's current state when it is live or closed within ClosedWindow of the
// cycle time; older closed reqs are left out. It does not keep r (its strings and slices aside).
func (b *Builder) Add(r *analytics.LedgerReq) {
	if r.Live() || !r.LastEventAt.Before(b.closedSince) {
		b.b.add(r)
	}
}

// Build finishes the index with the market-wide role demand (analytics.RoleDemand at the same
// watermark). The Builder must not be used after.
func (b *Builder) Build(demand []analytics.WeekCount) *Index {
	if b.prev != nil {
		b.carry()
	}
	x := b.b.finish(b.facts)
	if b.coverage != nil {
		for i := range x.companies {
			if t := b.coverage(x.companies[i].ID); !t.IsZero() {
				x.companies[i].CoverageStart = t.Unix()
			}
		}
	}
	b.b, b.facts = nil, nil
	x.addDemand(demand, b.at)
	x.Watermark, x.CycleTime, x.observedFrom, x.gaps = b.wm, b.at, b.from, b.gaps
	return x
}

type builder struct {
	facts     *factInterner
	reqs      []Req
	titles    map[string]*Title
	strs      map[string]string
	boards    map[string]boardSet
	boardSets [][]uint32
	boardIDs  map[string]uint32 // distinct board name → board id
	stemIDs   map[string]uint32
	attrs     map[reqAttrs]*reqAttrs
}

// boardSet is one distinct list of boards: the names (interned) and the id of the set.
type boardSet struct {
	names []string
	id    uint32
}

func newBuilder() *builder {
	return &builder{facts: newFactInterner(), titles: map[string]*Title{}, strs: map[string]string{}, boards: map[string]boardSet{}, boardIDs: map[string]uint32{},
		stemIDs: map[string]uint32{}, attrs: map[reqAttrs]*reqAttrs{}}
}

func (b *builder) intern(s string) string {
	if v, ok := b.strs[s]; ok {
		return v
	}
	b.strs[s] = s
	return s
}

// reqAttrs is the interned reqAttrs of (location, board, eventType).
func (b *builder) reqAttrs(location, board, eventType string) *reqAttrs {
	k := reqAttrs{location: location, board: board, eventType: eventType}
	if a, ok := b.attrs[k]; ok {
		return a
	}
	a := &reqAttrs{location: b.intern(location), board: b.intern(board), eventType: b.intern(eventType)}
	b.attrs[*a] = a
	return a
}

func (b *builder) title(raw, clean string) *Title {
	k := raw + "\x00" + clean
	if t, ok := b.titles[k]; ok {
		return t
	}
	t := &Title{Raw: raw, Clean: clean}
	deriveTitle(t)
	seen := map[uint32]bool{}
	for _, s := range normalize.Stems(raw) {
		id, ok := b.stemIDs[s]
		if !ok {
			id = uint32(len(b.stemIDs))
			b.stemIDs[s] = id
		}
		if !seen[id] {
			seen[id] = true
			t.stems = append(t.stems, id)
		}
	}
	sort.Slice(t.stems, func(i, j int) bool { return t.stems[i] < t.stems[j] })
	b.titles[k] = t
	return t
}

func (b *builder) boardSet(bs []string) boardSet {
	k := strings.Join(bs, "\x00")
	if v, ok := b.boards[k]; ok {
		return v
	}
	v := boardSet{names: make([]string, len(bs)), id: uint32(len(b.boardSets))}
	var ids []uint32
	for i, s := range bs {
		v.names[i] = b.intern(s)
		id, ok := b.boardIDs[s]
		if !ok {
			id = uint32(len(b.boardIDs))
			b.boardIDs[s] = id
		}
		if !containsID(ids, id) {
			ids = append(ids, id)
		}
	}
	b.boardSets = append(b.boardSets, ids)
	b.boards[k] = v
	return v
}

func containsID(ids []uint32, id uint32) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}

func (b *builder) add(s *analytics.LedgerReq) {
	bs := b.boardSet(s.AnyBoards)
	r := Req{
		Key: s.ReqKey, CompanyID: s.CompanyID, Title: b.title(s.RawTitle, s.Title),
		Function: b.intern(s.Function), Country: b.intern(s.Country), attrs: b.reqAttrs(s.Location, s.Board, s.EventType),
		SourceType: b.intern(s.SourceType), Boards: bs.names, boardSet: bs.id, URL: s.URL,
		FirstSeen: s.FirstSeen.Unix(), LastEventAt: s.LastEventAt.Unix(), OpenSeq: s.OpenSeq, RepostCount: s.RepostCount,
		Live: s.Live(), salMin: math.NaN(), salMax: math.NaN(), declared: s.SalaryDeclared,
	}
	if s.PostedAt != nil {
		r.PostedAt = s.PostedAt.Unix()
	}
	r.facts = b.facts.facts(&s.Facts, b.intern)
	if s.SalaryMinUSD != nil {
		r.salMin = *s.SalaryMinUSD
	}
	if s.SalaryMaxUSD != nil {
		r.salMax = *s.SalaryMaxUSD
	}
	if r.declared && math.IsNaN(r.salMin) && math.IsNaN(r.salMax) {
		r.declared = false
	}
	b.reqs = append(b.reqs, r)
}

func (b *builder) finish(facts map[uint64]*analytics.Company) *Index {
	x := &Index{reqs: b.reqs, stemIDs: b.stemIDs, countryIx: map[string]uint16{"": 0}, functionIx: map[string]uint16{"": 0},
		countries: []string{""}, functions: []string{""}}
	b.reqs = nil
	x.facts, b.facts = b.facts.t, nil
	x.boardSets, x.nBoards, x.boardIDs, x.boardsByFold = b.boardSets, len(b.boardIDs), b.boardIDs, map[string][]uint32{}
	for name, id := range b.boardIDs {
		fold := strings.ToLower(name)
		x.boardsByFold[fold] = append(x.boardsByFold[fold], id)
	}
	sort.Slice(x.reqs, func(i, j int) bool { return reqLess(&x.reqs[i], &x.reqs[j]) })
	x.postings = make([][]uint32, len(x.stemIDs))
	var declared []paySample
	for i := range x.reqs {
		r := &x.reqs[i]
		ord := uint32(i)
		if n := len(x.companies); n == 0 || x.companies[n-1].ID != r.CompanyID {
			c := Company{ID: r.CompanyID, first: ord}
			if f, ok := facts[r.CompanyID]; ok {
				c.Name, c.Domain, c.HQCountry, c.Industry, c.HeadcountBand, c.AgencyKind = f.Name, f.Domain, f.HQCountry, f.Industry, f.HeadcountBand, f.AgencyKind
				c.industryFold = strings.ToLower(strings.TrimSpace(f.Industry))
			}
			x.companies = append(x.companies, c)
		}
		r.company = uint32(len(x.companies) - 1)
		x.companies[r.company].end = ord + 1
		r.country = x.countryIndex(r.Country)
		r.function = x.functionIndex(r.Function)
		for _, s := range r.Title.stems {
			x.postings[s] = append(x.postings[s], ord)
		}
		x.byCountry[r.country] = append(x.byCountry[r.country], ord)
		x.byFunction[r.function] = append(x.byFunction[r.function], ord)
		if r.Live {
			x.byRecency = append(x.byRecency, ord)
		}
		if f, ok := r.declaredFigure(); ok && r.Function != "" && r.Country != "" {
			declared = append(declared, paySample{r.Function, r.Country, r.Title.Seniority, f})
		}
	}
	sort.Slice(x.byRecency, func(i, j int) bool {
		a, c := x.byRecency[i], x.byRecency[j]
		fa, fc := x.reqs[a].FirstSeen, x.reqs[c].FirstSeen
		return fa > fc || fa == fc && a < c
	})
	x.bySeq = make([]uint32, len(x.reqs))
	for i := range x.bySeq {
		x.bySeq[i] = uint32(i)
	}
	sort.Slice(x.bySeq, func(i, j int) bool {
		a, c := x.bySeq[i], x.bySeq[j]
		return x.reqs[a].OpenSeq < x.reqs[c].OpenSeq || x.reqs[a].OpenSeq == x.reqs[c].OpenSeq && a < c
	})
	x.pay = newPayTable(declared)
	x.buildTechCompanies()
	return x
}

func (x *Index) countryIndex(name string) uint16 {
	return vocabIndex(name, x.countryIx, &x.countries, &x.byCountry)
}

func (x *Index) functionIndex(id string) uint16 {
	return vocabIndex(id, x.functionIx, &x.functions, &x.byFunction)
}

// vocabIndex returns v's index in a vocabulary (names, with its reverse map ix), adding v when
// new, and makes sure its posting list exists in lists.
func vocabIndex(v string, ix map[string]uint16, names *[]string, lists *[][]uint32) uint16 {
	i, ok := ix[v]
	if !ok {
		i = uint16(len(*names))
		*names = append(*names, v)
		ix[v] = i
	}
	for len(*lists) <= int(i) {
		*lists = append(*lists, nil)
	}
	return i
}

// addDemand keeps the role-demand series per function and country, and the global span of weeks
// (the first week any req opened to the week of the latest cycle) every series is zero-filled over.
func (x *Index) addDemand(ws []analytics.WeekCount, at time.Time) {
	x.demand = map[demandKey][]Week{}
	for _, w := range ws {
		k := demandKey{w.Function, w.Country}
		b := w.BucketStart.UTC()
		x.demand[k] = append(x.demand[k], Week{BucketStart: b, Opened: w.Opened, Reposted: w.Reposted, Closed: w.Closed})
		if x.demandFirst.IsZero() || b.Before(x.demandFirst) {
			x.demandFirst = b
		}
	}
	x.demandLast = monday(at)
	if x.demandFirst.IsZero() || x.demandFirst.After(x.demandLast) {
		x.demandFirst = x.demandLast
	}
}

func monday(t time.Time) time.Time {
	t = t.UTC()
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}
