package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// State is the crawl's view of the committed ledger: the latest event of every req, the boards
// each req has been sighted on, the companies and ATS tenants written, and the next event_seq.
// It is rebuilt from ClickHouse at start and advanced only after a cycle commits.
type State struct {
	reqs       map[string]*reqState
	boardsSeen map[string][]string // req_key → boards already in req_boards
	companies  map[uint64]companyRow
	ats        map[string]struct{} // company_id|vendor|tenant already in ats_history
	nextSeq    uint64
}

// reqState is what the diff needs of a req between cycles: about 60 bytes instead of the ~700
// of its full event, so a million-req ledger fits the crawler's memory budget. The attributes of
// the few reqs that close or need a reobserved event are read back from the ledger (loadEvents).
type reqState struct {
	companyID   uint64
	firstSeen   int64 // unix seconds
	tick        uint32
	repostCount uint32
	live        bool
	sources     []string // the sources that last carried it (the closing rule waits for them)
}

func stateOf(e *Event) *reqState {
	return &reqState{companyID: e.CompanyID, firstSeen: e.FirstSeen.Unix(), tick: e.Tick, repostCount: e.RepostCount,
		live: e.Live(), sources: e.Sources}
}

func newState() *State {
	return &State{reqs: map[string]*reqState{}, boardsSeen: map[string][]string{}, companies: map[uint64]companyRow{}, ats: map[string]struct{}{}, nextSeq: 1}
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

const eventColumns = `event_seq, event_type, req_key, company_id, region, tick, occurred_at, observed_at, first_seen,
	raw_title, title, title_key, function, country, location, source_type, boards, sources, board, url,
	requisition_id, salary_min_usd, salary_max_usd, salary_declared, repost_count`

// LoadState reads the committed ledger. Rows above the watermark (a crashed, uncommitted cycle)
// are ignored.
func LoadState(ctx context.Context, ch driver.Conn) (*State, error) {
	st := newState()
	var wm uint64
	if err := ch.QueryRow(ctx, "SELECT max(seq_to) FROM cycles").Scan(&wm); err != nil {
		return nil, fmt.Errorf("cannot read the committed watermark from cycles: %w", err)
	}
	st.nextSeq = wm + 1
	rows, err := ch.Query(ctx, `SELECT req_key, event_type, company_id, tick, first_seen, repost_count, sources
		FROM events WHERE event_seq <= ? ORDER BY event_seq, version`, wm) // the last row per req wins, as FINAL would keep
	if err != nil {
		return nil, fmt.Errorf("cannot read the ledger: %w", err)
	}
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.ReqKey, &e.Type, &e.CompanyID, &e.Tick, &e.FirstSeen, &e.RepostCount, &e.Sources); err != nil {
			rows.Close()
			return nil, fmt.Errorf("cannot scan a ledger row: %w", err)
		}
		st.reqs[e.ReqKey] = stateOf(&e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	brows, err := ch.Query(ctx, "SELECT req_key, groupUniqArray(board) FROM req_boards GROUP BY req_key")
	if err != nil {
		return nil, fmt.Errorf("cannot read req_boards: %w", err)
	}
	for brows.Next() {
		var k string
		var b []string
		if err := brows.Scan(&k, &b); err != nil {
			brows.Close()
			return nil, err
		}
		st.boardsSeen[k] = b
	}
	brows.Close()
	crows, err := ch.Query(ctx, "SELECT company_id, domain, name, name_key, hq_country, region, industry, headcount_band, agency_kind, ats_vendor, covered FROM companies FINAL")
	if err != nil {
		return nil, fmt.Errorf("cannot read companies: %w", err)
	}
	for crows.Next() {
		var c companyRow
		if err := crows.Scan(&c.ID, &c.Domain, &c.Name, &c.NameKey, &c.HQCountry, &c.Region, &c.Industry, &c.Headcount, &c.AgencyKind, &c.ATSVendor, &c.Covered); err != nil {
			crows.Close()
			return nil, err
		}
		st.companies[c.ID] = c
	}
	crows.Close()
	arows, err := ch.Query(ctx, "SELECT company_id, vendor, tenant FROM ats_history")
	if err != nil {
		return nil, fmt.Errorf("cannot read ats_history: %w", err)
	}
	defer arows.Close()
	for arows.Next() {
		var id uint64
		var v, t string
		if err := arows.Scan(&id, &v, &t); err != nil {
			return nil, err
		}
		st.ats[atsKey(id, v, t)] = struct{}{}
	}
	return st, arows.Err()
}

func atsKey(id uint64, vendor, tenant string) string {
	return fmt.Sprintf("%d|%s|%s", id, vendor, tenant)
}

// companyRow is a row of the companies table.
type companyRow struct {
	ID         uint64
	Domain     string
	Name       string
	NameKey    string
	HQCountry  string
	Region     string
	Industry   string
	Headcount  string
	AgencyKind string
	ATSVendor  string
	Covered    uint8
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

// loadEvents reads the latest committed event of each of keys: the full attributes of reqs the
// compact state does not keep.
func loadEvents(ctx context.Context, ch driver.Conn, upTo uint64, keys []string) (map[string]*Event, error) {
	out := make(map[string]*Event, len(keys))
	for start := 0; start < len(keys); start += 20_000 {
		chunk := keys[start:min(start+20_000, len(keys))]
		// Inlined: ClickHouse 18.16 takes a bound slice as an array, which IN refuses. req_keys
		// are 16 hex characters (checked), so inlining cannot inject anything.
		var in strings.Builder
		for i, k := range chunk {
			if !isHexKey(k) {
				return nil, fmt.Errorf("bad req_key %q", k)
			}
			if i > 0 {
				in.WriteByte(',')
			}
			in.WriteByte('\'')
			in.WriteString(k)
			in.WriteByte('\'')
		}
		// No FINAL (a single-threaded merge on 18.16): ordered by (event_seq, version), the last row
		// per req is its latest event of the highest version, which is what FINAL would keep.
		rows, err := ch.Query(ctx, "SELECT "+eventColumns+" FROM events WHERE event_seq <= ? AND req_key IN ("+in.String()+") ORDER BY event_seq, version", upTo)
		if err != nil {
			return nil, fmt.Errorf("cannot read the attributes of %d reqs from the ledger: %w", len(chunk), err)
		}
		for rows.Next() {
			e := &Event{}
			if err := rows.Scan(&e.Seq, &e.Type, &e.ReqKey, &e.CompanyID, &e.Region, &e.Tick, &e.OccurredAt, &e.ObservedAt, &e.FirstSeen,
				&e.RawTitle, &e.Title, &e.TitleKey, &e.Function, &e.Country, &e.Location, &e.SourceType, &e.Boards, &e.Sources, &e.Board, &e.URL,
				&e.RequisitionID, &e.SalMin, &e.SalMax, &e.SalDeclared, &e.RepostCount); err != nil {
				rows.Close()
				return nil, fmt.Errorf("cannot scan a ledger row: %w", err)
			}
			out[e.ReqKey] = e // ascending event_seq: the last one wins
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	for _, k := range keys {
		if out[k] == nil {
			return nil, fmt.Errorf("req %s is in the crawl state but not in the committed ledger", k)
		}
	}
	return out, nil
}

func isHexKey(k string) bool {
	if len(k) != 16 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !(k[i] >= '0' && k[i] <= '9' || k[i] >= 'a' && k[i] <= 'f') {
			return false
		}
	}
	return true
}
