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
// changed since prev was built). A carried req is prev's Record (shared, not copied); the
// interned tables it names (stems, fact lists) are prev's, extended
// (copied on the first addition, never written in place), so the ids in carried reqs keep their
// meaning; so do the dictionaries (Dictionaries: prev's, not copied, which the new records add to).
// Call Over before the first Add. prev is not modified.
func (b *Builder) Over(prev *Index, touched func(companyID uint64) bool) {
	b.prev, b.touched = prev, touched
	bb := b.b
	bb.dict = prev.dict
	bb.stemIDs = maps.Clone(prev.stemIDs)
	bb.facts.t = factTables{techArena: slices.Clip(prev.facts.techArena), remoteSets: slices.Clip(prev.facts.remoteSets),
		pays: slices.Clip(prev.facts.pays)}
}

// Dictionaries are the dictionaries of the index's lineage (the Builder's own, or prev's after
// Over): the read model of the same snapshot names its companies' strings in them too
// (readmodel.NewBuilder), so they go with the lineage as the records' do.
func (b *Builder) Dictionaries() *Dictionaries { return b.b.dict }

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
			if r := p.reqs[i]; r.Live || r.LastEventAt >= closedSince {
				out = append(out, r)
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
// company directory (kept, not copied, until Build), with new Dictionaries (a new lineage) unless
// Over hands it prev's.
func NewBuilder(wm uint64, at time.Time, cos []analytics.Company) *Builder {
	facts := make(map[uint64]*analytics.Company, len(cos))
	for i := range cos {
		facts[cos[i].CompanyID] = &cos[i]
	}
	return &Builder{b: newBuilder(), wm: wm, at: at.UTC(), closedSince: at.Add(-ClosedWindow), facts: facts}
}

// Add indexes one req's current state when it is live or closed within ClosedWindow of the
// cycle time; older closed reqs are left out. It does not keep r (its strings aside).
func (b *Builder) Add(r *analytics.LedgerReq) {
	if b.Keeps(r) {
		b.AddRecord(b.Record(r))
	}
}

// Keeps reports whether the index keeps r: live, or closed within ClosedWindow of the cycle time.
func (b *Builder) Keeps(r *analytics.LedgerReq) bool {
	return r.Live() || !r.LastEventAt.Before(b.closedSince)
}

// Record makes r's record, its title, strings and fact lists interned in this build's tables, for
// this index (AddRecord when Keeps) and the read model of the same build alike. It does not keep r
// (its strings aside).
func (b *Builder) Record(r *analytics.LedgerReq) *Record { return b.b.record(r) }

// AddRecord indexes rec, a record this Builder made (Record) for a req it keeps (Keeps).
func (b *Builder) AddRecord(rec *Record) { b.b.reqs = append(b.b.reqs, Req{Record: rec}) }

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
	dict    *Dictionaries
	text    textArena
	facts   *factInterner
	reqs    []Req
	titles  map[string]*Title
	strs    map[string]string
	stemIDs map[string]uint32
}

func newBuilder() *builder {
	return &builder{dict: NewDictionaries(), facts: newFactInterner(), titles: map[string]*Title{}, strs: map[string]string{}, stemIDs: map[string]uint32{}}
}

func (b *builder) intern(s string) string {
	if v, ok := b.strs[s]; ok {
		return v
	}
	b.strs[s] = s
	return s
}

func (b *builder) title(raw, clean string) *Title {
	k := raw + "\x00" + clean
	if t, ok := b.titles[k]; ok {
		return t
	}
	t := &Title{Raw: raw, Clean: clean, dict: b.dict}
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

func (b *builder) record(s *analytics.LedgerReq) *Record {
	key, url := b.text.add(s.ReqKey, s.URL)
	r := &Record{
		Key: key, URL: url, CompanyID: s.CompanyID, Title: b.title(s.RawTitle, s.Title),
		values: b.dict.set(s.Function, s.Country, s.SourceType),
		attrs:  b.dict.attrsID(s.Location, s.Board, s.EventType), boards: b.dict.boards.id(s.AnyBoards, s.Boards),
		FirstSeen: s.FirstSeen.Unix(), LastEventAt: s.LastEventAt.Unix(), OpenSeq: s.OpenSeq, RepostCount: s.RepostCount,
		Live: s.Live(), declared: s.SalaryDeclared, descHash: s.DescriptionHash,
	}
	if s.PostedAt != nil {
		r.posted = uint32(s.PostedAt.Unix())
	}
	r.facts = b.facts.facts(&s.Facts, b.intern)
	if s.SalaryMinUSD != nil || s.SalaryMaxUSD != nil {
		r.sal = &salary{min: math.NaN(), max: math.NaN()}
		if s.SalaryMinUSD != nil {
			r.sal.min = *s.SalaryMinUSD
		}
		if s.SalaryMaxUSD != nil {
			r.sal.max = *s.SalaryMaxUSD
		}
	}
	if r.declared && r.sal == nil {
		r.declared = false
	}
	return r
}

// textArena holds the req keys and URLs of a build's records back to back in chunks of 64 KiB:
// one allocation per chunk, not two a req each rounded up to the allocator's size class (a 60-byte
// URL takes 64 bytes alone, a 65-byte one 80). A chunk lives while any record of it does: an
// applied commit's replaced records keep theirs until the lineage's records are all gone.
type textArena struct{ sb strings.Builder }

// add copies key and url into the arena.
func (a *textArena) add(key, url string) (string, string) {
	n := len(key) + len(url)
	if a.sb.Cap()-a.sb.Len() < n {
		a.sb = strings.Builder{} // the strings handed out keep the old chunk
		a.sb.Grow(max(n, 64<<10))
	}
	from := a.sb.Len()
	a.sb.WriteString(key)
	a.sb.WriteString(url)
	s := a.sb.String() // appends past it never move or change what it holds: the chunk's capacity is never exceeded
	return s[from : from+len(key)], s[from+len(key) : from+n]
}

func (b *builder) finish(facts map[uint64]*analytics.Company) *Index {
	x := &Index{dict: b.dict, reqs: b.reqs, stemIDs: b.stemIDs}
	b.reqs = nil
	x.facts, b.facts = b.facts.t, nil
	names := b.dict.boards.boardNames()
	x.nBoards, x.boardsByFold = len(names), map[string][]uint32{}
	for id, name := range names {
		fold := strings.ToLower(name)
		x.boardsByFold[fold] = append(x.boardsByFold[fold], uint32(id))
	}
	x.byCountry = make([][]uint32, b.dict.values.size())
	x.byFunction = make([][]uint32, b.dict.values.size())
	sort.Slice(x.reqs, func(i, j int) bool { return reqLess(&x.reqs[i], &x.reqs[j]) })
	x.postings = make([][]uint32, len(x.stemIDs))
	x.sizeLists()
	x.ordSet, x.ordFlags, x.ordFirstSeen = make([]uint16, len(x.reqs)), make([]uint8, len(x.reqs)), make([]uint32, len(x.reqs))
	firstSeenFits := true
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
		for _, s := range r.Title.stems {
			x.postings[s] = append(x.postings[s], ord)
		}
		x.ordSet[ord], x.ordFlags[ord], x.ordFirstSeen[ord] = r.values, ordFlagsOf(r.Record), uint32(r.FirstSeen)
		firstSeenFits = firstSeenFits && r.FirstSeen >= 0 && r.FirstSeen <= math.MaxUint32
		vs := r.set()
		x.byCountry[vs.countryID] = append(x.byCountry[vs.countryID], ord)
		x.byFunction[vs.functionID] = append(x.byFunction[vs.functionID], ord)
		if r.Live {
			x.byRecency = append(x.byRecency, ord)
		}
		if f, ok := r.declaredFigure(); ok && vs.function != "" && vs.country != "" {
			declared = append(declared, paySample{vs.function, vs.country, r.Title.Seniority, f})
		}
	}
	if !firstSeenFits {
		x.ordFirstSeen = nil
	}
	x.postingWords = make([][]uint8, len(x.postings))
	for id, l := range x.postings {
		x.postingWords[id] = x.blockWords(l)
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

// sizeLists gives the companies and the lists finish appends to (postings, byCountry, byFunction,
// byRecency) the exact capacity they fill: appends would leave them up to twice their length.
func (x *Index) sizeLists() {
	stems := make([]int, len(x.postings))
	countries, functions := make([]int, len(x.byCountry)), make([]int, len(x.byFunction))
	companies, live := 0, 0
	for i := range x.reqs {
		r := &x.reqs[i]
		if i == 0 || x.reqs[i-1].CompanyID != r.CompanyID {
			companies++
		}
		for _, s := range r.Title.stems {
			stems[s]++
		}
		vs := r.set()
		countries[vs.countryID]++
		functions[vs.functionID]++
		if r.Live {
			live++
		}
	}
	x.companies = make([]Company, 0, companies)
	x.byRecency = make([]uint32, 0, live)
	for lists, counts := range map[*[][]uint32][]int{&x.postings: stems, &x.byCountry: countries, &x.byFunction: functions} {
		n := 0
		for _, c := range counts {
			n += c
		}
		arena := make([]uint32, n)
		for i, c := range counts {
			if c > 0 {
				(*lists)[i], arena = arena[:0:c], arena[c:]
			}
		}
	}
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
