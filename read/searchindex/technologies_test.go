package searchindex

import (
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
)

// refUse is a technology's use by one company, counted the slow way from every req.
type refUse struct {
	live, past, required int
	first, last          int64
	keys                 []string // every req naming it, in evidence order
}

// reference counts every company's technologies by reading every req of the index, past the
// floor cutoff (unix seconds; 0: none).
func reference(x *Index, cutoff int64) map[uint64]map[string]*refUse {
	out := map[uint64]map[string]*refUse{}
	type named struct {
		r    *Req
		slug string
	}
	var all []named
	for i := range x.reqs {
		r := &x.reqs[i]
		if cutoff != 0 && r.FirstSeen > cutoff {
			continue
		}
		for _, t := range x.Facts(r).Technologies {
			all = append(all, named{r, t.Slug})
			if out[r.CompanyID] == nil {
				out[r.CompanyID] = map[string]*refUse{}
			}
			u := out[r.CompanyID][t.Slug]
			if u == nil {
				u = &refUse{first: r.FirstSeen}
				out[r.CompanyID][t.Slug] = u
			}
			if r.Live {
				u.live++
				u.last = x.CycleTime.Unix()
			} else {
				u.past++
				if u.live == 0 && u.last != x.CycleTime.Unix() {
					u.last = max(u.last, r.LastEventAt)
				}
			}
			if t.Required {
				u.required++
			}
			u.first = min(u.first, r.FirstSeen)
		}
	}
	// Evidence order: live first, newest first_seen first, req_key.
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i].r, all[j].r
		if a.Live != b.Live {
			return a.Live
		}
		if a.FirstSeen != b.FirstSeen {
			return a.FirstSeen > b.FirstSeen
		}
		return a.Key < b.Key
	})
	for _, n := range all {
		u := out[n.r.CompanyID][n.slug]
		u.keys = append(u.keys, n.r.Key)
	}
	return out
}

func requireUse(t *testing.T, want *refUse, got TechnologyUse, evidence int) {
	t.Helper()
	require.Equal(t, want.live, got.Live, got.Slug)
	require.Equal(t, want.past, got.Past, got.Slug)
	require.Equal(t, want.required, got.Required, got.Slug)
	require.Equal(t, want.first, got.FirstSeen, got.Slug)
	require.Equal(t, want.last, got.LastSeen, got.Slug)
	var keys []string
	for _, r := range got.Evidence {
		keys = append(keys, r.Key)
	}
	require.Equal(t, want.keys[:min(evidence, len(want.keys))], keys, got.Slug)
	require.NotEmpty(t, got.Name)
	require.NotEmpty(t, got.Category)
}

// A company's technologies are what its indexed reqs name, counted live and past, with the
// first and last sighting and the newest reqs as evidence; the freshness floor hides the reqs
// first seen after it from all of them.
func TestCompanyTechnologiesCountWhatItsReqsName(t *testing.T) {
	t.Parallel()
	x := synthetic(t, 12, 40)
	for _, cutoff := range []time.Time{{}, syntheticAt.Add(-48 * time.Hour)} {
		ref := reference(x, cutoffOf(cutoff))
		for i := range x.companies {
			co := &x.companies[i]
			uses := x.CompanyTechnologies(co.ID, cutoff, 3)
			require.Len(t, uses, len(ref[co.ID]), "company %d", co.ID)
			for j, u := range uses {
				requireUse(t, ref[co.ID][u.Slug], u, 3)
				if j > 0 { // most live first, then most past, then slug
					p := uses[j-1]
					require.True(t, p.Live > u.Live || p.Live == u.Live && (p.Past > u.Past || p.Past == u.Past && p.Slug < u.Slug), "%v before %v", p, u)
				}
			}
		}
	}
	require.Nil(t, x.CompanyTechnologies(7, time.Time{}, 3), "a company the index does not hold")
	for _, u := range x.CompanyTechnologies(x.companies[0].ID, time.Time{}, 0) {
		require.Empty(t, u.Evidence)
	}
	for _, u := range x.CompanyTechnologies(x.companies[0].ID, time.Time{}, 99) {
		require.LessOrEqual(t, len(u.Evidence), EvidenceMax)
	}
}

// A technology's companies are exactly the companies whose reqs name it, newest first mention
// first; since, live_only, exclude_agencies and the floor select among them, the total counts
// them all, and the cursor pages through them once each.
func TestTechnologyCompaniesPageNewestFirstMentionFirst(t *testing.T) {
	t.Parallel()
	x := synthetic(t, 30, 25)
	x.companies[3].AgencyKind = "staffing_agency"
	for _, slug := range []string{"go", "salesforce", "react", "python"} {
		for _, q := range []TechCompanyQuery{
			{}, {LiveOnly: true}, {ExcludeAgencies: true}, {Since: syntheticAt.Add(-150 * time.Hour)},
			{FreshBefore: syntheticAt.Add(-100 * time.Hour)}, {Since: syntheticAt.Add(-150*time.Hour + time.Millisecond), LiveOnly: true, FreshBefore: syntheticAt.Add(-24 * time.Hour)},
		} {
			q.Slug, q.Evidence = slug, 2
			cutoff := cutoffOf(q.FreshBefore)
			ref := reference(x, cutoff)
			// The reference: every company naming it that the query keeps.
			var want []uint64
			for i := range x.companies {
				co := &x.companies[i]
				u := ref[co.ID][slug]
				switch {
				case u == nil, q.LiveOnly && u.live == 0, q.ExcludeAgencies && co.Agency(), !q.Since.IsZero() && u.first < q.Since.Add(999*time.Millisecond).Unix():
					continue
				}
				want = append(want, co.ID)
			}
			sort.Slice(want, func(i, j int) bool {
				a, b := ref[want[i]][slug].first, ref[want[j]][slug].first
				return a > b || a == b && want[i] < want[j]
			})
			var got []uint64
			q.Limit = 4
			for page := 0; ; page++ {
				require.Less(t, page, 100)
				p := x.TechnologyCompanies(q)
				require.Equal(t, len(want), p.Total, "%s %+v", slug, q)
				for _, h := range p.Companies {
					got = append(got, h.Company.ID)
					requireUse(t, ref[h.Company.ID][slug], h.Use, 2)
					require.Equal(t, slug, h.Use.Slug)
				}
				if !p.More {
					break
				}
				last := p.Companies[len(p.Companies)-1]
				q.After = &TechCompanyCursor{FirstSeen: last.Use.FirstSeen, CompanyID: last.Company.ID}
			}
			require.Equal(t, want, got, "%s %+v", slug, q)
		}
	}
	require.Empty(t, x.TechnologyCompanies(TechCompanyQuery{Slug: "haskell", Limit: 10}).Companies, "named by no req")
	require.Empty(t, x.TechnologyCompanies(TechCompanyQuery{Slug: "no-such-slug", Limit: 10}).Companies)
	require.Zero(t, x.TechnologyCompanies(TechCompanyQuery{Slug: "go", Since: syntheticAt.Add(time.Hour), Limit: 10}).Total)
}

// A req whose list names a technology twice counts once.
func TestAReqNamingATechnologyTwiceCountsOnce(t *testing.T) {
	t.Parallel()
	b := NewBuilder(1, syntheticAt, []analytics.Company{{CompanyID: 5, Name: "Five"}})
	b.Add(&analytics.LedgerReq{OpenSeq: 1, Req: analytics.Req{ReqKey: "a", CompanyID: 5, EventType: analytics.EventOpened, RawTitle: "Go Engineer",
		FirstSeen: syntheticAt.Add(-time.Hour), LastEventAt: syntheticAt.Add(-time.Hour),
		Facts: analytics.Facts{Technologies: []string{"go", "go", "sql"}, TechKinds: []uint8{1, 0, 2}}}})
	x := b.Build(nil)
	uses := x.CompanyTechnologies(5, time.Time{}, 10)
	require.Len(t, uses, 2)
	require.Equal(t, "go", uses[0].Slug)
	require.Equal(t, 1, uses[0].Live)
	require.Equal(t, 1, uses[0].Required)
	require.Len(t, uses[0].Evidence, 1)
	p := x.TechnologyCompanies(TechCompanyQuery{Slug: "go", Limit: 10, Evidence: 10})
	require.Equal(t, 1, p.Total)
	require.Equal(t, 1, p.Companies[0].Use.Live)
}

// BenchmarkTechnographics measures, on a synthetic index of 10,000 companies × 100 reqs (1M
// reqs), the entries' memory and build time, a technology's first page and its total, a
// company's technologies, and the scan of every req a page would cost without the entries:
//
//	go test -run XXX -bench Technographics -benchtime 200x ./read/searchindex/
func BenchmarkTechnographics(b *testing.B) {
	t0 := time.Now()
	x := synthetic(b, 10000, 100)
	st := x.Stats()
	b.Logf("%d reqs, %d companies (index built in %v): %d technology entries, %.2f MiB", st.Reqs, st.Companies, time.Since(t0).Round(time.Millisecond),
		st.TechCompanies, float64(st.TechCompanies*12)/(1<<20))
	b.Run("build entries", func(b *testing.B) {
		for range b.N {
			x.buildTechCompanies()
		}
	})
	runtime.GC()
	b.Run("technology page", func(b *testing.B) {
		for range b.N {
			x.TechnologyCompanies(TechCompanyQuery{Slug: "python", Limit: 20, Evidence: EvidenceMax})
		}
	})
	b.Run("technology page since a week", func(b *testing.B) {
		for range b.N {
			x.TechnologyCompanies(TechCompanyQuery{Slug: "python", Since: syntheticAt.Add(-7 * 24 * time.Hour), Limit: 20, Evidence: EvidenceMax})
		}
	})
	b.Run("company technologies", func(b *testing.B) {
		for i := range b.N {
			x.CompanyTechnologies(x.companies[i%len(x.companies)].ID, time.Time{}, EvidenceMax)
		}
	})
	b.Run("scan every req (no entries)", func(b *testing.B) {
		id := techIDs["python"]
		for range b.N {
			n := 0
			for i := range x.reqs {
				for _, e := range x.techList(&x.reqs[i].facts) {
					if e>>techKindBits == id {
						n++
						break
					}
				}
			}
			_ = n
		}
	})
}
