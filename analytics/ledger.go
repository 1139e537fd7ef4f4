package analytics

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/klauspost/compress/zstd"
)

// The crawl's side of the ledger: the row types of the tables it writes, the cycle write that
// commits them (WriteCycle), and the reads that rebuild its state from the committed ledger
// (crawlstate.go). Package pipeline decides what to write; every statement is here.

// Event types of the ledger.
const (
	EventOpened     = "opened"
	EventReobserved = "reobserved"
	EventReposted   = "reposted"
	EventClosed     = "closed"
)

// Close reasons of a closed event (Event.CloseReason). An ordinary close (the req is no longer
// observed at a source that was read completely) has none ("").
const (
	// CloseSourceRetired: every source that carried the req was retired by an operator, so the
	// req left the corpus without being seen to close at its source.
	CloseSourceRetired = "source_retired"
)

// CloseReasons are the non-empty close reasons, in the order the document lists them.
var CloseReasons = []string{CloseSourceRetired}

// Event is one row of the events table (the ledger); it carries the req's attributes at that
// moment, so the latest event of a req is its current state.
type Event struct {
	Seq           uint64
	Type          string
	ReqKey        string
	CompanyID     uint64
	Region        string
	Tick          uint32
	OccurredAt    time.Time
	ObservedAt    time.Time
	FirstSeen     time.Time
	RawTitle      string
	Title         string
	TitleKey      string
	Function      string
	Country       string
	Location      string
	SourceType    string
	Boards        []string
	Sources       []string
	Board         string
	URL           string
	RequisitionID string
	SalMin        *float64
	SalMax        *float64
	SalDeclared   uint8
	RepostCount   uint32
	PostedAt      *time.Time // the employer's posting date as its source states it; nil when none
	// CloseReason is why a closed event closed: "" for an ordinary close, else one of
	// CloseReasons. Always "" on other events.
	CloseReason string
	// GapFrom and GapTo bound an opened, reposted or closed event first seen in the first cycle of
	// its region after a gap (Gaps): the last committed cycle_time of the region before the gap
	// and this cycle's cycle_time. The change happened somewhere in (GapFrom, GapTo], not at
	// GapTo. Both zero (stored as epoch zero) when the event follows no gap.
	GapFrom time.Time
	GapTo   time.Time
	// Facts are what the req's posting states of itself at this event (facts.go).
	Facts
}

// AfterGap reports whether the event was first seen in the first cycle after a gap.
func (e *Event) AfterGap() bool { return !e.GapTo.IsZero() }

// Live reports whether the req is open after this event.
func (e *Event) Live() bool { return e.Type != EventClosed }

// check refuses an event whose close reason or gap bounds the ledger cannot serve as written.
func (e *Event) check() error {
	if err := e.Facts.Check(); err != nil {
		return fmt.Errorf("cannot write event %d (%s) of req %s: %w", e.Seq, e.Type, e.ReqKey, err)
	}
	if e.CloseReason != "" && (e.Type != EventClosed || !slices.Contains(CloseReasons, e.CloseReason)) {
		return fmt.Errorf("cannot write event %d (%s): close_reason %q is for closed events only and must be one of %s",
			e.Seq, e.Type, e.CloseReason, strings.Join(CloseReasons, ", "))
	}
	if e.GapFrom.IsZero() != e.GapTo.IsZero() || (!e.GapTo.IsZero() && !e.GapFrom.Before(e.GapTo)) {
		return fmt.Errorf("cannot write event %d: gap bounds %s..%s must both be set, from before to, or both be zero",
			e.Seq, e.GapFrom.UTC().Format(time.RFC3339), e.GapTo.UTC().Format(time.RFC3339))
	}
	return nil
}

// attrColumns are the events columns of a req's attributes at an event, in the order WriteCycle
// appends and LatestEvents scans them; eventColumns adds the columns of the event itself (its
// close reason and gap bounds), which WriteCycle writes and LatestEvents does not read.
const (
	attrColumns = `event_seq, event_type, req_key, company_id, region, tick, occurred_at, observed_at, first_seen,
	raw_title, title, title_key, function, country, location, source_type, boards, sources, board, url,
	requisition_id, salary_min_usd, salary_max_usd, salary_declared, repost_count, posted_at, ` + factColumns
	eventColumns = attrColumns + `, close_reason, gap_from, gap_to`
)

// fromLedgerTime turns the ledger's "no time" (epoch zero: what the driver writes for a zero
// time.Time into gap_from and gap_to) back into a zero time.Time.
func fromLedgerTime(t time.Time) time.Time {
	if t.Unix() == 0 {
		return time.Time{}
	}
	return t.UTC()
}

// Cycle is a row of the cycles table: one crawl cycle (a region at a tick). Its presence is the
// commit of the cycle's rows; its seq_to advances the committed watermark. Its counters are what
// operators judge the crawl's health by: sources_total splits into sources_ok, sources_failed
// (not read: failed, blocked by robots.txt, not fetched), sources_carried (a chain of pages read
// in part, going on in the next window: neither ok nor failed) and the sources read suspect,
// which have no column; pages and postings are those read in this cycle's window, so a chain
// carried across windows counts each of its pages, and the postings on it, once, in the window
// that read it.
type Cycle struct {
	Region         string
	Tick           uint32
	CycleTime      time.Time
	StartedAt      time.Time
	FinishedAt     time.Time // zero: WriteCycle stamps the time of the commit
	SourcesTotal   uint32
	SourcesOK      uint32
	SourcesFailed  uint32
	SourcesCarried uint32 // migration 0006
	Pages          uint32
	Postings       uint64
	Malformed      uint64
	Unresolved     uint64
	ReqsLive       uint64
	Events         uint64
	SeqFrom        uint64
	SeqTo          uint64
}

// ReqBoard is a row of req_boards: the first sighting of one board carrying one req.
type ReqBoard struct {
	ReqKey string
	BoardSighting
}

// CycleWrite is everything one cycle writes. Companies are written at Cycle.Tick with their
// UpdatedAt; ATS sightings at Cycle.Tick. The cycles row goes last and is the commit. (The
// descriptions its events name are written before, as the crawl reads them: WriteDescriptions.)
type CycleWrite struct {
	Events    []Event
	Boards    []ReqBoard
	Companies []Company
	ATS       []VendorSighting
	Cycle     Cycle
	// Version is the version the events are written at (0: the time of the write). A write sent
	// again byte for byte (its status unknown) keeps its version, and its Cycle its FinishedAt.
	Version uint64
}

// cycleWriteFormat is the first byte of an encoded CycleWrite.
const cycleWriteFormat = 1

// EncodeCycleWrite encodes w, with the block size it is written in (batch), so that
// DecodeCycleWrite gives back a write whose blocks are byte for byte the same: the form the
// crawl keeps a commit in while its status is unknown (gob, zstd-compressed). w's Version and
// Cycle.FinishedAt must be set.
func EncodeCycleWrite(w *CycleWrite, batch int) ([]byte, error) {
	if w.Version == 0 || w.Cycle.FinishedAt.IsZero() {
		return nil, fmt.Errorf("cannot encode cycle %s/%d: its version and finish time must be set first", w.Cycle.Region, w.Cycle.Tick)
	}
	var buf bytes.Buffer
	buf.WriteByte(cycleWriteFormat)
	z, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("cannot encode cycle %s/%d: %w", w.Cycle.Region, w.Cycle.Tick, err)
	}
	if err := gob.NewEncoder(z).Encode(encodedWrite{Write: w, Batch: batch}); err != nil {
		_ = z.Close()
		return nil, fmt.Errorf("cannot encode cycle %s/%d: %w", w.Cycle.Region, w.Cycle.Tick, err)
	}
	if err := z.Close(); err != nil {
		return nil, fmt.Errorf("cannot encode cycle %s/%d: %w", w.Cycle.Region, w.Cycle.Tick, err)
	}
	return buf.Bytes(), nil
}

// DecodeCycleWrite is the write EncodeCycleWrite encoded, and its block size.
func DecodeCycleWrite(b []byte) (*CycleWrite, int, error) {
	if len(b) == 0 || b[0] != cycleWriteFormat {
		return nil, 0, errors.New("cannot decode a cycle write: unknown format")
	}
	z, err := zstd.NewReader(bytes.NewReader(b[1:]), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, 0, fmt.Errorf("cannot decode a cycle write: %w", err)
	}
	defer z.Close()
	var e encodedWrite
	if err := gob.NewDecoder(z).Decode(&e); err != nil {
		return nil, 0, fmt.Errorf("cannot decode a cycle write: %w", err)
	}
	return e.Write, e.Batch, nil
}

type encodedWrite struct {
	Write *CycleWrite
	Batch int
}

// WriteCycle writes a cycle's rows and commits it: events in blocks of batch rows, then one
// INSERT block per table (req_boards, companies, ats_history), the cycles row last. If it fails
// part-way nothing is committed yet: rows above the watermark are never read. The crawl keeps
// such a write (EncodeCycleWrite) and sends it again as it was, same version and blocks, until
// it is acknowledged (pipeline.LedgerHead); without that (tests), the rerun writes the same
// event_seq with a higher version, which replaces the partial rows. In cluster mode every
// block is a quorum write (quorum.go), so the commit row is written only once a quorum of
// replicas holds every row it commits.
func WriteCycle(ctx context.Context, ch driver.Conn, w *CycleWrite, batch int) error {
	for i := range w.Events {
		if err := w.Events[i].check(); err != nil {
			return err
		}
	}
	wr, err := newWriter(ctx, ch)
	if err != nil {
		return fmt.Errorf("cannot write cycle %s/%d: %w", w.Cycle.Region, w.Cycle.Tick, err)
	}
	version := w.Version
	if version == 0 {
		version = uint64(time.Now().UnixNano())
	}
	if err := insertEvents(wr, w.Events, version, batch); err != nil {
		return err
	}
	if len(w.Boards) > 0 {
		if err := wr.insert("INSERT INTO req_boards (req_key, company_id, board, source_type, first_seen)", func(b driver.Batch) error {
			for _, s := range w.Boards {
				if err := b.Append(s.ReqKey, s.CompanyID, s.Board, s.SourceType, s.FirstSeen); err != nil {
					return fmt.Errorf("cannot append a board sighting: %w", err)
				}
			}
			return nil
		}); err != nil {
			return fmt.Errorf("cannot insert req_boards: %w", err)
		}
	}
	if len(w.Companies) > 0 {
		if err := wr.insert(`INSERT INTO companies (company_id, domain, name, name_key, hq_country, region, industry,
			headcount_band, agency_kind, ats_vendor, covered, tick, updated_at)`, func(b driver.Batch) error {
			for _, c := range w.Companies {
				var covered uint8
				if c.Covered {
					covered = 1
				}
				if err := b.Append(c.CompanyID, c.Domain, c.Name, c.NameKey, c.HQCountry, c.Region, c.Industry, c.HeadcountBand,
					c.AgencyKind, c.ATSVendor, covered, w.Cycle.Tick, c.UpdatedAt); err != nil {
					return fmt.Errorf("cannot append a company: %w", err)
				}
			}
			return nil
		}); err != nil {
			return fmt.Errorf("cannot insert companies: %w", err)
		}
	}
	if len(w.ATS) > 0 {
		if err := wr.insert("INSERT INTO ats_history (company_id, vendor, tenant, first_seen, tick)", func(b driver.Batch) error {
			for _, a := range w.ATS {
				if err := b.Append(a.CompanyID, a.Vendor, a.Tenant, a.FirstSeen, w.Cycle.Tick); err != nil {
					return fmt.Errorf("cannot append an ATS sighting: %w", err)
				}
			}
			return nil
		}); err != nil {
			return fmt.Errorf("cannot insert ats_history: %w", err)
		}
	}
	return commitCycle(wr, &w.Cycle)
}

// commitCycle writes the cycles row.
func commitCycle(wr *writer, c *Cycle) error {
	finished := c.FinishedAt
	if finished.IsZero() {
		finished = time.Now().UTC()
	}
	if err := wr.insert(`INSERT INTO cycles (region, tick, cycle_time, started_at, finished_at, sources_total, sources_ok,
		sources_failed, sources_carried, pages, postings, malformed, unresolved, reqs_live, events, seq_from, seq_to)`, func(b driver.Batch) error {
		if err := b.Append(c.Region, c.Tick, c.CycleTime, c.StartedAt, finished, c.SourcesTotal, c.SourcesOK, c.SourcesFailed, c.SourcesCarried,
			c.Pages, c.Postings, c.Malformed, c.Unresolved, c.ReqsLive, c.Events, c.SeqFrom, c.SeqTo); err != nil {
			return fmt.Errorf("cannot append cycle %s/%d: %w", c.Region, c.Tick, err)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("cannot commit cycle %s/%d: %w", c.Region, c.Tick, err)
	}
	return nil
}

// insertEvents writes events at version, in blocks of batch rows.
func insertEvents(wr *writer, events []Event, version uint64, batch int) error {
	for start := 0; start < len(events); start += batch {
		block := events[start:min(start+batch, len(events))]
		if err := wr.insert("INSERT INTO events (version, "+eventColumns+")", func(b driver.Batch) error {
			for i := range block {
				e := &block[i]
				vals := append([]any{version, e.Seq, e.Type, e.ReqKey, e.CompanyID, e.Region, e.Tick, e.OccurredAt, e.ObservedAt, e.FirstSeen,
					e.RawTitle, e.Title, e.TitleKey, e.Function, e.Country, e.Location, e.SourceType, e.Boards, e.Sources, e.Board, e.URL,
					e.RequisitionID, e.SalMin, e.SalMax, e.SalDeclared, e.RepostCount, e.PostedAt}, e.factValues()...)
				if err := b.Append(append(vals, e.CloseReason, e.GapFrom, e.GapTo)...); err != nil {
					return fmt.Errorf("cannot append event: %w", err)
				}
			}
			return nil
		}); err != nil {
			return fmt.Errorf("cannot insert %d events: %w", len(block), err)
		}
	}
	return nil
}
