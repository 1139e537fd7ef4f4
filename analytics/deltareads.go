package analytics

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// The reads of a read snapshot applied as a delta (package snapshot): which companies the rows
// committed between two snapshot bounds touch, and the snapshot reads of those companies only.
// Each company-filtered read gives, for every company asked, exactly the rows its full read gives
// it at the same bound. The events table is ordered by event_seq, so the company-filtered reads
// of it (StreamCompanyLedgerReqs, StreamCompanyMomentum) scan it: an applied commit reads its
// reqs with StreamCompanyLedgerReqsAbove and its momentum with StreamMomentumBetween instead,
// which cost the commit, and these stay the references those are checked against.

// MaxCompaniesRead bounds the company lists of the company-filtered reads (formatted integers in
// the query text): a larger delta is a full read.
const MaxCompaniesRead = maxCompaniesOf

// TouchedCompanies lists, ascending, the companies whose rows differ between the snapshot bounds
// from and to (to at or above from): those with an event with event_seq in (from.Watermark,
// to.Watermark], those with a companies, ats_history or req_boards row of a cycle committed
// within to but not within from, and those crawled on demand (CompanyRegion) by such a cycle.
// Nothing else of a company's snapshot rows changes between the two bounds but what the
// committed cycles' regions (RegionReads) and the time of the latest one move.
func TouchedCompanies(ctx context.Context, ch driver.Conn, from, to Committed) ([]uint64, error) {
	newCo, newCoArgs := to.byRegionTick()
	oldCo, oldCoArgs := from.byRegionTick()
	newSight, newSightArgs := to.bySighting()
	oldSight, oldSightArgs := from.bySighting()
	newCycles, newCycleArgs := to.cycles("region, tick, cycle_time")
	oldCycles, oldCycleArgs := from.cycles("region, tick")
	// The cycles committed within to and not within from: a row of one of them has its tick (a
	// companies or ats_history row) or its cycle time (a req_boards row), which keeps the scans of
	// those tables to the commit's own rows before the exact conditions.
	added := "SELECT region, tick, cycle_time FROM (" + newCycles + ") WHERE (region, tick) NOT IN (" + oldCycles + ")"
	addedArgs := append(append([]any{}, newCycleArgs...), oldCycleArgs...)
	q := `SELECT DISTINCT company_id FROM (
		SELECT company_id FROM events WHERE event_seq > ? AND event_seq <= ?
		UNION ALL SELECT company_id FROM companies WHERE tick IN (SELECT tick FROM (` + added + `)) AND ` + newCo + ` AND NOT ` + oldCo + `
		UNION ALL SELECT company_id FROM ats_history ANY LEFT JOIN ` + companyRegions + ` USING company_id
			WHERE tick IN (SELECT tick FROM (` + added + `)) AND ` + newCo + ` AND NOT ` + oldCo + `
		UNION ALL SELECT company_id FROM req_boards ANY LEFT JOIN ` + companyRegions + ` USING company_id
			WHERE first_seen IN (SELECT cycle_time FROM (` + added + `)) AND ` + newSight + ` AND NOT ` + oldSight + `
		UNION ALL SELECT toUInt64OrZero(substring(region, 9)) AS company_id FROM (` + added + `) WHERE startsWith(region, 'company:')
	) ORDER BY company_id`
	var args []any
	args = append(args, from.Watermark, to.Watermark)
	args = append(append(append(args, addedArgs...), newCoArgs...), oldCoArgs...)
	args = append(append(append(args, addedArgs...), newCoArgs...), oldCoArgs...)
	args = append(append(append(args, addedArgs...), newSightArgs...), oldSightArgs...)
	args = append(args, addedArgs...)
	rows, err := ch.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("cannot read the companies a commit touched: %w", err)
	}
	defer rows.Close()
	var out []uint64
	for rows.Next() {
		var id uint64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("cannot scan a touched company: %w", err)
		}
		if id != 0 {
			out = append(out, id)
		}
	}
	return out, rows.Err()
}

// idList is ids as the text of an IN list, refused beyond MaxCompaniesRead.
func idList(ids []uint64) (string, error) {
	if len(ids) > MaxCompaniesRead {
		return "", fmt.Errorf("cannot read %d companies at once: ask for at most %d", len(ids), MaxCompaniesRead)
	}
	var in strings.Builder
	in.WriteByte('(')
	for i, id := range ids {
		if i > 0 {
			in.WriteByte(',')
		}
		in.WriteString(strconv.FormatUint(id, 10))
	}
	if len(ids) == 0 {
		in.WriteString("0") // no company has id 0
	}
	in.WriteByte(')')
	return in.String(), nil
}

// StreamCompanyLedgerReqs is StreamLedgerReqs of the reqs of the companies ids only: for each of
// their reqs exactly the row StreamLedgerReqs gives, in the same order.
func StreamCompanyLedgerReqs(ctx context.Context, ch driver.Conn, g Committed, ids []uint64, fn func(r *LedgerReq) error) error {
	in, err := idList(ids)
	if err != nil {
		return err
	}
	regions := "(SELECT company_id, argMax(region, tick) AS region FROM companies WHERE company_id IN " + in + " GROUP BY company_id)"
	return streamLedgerReqs(ctx, ch, g, " AND company_id IN "+in, nil, regions, fn)
}

// StreamCompanyMomentum is StreamMomentum of the companies ids only (the same rows for each).
func StreamCompanyMomentum(ctx context.Context, ch driver.Conn, wm uint64, ids []uint64, fn func(w WeekCount) error) error {
	in, err := idList(ids)
	if err != nil {
		return err
	}
	return streamMomentum(ctx, ch, wm, " AND company_id IN "+in, nil, fn)
}

// StreamMomentumBetween is StreamMomentum counting only the events with event_seq in (after,
// upto], the coverage starts those of wm: added week by week to StreamMomentum's rows at after,
// they are its rows at upto while no crawl region's first committed cycle and no company's region
// moved between the two (as RoleDemandBetween). A range read on the events' ordering key: it costs
// the commits' events, not the ledger's.
func StreamMomentumBetween(ctx context.Context, ch driver.Conn, after, upto, wm uint64, fn func(w WeekCount) error) error {
	return streamMomentum(ctx, ch, wm, " AND event_seq > ? AND event_seq <= ?", []any{after, upto}, fn)
}

// CompanyATSHistoryAt is ATSHistoryAt of the companies ids only (the same rows for each).
func CompanyATSHistoryAt(ctx context.Context, ch driver.Conn, g Committed, ids []uint64) ([]VendorSighting, error) {
	in, err := idList(ids)
	if err != nil {
		return nil, err
	}
	return atsHistoryAt(ctx, ch, g, " AND company_id IN "+in)
}

// StreamCompanyBoardsOf is StreamCompanyBoards of the companies ids only (the same rows for each).
func StreamCompanyBoardsOf(ctx context.Context, ch driver.Conn, g Committed, ids []uint64, fn func(b *BoardSighting) error) error {
	in, err := idList(ids)
	if err != nil {
		return err
	}
	return streamCompanyBoards(ctx, ch, g, " AND company_id IN "+in, fn)
}

// RoleDemandBetween is RoleDemand counting only the events with event_seq in (after, upto], the
// coverage starts those of wm: added week by week to RoleDemand at after, it is RoleDemand at upto
// while no crawl region's first committed cycle and no company's region moved between the two.
func RoleDemandBetween(ctx context.Context, ch driver.Conn, after, upto, wm uint64) ([]WeekCount, error) {
	return roleDemand(ctx, ch, " AND event_seq > ? AND event_seq <= ?", []any{wm, after, upto, wm})
}
