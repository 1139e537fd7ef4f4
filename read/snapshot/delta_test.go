package snapshot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/searchindex"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// TestAppliedCommitsAnswerAsAFullRebuild drives a crawled world's history one commit at a time:
// a region's cycle at a time over several days (opens, closes, reposts, reobservations), on-demand
// crawls of one company between windows, and a jump of five weeks (closed reqs leave the index's
// window, pulses' windows move on, a gap). After every commit the snapshot Update applied to the
// previous one answers every company read, every req and a set of search queries byte for byte
// as a full Build at the same watermark does, and every commit after the first window was applied,
// not rebuilt.
func TestAppliedCommitsAnswerAsAFullRebuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := readmodeltest.Crawl(t, readmodeltest.Config{Seed: 23, Companies: 36, First: 300, Last: 300})
	policy := snapshot.Policy{MaxTouched: 1, MaxDeltas: 1000}
	cur, err := snapshot.Update(ctx, w.CH, nil, policy)
	require.NoError(t, err)
	require.Equal(t, snapshot.KindFull, cur.Kind)
	require.Equal(t, "first build", cur.Reason)

	commits, applied := 0, 0
	check := func(what string) {
		t.Helper()
		next, err := snapshot.Update(ctx, w.CH, cur, policy)
		require.NoError(t, err)
		require.Equal(t, snapshot.KindDelta, next.Kind, "%s: rebuilt whole (%s)", what, next.Reason)
		full, err := snapshot.Build(ctx, w.CH)
		require.NoError(t, err)
		require.Equal(t, full.Watermark, next.Watermark, what)
		requireSameAnswers(t, w, full, next, what)
		requireSameAnswers(t, w, full, next, what) // twice: an answer must not change what the next one reads
		cur = next
		commits++
		applied += next.Touched
		t.Logf("%s: %d companies touched, applied in %s (%s), full build %s", what, next.Touched, next.BuildTook.Round(time.Millisecond), next.Phases, full.BuildTook.Round(time.Millisecond))
	}
	// Tick 304 commits region by region; the later ticks commit every region in one update (as a
	// snapshot that fell behind applies them), 376 after the reobserve cadence, 648 after a jump.
	for _, tick := range []int{304, 312, 320, 376, 648, 656} {
		w.Sim.Pin(tick)
		dir, err := pipeline.FetchDirectory(ctx, http.DefaultClient, w.Base, tick)
		require.NoError(t, err)
		if tick == 304 {
			for _, region := range dir.Regions {
				_, err := w.Crawler.RunRegions(ctx, dir, []string{region})
				require.NoError(t, err)
				check(fmt.Sprintf("tick %d, region %s", tick, region))
			}
		} else {
			_, err := w.Crawler.RunRegions(ctx, dir, dir.Regions)
			require.NoError(t, err)
			check(fmt.Sprintf("tick %d", tick))
		}
		if tick == 312 || tick == 656 {
			// An on-demand crawl of one company an hour after the window.
			co := dir.Companies[tick%len(dir.Companies)]
			_, err := w.Crawler.RunCompany(ctx, dir, co.Domain, w.Sim.CycleTime(tick).Add(time.Hour))
			require.NoError(t, err)
			check(fmt.Sprintf("tick %d, on-demand crawl of %s", tick, co.Domain))
		}
	}
	require.Greater(t, commits, 10)
	require.Positive(t, applied)

	// The history held every kind of change.
	seen := map[string]int{}
	page, err := analytics.ReadFeed(ctx, w.CH, analytics.FeedQuery{After: 0, Upper: cur.Watermark, Limit: int(cur.Watermark)})
	require.NoError(t, err)
	for _, e := range page.Events {
		seen[e.Type]++
	}
	for _, typ := range []string{analytics.EventOpened, analytics.EventClosed, analytics.EventReposted, analytics.EventReobserved} {
		require.Positive(t, seen[typ], "no %s event in the history: %v", typ, seen)
	}
	require.NotEmpty(t, cur.Gaps, "the jump is a gap")
}

// When the touched companies' reqs are too many to read at their ledger positions, an applied
// commit scans those companies' events instead, and answers as a full rebuild all the same.
func TestAppliedCommitsReadByAScanAnswerAsAFullRebuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := readmodeltest.Crawl(t, readmodeltest.Config{Seed: 29, Companies: 16, First: 300, Last: 300})
	policy := snapshot.Policy{MaxTouched: 1, MaxDeltas: 1000, MaxPositions: -1}
	cur, err := snapshot.Update(ctx, w.CH, nil, policy)
	require.NoError(t, err)
	check := func(what string) {
		t.Helper()
		next, err := snapshot.Update(ctx, w.CH, cur, policy)
		require.NoError(t, err)
		require.Equal(t, snapshot.KindDelta, next.Kind, "%s: rebuilt whole (%s)", what, next.Reason)
		require.Positive(t, next.Touched, what)
		full, err := snapshot.Build(ctx, w.CH)
		require.NoError(t, err)
		require.Equal(t, full.Watermark, next.Watermark, what)
		requireSameAnswers(t, w, full, next, what)
		cur = next
	}
	for _, tick := range []int{308, 316} {
		w.CrawlAt(t, tick)
		check(fmt.Sprintf("tick %d", tick))
		w.Sim.Pin(tick)
		dir, err := pipeline.FetchDirectory(ctx, http.DefaultClient, w.Base, tick)
		require.NoError(t, err)
		co := dir.Companies[tick%len(dir.Companies)]
		_, err = w.Crawler.RunCompany(ctx, dir, co.Domain, w.Sim.CycleTime(tick).Add(time.Hour))
		require.NoError(t, err)
		check(fmt.Sprintf("tick %d, on-demand crawl of %s", tick, co.Domain))
	}
}

// requireSameAnswers compares what want and got answer, one answer at a time.
func requireSameAnswers(t *testing.T, w *readmodeltest.World, want, got *snapshot.Snapshot, what string) {
	t.Helper()
	a, b := answers(t, w, want), answers(t, w, got)
	require.Equal(t, len(a.order), len(b.order), "%s: the number of answers", what)
	for i, k := range a.order {
		require.Equal(t, k, b.order[i], "%s: answer %d", what, i)
		require.Equal(t, a.m[k], b.m[k], "%s: %s", what, k)
	}
}

// companyRead is what a company of the model reads: its exported fields and what its methods
// read back from its lineage's dictionaries and lists.
func companyRead(c *readmodel.Company) map[string]any {
	return map[string]any{"fields": c, "hq_country": c.HQCountry(), "region": c.Region(), "industry": c.Industry(),
		"headcount_band": c.HeadcountBand(), "agency_kind": c.AgencyKind(), "ats_vendor": c.ATSVendor(), "coverage": c.Coverage(),
		"observed_from": c.ObservedFrom(), "last_read": c.LastRead(), "reposted": c.Reposted(), "boards": c.Boards(),
		"first_hires": c.FirstHires(), "migrations": c.Migrations(), "censored_functions": c.CensoredFunctions()}
}

type answerSet struct {
	order []string
	m     map[string]string
}

func (s *answerSet) add(t *testing.T, name string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err, name)
	s.order = append(s.order, name)
	s.m[name] = string(b)
}

// answers is every answer the test compares: each company's read (its exported fields, pulses
// with and without a freshness floor, resolve), every req of the index with what is derived of
// it, and pages of the searches.
func answers(t *testing.T, w *readmodeltest.World, s *snapshot.Snapshot) *answerSet {
	t.Helper()
	out := &answerSet{m: map[string]string{}}
	cos, err := analytics.CompaniesAt(context.Background(), w.CH, analytics.AtWatermark(s.Watermark, s.AsOf))
	require.NoError(t, err)
	m, x := s.Model, s.Index
	floor := readmodel.FreshBefore(s.AsOf, 3*24*3600)
	out.add(t, "model", []any{m.Watermark, m.AsOf, m.Since, m.Companies(), m.LiveReqs(), idOf(m.HighMotion()), idOf(m.MostLive())})
	for _, co := range cos {
		id := co.CompanyID
		c := m.Company(id)
		name := fmt.Sprintf("company %d", id)
		if c == nil {
			out.add(t, name, nil)
			continue
		}
		out.add(t, name, companyRead(c))
		out.add(t, name+" pulse", m.PulseOf(c, true))
		out.add(t, name+" floored pulse", s.PulseUnder(c, true, floor))
		var byDomain []uint64
		for _, d := range m.ByDomain(co.Domain) {
			byDomain = append(byDomain, d.ID)
		}
		out.add(t, name+" by domain", byDomain)
		var resolved []any
		for _, r := range m.ResolveName(co.Name, 5) {
			resolved = append(resolved, []any{r.Company.ID, r.Confidence})
		}
		out.add(t, name+" resolve", resolved)
		ic, _ := x.Company(id)
		out.add(t, name+" index company", ic)
		reqs := x.CompanyReqs(id)
		for i := range reqs {
			r := &reqs[i]
			sal := x.Salary(r)
			fig, basis, ok := x.SalaryFigure(r)
			out.add(t, "req "+r.Key, []any{r, x.Facts(r), x.LeftCensored(r), sal, fig, basis, ok, x.CompanyOf(r).ID})
		}
		out.add(t, name+" technologies", x.CompanyTechnologies(id, time.Time{}, 3))
		out.add(t, name+" floored technologies", x.CompanyTechnologies(id, floor, 1))
		n, d := x.CompanyTextCoverage(id, floor)
		out.add(t, name+" text coverage", []int{n, d})
	}
	st := x.Stats()
	out.add(t, "index", []any{x.Watermark, x.CycleTime, st.Reqs, st.LiveReqs, st.Companies, st.TechCompanies})
	out.add(t, "role demand", x.RoleDemand(nil, nil))
	out.add(t, "role demand engineering", x.RoleDemand([]string{"engineering"}, nil))

	filters := map[string]searchindex.Filter{
		"none":      {},
		"countries": {Countries: []string{"Germany", "United States", "United Kingdom"}},
		"since":     {Since: s.AsOf.Add(-10 * 24 * time.Hour), ExcludeAgencies: true},
		"floored":   {FreshBefore: floor, SourceType: "ats_tenant"},
		"closed":    {IncludeClosed: true, Functions: []string{"engineering", "sales"}},
	}
	names := []string{"none", "countries", "since", "floored", "closed"}
	for _, fname := range names {
		f := filters[fname]
		for _, q := range []string{"", "engineer", "senior manager", "sales"} {
			key := fmt.Sprintf("filter %s q %q", fname, q)
			cq := searchindex.CompanyQuery{Q: q, Filter: f, Limit: 3, MaxReqs: 4}
			for page := 0; ; page++ {
				p := x.SearchCompanies(cq)
				out.add(t, fmt.Sprintf("companies %s page %d", key, page), p)
				if !p.More || len(p.Companies) == 0 {
					break
				}
				cq.After = p.Companies[len(p.Companies)-1].Company.ID
			}
			out.add(t, "count companies "+key, x.CountCompanies(searchindex.CompanyQuery{Q: q, Filter: f}))
			for _, sort := range []string{searchindex.SortDefault, searchindex.SortRelevance, searchindex.SortRecency} {
				if sort == searchindex.SortRelevance && q == "" {
					continue
				}
				jq := searchindex.JobQuery{Q: q, Sort: sort, Filter: f, Limit: 7}
				for page := 0; page < 40; page++ {
					p := x.SearchJobs(jq)
					out.add(t, fmt.Sprintf("jobs %s sort %q page %d", key, sort, page), p)
					if p.Next == nil {
						break
					}
					jq.After = p.Next
				}
			}
			out.add(t, "count jobs "+key, x.CountJobs(searchindex.JobQuery{Q: q, Filter: f}))
			qq := searchindex.QualifiedQuery{Q: q, Filter: f, Limit: 9}
			for page := 0; page < 40; page++ {
				p := x.Qualified(qq)
				out.add(t, fmt.Sprintf("qualified %s page %d", key, page), p)
				if !p.More {
					break
				}
				qq.After = p.Next
			}
			out.add(t, "count qualified "+key, x.CountQualified(searchindex.QualifiedQuery{Q: q, Filter: f}))
		}
	}
	boards := searchindex.QualifiedQuery{Boards: []string{"indeed", "linkedin", "stepstone"}, SourceTypes: []string{"board"}, Limit: 1000}
	out.add(t, "qualified boards", x.Qualified(boards))
	var slugs []string
	for _, r := range searchindex.TechnologyVocabulary() {
		slugs = append(slugs, r.Slug)
	}
	slices.Sort(slugs)
	for _, slug := range slugs {
		tq := searchindex.TechCompanyQuery{Slug: slug, Limit: 2, Evidence: 2}
		for page := 0; page < 40; page++ {
			p := x.TechnologyCompanies(tq)
			if page == 0 && len(p.Companies) == 0 {
				break // named by no req: not an answer worth a line
			}
			out.add(t, fmt.Sprintf("technology %s page %d", slug, page), p)
			if !p.More || len(p.Companies) == 0 {
				break
			}
			l := p.Companies[len(p.Companies)-1]
			tq.After = &searchindex.TechCompanyCursor{FirstSeen: l.Use.FirstSeen, CompanyID: l.Company.ID}
		}
	}
	return out
}

func idOf(c *readmodel.Company) uint64 {
	if c == nil {
		return 0
	}
	return c.ID
}

// The service applies each commit to the snapshot it serves, and rebuilds whole on its first
// build, on a forced refresh and when its policy asks for full rebuilds.
func TestTheServiceAppliesCommitsAndRebuildsWholeWhenAsked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := readmodeltest.Crawl(t, readmodeltest.Config{Seed: 31, Companies: 16, First: 300, Last: 300})
	s := snapshot.New(snapshot.Config{ClickHouse: w.CH, Poll: time.Hour, Policy: snapshot.Policy{MaxTouched: 1}})
	full := snapshot.New(snapshot.Config{ClickHouse: w.CH, Poll: time.Hour, Policy: snapshot.Policy{Full: true}})
	refresh := func(svc *snapshot.Service, force bool) *snapshot.Snapshot {
		t.Helper()
		built, err := svc.Refresh(ctx, force)
		require.NoError(t, err)
		require.True(t, built)
		return svc.Current()
	}
	require.Equal(t, "first build", refresh(s, false).Reason)
	refresh(full, false)
	w.CrawlAt(t, 308)
	require.Equal(t, snapshot.KindDelta, refresh(s, false).Kind)
	require.Equal(t, snapshot.KindFull, refresh(full, false).Kind)
	w.CrawlAt(t, 316)
	forced := refresh(s, true)
	require.Equal(t, snapshot.KindFull, forced.Kind)
	require.Equal(t, "full rebuilds asked", forced.Reason)
	require.Equal(t, "full rebuilds asked", refresh(full, false).Reason)
}
