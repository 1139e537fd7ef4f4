package pipeline

import (
	"context"
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// State is the crawl's view of the committed ledger: the latest event of every req, the boards
// each req has been sighted on, the companies and ATS tenants written, and the next event_seq.
// It is rebuilt from ClickHouse at start and advanced only after a cycle commits.
type State struct {
	reqs       map[string]*Event
	boardsSeen map[string][]string // req_key → boards already in req_boards
	companies  map[uint64]companyRow
	ats        map[string]struct{} // company_id|vendor|tenant already in ats_history
	nextSeq    uint64
}

func newState() *State {
	return &State{reqs: map[string]*Event{}, boardsSeen: map[string][]string{}, companies: map[uint64]companyRow{}, ats: map[string]struct{}{}, nextSeq: 1}
}

// NextSeq is the event_seq the next committed event gets.
func (s *State) NextSeq() uint64 { return s.nextSeq }

// Reqs is the number of reqs in the state; Live the number open.
func (s *State) Reqs() (all, live int) {
	for _, e := range s.reqs {
		all++
		if e.Live() {
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
	rows, err := ch.Query(ctx, "SELECT "+eventColumns+" FROM events FINAL WHERE event_seq <= ? ORDER BY event_seq", wm)
	if err != nil {
		return nil, fmt.Errorf("cannot read the ledger: %w", err)
	}
	for rows.Next() {
		e := &Event{}
		if err := rows.Scan(&e.Seq, &e.Type, &e.ReqKey, &e.CompanyID, &e.Region, &e.Tick, &e.OccurredAt, &e.ObservedAt, &e.FirstSeen,
			&e.RawTitle, &e.Title, &e.TitleKey, &e.Function, &e.Country, &e.Location, &e.SourceType, &e.Boards, &e.Sources, &e.Board, &e.URL,
			&e.RequisitionID, &e.SalMin, &e.SalMax, &e.SalDeclared, &e.RepostCount); err != nil {
			rows.Close()
			return nil, fmt.Errorf("cannot scan a ledger row: %w", err)
		}
		st.reqs[e.ReqKey] = e
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
		if e.Live() {
			n[e.CompanyID]++
			if n[e.CompanyID] > n[best] || (n[e.CompanyID] == n[best] && e.CompanyID < best) {
				best = e.CompanyID
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
		return prev == nil || !prev.Live() || tick >= prev.Tick+ReobserveEvery
	}
}
