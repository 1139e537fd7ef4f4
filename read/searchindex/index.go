// Package searchindex owns the in-memory search index behind reqs/search, reqs/qualified,
// jobs/search, jobs/role, markets/role-demand and the technographics (a company's technologies, a
// technology's companies): the live reqs of the committed ledger (plus reqs closed within a
// bounded window, for reqs/qualified live_only=false), an inverted index of the snowball stems of
// raw_title, the companies' facts, the reqs' posting facts, sort orders for paging, inferred
// salary medians, the market-wide role-demand series and, per technology, the companies whose reqs
// name it. A Builder makes one Index from rows of the
// committed ledger that package snapshot reads (for this index and the company read model alike)
// and swaps in together with that model: the whole ledger, or (Builder.Over) the rows of the
// companies a commit touched, every other company's reqs carried from the previous Index in
// memory (their Records, titles and fact lists shared). A req's Record is made once a build and
// shared with the read model of the same snapshot (package readmodel points at it, never copies
// it). The repeated strings its records name by small ids (function, country, source type, board
// lists, location) sit in Dictionaries owned by a lineage of indexes, not by the process: a Builder
// makes new ones, and Over hands prev's to the next build, so carried records keep their ids; a
// record reaches them through its Title. The read model of the same snapshot names its companies'
// strings in them too (Builder.Dictionaries). An Index is immutable once built, so
// any number of queries read it without locks. What a query learns as it runs (whether each
// company has the facts its filter asks, asked once per company) is that query's own.
//
// It owns the index and its queries. It does no I/O: it must not query ClickHouse, poll the
// watermark, write any store, serve HTTP or know about callers, plans or metering (package
// snapshot reads and swaps; package api/search serves).
package searchindex

import (
	"math"
	"sort"
	"sync"
	"time"

	"github.com/planehq/hiringsignal/analytics"
)

// Title is one distinct raw_title with what the index derives from it; reqs sharing a title share
// one Title.
type Title struct {
	Raw       string   // as published (the text q matches)
	Clean     string   // the crawl's cleaned title; "" when none
	Seniority string   // derived from the title; "" when it says nothing
	Skills    []string // skill words of the title (lower case)
	stems     []uint32 // sorted distinct stem ids of Raw
	words     int      // number of words of Raw
	// dict are the dictionaries of the lineage whose build made the title: the records of that
	// lineage read their small ids back in them (Record.Function, ...).
	dict *Dictionaries
}

// Company is a company with at least one indexed req. Unknown facts are "".
type Company struct {
	ID            uint64
	Name          string
	Domain        string
	HQCountry     string
	Industry      string
	HeadcountBand string
	AgencyKind    string // "", staffing_agency, job_board, aggregator, subcontractor_network or unknown
	CoverageStart int64  // unix seconds of the first committed cycle that read it (0: unknown)
	industryFold  string
	first, end    uint32 // its reqs are reqs[first:end]
}

// Agency reports whether the company is positively classified as a staffing agency,
// subcontractor network, aggregator or job board (exclude_agencies). Unclassified is false.
func (c *Company) Agency() bool {
	switch c.AgencyKind {
	case "staffing_agency", "job_board", "aggregator", "subcontractor_network":
		return true
	}
	return false
}

// Record is one req (one per company, title and country, all boards listed) as a snapshot holds
// it: made once per build for each req the index or the read model keeps, and shared by both (the
// index's Req and the read model's point at it) and by the later snapshots that carry its company
// untouched. It is immutable once made. The strings few distinct values take (function, country,
// source type, board lists, location, latest board and event type) are small ids in the
// dictionaries of its lineage (Dictionaries, reached through its Title), read back by its methods.
// Its fields are laid out to fill 128 bytes exactly (one size class of the allocator): a field
// added costs 16 bytes a req.
type Record struct {
	Key         string
	URL         string
	CompanyID   uint64
	Title       *Title
	FirstSeen   int64 // unix seconds
	LastEventAt int64 // unix seconds
	OpenSeq     uint64

	descHash    uint64   // names its cleaned description in ClickHouse; 0: none
	sal         *salary  // its salary bounds; nil when it has none
	facts       reqFacts // what its posting states (facts.go)
	RepostCount uint32
	posted      uint32 // unix seconds of the employer's own posting date; 0 when its source gives none
	boards      uint32 // its board lists: dict.boards.list(boards)
	attrs       uint32 // its location, latest board and latest event type: dict.attrs.at(attrs)
	values      uint16 // its function, country and source type: dict.sets.at(values)
	Live        bool
	declared    bool
}

// salary is a req's yearly-USD salary bounds, NaN when absent.
type salary struct{ min, max float64 }

// Req is one indexed req: its record and where its company sits in the index.
type Req struct {
	*Record
	company uint32 // its company's ordinal in Index.companies
}

// reqAttrs are the attributes of a req that few distinct values take, kept once per distinct
// combination (Dictionaries.attrs) and named by an id in each Record instead of three strings.
type reqAttrs struct {
	location  string
	board     string // board of the latest observation
	eventType string // latest event: opened, reobserved, reposted or closed
}

func (r *Record) set() *valueSet { return r.Title.dict.sets.at(uint32(r.values)) }

func (r *Record) attr() *reqAttrs { return r.Title.dict.attrs.at(r.attrs) }

func (r *Record) boardList() *boardList { return r.Title.dict.boards.list(r.boards) }

// Function is the req's taxonomy id; "" when unattributed.
func (r *Record) Function() string { return r.set().function }

// Country is the req's canonical country name; "" when unknown.
func (r *Record) Country() string { return r.set().country }

// SourceType is ats_tenant or board.
func (r *Record) SourceType() string { return r.set().source }

// Boards is every board the ledger listed the req on (an empty board name kept), or its latest
// board when none was: the search index's list. The slice is shared: read only.
func (r *Record) Boards() []string { return r.boardList().names }

// SightedBoards is the (non-empty) boards committed cycles saw carrying the req, or its latest
// board when none was (analytics.Req.Boards): the read model's list. The slice is shared: read only.
func (r *Record) SightedBoards() []string { return r.boardList().sighted }

// SalaryUSD is the req's yearly-USD salary bounds as the ledger holds them (declared or not),
// each with whether it is present.
func (r *Record) SalaryUSD() (min float64, hasMin bool, max float64, hasMax bool) {
	if r.sal == nil {
		return 0, false, 0, false
	}
	min, max = r.sal.min, r.sal.max
	hasMin, hasMax = !math.IsNaN(min), !math.IsNaN(max)
	if !hasMin {
		min = 0
	}
	if !hasMax {
		max = 0
	}
	return min, hasMin, max, hasMax
}

func (r *Record) salMin() float64 {
	if r.sal == nil {
		return math.NaN()
	}
	return r.sal.min
}

func (r *Record) salMax() float64 {
	if r.sal == nil {
		return math.NaN()
	}
	return r.sal.max
}

// Location is where the posting says the req is ("" when it says nothing).
func (r *Record) Location() string { return r.attr().location }

// Board is the board of the req's latest observation.
func (r *Record) Board() string { return r.attr().board }

// EventType is the req's latest event: opened, reobserved, reposted or closed.
func (r *Record) EventType() string { return r.attr().eventType }

// PostedAtTime is the employer's own posting date, nil when its source gives none.
func (r *Record) PostedAtTime() *time.Time {
	if r.posted == 0 {
		return nil
	}
	t := time.Unix(int64(r.posted), 0).UTC()
	return &t
}

// LeftCensored reports whether r was already live when its company's coverage began (first seen
// at or before the company's CoverageStart): first_seen is then the start of observation.
func (x *Index) LeftCensored(r *Req) bool {
	cs := x.companies[r.company].CoverageStart
	return cs != 0 && r.FirstSeen <= cs
}

// FirstSeenTime is first_seen as a time.
func (r *Record) FirstSeenTime() time.Time { return time.Unix(r.FirstSeen, 0).UTC() }

// DeclaredSalary returns the declared yearly-USD bounds (nil when absent). Only salaries the
// employer declared are returned.
func (r *Record) DeclaredSalary() (min, max *float64) {
	if !r.declared {
		return nil, nil
	}
	if lo := r.salMin(); !math.IsNaN(lo) {
		min = &lo
	}
	if hi := r.salMax(); !math.IsNaN(hi) {
		max = &hi
	}
	return min, max
}

// declaredFigure is the midpoint of a declared range (or its one bound).
func (r *Record) declaredFigure() (float64, bool) {
	if !r.declared {
		return 0, false
	}
	lo, hi := r.salMin(), r.salMax()
	switch {
	case !math.IsNaN(lo) && !math.IsNaN(hi):
		return (lo + hi) / 2, true
	case !math.IsNaN(lo):
		return lo, true
	case !math.IsNaN(hi):
		return hi, true
	}
	return 0, false
}

// Week is one weekly bucket of the market-wide role demand (weeks start Monday 00:00 UTC).
type Week struct {
	BucketStart time.Time
	Opened      uint64
	Reposted    uint64
	Closed      uint64
	Partial     bool // not observed whole: began before observation started, a gap in the crawl touches it, or not ended at CycleTime
}

// Index is one immutable build. Every method is safe for concurrent use.
type Index struct {
	Watermark uint64
	CycleTime time.Time // time of the latest committed cycle

	dict       *Dictionaries // its lineage's (Builder.Over): every record's ids name values in it
	companies  []Company     // sorted by ID
	reqs       []Req         // sorted by (CompanyID, Key)
	stemIDs    map[string]uint32
	postings   [][]uint32 // stem id → req ordinals, ascending
	byCountry  [][]uint32 // country id (dict.values) → req ordinals, ascending
	byFunction [][]uint32
	byRecency  []uint32 // live ordinals by first_seen desc, ordinal asc
	bySeq      []uint32 // every ordinal by OpenSeq asc
	// What a query tests of a req before it reads the req's record, by ordinal (so a walk over
	// millions of ordinals reads two small arrays, not a record, a title and a dictionary each):
	// its (function, country, source type) set id (Record.values), and its liveness and its
	// title's word count (ordFlags).
	ordSet   []uint16
	ordFlags []uint8
	// ordFirstSeen is each req's first_seen in unix seconds by ordinal, for the since and
	// freshness tests; nil when some first_seen does not fit 32 bits (those tests then read the
	// records).
	ordFirstSeen []uint32
	// postingWords is, by stem id, the fewest title words of each block of postingBlock postings
	// of its list: the best score a block can hold in jobs/search's direct tier (blockWords).
	postingWords            [][]uint8
	memos                   sync.Pool // *[]uint8: the cleared company memos of queries done (compiled.release)
	pay                     payTable
	demand                  map[demandKey][]Week
	demandFirst, demandLast time.Time           // global span of the role-demand weeks
	observedFrom            time.Time           // the first committed cycle of any region (zero: unknown)
	gaps                    []analytics.Gap     // the gaps in the crawl regions' committed cycles (Builder.Gaps)
	boardsByFold            map[string][]uint32 // lower-case board name → ids (dict.boards) of the board names lowering to it
	nBoards                 int                 // number of distinct board names (ids are 0..nBoards-1)
	facts                   factTables          // the reqs' interned technology lists, remote countries and stated pay
	techCompanies           [][]techCompany     // technology id → the companies whose reqs name it, newest first mention first (technologies.go)
}

type demandKey struct{ function, country string }

// ordFlags: bit 7 says the req is live, bits 0–6 are its title's word count (ordWordsMax: that many
// or more).
const (
	ordLive     = 1 << 7
	ordWordsMax = 1<<7 - 1
)

// postingBlock is the postings a posting list's block summary covers (Index.postingWords).
const postingBlock = 128

// blockWords summarises a posting list: the fewest title words of each block of postingBlock
// postings.
func (x *Index) blockWords(l []uint32) []uint8 {
	out := make([]uint8, (len(l)+postingBlock-1)/postingBlock)
	for b := range out {
		m := uint8(ordWordsMax)
		for _, ord := range l[b*postingBlock : min(len(l), (b+1)*postingBlock)] {
			m = min(m, x.ordFlags[ord]&ordWordsMax)
		}
		out[b] = m
	}
	return out
}

func ordFlagsOf(r *Record) uint8 {
	f := uint8(min(max(r.Title.words, 0), ordWordsMax))
	if r.Live {
		f |= ordLive
	}
	return f
}

// Stats describes a build.
type Stats struct {
	Reqs, LiveReqs, Companies, Titles, Stems, Postings int
	// TechCompanies counts the (technology, company) entries kept for the technologies' companies
	// (12 bytes each).
	TechCompanies int
	// DictionaryEntries counts the entries of its lineage's dictionaries (DictionaryEntries).
	DictionaryEntries int
}

// Stats counts what the index holds.
func (x *Index) Stats() Stats {
	s := Stats{Reqs: len(x.reqs), LiveReqs: len(x.byRecency), Companies: len(x.companies), Stems: len(x.postings),
		DictionaryEntries: x.DictionaryEntries()}
	titles := map[*Title]bool{}
	for i := range x.reqs {
		titles[x.reqs[i].Title] = true
	}
	s.Titles = len(titles)
	for _, p := range x.postings {
		s.Postings += len(p)
	}
	for _, l := range x.techCompanies {
		s.TechCompanies += len(l)
	}
	return s
}

// DictionaryEntries is the number of entries of the dictionaries the index's records name values
// in (Dictionaries): its lineage's, grown by every build of it.
func (x *Index) DictionaryEntries() int {
	if x.dict == nil {
		return 0
	}
	return x.dict.Entries()
}

// CompanyOf returns the company of a req.
func (x *Index) CompanyOf(r *Req) *Company { return &x.companies[r.company] }

// Company finds a company by id (only companies with indexed reqs).
func (x *Index) Company(id uint64) (*Company, bool) {
	i := sort.Search(len(x.companies), func(i int) bool { return x.companies[i].ID >= id })
	if i < len(x.companies) && x.companies[i].ID == id {
		return &x.companies[i], true
	}
	return nil, false
}

// CompanyReqs is every indexed req of a company (live, and closed within the index's window),
// by req_key; nil when the index has none. The slice is the index's: read only.
func (x *Index) CompanyReqs(id uint64) []Req {
	co, ok := x.Company(id)
	if !ok {
		return nil
	}
	return x.reqs[co.first:co.end]
}

// position is the insertion point of (companyID, key) in reqs and whether it is there.
func (x *Index) position(companyID uint64, key string) (int, bool) {
	i := sort.Search(len(x.reqs), func(i int) bool {
		r := &x.reqs[i]
		return r.CompanyID > companyID || r.CompanyID == companyID && r.Key >= key
	})
	return i, i < len(x.reqs) && x.reqs[i].CompanyID == companyID && x.reqs[i].Key == key
}

// Lookup finds a req (live or recently closed) by company and req_key.
func (x *Index) Lookup(companyID uint64, key string) (*Req, bool) {
	i, ok := x.position(companyID, key)
	if !ok {
		return nil, false
	}
	return &x.reqs[i], true
}
