package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
)

// The synthetic ledger: events numbered 1..n in committed cycles of perCycle events, one cycle
// every 3 hours from fillEpoch, over a fixed population of companies and reqs, written with the
// crawl's own cycle write (analytics.WriteCycle), so the rows, the version and the commit marker
// are those of a real crawl. A run that stopped part-way resumes after the last committed cycle.

var fillEpoch = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)

const (
	fillCompanies = 20_000
	fillReqs      = 500_000 // each req gets about n/fillReqs events
	perCycle      = 100_000 // events per committed cycle (one INSERT block each)
)

var (
	titles = []string{"Senior Software Engineer", "Account Executive", "Product Manager", "Data Scientist", "Registered Nurse",
		"Warehouse Associate", "Marketing Manager", "Customer Success Manager", "DevOps Engineer", "Financial Analyst",
		"Recruiter", "UX Designer", "Sales Development Representative", "Backend Engineer (Go)", "Head of People"}
	countries = []string{"United States", "Germany", "France", "United Kingdom", "Brazil", "India", "Japan", ""}
	boards    = []string{"greenhouse", "lever", "ashby", "workable", "indeed", "linkedin-jobs", ""}
)

// companyID is the id of company i (never 0).
func companyID(i int) uint64 { return 1_000_000 + uint64(i) }

// eventAt is event seq of the synthetic ledger, observed at at.
func eventAt(seq uint64, at time.Time, fns []string) analytics.Event {
	req := seq % fillReqs
	co := int(req % fillCompanies)
	n := seq / fillReqs // how many events of this req came before
	typ := analytics.EventReobserved
	switch {
	case n == 0:
		typ = analytics.EventOpened
	case n%4 == 1:
		typ = analytics.EventClosed
	case n%4 == 2:
		typ = analytics.EventReposted
	}
	country := countries[req%uint64(len(countries))]
	board := boards[req%uint64(len(boards))]
	e := analytics.Event{Seq: seq, Type: typ, ReqKey: fmt.Sprintf("%016x", req*0x9E3779B97F4A7C15), CompanyID: companyID(co),
		Region: "bench", OccurredAt: at, ObservedAt: at, FirstSeen: fillEpoch, RawTitle: titles[req%uint64(len(titles))],
		Function: fns[req%uint64(len(fns))], Country: country, Location: country, SourceType: "ats_tenant", Board: board,
		Boards: []string{board}, Sources: []string{"bench"}}
	if board != "" {
		e.URL = fmt.Sprintf("https://jobs.example.com/%d/%d", co, req)
	}
	return e
}

// fill commits cycles until the ledger holds at least n events and returns the watermark.
func fill(ctx context.Context, ch driver.Conn, n uint64) (uint64, time.Time, error) {
	wm, at, err := analytics.Watermark(ctx, ch)
	if err != nil {
		return 0, time.Time{}, err
	}
	if wm >= n {
		return wm, at, nil
	}
	var fns []string
	for _, name := range normalize.FunctionNames() {
		ids, _ := normalize.ResolveFunction(name)
		fns = append(fns, ids...)
	}
	fns = append(fns, "") // some titles have no function
	tick := uint32(wm / perCycle)
	if wm%perCycle != 0 {
		return 0, time.Time{}, fmt.Errorf("cannot resume the fill: watermark %d is not a multiple of %d; drop the database (flag --clickhouse-database) and rerun", wm, perCycle)
	}
	started := time.Now()
	for next := wm + 1; next <= n; next += perCycle {
		at := fillEpoch.Add(time.Duration(tick) * 3 * time.Hour)
		w := &analytics.CycleWrite{Cycle: analytics.Cycle{Region: "bench", Tick: tick, CycleTime: at, StartedAt: at,
			Events: perCycle, SeqFrom: next, SeqTo: next + perCycle - 1}}
		w.Events = make([]analytics.Event, 0, perCycle)
		for s := next; s < next+perCycle; s++ {
			w.Events = append(w.Events, eventAt(s, at, fns))
		}
		if tick == 0 {
			for i := range fillCompanies {
				w.Companies = append(w.Companies, analytics.Company{CompanyID: companyID(i), Domain: fmt.Sprintf("co%d.example.com", i),
					Name: fmt.Sprintf("Company %d GmbH", i), NameKey: fmt.Sprintf("company %d", i), Region: "bench", Covered: true, UpdatedAt: at})
			}
		}
		if err := analytics.WriteCycle(ctx, ch, w, perCycle); err != nil {
			return 0, time.Time{}, fmt.Errorf("cannot write cycle %d of the synthetic ledger: %w", tick, err)
		}
		done := next + perCycle - 1
		el := time.Since(started)
		fmt.Fprintf(os.Stderr, "\rfilled %d/%d events (%.0f events/s)   ", done, n, float64(done-wm)/el.Seconds())
		tick++
	}
	fmt.Fprintln(os.Stderr)
	return analytics.Watermark(ctx, ch)
}
