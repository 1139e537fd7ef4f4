package bigworld

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/pipeline"
)

// Stats describe a generated world and what one Generate call wrote of it.
type Stats struct {
	Companies     int // in the directory (with and without reqs)
	WithReqs      int // companies with at least one req
	Reqs          int
	Live          int // live at the end of the history
	Events        int
	Cycles        int    // committed cycles rows (regions × ticks)
	Watermark     uint64 // the committed watermark once written (Events)
	TicksWritten  int    // ticks this call committed (0 on a complete database)
	EventsWritten int
	Took          time.Duration
}

// Generate writes the world of cfg into ch's database, which must be migrated
// (analytics.Migrate), and returns its figures. It resumes after the last committed tick and
// writes nothing when every tick is committed; a database that holds another world (another
// Config) is refused.
func Generate(ctx context.Context, ch driver.Conn, cfg Config, log *slog.Logger) (Stats, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	started := time.Now()
	cfg = cfg.withDefaults()
	w, err := newWorld(cfg)
	if err != nil {
		return Stats{}, err
	}
	st := w.stats()
	log.Info("bigworld: world drawn", "reqs", st.Reqs, "live", st.Live, "companies", st.Companies, "with_reqs", st.WithReqs,
		"events", st.Events, "ticks", w.ticks, "distinct_titles", len(w.titles), "took", time.Since(started).Round(time.Millisecond))

	var cycles, lastTick uint64
	if err := ch.QueryRow(ctx, "SELECT count(), toUInt64(max(tick)) FROM cycles").Scan(&cycles, &lastTick); err != nil {
		return st, fmt.Errorf("cannot read the committed cycles: %w", err)
	}
	from := 0
	if cycles > 0 {
		from = int(lastTick) + 1
		wm, _, err := analytics.Watermark(ctx, ch)
		if err != nil {
			return st, err
		}
		if from > w.ticks || int(cycles) != from*len(w.regions) || wm != uint64(w.start[from*len(w.regions)]) {
			return st, fmt.Errorf("cannot resume: the database holds %d cycles up to tick %d at watermark %d, which is not this world's (%d reqs, seed %d, %d days); drop it or name another database",
				cycles, lastTick, wm, cfg.Reqs, cfg.Seed, cfg.Days)
		}
	}
	if from == w.ticks {
		log.Info("bigworld: every tick is committed already; nothing written", "watermark", st.Watermark)
		st.Took = time.Since(started)
		return st, nil
	}
	if from > 0 {
		log.Info("bigworld: resuming", "from_tick", from, "of", w.ticks)
	}
	wr := &writer{w: w, ch: ch, log: log, version: uint64(time.Now().UnixNano())}
	if from == 0 {
		if err := wr.directory(ctx); err != nil {
			return st, err
		}
	}
	wr.started = time.Now()
	wr.done = w.start[from*len(w.regions)]
	wr.first = wr.done
	// One goroutine inserts, in order, while this one draws the next blocks.
	wr.jobs = make(chan func() error)
	inserted := make(chan struct{})
	go func() {
		defer close(inserted)
		for j := range wr.jobs {
			if wr.failed.Load() == nil {
				if err := j(); err != nil {
					wr.failed.Store(&err)
				}
			}
		}
	}()
	stopped := false
	stop := func() error {
		if !stopped {
			stopped = true
			close(wr.jobs)
			<-inserted
		}
		if err := wr.failed.Load(); err != nil {
			return *err
		}
		return nil
	}
	defer stop() //nolint:errcheck
	for tick := from; tick < w.ticks; tick++ {
		for r := range w.regions {
			b := tick*len(w.regions) + r
			for p := w.start[b]; p < w.start[b+1]; p++ {
				wr.event(uint64(p+1), w.ev[p], tick)
				if wr.ev.n >= cfg.Batch {
					if err := wr.flush(ctx); err != nil {
						return st, err
					}
				}
			}
		}
		wr.pendingTicks = append(wr.pendingTicks, tick)
		if wr.ev.n >= cfg.Batch/2 || len(wr.pendingTicks) >= 56 || tick == w.ticks-1 {
			if err := wr.flush(ctx); err != nil {
				return st, err
			}
			if err := wr.commit(ctx); err != nil {
				return st, err
			}
		}
	}
	if err := stop(); err != nil {
		return st, err
	}
	st.TicksWritten = w.ticks - from
	st.EventsWritten = len(w.ev) - wr.first
	st.Took = time.Since(started)
	log.Info("bigworld: world written", "events", st.EventsWritten, "ticks", st.TicksWritten, "watermark", st.Watermark,
		"took", st.Took.Round(time.Millisecond))
	return st, nil
}

// stats are the world's figures.
func (w *world) stats() Stats {
	st := Stats{Companies: len(w.cos), Reqs: len(w.reqs), Events: len(w.ev), Cycles: w.ticks * len(w.regions),
		Watermark: uint64(len(w.ev))}
	for _, c := range w.cos {
		if c.reqs > 0 {
			st.WithReqs++
		}
	}
	for r := range w.regions {
		st.Live += int(w.live[(w.ticks-1)*len(w.regions)+r])
	}
	return st
}

// writer appends the world's rows to columnar blocks and inserts them.
type writer struct {
	w            *world
	ch           driver.Conn
	log          *slog.Logger
	version      uint64
	ev           eventCols
	boards       boardCols
	pendingTicks []int
	done, first  int // events written (event_seq of the last), and where this call began
	started      time.Time
	inserting    time.Duration // time spent in INSERTs (the rest is drawing and building blocks)
	jobs         chan func() error
	failed       atomic.Pointer[error]
}

// enqueue hands j to the inserting goroutine (jobs run in order), or returns the error a job
// before it failed with.
func (wr *writer) enqueue(j func() error) error {
	if err := wr.failed.Load(); err != nil {
		return *err
	}
	wr.jobs <- j
	return nil
}

// eventCols are the events block being built, one slice per column of eventInsert.
type eventCols struct {
	n                                                        int
	version, seq, companyID, descHash                        []uint64
	typ, key, region, rawTitle, title, titleKey, function    []string
	country, location, sourceType, board, url, reqID         []string
	seniority, empType, workType, payCur, payPeriod, payText []string
	tick, repost                                             []uint32
	occurred, observed, firstSeen                            []time.Time
	postedAt                                                 []*time.Time
	boards, sources, techs, remote                           [][]string
	kinds                                                    [][]uint8
	salMin, salMax, payMin, payMax                           []*float64
	declared                                                 []uint8
	years, visa                                              []*uint8
}

const eventInsert = `INSERT INTO events (version, event_seq, event_type, req_key, company_id, region, tick, occurred_at,
	observed_at, first_seen, raw_title, title, title_key, function, country, location, source_type, boards, sources, board,
	url, requisition_id, salary_min_usd, salary_max_usd, salary_declared, repost_count, posted_at, technologies,
	technology_kinds, seniority, employment_type, workplace_type, remote_countries, years_experience_min, visa_sponsorship,
	stated_pay_min, stated_pay_max, stated_pay_currency, stated_pay_period, stated_pay_text, description_hash)`

func (c *eventCols) columns() []any {
	return []any{c.version, c.seq, c.typ, c.key, c.companyID, c.region, c.tick, c.occurred, c.observed, c.firstSeen,
		c.rawTitle, c.title, c.titleKey, c.function, c.country, c.location, c.sourceType, c.boards, c.sources, c.board,
		c.url, c.reqID, c.salMin, c.salMax, c.declared, c.repost, c.postedAt, c.techs, c.kinds, c.seniority, c.empType,
		c.workType, c.remote, c.years, c.visa, c.payMin, c.payMax, c.payCur, c.payPeriod, c.payText, c.descHash}
}

// boardCols are the req_boards block being built.
type boardCols struct {
	n                      int
	key, board, sourceType []string
	companyID              []uint64
	firstSeen              []time.Time
}

// posting is one board carrying a req: its name, source key and source type.
type posting struct{ name, source, sourceType string }

// reqState is a req as an event of it reads.
type reqState struct {
	key, location, url, sourceType, board, reqID string
	postings                                     []posting // the ATS's first, then boards
	extra                                        *posting  // the board its reobserved event adds
	salaryAtOpen, salaryAtReobs                  bool
	salMin, salMax                               float64
	posted                                       *time.Time
	descHash                                     uint64
}

// state draws what req i carries besides its title and lifecycle.
func (w *world) state(i uint32, l life) reqState {
	id := uint64(i)
	r := &w.reqs[i]
	c := &w.cos[r.co]
	t := &w.templates[r.tmpl]
	tt := &w.titles[r.title]
	country := w.countries[r.country]
	s := reqState{key: pipeline.ReqKey(c.id, tt.key, country), location: country}
	if t.facts.WorkplaceType == "remote" {
		s.location = "Remote - " + country
	}
	hexID := strconv.FormatUint(w.draw(sBoards, id^1<<33), 16)
	rb := w.boards[c.regionIdx]
	ats := c.vendor != "" && w.unit(sATS, id) < 0.95
	nb := min(t.boards, len(rb))
	if !ats && nb == 0 && len(rb) > 0 {
		nb = 1
	}
	if ats {
		s.postings = append(s.postings, posting{c.vendor, c.vendor + ":" + c.tenant, "ats_tenant"})
		s.url = "https://" + c.atsHost + "/" + c.tenant + "/jobs/" + hexID
		s.sourceType, s.board = "ats_tenant", c.vendor
	}
	first := 0
	if len(rb) > 0 {
		first = int(w.draw(sBoards, id) % uint64(len(rb)))
	}
	for k := 0; k < nb; k++ {
		b := rb[(first+k)%len(rb)]
		s.postings = append(s.postings, posting{b.name, b.key, "board"})
		if !ats && k == 0 {
			s.url = "https://" + b.host + "/job/" + hexID
			s.sourceType, s.board = "board", b.name
		}
	}
	s.salaryAtOpen = w.unit(sSalary, id) < 0.25
	if l.reobs >= 0 {
		if nb < len(rb) && w.unit(sExtra, id) < 0.5 {
			b := rb[(first+nb)%len(rb)]
			s.extra = &posting{b.name, b.key, "board"}
		} else {
			s.salaryAtReobs = !s.salaryAtOpen
		}
	}
	if s.salaryAtOpen || s.salaryAtReobs {
		base := functionPay[t.fn]
		if base == 0 {
			base = 80000
		}
		u := w.unit(sSalary, id^1<<34)
		s.salMin = math.Round(base*c.weight*(0.8+0.4*u)/1000) * 1000
		s.salMax = math.Round(s.salMin*(1.15+0.2*u)/1000) * 1000
	}
	if w.unit(sPosted, id) < 0.7 {
		p := cycleTime(l.open).Add(-time.Duration(w.draw(sPosted, id^1<<35)%uint64(cycleEvery/time.Second)) * time.Second)
		s.posted = &p
	}
	if w.unit(sReqID, id) < 0.4 {
		s.reqID = fmt.Sprintf("R-%07d", w.draw(sReqID, id^1<<36)%10_000_000)
	}
	if w.unit(sDesc, id) < 0.85 {
		s.descHash = w.draw(sDesc, id^1<<37) | 1
	}
	return s
}

// event appends event seq (ev: req<<2 | kind) of tick to the blocks, with the board sightings
// it is the first to carry.
func (wr *writer) event(seq uint64, ev uint32, tick int) {
	w := wr.w
	i, kind := ev>>2, int(ev&3)
	l := w.lifeOf(i)
	s := w.state(i, l)
	r := &w.reqs[i]
	c := &w.cos[r.co]
	t := &w.templates[r.tmpl]
	tt := &w.titles[r.title]
	at := cycleTime(tick)
	first := cycleTime(l.open)
	e := &wr.ev
	e.n++
	e.version = append(e.version, wr.version)
	e.seq = append(e.seq, seq)
	e.typ = append(e.typ, kindNames[kind])
	e.key = append(e.key, s.key)
	e.companyID = append(e.companyID, c.id)
	e.region = append(e.region, c.region)
	e.tick = append(e.tick, uint32(tick))
	occurred := at
	if kind == kindOpened && s.posted != nil {
		occurred = *s.posted
	}
	e.occurred = append(e.occurred, occurred)
	e.observed = append(e.observed, at)
	e.firstSeen = append(e.firstSeen, first)
	e.rawTitle = append(e.rawTitle, tt.raw)
	e.title = append(e.title, tt.clean)
	e.titleKey = append(e.titleKey, tt.key)
	e.function = append(e.function, tt.function)
	e.country = append(e.country, w.countries[r.country])
	e.location = append(e.location, s.location)
	e.sourceType = append(e.sourceType, s.sourceType)
	ps := s.postings
	if s.extra != nil && kind != kindOpened {
		ps = append(ps, *s.extra)
	}
	names := make([]string, 0, len(ps))
	sources := make([]string, 0, len(ps))
	for _, p := range ps {
		names = append(names, p.name)
		sources = append(sources, p.source)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	slices.Sort(sources)
	e.boards = append(e.boards, names)
	e.sources = append(e.sources, sources)
	e.board = append(e.board, s.board)
	e.url = append(e.url, s.url)
	e.reqID = append(e.reqID, s.reqID)
	declared := s.salaryAtOpen || (s.salaryAtReobs && kind != kindOpened)
	if declared {
		lo, hi := s.salMin, s.salMax
		e.salMin, e.salMax, e.declared = append(e.salMin, &lo), append(e.salMax, &hi), append(e.declared, 1)
	} else {
		e.salMin, e.salMax, e.declared = append(e.salMin, nil), append(e.salMax, nil), append(e.declared, 0)
	}
	var repost uint32
	if kind == kindReposted {
		repost = 1
	}
	e.repost = append(e.repost, repost)
	e.postedAt = append(e.postedAt, s.posted)
	f := &t.facts
	techs, kinds, remote := f.Technologies, f.TechKinds, f.RemoteCountries
	if techs == nil {
		techs, kinds = []string{}, []uint8{}
	}
	if remote == nil {
		remote = []string{}
	}
	e.techs, e.kinds, e.remote = append(e.techs, techs), append(e.kinds, kinds), append(e.remote, remote)
	e.seniority, e.empType, e.workType = append(e.seniority, f.Seniority), append(e.empType, f.EmploymentType), append(e.workType, f.WorkplaceType)
	var years, visa *uint8
	if f.YearsMin != nil {
		years = f.YearsMin
	}
	if f.Visa != nil {
		v := uint8(0)
		if *f.Visa {
			v = 1
		}
		visa = &v
	}
	e.years, e.visa = append(e.years, years), append(e.visa, visa)
	if p := t.pay; p != nil && !declared {
		lo, hi := p.Min, p.Max
		e.payMin, e.payMax = append(e.payMin, &lo), append(e.payMax, &hi)
		e.payCur, e.payPeriod = append(e.payCur, p.Currency), append(e.payPeriod, p.Period)
		e.payText = append(e.payText, fmt.Sprintf("%s %.0f – %.0f per %s", p.Currency, p.Min, p.Max, p.Period))
	} else {
		e.payMin, e.payMax = append(e.payMin, nil), append(e.payMax, nil)
		e.payCur, e.payPeriod, e.payText = append(e.payCur, ""), append(e.payPeriod, ""), append(e.payText, "")
	}
	e.descHash = append(e.descHash, s.descHash)

	// Board sightings: every posting at the opening, the added board at the reobservation.
	b := &wr.boards
	sight := func(p posting) {
		b.n++
		b.key, b.companyID, b.board = append(b.key, s.key), append(b.companyID, c.id), append(b.board, p.name)
		b.sourceType, b.firstSeen = append(b.sourceType, p.sourceType), append(b.firstSeen, at)
	}
	switch {
	case kind == kindOpened:
		for _, p := range s.postings {
			sight(p)
		}
	case kind == kindReobserved && s.extra != nil:
		sight(*s.extra)
	}
}

// insert sends one INSERT of the columns cols (in the statement's order).
func (wr *writer) insert(ctx context.Context, stmt string, cols []any) error {
	t0 := time.Now()
	defer func() { wr.inserting += time.Since(t0) }()
	b, err := wr.ch.PrepareBatch(ctx, stmt)
	if err != nil {
		return fmt.Errorf("cannot prepare %.40s…: %w", stmt, err)
	}
	for i, c := range cols {
		if err := b.Column(i).Append(c); err != nil {
			_ = b.Abort()
			return fmt.Errorf("cannot append column %d of %.40s…: %w", i, stmt, err)
		}
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("cannot send %.40s…: %w", stmt, err)
	}
	return nil
}

// flush hands the events and board sightings built so far to the inserting goroutine (not yet
// committed).
func (wr *writer) flush(ctx context.Context) error {
	ev, b := wr.ev, wr.boards
	wr.ev, wr.boards = eventCols{}, boardCols{}
	return wr.enqueue(func() error {
		if ev.n > 0 {
			if err := wr.insert(ctx, eventInsert, ev.columns()); err != nil {
				return err
			}
			wr.done += ev.n
		}
		if b.n > 0 {
			if err := wr.insert(ctx, "INSERT INTO req_boards (req_key, company_id, board, source_type, first_seen)",
				[]any{b.key, b.companyID, b.board, b.sourceType, b.firstSeen}); err != nil {
				return err
			}
		}
		el := time.Since(wr.started)
		rate := float64(wr.done-wr.first) / el.Seconds()
		left := time.Duration(float64(len(wr.w.ev)-wr.done) / math.Max(rate, 1) * float64(time.Second))
		wr.log.Info("bigworld: events written", "done", wr.done, "of", len(wr.w.ev), "per_second", int(rate),
			"elapsed", el.Round(time.Second), "inserting", wr.inserting.Round(time.Second), "left", left.Round(time.Second))
		return nil
	})
}

// commit writes the cycles rows of the pending ticks: their events are written.
func (wr *writer) commit(ctx context.Context) error {
	w := wr.w
	var (
		region                                       []string
		tick, total, pages                           []uint32
		at, startedAt, finished                      []time.Time
		postings, zero, live, events, seqFrom, seqTo []uint64
	)
	sources := make([]uint32, len(w.regions))
	for _, c := range w.cos {
		if c.vendor != "" {
			sources[c.regionIdx]++
		}
	}
	for r := range w.regions {
		sources[r] += uint32(len(w.boards[r]))
	}
	for _, t := range wr.pendingTicks {
		for r, name := range w.regions {
			b := t*len(w.regions) + r
			ct := cycleTime(t)
			region, tick = append(region, name), append(tick, uint32(t))
			at, startedAt, finished = append(at, ct), append(startedAt, ct), append(finished, ct.Add(10*time.Minute))
			total, pages = append(total, sources[r]), append(pages, sources[r]+sources[r]/2)
			n := uint64(max(0, w.live[b]))
			postings, zero, live = append(postings, n*19/10), append(zero, 0), append(live, n)
			events = append(events, uint64(w.start[b+1]-w.start[b]))
			seqFrom, seqTo = append(seqFrom, uint64(w.start[b]+1)), append(seqTo, uint64(w.start[b+1]))
		}
	}
	first, last := wr.pendingTicks[0], wr.pendingTicks[len(wr.pendingTicks)-1]
	wr.pendingTicks = wr.pendingTicks[:0]
	return wr.enqueue(func() error {
		if err := wr.insert(ctx, `INSERT INTO cycles (region, tick, cycle_time, started_at, finished_at, sources_total, sources_ok,
			sources_failed, pages, postings, malformed, unresolved, reqs_live, events, seq_from, seq_to)`,
			[]any{region, tick, at, startedAt, finished, total, total, make([]uint32, len(tick)), pages, postings, zero, zero,
				live, events, seqFrom, seqTo}); err != nil {
			return fmt.Errorf("cannot commit ticks %d–%d: %w", first, last, err)
		}
		wr.log.Info("bigworld: ticks committed", "through", last, "of", w.ticks, "watermark", seqTo[len(seqTo)-1])
		return nil
	})
}

// directory writes the companies and their ATS tenants, at tick 0 of their regions (served once
// tick 0 is committed).
func (wr *writer) directory(ctx context.Context) error {
	w := wr.w
	at := cycleTime(0)
	for lo := 0; lo < len(w.cos); lo += w.cfg.Batch {
		cos := w.cos[lo:min(lo+w.cfg.Batch, len(w.cos))]
		n := len(cos)
		var (
			id                                                       = make([]uint64, 0, n)
			domain, name, nameKey, hq, region, industry, band, ag, v = make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n)
			covered                                                  = make([]uint8, 0, n)
			aID                                                      []uint64
			aVendor, aTenant                                         []string
		)
		for _, c := range cos {
			id, domain, name, nameKey = append(id, c.id), append(domain, c.domain), append(name, c.name), append(nameKey, c.nameKey)
			hq, region, industry, band = append(hq, c.hq), append(region, c.region), append(industry, c.industry), append(band, c.band)
			ag, v = append(ag, c.agency), append(v, c.vendor)
			cov := uint8(0)
			if c.vendor != "" {
				cov = 1
				aID, aVendor, aTenant = append(aID, c.id), append(aVendor, c.vendor), append(aTenant, c.tenant)
			}
			covered = append(covered, cov)
		}
		times := slices.Repeat([]time.Time{at}, n)
		if err := wr.insert(ctx, `INSERT INTO companies (company_id, domain, name, name_key, hq_country, region, industry,
			headcount_band, agency_kind, ats_vendor, covered, tick, updated_at)`,
			[]any{id, domain, name, nameKey, hq, region, industry, band, ag, v, covered, make([]uint32, n), times}); err != nil {
			return err
		}
		if len(aID) > 0 {
			if err := wr.insert(ctx, "INSERT INTO ats_history (company_id, vendor, tenant, first_seen, tick)",
				[]any{aID, aVendor, aTenant, times[:len(aID)], make([]uint32, len(aID))}); err != nil {
				return err
			}
		}
	}
	wr.log.Info("bigworld: directory written", "companies", len(w.cos))
	return nil
}
