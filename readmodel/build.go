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
	k := strings.Join(bs, "\x00")
	if l, ok := in.boards[k]; ok {
		return l
	}
	l := make([]string, len(bs))
	for i, b := range bs {
		l[i] = in.str(b)
	}
	in.boards[strings.Clone(k)] = l
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
	activeFrom := now.Add(-ActiveWindow).Unix()
	if err := analytics.StreamCurrentReqs(ctx, ch, wm, now, func(r *analytics.Req) error {
		c := m.companies[r.CompanyID]
		if c == nil {
			return nil // a req of a company the directory no longer lists: nothing to serve it under
		}
		c.stats.anyReq = true
		c.stats.addFirstSeen(r.FirstSeen, now)
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

	if err := analytics.StreamMomentum(ctx, ch, wm, func(w analytics.WeekCount) error {
		if c := m.companies[w.Key]; c != nil {
			c.momentum = append(c.momentum, week{day: mondayDay(w.BucketStart), opened: uint32(w.Opened), reposted: uint32(w.Reposted), closed: uint32(w.Closed)})
		}
		return nil
	}); err != nil {
		return nil, err
	}
	phase("momentum")

	if err := analytics.StreamFirstHires(ctx, ch, wm, func(f *analytics.FirstHire) error {
		if c := m.companies[f.CompanyID]; c != nil {
			c.FirstHires = append(c.FirstHires, FirstHire{Function: in.str(f.Function), FirstSeen: f.FirstSeen.UTC(),
				ReqKey: strings.Clone(f.ReqKey), RawTitle: in.str(f.RawTitle), Board: in.str(f.Board)})
		}
		return nil
	}); err != nil {
		return nil, err
	}
	phase("first_hires")

	hist, err := analytics.ATSHistory(ctx, ch)
	if err != nil {
		return nil, err
	}
	var prev *analytics.VendorSighting
	for i := range hist {
		h := &hist[i]
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
	phase("ats_history")

	if err := analytics.StreamCompanyBoards(ctx, ch, now, func(b *analytics.BoardSighting) error {
		if c := m.companies[b.CompanyID]; c != nil {
			c.Boards = append(c.Boards, BoardSeen{Board: in.str(b.Board), SourceType: in.str(b.SourceType), FirstSeen: b.FirstSeen.UTC()})
		}
		return nil
	}); err != nil {
		return nil, err
	}

	phase("boards")
	for _, c := range m.companies {
		m.finish(c)
	}
	phase("finish")
	m.Phases = strings.Join(phases, " ")
	m.BuiltAt = time.Now().UTC()
	m.BuildTook = time.Since(started)
	return m, nil
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
