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

// Company is everything the company reads serve about one company.
type Company struct {
	ID            uint64
	Domain        string
	Name          string
	HQCountry     string
	Region        string
	Industry      string
	HeadcountBand string
	AgencyKind    string
	ATSVendor     string // current ATS vendor ("" when no tenant is read)
	Coverage      string // covered or no_ats_signal

	// ObservedFrom is when the crawl started reading the company's sources (its region's first
	// committed cycle); LastRead the latest committed cycle that read them (a scheduled cycle of
	// its region or an on-demand crawl). Both zero when no cycle read them yet.
	ObservedFrom time.Time
	LastRead     time.Time

	Live       []Req // live deduplicated reqs, newest first_seen first
	Reposted   []Req // reqs with repost_count > 0 (live or closed), hardest first
	Boards     []BoardSeen
	FirstHires []FirstHire // per function id, oldest first_seen first
	Migrations []Migration // oldest first

	momentum []week // weeks with any flow, oldest first
	stats    pulseStats
	// recent are the first_seen (unix seconds) of its reqs, live or closed, young enough at the
	// build's AsOf to count in a pulse then or later (countedWindow): a later model that carries
	// the company counts its pulse from them (statsAt).
	recent []uint32
	// domainKey and nameKey are its Domain and Name as resolve looks them up (normalize.DomainKey,
	// normalize.CompanyKey; "" when none).
	domainKey, nameKey string

	// CensoredFunctions are the function ids with a req already live at ObservedFrom: their first
	// hire happened before observation began, so none is known (nil when none).
	CensoredFunctions map[string]bool
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
	return !c.ObservedFrom.IsZero() && firstSeen <= c.ObservedFrom.Unix()
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

// FirstHire is the earliest req ever observed in one function at the company.
type FirstHire struct {
	Function  string
	FirstSeen time.Time
	ReqKey    string
	RawTitle  string
	Board     string // the board of that first posting (informational; source_board is the aggregate)
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
	return &Model{companies: map[uint64]*Company{}, byDomain: newCompanyKeys(), byNameKey: newCompanyKeys()}
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
func (c *Company) HQCountryCode() string { return countryCode(c.HQCountry) }

// Covered reports whether the company has observable ATS or board coverage.
func (c *Company) Covered() bool { return c.Coverage == CoverageCovered }

func countryCode(name string) string {
	if name == "" {
		return ""
	}
	return normalize.CountryCode(name)
}
