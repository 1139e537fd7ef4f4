package pipeline

import (
	"context"
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
)

// State is the crawl's view of the committed ledger: the latest event of every req, the boards
// each req has been sighted on, the companies and ATS tenants written, and the next event_seq.
// It is rebuilt from ClickHouse at start and advanced only after a cycle commits.
type State struct {
	reqs       map[string]*reqState
	boardsSeen map[string][]string // req_key → boards already in req_boards
	companies  map[uint64]analytics.Company
	ats        map[string]struct{}            // company_id|vendor|tenant already in ats_history
	lastCycle  map[string]analytics.LastCycle // region → its latest committed cycle (a gap follows when the next is more than one tick later)
	nextSeq    uint64
}

// reqState is what the diff needs of a req between cycles: about 60 bytes instead of the ~700
// of its full event, so a million-req ledger fits the crawler's memory budget. The attributes of
// the few reqs that close or need a reobserved event are read back from the ledger
// (analytics.LatestEvents).
type reqState struct {
	companyID   uint64
	firstSeen   int64 // unix seconds
	tick        uint32
	repostCount uint32
	live        bool
	sources     []string // the sources that last carried it (the closing rule waits for them)
	descHash    uint64   // the description its latest event names (0: none), seeding the crawler's descLog
}

func stateOf(e *Event) *reqState {
	return &reqState{companyID: e.CompanyID, firstSeen: e.FirstSeen.Unix(), tick: e.Tick, repostCount: e.RepostCount,
		live: e.Live(), sources: e.Sources, descHash: e.DescriptionHash}
}

func newState() *State {
	return &State{reqs: map[string]*reqState{}, boardsSeen: map[string][]string{}, companies: map[uint64]analytics.Company{}, ats: map[string]struct{}{},
		lastCycle: map[string]analytics.LastCycle{}, nextSeq: 1}
}

// NextSeq is the event_seq the next committed event gets.
func (s *State) NextSeq() uint64 { return s.nextSeq }

// Reqs is the number of reqs in the state; Live the number open.
func (s *State) Reqs() (all, live int) {
	for _, e := range s.reqs {
		all++
		if e.live {
			live++
		}
	}
	return all, live
}

// LoadState reads the committed ledger. Rows above the watermark (a crashed, uncommitted cycle)
// are ignored.
func LoadState(ctx context.Context, ch driver.Conn) (*State, error) {
	st := newState()
	wm, _, err := analytics.Watermark(ctx, ch)
	if err != nil {
		return nil, err
	}
	st.nextSeq = wm + 1
	if err := analytics.StreamEventHeads(ctx, ch, wm, func(e *Event) error {
		st.reqs[e.ReqKey] = stateOf(e) // ledger order: the last row per req wins
		return nil
	}); err != nil {
		return nil, err
	}
	if st.boardsSeen, err = analytics.ReqBoards(ctx, ch); err != nil {
		return nil, err
	}
	companies, err := analytics.Companies(ctx, ch)
	if err != nil {
		return nil, err
	}
	for _, c := range companies {
		st.companies[c.CompanyID] = c
	}
	tenants, err := analytics.ATSHistory(ctx, ch)
	if err != nil {
		return nil, err
	}
	for _, a := range tenants {
		st.ats[atsKey(a.CompanyID, a.Vendor, a.Tenant)] = struct{}{}
	}
	if st.lastCycle, err = analytics.LastCycles(ctx, ch); err != nil {
		return nil, err
	}
	return st, nil
}

func atsKey(id uint64, vendor, tenant string) string {
	return fmt.Sprintf("%d|%s|%s", id, vendor, tenant)
}

// BusiestCompany is the company with the most live reqs (0 when there is none): a good example
// for demo calls.
func (s *State) BusiestCompany() uint64 {
	n := map[uint64]int{}
	var best uint64
	for _, e := range s.reqs {
		if e.live {
			n[e.companyID]++
			if n[e.companyID] > n[best] || (n[e.companyID] == n[best] && e.companyID < best) {
				best = e.companyID
			}
		}
	}
	return best
}

// needAttrs returns whether a req seen at tick may produce an event (new, closed and coming back,
// or due for reobserved), i.e. whether the cycle must keep its attributes.
func (s *State) needAttrs(tick uint32) func(reqKey string) bool {
	return func(reqKey string) bool {
		prev := s.reqs[reqKey]
		return prev == nil || !prev.live || tick >= prev.tick+ReobserveEvery
	}
}
