package readmodel

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/pipeline/normalize"
)

// companyRegion is the cycles-table region of an on-demand crawl of one company (the same
// format as pipeline.CompanyRegion).
func companyRegion(id uint64) string { return fmt.Sprintf("company:%d", id) }

// interner shares the many repeated strings (titles, functions, countries, boards) and board
// lists of a build, which is most of the model's memory otherwise.
type interner struct {
	s      map[string]string
	boards map[string][]string
	key    []byte
}

func newInterner() *interner {
	return &interner{s: make(map[string]string, 1<<16), boards: make(map[string][]string, 1<<10)}
}

func (in *interner) str(v string) string {
	if v == "" {
		return ""
	}
	if s, ok := in.s[v]; ok {
		return s
	}
	v = strings.Clone(v)
	in.s[v] = v
	return v
}

func (in *interner) list(bs []string) []string {
	in.key = in.key[:0]
	for _, b := range bs {
		in.key = append(in.key, b...)
		in.key = append(in.key, 0)
	}
	if l, ok := in.boards[string(in.key)]; ok { // no allocation for the lookup
		return l
	}
	l := make([]string, len(bs))
	for i, b := range bs {
		l[i] = in.str(b)
	}
	in.boards[string(in.key)] = l
	return l
}

// Build reads the committed ledger and returns a complete model. It holds ClickHouse result sets
// one row at a time (streaming), so its memory is the model plus one row.
func Build(ctx context.Context, ch driver.Conn) (*Model, error) {
	started := time.Now()
	mark := started
	var phases []string
	phase := func(name string) {
		phases = append(phases, name+"="+time.Since(mark).Round(time.Millisecond).String())
		mark = time.Now()
	}
	wm, asOf, err := analytics.Watermark(ctx, ch)
	if err != nil {
		return nil, err
	}
	m := &Model{Watermark: wm, AsOf: asOf.UTC(), companies: map[uint64]*Company{}, byDomain: map[string][]*Company{}, byNameKey: map[string][]*Company{}}
	regions, err := analytics.RegionReads(ctx, ch)
	if err != nil {
		return nil, err
	}
	first := map[string]time.Time{}
	latest := map[string]time.Time{}
	for _, r := range regions {
		first[r.Region], latest[r.Region] = r.First.UTC(), r.Latest.UTC()
		if m.Since.IsZero() || r.First.Before(m.Since) {
			m.Since = r.First.UTC()
		}
	}

	cos, err := analytics.Companies(ctx, ch)
	if err != nil {
		return nil, err
	}
	in := newInterner()
	m.companies = make(map[uint64]*Company, len(cos))
	for i := range cos {
		a := &cos[i]
		c := &Company{ID: a.CompanyID, Domain: a.Domain, Name: a.Name, HQCountry: in.str(a.HQCountry), Region: in.str(a.Region),
			Industry: in.str(a.Industry), HeadcountBand: in.str(a.HeadcountBand), AgencyKind: in.str(a.AgencyKind), ATSVendor: in.str(a.ATSVendor)}
		if a.Covered {
			c.Coverage = CoverageCovered
		}
		c.ObservedFrom = first[a.Region]
		c.LastRead = latest[a.Region]
		if t, ok := latest[companyRegion(c.ID)]; ok && t.After(c.LastRead) {
			c.LastRead = t
		}
		if c.ObservedFrom.IsZero() {
			c.ObservedFrom = first[companyRegion(c.ID)]
		}
		m.companies[c.ID] = c
	}
	cos = nil
	phase("companies")

	now := m.AsOf
	// The smaller reads run beside the req stream (one goroutine, joined before this returns), so
	// ClickHouse works on them while this goroutine decodes reqs.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sideDone := make(chan struct{})
	var sd side
	go func() {
		defer close(sideDone)
		sd.read(sctx, ch, wm, now)
	}()
	defer func() { cancel(); <-sideDone }()
	activeFrom := now.Add(-ActiveWindow).Unix()
	if err := analytics.StreamCurrentReqs(ctx, ch, wm, now, func(r *analytics.Req) error {
		c := m.companies[r.CompanyID]
		if c == nil {
			return nil // a req of a company the directory no longer lists: nothing to serve it under
		}
		c.stats.anyReq = true
		c.stats.addFirstSeen(r.FirstSeen, now)
		if r.Function != "" {
			c.firstHire(in, r)
		}
		live := r.Live()
		if !live && r.RepostCount == 0 {
			return nil
		}
		q := Req{Key: strings.Clone(r.ReqKey), RawTitle: in.str(r.RawTitle), Title: in.str(r.Title), Function: in.str(r.Function),
			Country: in.str(r.Country), SourceType: in.str(r.SourceType), Boards: in.list(r.Boards),
			FirstSeen: r.FirstSeen.Unix(), LastEventAt: r.LastEventAt.Unix(), RepostCount: r.RepostCount, Live: live}
		if r.SalaryMinUSD != nil {
			q.SalaryMinUSD, q.HasSalaryMin = *r.SalaryMinUSD, true
		}
		if r.SalaryMaxUSD != nil {
			q.SalaryMaxUSD, q.HasSalaryMax = *r.SalaryMaxUSD, true
		}
		if live {
			c.Live = append(c.Live, q)
			c.stats.open++
			if q.LastEventAt >= activeFrom {
				c.stats.active++
			}
			m.liveReqs++
		}
		if q.RepostCount > 0 {
			c.Reposted = append(c.Reposted, q)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	phase("reqs")

	<-sideDone
	phase("side_reads")
	if sd.err != nil {
		return nil, sd.err
	}
	for _, w := range sd.momentum {
		if c := m.companies[w.Key]; c != nil {
			c.momentum = append(c.momentum, week{day: mondayDay(w.BucketStart), opened: uint32(w.Opened), reposted: uint32(w.Reposted), closed: uint32(w.Closed)})
		}
	}
	var prev *analytics.VendorSighting
	for i := range sd.ats {
		h := &sd.ats[i]
		if h.FirstSeen.After(now) {
			continue // sighted by a cycle above the watermark
		}
		c := m.companies[h.CompanyID]
		if prev != nil && prev.CompanyID == h.CompanyID && prev.Vendor != h.Vendor && c != nil {
			c.Migrations = append(c.Migrations, Migration{FromVendor: in.str(prev.Vendor), ToVendor: in.str(h.Vendor), ObservedAt: h.FirstSeen.UTC()})
		}
		if c != nil && c.Coverage == "" {
			c.Coverage = CoverageCovered // a tenant was read once: the company has ATS coverage
		}
		prev = h
	}
	for i := range sd.boards {
		b := &sd.boards[i]
		if c := m.companies[b.CompanyID]; c != nil {
			c.Boards = append(c.Boards, BoardSeen{Board: in.str(b.Board), SourceType: in.str(b.SourceType), FirstSeen: b.FirstSeen.UTC()})
		}
	}
	sd = side{}
	phase("apply")
	for _, c := range m.companies {
		m.finish(c)
	}
	phase("finish")
	m.Phases = strings.Join(phases, " ")
	m.BuiltAt = time.Now().UTC()
	m.BuildTook = time.Since(started)
	return m, nil
}

// side holds the reads that run beside the req stream: weekly momentum, ATS history and board
// sightings (a few hundred thousand small rows at 100,000 companies).
type side struct {
	momentum []analytics.WeekCount
	ats      []analytics.VendorSighting
	boards   []analytics.BoardSighting
	err      error
}

func (s *side) read(ctx context.Context, ch driver.Conn, wm uint64, now time.Time) {
	if s.err = analytics.StreamMomentum(ctx, ch, wm, func(w analytics.WeekCount) error {
		s.momentum = append(s.momentum, w)
		return nil
	}); s.err != nil {
		return
	}
	if s.ats, s.err = analytics.ATSHistory(ctx, ch); s.err != nil {
		return
	}
	s.err = analytics.StreamCompanyBoards(ctx, ch, now, func(b *analytics.BoardSighting) error {
		s.boards = append(s.boards, *b)
		return nil
	})
}

// firstHire keeps r when it is the earliest req observed in its function at c (ties: the lower
// req_key, as analytics.FirstHires). A company has a few dozen functions at most: a linear scan.
func (c *Company) firstHire(in *interner, r *analytics.Req) {
	fs := r.FirstSeen.UTC()
	for i := range c.FirstHires {
		f := &c.FirstHires[i]
		if f.Function != r.Function {
			continue
		}
		if fs.Before(f.FirstSeen) || (fs.Equal(f.FirstSeen) && r.ReqKey < f.ReqKey) {
			*f = FirstHire{Function: f.Function, FirstSeen: fs, ReqKey: strings.Clone(r.ReqKey), RawTitle: in.str(r.RawTitle), Board: in.str(r.Board)}
		}
		return
	}
	c.FirstHires = append(c.FirstHires, FirstHire{Function: in.str(r.Function), FirstSeen: fs, ReqKey: strings.Clone(r.ReqKey),
		RawTitle: in.str(r.RawTitle), Board: in.str(r.Board)})
}

// finish orders a company's lists, settles its coverage and indexes it for resolve.
func (m *Model) finish(c *Company) {
	if c.Coverage == "" {
		if c.stats.anyReq || len(c.Boards) > 0 {
			c.Coverage = CoverageCovered // board or aggregator postings were observed
		} else {
			c.Coverage = CoverageNoATSSignal
		}
	}
	slices.SortFunc(c.Live, func(a, b Req) int {
		if a.FirstSeen != b.FirstSeen {
			return cmpInt(b.FirstSeen, a.FirstSeen)
		}
		return strings.Compare(a.Key, b.Key)
	})
	slices.SortFunc(c.FirstHires, func(a, b FirstHire) int {
		if c := a.FirstSeen.Compare(b.FirstSeen); c != 0 {
			return c
		}
		return strings.Compare(a.Function, b.Function)
	})
	slices.SortFunc(c.Reposted, func(a, b Req) int {
		if a.RepostCount != b.RepostCount {
			return cmpInt(int64(b.RepostCount), int64(a.RepostCount))
		}
		if a.FirstSeen != b.FirstSeen {
			return cmpInt(a.FirstSeen, b.FirstSeen)
		}
		return strings.Compare(a.Key, b.Key)
	})
	if d := normalize.DomainKey(c.Domain); d != "" {
		m.byDomain[d] = append(m.byDomain[d], c)
	}
	if k := normalize.CompanyKey(c.Name); k != "" {
		m.byNameKey[k] = append(m.byNameKey[k], c)
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
