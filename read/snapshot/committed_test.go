package snapshot_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// crash writes a cycle's rows as a crawler that dies before its commit leaves them: everything
// but the cycles row.
func crash(t *testing.T, ch driver.Conn, w *analytics.CycleWrite) {
	t.Helper()
	ctx := context.Background()
	insert := func(into string, rows [][]any) {
		t.Helper()
		b, err := ch.PrepareBatch(ctx, "INSERT INTO "+into)
		require.NoError(t, err)
		for _, r := range rows {
			require.NoError(t, b.Append(r...))
		}
		require.NoError(t, b.Send())
	}
	var evs, boards, cos, ats [][]any
	for _, e := range w.Events {
		evs = append(evs, []any{uint64(1), e.Seq, e.Type, e.ReqKey, e.CompanyID, e.Region, e.Tick, e.OccurredAt, e.ObservedAt, e.FirstSeen,
			e.RawTitle, e.Title, e.Board, e.SourceType, e.Country})
	}
	for _, s := range w.Boards {
		boards = append(boards, []any{s.ReqKey, s.CompanyID, s.Board, s.SourceType, s.FirstSeen})
	}
	for _, c := range w.Companies {
		cos = append(cos, []any{c.CompanyID, c.Domain, c.Name, c.Region, c.ATSVendor, uint8(1), w.Cycle.Tick, c.UpdatedAt})
	}
	for _, a := range w.ATS {
		ats = append(ats, []any{a.CompanyID, a.Vendor, a.Tenant, a.FirstSeen, w.Cycle.Tick})
	}
	insert("events (version, event_seq, event_type, req_key, company_id, region, tick, occurred_at, observed_at, first_seen, raw_title, title, board, source_type, country)", evs)
	insert("req_boards (req_key, company_id, board, source_type, first_seen)", boards)
	insert("companies (company_id, domain, name, region, ats_vendor, covered, tick, updated_at)", cos)
	insert("ats_history (company_id, vendor, tenant, first_seen, tick)", ats)
}

// A read snapshot serves the rows of committed cycles at its watermark only, companies, ATS
// history and board sightings included: read without the watermark gate, the rows of a cycle
// that crashed before its commit (a later tick, or another region of the committed tick) reached
// company reads (names, migrations, boards) and the search index.
func TestSnapshotServesNoRowOfAnUncommittedCycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ch, _ := storetest.ClickHouse(t, "snapshot")
	t1 := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	t2 := t1.Add(3 * time.Hour)
	key := func(company uint64) string { return fmt.Sprintf("%016x", company) }
	cycle := func(region string, tick uint32, at time.Time, seq uint64, companies ...analytics.Company) *analytics.CycleWrite {
		w := &analytics.CycleWrite{Cycle: analytics.Cycle{Region: region, Tick: tick, CycleTime: at, StartedAt: at, SeqFrom: seq, SeqTo: seq + uint64(len(companies)) - 1}}
		for i, c := range companies {
			c.Region, c.UpdatedAt, c.Covered = region, at, true
			w.Companies = append(w.Companies, c)
			w.ATS = append(w.ATS, analytics.VendorSighting{CompanyID: c.CompanyID, Vendor: c.ATSVendor, Tenant: c.Name, FirstSeen: at})
			board := map[uint32]string{1: "indeed", 2: "stepstone"}[tick]
			w.Events = append(w.Events, analytics.Event{Seq: seq + uint64(i), Type: analytics.EventOpened, ReqKey: key(c.CompanyID), CompanyID: c.CompanyID,
				Region: region, Tick: tick, OccurredAt: t1, ObservedAt: at, FirstSeen: t1, RawTitle: "Backend Engineer", Title: "Backend Engineer",
				Board: board, SourceType: "board", Country: "Germany"})
			w.Boards = append(w.Boards, analytics.ReqBoard{ReqKey: key(c.CompanyID), BoardSighting: analytics.BoardSighting{CompanyID: c.CompanyID, Board: board, SourceType: "board", FirstSeen: at}})
		}
		return w
	}
	acme := analytics.Company{CompanyID: 7, Domain: "acme.com", Name: "Acme", ATSVendor: "greenhouse"}
	beta := analytics.Company{CompanyID: 8, Domain: "beta.com", Name: "Beta", ATSVendor: "lever"}
	require.NoError(t, analytics.WriteCycle(ctx, ch, cycle("eu", 1, t1, 1, acme), 100))
	require.NoError(t, analytics.WriteCycle(ctx, ch, cycle("us", 1, t1, 2, beta), 100))
	// apac crashes at the committed tick; eu crashes at the next one (Acme renamed, moved to
	// Ashby, its req seen on stepstone; a new company).
	crash(t, ch, cycle("apac", 1, t1, 3, analytics.Company{CompanyID: 10, Domain: "gamma.com", Name: "Gamma", ATSVendor: "ashby"}))
	moved := acme
	moved.Name, moved.ATSVendor = "Acme (crashed)", "ashby"
	crash(t, ch, cycle("eu", 2, t2, 3, moved, analytics.Company{CompanyID: 9, Domain: "delta.com", Name: "Delta", ATSVendor: "ashby"}))

	s, err := snapshot.Build(ctx, ch)
	require.NoError(t, err)
	require.Equal(t, uint64(2), s.Watermark)
	require.True(t, t1.Equal(s.AsOf))
	require.Nil(t, s.Model.Company(9), "a company of the crashed later cycle")
	require.Nil(t, s.Model.Company(10), "a company of the crashed region at the committed tick")
	co := s.Model.Company(7)
	require.NotNil(t, co)
	require.Equal(t, "Acme", co.Name)
	require.Equal(t, "greenhouse", co.ATSVendor())
	require.Empty(t, co.Migrations(), "no migration to the crashed cycle's vendor")
	require.Len(t, co.Boards(), 1)
	require.Equal(t, "indeed", co.Boards()[0].Board)
	require.True(t, t1.Equal(co.LastRead()))
	r, ok := s.Index.Lookup(7, key(7))
	require.True(t, ok)
	require.Equal(t, []string{"indeed"}, r.Boards(), "the index's boards: committed sightings only")

	// The crawler's own state reads see every committed cycle and nothing else either.
	cos, err := analytics.Companies(ctx, ch)
	require.NoError(t, err)
	require.Len(t, cos, 2)
	hist, err := analytics.ATSHistory(ctx, ch)
	require.NoError(t, err)
	require.Len(t, hist, 2)
	boards, err := analytics.ReqBoards(ctx, ch)
	require.NoError(t, err)
	require.Equal(t, map[string][]string{key(7): {"indeed"}, key(8): {"indeed"}}, boards)
}
