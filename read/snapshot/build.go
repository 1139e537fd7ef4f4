package snapshot

import (
	"context"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
)

// Snapshot is the read side at one committed watermark: the company read model and the search
// index built from the same rows. It is immutable; a call reads every answer from one Snapshot.
type Snapshot struct {
	Model     *readmodel.Model   // never nil (empty before the first build)
	Index     *searchindex.Index // nil before the first build
	Watermark uint64             // highest committed event_seq both were built at
	AsOf      time.Time          // the latest committed cycle time (Model.AsOf, Index.CycleTime)
	// Gaps are the gaps in the crawl regions' committed cycles up to AsOf (analytics.Gaps over
	// the whole history, the most recent analytics.MaxGaps), ascending by end: the read model's
	// momentum and the index's role demand mark the weeks they touch partial.
	Gaps      []analytics.Gap
	BuiltAt   time.Time     // wall clock
	BuildTook time.Duration // how long the build took
	Phases    string        // how long each phase of the build took (for the log)
	Kind      string        // KindFull (Build) or KindDelta (Update applied the commits to the previous snapshot)
	Reason    string        // why Update rebuilt whole ("" for an applied commit)
	Touched   int           // KindDelta: how many companies the applied commits touched

	deltas  int                    // commits applied in a row up to this snapshot (0 for a full build)
	regions []analytics.RegionRead // the committed cycles per region it was built at
	demand  []analytics.WeekCount  // the role-demand series its index was built with
	// present is the bound the replica that answered its presence check holds every event up to
	// (at or above Watermark): the next commit's check counts only the events above it while
	// that replica answers (analytics.ReadWatermarkAbove).
	present analytics.Present
	// reqs is where every req of the ledger at Watermark lies, by company (of its latest event):
	// an applied commit reads a touched company's reqs at these positions and the commit's own
	// events, never the company's whole history (analytics.StreamCompanyLedgerReqsAbove). Packed
	// (positions), in one array after a full build.
	reqs map[uint64]positions
}

// Build reads the committed ledger once and returns the read model and the search index of its
// current watermark. The directory and the req stream are read once and fed to both builders;
// the reads only one of them needs (momentum, ATS history, board sightings; role demand) run
// beside the req stream, in one goroutine joined before Build returns.
func Build(ctx context.Context, ch driver.Conn) (*Snapshot, error) {
	started := time.Now()
	mark := started
	var phases []string
	phase := func(name string) {
		phases = append(phases, name+"="+time.Since(mark).Round(time.Millisecond).String())
		mark = time.Now()
	}
	wm, at, present, err := analytics.ReadWatermarkAbove(ctx, ch, analytics.Present{})
	if err != nil {
		return nil, err
	}
	at = at.UTC()
	// Every read below sees the ledger and the rows of committed cycles at this watermark only.
	g := analytics.AtWatermark(wm, at)
	regions, err := analytics.RegionReads(ctx, ch, g)
	if err != nil {
		return nil, err
	}
	gaps, err := analytics.Gaps(ctx, ch, g, analytics.GapQuery{})
	if err != nil {
		return nil, err
	}
	cos, err := analytics.CompaniesAt(ctx, ch, g)
	if err != nil {
		return nil, err
	}
	index := searchindex.NewBuilder(wm, at, cos)
	models := readmodel.NewBuilder(index.Dictionaries(), wm, at, regions, cos) // one lineage's dictionaries for both
	models.Gaps(gaps)
	index.ObservedFrom(models.Since())
	index.Gaps(gaps)
	phase("companies")

	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sideDone := make(chan struct{})
	var sd side
	go func() {
		defer close(sideDone)
		sd.read(sctx, ch, g)
	}()
	defer func() { cancel(); <-sideDone }()
	reqs := map[uint64]positions{}
	if err := analytics.StreamLedgerReqs(ctx, ch, g, func(r *analytics.LedgerReq) error {
		reqs[r.CompanyID] = appendPosition(reqs[r.CompanyID], r.At())
		addReq(models, index, r)
		return nil
	}); err != nil {
		return nil, err
	}
	reqs = exactly(reqs)
	phase("reqs")
	<-sideDone
	phase("side_reads")
	if sd.err != nil {
		return nil, sd.err
	}
	s := &Snapshot{Watermark: wm, AsOf: at, Gaps: gaps, Kind: KindFull, regions: regions, demand: sd.demand, present: present, reqs: reqs}
	s.assemble(models, index, sd.model, phase)
	s.Phases = strings.Join(phases, " ")
	s.BuiltAt = time.Now().UTC()
	s.BuildTook = time.Since(started)
	return s, nil
}

// addReq adds one req of the stream to the read model and the search index of a build: one
// record of it, made by the index's builder, shared by both (when either keeps it).
func addReq(models *readmodel.Builder, index *searchindex.Builder, r *analytics.LedgerReq) {
	var rec *searchindex.Record
	record := func() *searchindex.Record {
		if rec == nil {
			rec = index.Record(r)
		}
		return rec
	}
	if index.Keeps(r) {
		index.AddRecord(record())
	}
	models.AddRecord(&r.Req, record)
}

// assemble builds s's read model and search index from builders fed the same rows (a full build
// or an applied commit), timing each with phase; s.demand is the role demand the index serves.
func (s *Snapshot) assemble(models *readmodel.Builder, index *searchindex.Builder, side readmodel.Side, phase func(string)) {
	s.Model = models.Build(side)
	phase("model")
	index.CoverageStarts(func(id uint64) time.Time {
		if c := s.Model.Company(id); c != nil {
			return c.ObservedFrom()
		}
		return time.Time{}
	})
	s.Index = index.Build(s.demand)
	phase("index")
}

// LatestGap is the most recent gap in the snapshot's history (analytics.LatestGap), false when
// its history has none: what the X-History-* headers name.
func (s *Snapshot) LatestGap() (analytics.Gap, bool) { return analytics.LatestGap(s.Gaps) }

// side holds the reads that run beside the req stream: those of the read model (weekly
// momentum, ATS history and board sightings: a few hundred thousand small rows at 100,000
// companies) and the search index's role demand.
type side struct {
	model  readmodel.Side
	demand []analytics.WeekCount
	err    error
}

func (s *side) read(ctx context.Context, ch driver.Conn, g analytics.Committed) {
	if s.err = analytics.StreamMomentum(ctx, ch, g.Watermark, func(w analytics.WeekCount) error {
		s.model.Momentum = append(s.model.Momentum, w)
		return nil
	}); s.err != nil {
		return
	}
	if s.model.ATS, s.err = analytics.ATSHistoryAt(ctx, ch, g); s.err != nil {
		return
	}
	if s.err = analytics.StreamCompanyBoards(ctx, ch, g, func(b *analytics.BoardSighting) error {
		s.model.Boards = append(s.model.Boards, *b)
		return nil
	}); s.err != nil {
		return
	}
	s.demand, s.err = analytics.RoleDemand(ctx, ch, g.Watermark)
}
