package readmodel

import (
	"slices"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// interner shares the repeated strings of a build (first hires' titles, migrations' vendors,
// censored functions; the reqs' are their records', the directory's values its dictionaries'),
// and keeps the ids of the words it named in the dictionaries (board names, source types,
// functions), so the build asks the dictionaries, under their lock, once a word.
type interner struct {
	s     map[string]string
	dict  *searchindex.Dictionaries
	words map[string]uint32
}

func newInterner(dict *searchindex.Dictionaries) *interner {
	return &interner{s: make(map[string]string, 1<<16), dict: dict, words: map[string]uint32{}}
}

// word is w's id in the dictionaries.
func (in *interner) word(w string) uint32 {
	if id, ok := in.words[w]; ok {
		return id
	}
	id := in.dict.WordID(w)
	in.words[in.dict.Word(id)] = id
	return id
}

func (in *interner) str(v string) string {
	if v == "" {
		return ""
	}
	if s, ok := in.s[v]; ok {
		return s
	}
	v = strings.Clone(v)
	in.s[v] = v
	return v
}

// Side is what the model needs besides the directory and the req stream: the weekly flow per
// company (analytics.StreamMomentum), the ATS history (analytics.ATSHistory) and the board
// sightings per company (analytics.StreamCompanyBoards), all at the model's watermark.
type Side struct {
	Momentum []analytics.WeekCount
	ATS      []analytics.VendorSighting
	Boards   []analytics.BoardSighting
}

// Builder builds one Model from rows already read from the committed ledger at one watermark:
// NewBuilder with the directory, Add with every current req (in any order), then Build with the
// side reads. It does no I/O; its memory is the model plus the row being added.
type Builder struct {
	m             *Model
	in            *interner
	now           time.Time
	activeFrom    int64
	first, latest map[string]time.Time // per cycles-table region: its first and latest committed cycle time
	prev          *Model               // Over: the model whose companies not touched are carried
	touched       func(id uint64) bool
	reqs          int                  // Req values added to the companies' Live and Reposted lists
	records       *searchindex.Builder // Add: makes the records of reqs added without one
	// censored are the functions of each company with a req live at its ObservedFrom, until
	// Build names each set in the dictionaries (Company.censored).
	censored map[*Company]map[string]bool
}

// NewBuilder starts a model at watermark wm, whose latest committed cycle ran at asOf, over the
// committed cycles per region and the company directory, its companies' strings named in dict:
// the dictionaries of the snapshot's lineage (searchindex.Builder.Dictionaries of the index built
// beside it), or new ones when dict is nil (a model of its own).
func NewBuilder(dict *searchindex.Dictionaries, wm uint64, asOf time.Time, regions []analytics.RegionRead, cos []analytics.Company) *Builder {
	if dict == nil {
		dict = searchindex.NewDictionaries()
	}
	m := &Model{Watermark: wm, AsOf: asOf.UTC(), companies: make(map[uint64]*Company, len(cos))}
	first := map[string]time.Time{}
	latest := map[string]time.Time{}
	for _, r := range regions {
		first[r.Region], latest[r.Region] = r.First.UTC(), r.Latest.UTC()
		if m.Since.IsZero() || r.First.Before(m.Since) {
			m.Since = r.First.UTC()
		}
	}
	in := newInterner(dict)
	for i := range cos {
		a := &cos[i]
		c := &Company{ID: a.CompanyID, Domain: a.Domain, Name: a.Name, dict: dict}
		v := searchindex.CompanyValues{HQCountry: a.HQCountry, Region: a.Region, Industry: a.Industry,
			HeadcountBand: a.HeadcountBand, AgencyKind: a.AgencyKind, ATSVendor: a.ATSVendor}
		if a.Covered {
			v.Coverage = CoverageCovered
		}
		c.values = dict.CompanyValuesID(v)
		observedFrom, lastRead := first[a.Region], latest[a.Region]
		if t, ok := latest[analytics.CompanyRegion(c.ID)]; ok && t.After(lastRead) {
			lastRead = t
		}
		if observedFrom.IsZero() {
			observedFrom = first[analytics.CompanyRegion(c.ID)]
		}
		c.observedFrom, c.lastRead = unixSeconds(observedFrom), unixSeconds(lastRead)
		m.companies[c.ID] = c
	}
	return &Builder{m: m, in: in, now: m.AsOf, activeFrom: m.AsOf.Add(-ActiveWindow).Unix(), first: first, latest: latest,
		censored: map[*Company]map[string]bool{}}
}

// Over makes Build carry into the model every company of prev that touched reports false for:
// the Builder then holds the directory rows, reqs and side reads of the touched companies only,
// and Build shares each carried company's lists with prev. A carried company's own rows must be
// prev's (its events, directory row, ATS and board sightings did not change), and no region's
// first committed cycle nor its region moved since prev: what differs is only the time (AsOf:
// its pulse counts) and its regions' latest cycles (LastRead), which Build sets on a copy of the
// company when they moved and reuses prev's company as it is otherwise. prev must be a model of
// a lower or equal AsOf.
func (b *Builder) Over(prev *Model, touched func(id uint64) bool) {
	b.prev, b.touched = prev, touched
}

// Gaps sets the gaps in the committed cycles of the crawl regions (analytics.Gaps at the model's
// bound): a company's momentum weeks that a gap of its region touches are partial. The model keeps
// gaps.
func (b *Builder) Gaps(gaps []analytics.Gap) {
	b.m.gaps = map[string][]analytics.Gap{}
	for _, g := range gaps {
		b.m.gaps[g.Region] = append(b.m.gaps[g.Region], g)
	}
}

// Since is the first committed cycle time of any region (zero before any), the start of
// observation of the corpus.
func (b *Builder) Since() time.Time { return b.m.Since }

// Add adds one req's current state (analytics.Req, Boards being the committed sightings) with a
// record of its own. It does not keep r (its strings aside: the req key is shared, not copied).
func (b *Builder) Add(r *analytics.Req) {
	if b.records == nil {
		b.records = searchindex.NewBuilder(b.m.Watermark, b.now, nil)
	}
	b.AddRecord(r, func() *searchindex.Record {
		return b.records.Record(&analytics.LedgerReq{Req: *r, AnyBoards: r.Boards})
	})
}

// AddRecord is Add with the req's record made by record (searchindex.Builder.Record of the
// snapshot's index builder, which shares it), called only when the model keeps the req.
func (b *Builder) AddRecord(r *analytics.Req, record func() *searchindex.Record) {
	c := b.m.companies[r.CompanyID]
	if c == nil {
		return // a req of a company the directory no longer lists: nothing to serve it under
	}
	in := b.in
	c.stats.anyReq = true
	c.stats.addFirstSeen(r.FirstSeen, b.now)
	if fs := r.FirstSeen.Unix(); fs > b.now.Add(-countedWindow).Unix() {
		c.recent = append(c.recent, uint32(fs)) // it counts in a pulse at this AsOf or a later one (statsAt)
	}
	if r.Function != "" {
		if c.censors(r.FirstSeen.Unix()) {
			set := b.censored[c]
			if set == nil {
				set = map[string]bool{}
				b.censored[c] = set
			}
			set[in.str(r.Function)] = true
		} else {
			c.firstHire(in, r)
		}
	}
	live := r.Live()
	if !live && r.RepostCount == 0 {
		return
	}
	q := Req{Record: record()}
	if live {
		b.reqs++
	}
	if q.RepostCount > 0 {
		b.reqs++
	}
	if live {
		c.Live = append(c.Live, q)
		c.stats.open++
		if q.LastEventAt >= b.activeFrom {
			c.stats.active++
		}
		b.m.liveReqs++
	}
	if q.RepostCount > 0 {
		rare := c.rareOf()
		rare.reposted = append(rare.reposted, q)
	}
}

// Build applies the side reads, settles every company and returns the model. The Builder must
// not be used after.
func (b *Builder) Build(sd Side) *Model {
	m, in, now := b.m, b.in, b.now
	b.m, b.in = nil, nil
	for _, w := range sd.Momentum {
		if c := m.companies[w.Key]; c != nil {
			c.momentum = append(c.momentum, week{day: mondayDay(w.BucketStart), opened: uint32(w.Opened), reposted: uint32(w.Reposted), closed: uint32(w.Closed)})
		}
	}
	var prev *analytics.VendorSighting
	for i := range sd.ATS {
		h := &sd.ATS[i]
		if h.FirstSeen.After(now) {
			continue // sighted by a cycle above the watermark
		}
		c := m.companies[h.CompanyID]
		if prev != nil && prev.CompanyID == h.CompanyID && prev.Vendor != h.Vendor && c != nil {
			rare := c.rareOf()
			rare.migrations = append(rare.migrations, Migration{FromVendor: in.str(prev.Vendor), ToVendor: in.str(h.Vendor), ObservedAt: h.FirstSeen.UTC()})
		}
		if c != nil && c.Coverage() == "" {
			c.setCoverage(CoverageCovered) // a tenant was read once: the company has ATS coverage
		}
		prev = h
	}
	nBoards := 0
	for i := range sd.Boards {
		bs := &sd.Boards[i]
		if c := m.companies[bs.CompanyID]; c != nil {
			c.boards = append(c.boards, boardSeen{board: in.word(bs.Board), source: in.word(bs.SourceType), firstSeen: unixSeconds(bs.FirstSeen)})
			nBoards++
		}
	}
	// A function that already had a req live when observation began has no known first hire: its
	// first req was posted before coverage, so a later one is not the first.
	for c, set := range b.censored {
		c.censored = c.dict.FunctionSetID(set) // companies with the same censored functions share one set
		c.firstHires = slices.DeleteFunc(c.firstHires, func(f firstHire) bool { return set[c.dict.Word(f.function)] })
	}
	b.censored = nil
	nFirstHires := 0
	for _, c := range m.companies {
		nFirstHires += len(c.firstHires)
	}
	// The lists as grown by append hold up to twice their length: finish moves them into arrays
	// of the exact size (arenas), and the grown ones are garbage.
	ar := arenas{reqs: make([]Req, 0, b.reqs), boards: make([]boardSeen, 0, nBoards), firstHires: make([]firstHire, 0, nFirstHires)}
	own := make([]*Company, 0, len(m.companies))
	for _, c := range m.companies {
		m.finish(c, &ar)
		own = append(own, c)
	}
	var prevDomain, prevName companyKeys
	if b.prev != nil {
		b.carry(m)
		prevDomain, prevName = b.prev.byDomain, b.prev.byNameKey
	}
	m.byDomain = b.fileKeys(m, own, prevDomain, domainKeyOf)
	m.byNameKey = b.fileKeys(m, own, prevName, nameKeyOf)
	return m
}

// carry adds to m (whose own companies are finished) every company of b.prev not touched, shared
// when nothing of it moved, else a copy with its new LastRead and pulse counts (their lists
// shared either way: neither is ever modified once built).
func (b *Builder) carry(m *Model) {
	for id, c := range b.prev.companies {
		if b.touched(id) {
			continue
		}
		if _, ok := m.companies[id]; ok {
			continue
		}
		lastRead := b.latest[c.Region()]
		if t, ok := b.latest[analytics.CompanyRegion(id)]; ok && t.After(lastRead) {
			lastRead = t
		}
		st := c.statsAt(b.now)
		if unixSeconds(lastRead) != c.lastRead || st != c.stats {
			cp := *c
			cp.lastRead, cp.stats = unixSeconds(lastRead), st
			c = &cp
		}
		m.companies[id] = c
		m.liveReqs += len(c.Live)
	}
}

// firstHire keeps r when it is the earliest req observed in its function at c (ties: the lower
// req_key, as analytics.FirstHires). A company has a few dozen functions at most: a linear scan.
func (c *Company) firstHire(in *interner, r *analytics.Req) {
	fs, fn := unixSeconds(r.FirstSeen), in.word(r.Function)
	for i := range c.firstHires {
		f := &c.firstHires[i]
		if f.function != fn {
			continue
		}
		if fs < f.firstSeen || (fs == f.firstSeen && r.ReqKey < f.reqKey) {
			*f = firstHire{function: fn, firstSeen: fs, reqKey: r.ReqKey, rawTitle: in.str(r.RawTitle), board: in.word(r.Board)}
		}
		return
	}
	c.firstHires = append(c.firstHires, firstHire{function: fn, firstSeen: fs, reqKey: r.ReqKey,
		rawTitle: in.str(r.RawTitle), board: in.word(r.Board)})
}

// arenas are the arrays a Build carves the companies' lists from, each at its exact size.
type arenas struct {
	reqs       []Req
	boards     []boardSeen
	firstHires []firstHire
}

// finish orders a company's lists, carves them from the arenas, settles its coverage and indexes
// it for resolve.
func (m *Model) finish(c *Company, ar *arenas) {
	if c.Coverage() == "" {
		if c.stats.anyReq || len(c.boards) > 0 {
			c.setCoverage(CoverageCovered) // board or aggregator postings were observed
		} else {
			c.setCoverage(CoverageNoATSSignal)
		}
	}
	slices.SortFunc(c.Live, func(a, b Req) int {
		if a.FirstSeen != b.FirstSeen {
			return cmpInt(b.FirstSeen, a.FirstSeen)
		}
		return strings.Compare(a.Key, b.Key)
	})
	slices.SortFunc(c.firstHires, func(a, b firstHire) int {
		if a.firstSeen != b.firstSeen {
			return cmpInt(int64(a.firstSeen), int64(b.firstSeen))
		}
		return strings.Compare(c.dict.Word(a.function), c.dict.Word(b.function))
	})
	c.Live = carve(&ar.reqs, c.Live)
	c.boards, c.firstHires = carve(&ar.boards, c.boards), carve(&ar.firstHires, c.firstHires)
	if c.rare != nil {
		slices.SortFunc(c.rare.reposted, func(a, b Req) int {
			if a.RepostCount != b.RepostCount {
				return cmpInt(int64(b.RepostCount), int64(a.RepostCount))
			}
			if a.FirstSeen != b.FirstSeen {
				return cmpInt(a.FirstSeen, b.FirstSeen)
			}
			return strings.Compare(a.Key, b.Key)
		})
		c.rare.reposted = carve(&ar.reqs, c.rare.reposted)
	}
	c.domainKey, c.nameKey = normalize.DomainKey(c.Domain), normalize.CompanyKey(c.Name)
}

// carve appends l to the arena and returns its copy there, capacity clipped (nil for none).
func carve[T any](arena *[]T, l []T) []T {
	if len(l) == 0 {
		return nil
	}
	from := len(*arena)
	*arena = append(*arena, l...)
	return (*arena)[from:len(*arena):len(*arena)]
}

// companyKeys files companies under a key (a domain, a name): every company with one, sorted by
// key then company_id, found by binary search (8 bytes a company, where a map of the keys took
// about 50).
type companyKeys []*Company

// keyOf is the key of a company a companyKeys files it under ("" for none).
type keyOf func(c *Company) string

func domainKeyOf(c *Company) string { return c.domainKey }
func nameKeyOf(c *Company) string   { return c.nameKey }

// get appends the companies filed under k (by key) to out, by company_id.
func (ks companyKeys) get(out []*Company, key keyOf, k string) []*Company {
	i, _ := slices.BinarySearchFunc(ks, k, func(c *Company, k string) int { return strings.Compare(key(c), k) })
	for ; i < len(ks) && key(ks[i]) == k; i++ {
		out = append(out, ks[i])
	}
	return out
}

// fileKeys files the companies of m by key: own, the companies this Build finished (keys derived
// by finish), and, over b.prev, the companies carried from it in the order of prev's (their keys
// are prev's: a carried company's directory row did not change).
func (b *Builder) fileKeys(m *Model, own []*Company, prev companyKeys, key keyOf) companyKeys {
	cmp := func(a, c *Company) int {
		if n := strings.Compare(key(a), key(c)); n != 0 {
			return n
		}
		return cmpInt(int64(a.ID), int64(c.ID))
	}
	var mine companyKeys
	for _, c := range own {
		if key(c) != "" {
			mine = append(mine, c)
		}
	}
	slices.SortFunc(mine, cmp)
	if b.prev == nil {
		return slices.Clip(mine)
	}
	isOwn := make(map[uint64]bool, len(own))
	for _, c := range own {
		isOwn[c.ID] = true
	}
	out := make(companyKeys, 0, len(prev)+len(mine))
	i := 0
	for _, p := range prev {
		if b.touched(p.ID) || isOwn[p.ID] {
			continue // not carried (carry's rule)
		}
		c := m.companies[p.ID] // carried: prev's company or its copy
		for i < len(mine) && cmp(mine[i], c) < 0 {
			out = append(out, mine[i])
			i++
		}
		out = append(out, c)
	}
	return slices.Clip(append(out, mine[i:]...))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
