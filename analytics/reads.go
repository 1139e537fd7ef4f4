package analytics

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// The reads below see only the committed ledger: events with event_seq at or below the
// watermark (the highest seq_to of a committed cycle). Rows a crashed cycle left above it are
// never served.

// Watermark is the highest committed event_seq (0 before the first cycle) and the time of the
// latest committed cycle: the ledger's head, which the crawl numbers from. Where the writes are
// quorum writes (cluster mode) the read is sequentially consistent (select_sequential_consistency):
// a replica that lacks a commit row a quorum acknowledged refuses it instead of answering an
// older head, and a commit row whose quorum is still pending is not counted yet. A replica may
// also hold a commit row before its events, so the readers serve ReadWatermark,
// PresentWatermark or a page's own check instead (presence.go).
func Watermark(ctx context.Context, ch driver.Conn) (uint64, time.Time, error) {
	q, err := insertQuorum(ctx, ch)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("cannot read the committed watermark: %w", err)
	}
	if q >= 2 {
		ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"select_sequential_consistency": 1}))
	}
	return ledgerHead(ctx, ch)
}

// ledgerHead is Watermark as the replica that answers holds it.
func ledgerHead(ctx context.Context, ch driver.Conn) (uint64, time.Time, error) {
	var wm uint64
	var at time.Time
	if err := ch.QueryRow(ctx, "SELECT max(seq_to), max(cycle_time) FROM cycles").Scan(&wm, &at); err != nil {
		return 0, time.Time{}, fmt.Errorf("cannot read the committed watermark: %w", err)
	}
	return wm, at, nil
}

// Req is the current state of one req: its latest committed event.
type Req struct {
	ReqKey        string
	CompanyID     uint64
	EventType     string // latest event: opened, reobserved, reposted (live) or closed
	RawTitle      string
	Title         string
	Function      string
	Country       string
	Location      string
	SourceType    string
	Boards        []string // every board ever seen carrying it, first sighting order by name
	Board         string   // the board of its latest observation (ATS first)
	URL           string
	FirstSeen     time.Time
	LastEventAt   time.Time
	SalaryMinUSD  *float64
	SalaryMaxUSD  *float64
	RepostCount   uint32
	RequisitionID string
	PostedAt      *time.Time // the employer's own posting date, from the first event that carried one (StreamLedgerReqs only); nil when none
	// Facts are what its posting states of itself at its latest event (StreamLedgerReqs only).
	Facts
}

// Live reports whether the req is open.
func (r *Req) Live() bool { return r.EventType != EventClosed }

// CurrentReqs streams every req's current state to fn (live and closed).
func CurrentReqs(ctx context.Context, ch driver.Conn, wm uint64, fn func(*Req) error) error {
	rows, err := ch.Query(ctx, `
		SELECT e.req_key, e.company_id, e.event_type, e.raw_title, e.title, e.function, e.country, e.location,
		       e.source_type, b.boards, e.board, e.url, e.first_seen, e.observed_at, e.salary_min_usd, e.salary_max_usd,
		       e.repost_count, e.requisition_id
		FROM (
			SELECT req_key,
			       argMax(company_id, event_seq) AS company_id, argMax(event_type, event_seq) AS event_type,
			       argMax(raw_title, event_seq) AS raw_title, argMax(title, event_seq) AS title,
			       argMax(function, event_seq) AS function, argMax(country, event_seq) AS country,
			       argMax(location, event_seq) AS location, argMax(source_type, event_seq) AS source_type,
			       argMax(board, event_seq) AS board, argMax(url, event_seq) AS url,
			       argMax(first_seen, event_seq) AS first_seen, argMax(observed_at, event_seq) AS observed_at,
			       argMax(salary_min_usd, event_seq) AS salary_min_usd, argMax(salary_max_usd, event_seq) AS salary_max_usd,
			       argMax(repost_count, event_seq) AS repost_count, argMax(requisition_id, event_seq) AS requisition_id
			FROM (SELECT * FROM events FINAL WHERE event_seq <= ?)
			GROUP BY req_key
		) AS e
		LEFT JOIN (SELECT req_key, arraySort(groupUniqArray(board)) AS boards FROM req_boards GROUP BY req_key) AS b
		USING req_key`, wm)
	if err != nil {
		return fmt.Errorf("cannot read current reqs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		r := &Req{}
		if err := rows.Scan(&r.ReqKey, &r.CompanyID, &r.EventType, &r.RawTitle, &r.Title, &r.Function, &r.Country, &r.Location,
			&r.SourceType, &r.Boards, &r.Board, &r.URL, &r.FirstSeen, &r.LastEventAt, &r.SalaryMinUSD, &r.SalaryMaxUSD,
			&r.RepostCount, &r.RequisitionID); err != nil {
			return fmt.Errorf("cannot scan a current req: %w", err)
		}
		if len(r.Boards) == 0 && r.Board != "" {
			r.Boards = []string{r.Board}
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Company is a row of the companies table: a company the crawl knows.
type Company struct {
	CompanyID     uint64
	Domain        string
	Name          string
	NameKey       string
	HQCountry     string
	Region        string
	Industry      string
	HeadcountBand string
	AgencyKind    string
	ATSVendor     string
	Covered       bool
	UpdatedAt     time.Time
}

// SameAs reports whether c and o have the same attributes, whenever each was written (UpdatedAt
// aside): the crawl rewrites a company only when they differ.
func (c Company) SameAs(o Company) bool {
	c.UpdatedAt, o.UpdatedAt = time.Time{}, time.Time{}
	return c == o
}

// Companies reads the latest committed version of every company (CompaniesAt every committed
// cycle): a row a crashed cycle wrote is not read, so the crawler writes it again.
func Companies(ctx context.Context, ch driver.Conn) ([]Company, error) {
	return CompaniesAt(ctx, ch, AllCommitted)
}

// CompaniesAt reads the latest version of every company written by a committed cycle within g.
func CompaniesAt(ctx context.Context, ch driver.Conn, g Committed) ([]Company, error) {
	return companiesAt(ctx, ch, g, nil)
}

// CompaniesOf is CompaniesAt for the companies of ids only (the same row for each; an id the
// directory does not list within g has none). At most maxCompaniesOf ids (the notifier asks for
// one batch's companies).
func CompaniesOf(ctx context.Context, ch driver.Conn, g Committed, ids []uint64) ([]Company, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if len(ids) > maxCompaniesOf {
		return nil, fmt.Errorf("cannot read %d companies at once: ask for at most %d", len(ids), maxCompaniesOf)
	}
	return companiesAt(ctx, ch, g, ids)
}

// maxCompaniesOf bounds CompaniesOf's list (formatted integers in the query text).
const maxCompaniesOf = 20_000

// companiesAt is CompaniesAt, restricted to ids when any.
func companiesAt(ctx context.Context, ch driver.Conn, g Committed, ids []uint64) ([]Company, error) {
	cond, args := g.byRegionTick()
	if len(ids) > 0 {
		var in strings.Builder
		for i, id := range ids {
			if i > 0 {
				in.WriteByte(',')
			}
			in.WriteString(strconv.FormatUint(id, 10))
		}
		cond += " AND company_id IN (" + in.String() + ")"
	}
	rows, err := ch.Query(ctx, `SELECT company_id, argMax(domain, tick), argMax(name, tick), argMax(name_key, tick), argMax(hq_country, tick),
		argMax(region, tick), argMax(industry, tick), argMax(headcount_band, tick), argMax(agency_kind, tick), argMax(ats_vendor, tick),
		argMax(covered, tick), argMax(updated_at, tick)
		FROM companies WHERE `+cond+` GROUP BY company_id ORDER BY company_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("cannot read companies: %w", err)
	}
	defer rows.Close()
	var out []Company
	for rows.Next() {
		var c Company
		var covered uint8
		if err := rows.Scan(&c.CompanyID, &c.Domain, &c.Name, &c.NameKey, &c.HQCountry, &c.Region, &c.Industry, &c.HeadcountBand,
			&c.AgencyKind, &c.ATSVendor, &covered, &c.UpdatedAt); err != nil {
			return nil, err
		}
		c.Covered = covered == 1
		out = append(out, c)
	}
	return out, rows.Err()
}

// WeekCount is one weekly bucket (weeks start on Monday, UTC).
type WeekCount struct {
	Key         uint64 // company_id (momentum) or 0
	Function    string // role-demand only
	Country     string // role-demand only
	BucketStart time.Time
	Opened      uint64 // reqs first observed that week
	Reposted    uint64 // reqs that came back that week
	Closed      uint64
}

// Momentum is the weekly flow of each company's publications over its whole history: reqs first
// observed (opened), reposted and closed per week, oldest first.
func Momentum(ctx context.Context, ch driver.Conn, wm uint64) ([]WeekCount, error) {
	var out []WeekCount
	err := StreamMomentum(ctx, ch, wm, func(w WeekCount) error {
		out = append(out, w)
		return nil
	})
	return out, err
}

// RoleDemand is the market-wide weekly series of reqs first observed per function and country.
func RoleDemand(ctx context.Context, ch driver.Conn, wm uint64) ([]WeekCount, error) {
	return roleDemand(ctx, ch, "", []any{wm, wm})
}

// roleDemand is RoleDemand of the events that also meet cond (" AND <condition>", or ""), args
// being the watermark, cond's arguments and the watermark of the coverage starts.
func roleDemand(ctx context.Context, ch driver.Conn, cond string, args []any) ([]WeekCount, error) {
	rows, err := ch.Query(ctx, `
		SELECT function, country, toMonday(observed_at) AS week,
		       countIf(event_type = 'opened' AND observed_at > coverage_start) AS o, countIf(event_type = 'reposted') AS r, countIf(event_type = 'closed') AS c
		FROM (SELECT company_id, function, country, observed_at, event_type FROM events FINAL WHERE event_seq <= ? AND event_type != 'reobserved'`+cond+`)
		ANY LEFT JOIN `+coverageStarts+` USING company_id
		GROUP BY function, country, week HAVING o + r + c > 0 ORDER BY function, country, week`, args...)
	if err != nil {
		return nil, fmt.Errorf("cannot read role demand: %w", err)
	}
	defer rows.Close()
	var out []WeekCount
	for rows.Next() {
		var w WeekCount
		if err := rows.Scan(&w.Function, &w.Country, &w.BucketStart, &w.Opened, &w.Reposted, &w.Closed); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// FirstHire is the earliest req of a function at a company.
type FirstHire struct {
	CompanyID uint64
	Function  string
	FirstSeen time.Time
	ReqKey    string
	RawTitle  string
	Board     string
}

// FirstHires returns, per company and function, the first req ever observed (StreamFirstHires,
// collected).
func FirstHires(ctx context.Context, ch driver.Conn, wm uint64) ([]FirstHire, error) {
	var out []FirstHire
	err := StreamFirstHires(ctx, ch, wm, func(f *FirstHire) error {
		out = append(out, *f)
		return nil
	})
	return out, err
}

// VendorSighting is a row of ats_history: the first time a company was seen on an ATS vendor
// (WriteCycle writes it at its cycle's tick).
type VendorSighting struct {
	CompanyID uint64
	Vendor    string
	Tenant    string
	FirstSeen time.Time
}

// ATSHistory returns every company's ATS vendors in order of first sighting: consecutive entries
// with different vendors are migrations. It reads every committed cycle (ATSHistoryAt).
func ATSHistory(ctx context.Context, ch driver.Conn) ([]VendorSighting, error) {
	return ATSHistoryAt(ctx, ch, AllCommitted)
}

// ATSHistoryAt is ATSHistory of the sightings of committed cycles within g (a sighting is written
// by its company's region's cycle, at its tick).
func ATSHistoryAt(ctx context.Context, ch driver.Conn, g Committed) ([]VendorSighting, error) {
	return atsHistoryAt(ctx, ch, g, "")
}

// atsHistoryAt is ATSHistoryAt of the sightings that also meet and (" AND <condition>", or "").
func atsHistoryAt(ctx context.Context, ch driver.Conn, g Committed, and string) ([]VendorSighting, error) {
	cond, args := g.byRegionTick()
	cond += and
	rows, err := ch.Query(ctx, `SELECT company_id, vendor, tenant, min(first_seen) AS fs FROM ats_history
		ANY LEFT JOIN `+companyRegions+` USING company_id
		WHERE `+cond+`
		GROUP BY company_id, vendor, tenant ORDER BY company_id, fs, vendor`, args...)
	if err != nil {
		return nil, fmt.Errorf("cannot read ATS history: %w", err)
	}
	defer rows.Close()
	var out []VendorSighting
	for rows.Next() {
		var v VendorSighting
		if err := rows.Scan(&v.CompanyID, &v.Vendor, &v.Tenant, &v.FirstSeen); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
