package pipeline

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// cycleWrite is everything one cycle writes; the cycles row goes last and is the commit.
type cycleWrite struct {
	events    []Event
	boards    []boardSighting
	companies []companyRow
	ats       []atsSighting
	stats     CycleStats
}

type boardSighting struct {
	reqKey     string
	companyID  uint64
	board      string
	sourceType string
	firstSeen  time.Time
}

type atsSighting struct {
	companyID      uint64
	vendor, tenant string
	firstSeen      time.Time
	tick           uint32
}

// emit writes a cycle's rows in batches and commits it. Each table's rows go in one INSERT block.
// If it fails part-way, nothing is committed: the rerun recomputes the same events with the same
// event_seq and a higher version, which replaces the partial rows.
func emit(ctx context.Context, ch driver.Conn, w *cycleWrite, batch int) error {
	version := uint64(time.Now().UnixNano())
	for start := 0; start < len(w.events); start += batch {
		end := min(start+batch, len(w.events))
		b, err := ch.PrepareBatch(ctx, "INSERT INTO events (version, "+eventColumns+")")
		if err != nil {
			return fmt.Errorf("cannot prepare events insert: %w", err)
		}
		for i := start; i < end; i++ {
			e := &w.events[i]
			if err := b.Append(version, e.Seq, e.Type, e.ReqKey, e.CompanyID, e.Region, e.Tick, e.OccurredAt, e.ObservedAt, e.FirstSeen,
				e.RawTitle, e.Title, e.TitleKey, e.Function, e.Country, e.Location, e.SourceType, e.Boards, e.Sources, e.Board, e.URL,
				e.RequisitionID, e.SalMin, e.SalMax, e.SalDeclared, e.RepostCount); err != nil {
				return fmt.Errorf("cannot append event: %w", err)
			}
		}
		if err := b.Send(); err != nil {
			return fmt.Errorf("cannot insert %d events: %w", end-start, err)
		}
	}
	if len(w.boards) > 0 {
		b, err := ch.PrepareBatch(ctx, "INSERT INTO req_boards (req_key, company_id, board, source_type, first_seen)")
		if err != nil {
			return fmt.Errorf("cannot prepare req_boards insert: %w", err)
		}
		for _, s := range w.boards {
			if err := b.Append(s.reqKey, s.companyID, s.board, s.sourceType, s.firstSeen); err != nil {
				return err
			}
		}
		if err := b.Send(); err != nil {
			return fmt.Errorf("cannot insert req_boards: %w", err)
		}
	}
	if len(w.companies) > 0 {
		b, err := ch.PrepareBatch(ctx, "INSERT INTO companies (company_id, domain, name, name_key, hq_country, region, industry, headcount_band, agency_kind, ats_vendor, covered, tick, updated_at)")
		if err != nil {
			return fmt.Errorf("cannot prepare companies insert: %w", err)
		}
		for _, c := range w.companies {
			if err := b.Append(c.ID, c.Domain, c.Name, c.NameKey, c.HQCountry, c.Region, c.Industry, c.Headcount, c.AgencyKind, c.ATSVendor, c.Covered, w.stats.Tick, w.stats.CycleTime); err != nil {
				return err
			}
		}
		if err := b.Send(); err != nil {
			return fmt.Errorf("cannot insert companies: %w", err)
		}
	}
	if len(w.ats) > 0 {
		b, err := ch.PrepareBatch(ctx, "INSERT INTO ats_history (company_id, vendor, tenant, first_seen, tick)")
		if err != nil {
			return fmt.Errorf("cannot prepare ats_history insert: %w", err)
		}
		for _, a := range w.ats {
			if err := b.Append(a.companyID, a.vendor, a.tenant, a.firstSeen, a.tick); err != nil {
				return err
			}
		}
		if err := b.Send(); err != nil {
			return fmt.Errorf("cannot insert ats_history: %w", err)
		}
	}
	s := &w.stats
	b, err := ch.PrepareBatch(ctx, `INSERT INTO cycles (region, tick, cycle_time, started_at, finished_at, sources_total, sources_ok,
		sources_failed, pages, postings, malformed, unresolved, reqs_live, events, seq_from, seq_to)`)
	if err != nil {
		return fmt.Errorf("cannot prepare cycle commit: %w", err)
	}
	if err := b.Append(s.Region, s.Tick, s.CycleTime, s.StartedAt, time.Now().UTC(), uint32(s.Sources), uint32(s.SourcesOK),
		uint32(s.SourcesFailed), uint32(s.Pages), uint64(s.Postings), uint64(s.Malformed), uint64(s.Unresolved), uint64(s.ReqsLive),
		uint64(s.Events), s.SeqFrom, s.SeqTo); err != nil {
		return err
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("cannot commit cycle %s/%d: %w", s.Region, s.Tick, err)
	}
	return nil
}
