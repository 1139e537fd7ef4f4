package readmodel

import (
	"time"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// Coverage statuses.
const (
	CoverageCovered     = "covered"
	CoverageNoATSSignal = "no_ats_signal"
)

// FirstHireSource is source_board on first-hire (spec 2.2): the role-slot recompute aggregate,
// not a specific board posting.
const FirstHireSource = "role_slot_recompute"

// Model is one immutable snapshot of the company reads, built from the committed ledger at one
// watermark (by a Builder). Handlers get it from the read snapshot and never modify it.
type Model struct {
	Watermark uint64    // highest committed event_seq
	AsOf      time.Time // the latest committed cycle time: "now" of every window
	Since     time.Time // the first committed cycle time (observation start of the corpus)

	companies map[uint64]*Company
	gaps      map[string][]analytics.Gap // per crawl region: the gaps in its committed cycles (Builder.Gaps)
	byDomain  companyKeys
	byNameKey companyKeys
	liveReqs  int
}

// Company is everything the company reads serve about one company. Its fields are laid out to
// fill 256 bytes (one size class of the allocator), a company's share of a snapshot at about 8
// reqs a company: its directory values and coverage are one id in the dictionaries of its
// lineage (searchindex.Dictionaries: dict), its times 32-bit seconds, its censored functions the
// id of a set shared there, its board sightings and first hires name their words there too (12
// and 48 bytes each), and the lists few companies fill (reposted reqs, ATS migrations) sit
// behind one pointer, nil when it has none; methods read them back. A field added costs 32 bytes
// a company.
type Company struct {
	ID     uint64
	Domain string
	Name   string

	Live       []Req       // live deduplicated reqs, newest first_seen first
	boards     []boardSeen // Boards, in the order of the sightings read
	firstHires []firstHire // FirstHires: per function, oldest first_seen first

	dict     *searchindex.Dictionaries // the lineage's: values and censored name their entries there
	rare     *rareLists                // nil when it has no reposted req and no migration
	momentum []week                    // weeks with any flow, oldest first
	// recent are the first_seen (unix seconds) of its reqs, live or closed, young enough at the
	// build's AsOf to count in a pulse then or later (countedWindow): a later model that carries
	// the company counts its pulse from them (statsAt).
	recent []uint32
	// domainKey and nameKey are its Domain and Name as resolve looks them up (normalize.DomainKey,
	// normalize.CompanyKey; "" when none).
	domainKey, nameKey string
	stats              pulseStats
	values             uint32 // its searchindex.CompanyValues (HQ country, region, ..., coverage)
	// observedFrom and lastRead are ObservedFrom and LastRead in unix seconds (0: zero).
	observedFrom, lastRead uint32
	censored               uint32 // its censored functions: a set of dict (FunctionSetID), 0 for none
}

// rareLists are the lists of a company that few companies fill.
type rareLists struct {
	reposted   []Req       // reqs with repost_count > 0 (live or closed), hardest first
	migrations []Migration // oldest first
}

// HQCountry is the company's HQ country name ("" when unknown).
func (c *Company) HQCountry() string { return c.dict.CompanyValues(c.values).HQCountry }

// Region is the company's crawl region.
func (c *Company) Region() string { return c.dict.CompanyValues(c.values).Region }

// Industry is the company's industry ("" when unknown).
func (c *Company) Industry() string { return c.dict.CompanyValues(c.values).Industry }

// HeadcountBand is the company's headcount band ("" when unknown).
func (c *Company) HeadcountBand() string { return c.dict.CompanyValues(c.values).HeadcountBand }

// AgencyKind is the company's agency kind ("" when unclassified).
func (c *Company) AgencyKind() string { return c.dict.CompanyValues(c.values).AgencyKind }

// ATSVendor is the company's current ATS vendor ("" when no tenant is read).
func (c *Company) ATSVendor() string { return c.dict.CompanyValues(c.values).ATSVendor }

// Coverage is CoverageCovered or CoverageNoATSSignal.
func (c *Company) Coverage() string { return c.dict.CompanyValues(c.values).Coverage }

// setCoverage sets c's coverage (its values with that coverage, named in its dictionaries).
func (c *Company) setCoverage(coverage string) {
	v := *c.dict.CompanyValues(c.values)
	v.Coverage = coverage
	c.values = c.dict.CompanyValuesID(v)
}

// ObservedFrom is when the crawl started reading the company's sources (its region's first
// committed cycle); zero when no cycle read them yet.
func (c *Company) ObservedFrom() time.Time { return unixTime(c.observedFrom) }

// LastRead is the latest committed cycle that read the company's sources (a scheduled cycle of its
// region or an on-demand crawl); zero when no cycle read them yet.
func (c *Company) LastRead() time.Time { return unixTime(c.lastRead) }

// Reposted are the company's reqs with repost_count > 0 (live or closed), hardest first. The
// slice is shared: read only.
func (c *Company) Reposted() []Req {
	if c.rare == nil {
		return nil
	}
	return c.rare.reposted
}

// Migrations are the company's changes of ATS vendor, oldest first. The slice is shared: read
// only.
func (c *Company) Migrations() []Migration {
	if c.rare == nil {
		return nil
	}
	return c.rare.migrations
}

// CensoredFunctions are the function ids with a req already live at ObservedFrom: their first
// hire happened before observation began, so none is known (nil when none). The set is shared
// by the companies with the same ones: read only.
func (c *Company) CensoredFunctions() map[string]bool {
	if c.censored == 0 {
		return nil
	}
	return c.dict.FunctionSet(c.censored)
}

// rareOf is c's rare lists, made when it has none.
func (c *Company) rareOf() *rareLists {
	if c.rare == nil {
		c.rare = &rareLists{}
	}
	return c.rare
}

// unixTime is the time of unix seconds s, zero for 0.
func unixTime(s uint32) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(int64(s), 0).UTC()
}

// unixSeconds is t in unix seconds, 0 for the zero time. The times a company keeps this way are
// the ledger's (committed cycle times and sightings: whole seconds, after 1970 and before 2106).
func unixSeconds(t time.Time) uint32 {
	if t.IsZero() {
		return 0
	}
	return uint32(t.Unix())
}

// Req is one deduplicated req (one per company, title and country, all boards listed): the
// record of the snapshot's build, which the search index of the same snapshot shares (the read
// model keeps a pointer, not a copy).
type Req struct{ *searchindex.Record }

// RawTitle is the title as published.
func (r *Req) RawTitle() string { return r.Record.Title.Raw }

// Title is the crawl's cleaned title; "" when none.
func (r *Req) Title() string { return r.Record.Title.Clean }

// Boards is every (non-empty) board committed cycles saw carrying the req, or its latest board
// when none was. The slice is shared: read only.
func (r *Req) Boards() []string { return r.SightedBoards() }

// SalaryMinUSD is the req's yearly-USD salary floor, false when it has none.
func (r *Req) SalaryMinUSD() (float64, bool) { v, ok, _, _ := r.SalaryUSD(); return v, ok }

// SalaryMaxUSD is the req's yearly-USD salary ceiling, false when it has none.
func (r *Req) SalaryMaxUSD() (float64, bool) { _, _, v, ok := r.SalaryUSD(); return v, ok }

// LeftCensored reports whether r was already live when the crawl started reading c's sources
// (first seen at or before ObservedFrom): its first_seen is the start of observation, not its
// opening, so it counts in no first-hire, momentum or role-demand flow.
func (c *Company) LeftCensored(r *Req) bool { return c.censors(r.FirstSeen) }

func (c *Company) censors(firstSeen int64) bool {
	return c.observedFrom != 0 && firstSeen <= int64(c.observedFrom)
}

// LastEventTime is LastEventAt as a time.
func (r *Req) LastEventTime() time.Time { return time.Unix(r.LastEventAt, 0).UTC() }

// FunctionName is the req's function name, "" outside the named vocabulary (served as null).
func (r *Req) FunctionName() string { n, _ := normalize.FunctionName(r.Function()); return n }

// CountryCode is the derived ISO alpha-2 code of the req's country, "" when unknown.
func (r *Req) CountryCode() string { return countryCode(r.Country()) }

// BoardSeen is a board that carried one of the company's reqs, first seen at FirstSeen.
type BoardSeen struct {
	Board      string
	SourceType string
	FirstSeen  time.Time
}

// boardSeen is a BoardSeen as the company keeps it: its words' ids in the company's
// dictionaries (searchindex.Dictionaries.WordID) and its time in unix seconds.
type boardSeen struct {
	board, source, firstSeen uint32
}

// Boards are the boards that carried the company's reqs, each with its first sighting, in the
// order of the sightings read (analytics.StreamCompanyBoards): a new slice each call.
func (c *Company) Boards() []BoardSeen {
	if len(c.boards) == 0 {
		return nil
	}
	out := make([]BoardSeen, len(c.boards))
	for i, b := range c.boards {
		out[i] = BoardSeen{Board: c.dict.Word(b.board), SourceType: c.dict.Word(b.source), FirstSeen: unixTime(b.firstSeen)}
	}
	return out
}

// FirstHire is the earliest req ever observed in one function at the company.
type FirstHire struct {
	Function  string
	FirstSeen time.Time
	ReqKey    string
	RawTitle  string
	Board     string // the board of that first posting (informational; source_board is the aggregate)
}

// firstHire is a FirstHire as the company keeps it: its function and board as ids in the
// company's dictionaries and its time in unix seconds.
type firstHire struct {
	reqKey, rawTitle string
	firstSeen        uint32
	function, board  uint32
}

// FirstHires are the company's first hires, one per function id, oldest first_seen first (ties
// by function id): a new slice each call.
func (c *Company) FirstHires() []FirstHire {
	if len(c.firstHires) == 0 {
		return nil
	}
	out := make([]FirstHire, len(c.firstHires))
	for i := range c.firstHires {
		f := &c.firstHires[i]
		out[i] = FirstHire{Function: c.dict.Word(f.function), FirstSeen: unixTime(f.firstSeen), ReqKey: f.reqKey,
			RawTitle: f.rawTitle, Board: c.dict.Word(f.board)}
	}
	return out
}

// Migration is a change of ATS vendor, observed when the new vendor was first read.
type Migration struct {
	FromVendor string
	ToVendor   string
	ObservedAt time.Time
}

type week struct {
	day      int32 // Monday, days since the Unix epoch
	opened   uint32
	reposted uint32
	closed   uint32
}

// Empty returns a model with no company, served before the first build.
func Empty() *Model {
	return &Model{companies: map[uint64]*Company{}}
}

// Company returns the company with id, or nil.
func (m *Model) Company(id uint64) *Company {
	if m == nil {
		return nil
	}
	return m.companies[id]
}

// Companies is the number of companies in the model.
func (m *Model) Companies() int { return len(m.companies) }

// MostLive returns the company with the most live reqs, ties broken by the lower company_id; nil
// when no company has one. It scans every company: for rare calls (dev's printed examples).
func (m *Model) MostLive() *Company {
	var best *Company
	for _, c := range m.companies {
		if len(c.Live) == 0 {
			continue
		}
		if best == nil || len(c.Live) > len(best.Live) || (len(c.Live) == len(best.Live) && c.ID < best.ID) {
			best = c
		}
	}
	return best
}

// LiveReqs is the number of live reqs in the model.
func (m *Model) LiveReqs() int { return m.liveReqs }

// HQCountryCode is the derived ISO alpha-2 code of the company's HQ country, "" when unknown.
func (c *Company) HQCountryCode() string { return countryCode(c.HQCountry()) }

// Covered reports whether the company has observable ATS or board coverage.
func (c *Company) Covered() bool { return c.Coverage() == CoverageCovered }

func countryCode(name string) string {
	if name == "" {
		return ""
	}
	return normalize.CountryCode(name)
}
