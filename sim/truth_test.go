package sim

import (
	"net/http"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every posting listed in the truth appears in its source's body at that tick, exactly once,
// and the bodies carry no live posting the truth does not know (pagination walks included).
func TestTruthMatchesBodies(t *testing.T) {
	t.Parallel()
	w, ts := testWorld(t, Config{Seed: 31, Companies: 400})
	for _, tick := range []int{37} {
		pin(t, ts, tick)
		tr := w.Truth(tick)
		require.Empty(t, tr.FailedSources)
		want := truthBySource(tr)
		d := w.Directory(tick)
		pages := map[string]int{}
		for _, s := range d.Sources {
			got := crawlSource(t, s)
			require.Zero(t, got.junk, s.Key)
			a, b := append([]string(nil), want[s.Key]...), append([]string(nil), got.ids...)
			sort.Strings(a)
			sort.Strings(b)
			require.Equal(t, a, b, "source %s at tick %d", s.Key, tick)
			pages[s.Vendor] = max(pages[s.Vendor], got.pages)
			delete(want, s.Key)
		}
		require.Empty(t, want, "truth postings on sources missing from the directory")
		require.Greater(t, pages["jsonld"], 2, "boards span several pages")
		require.Greater(t, pages["aggregator"], 1, "the aggregator spans several pages")
	}
}

// Small page sizes walk Lever and SmartRecruiters tenants page by page.
func TestSmallPages(t *testing.T) {
	t.Parallel()
	w, ts := testWorld(t, Config{Seed: 32, Companies: 300})
	pin(t, ts, 12)
	d := w.Directory(12)
	tr := truthBySource(w.Truth(12))
	checked := 0
	for _, s := range d.Sources {
		if s.Vendor != "lever" && s.Vendor != "smartrecruiters" && s.Vendor != "workday" && s.Vendor != "rippling" || len(tr[s.Key]) < 8 {
			continue
		}
		checked++
		var ids []string
		switch s.Vendor {
		case "workday":
			for offset := 0; ; offset += 3 {
				var page struct {
					JobPostings []struct {
						ExternalPath string `json:"externalPath"`
					} `json:"jobPostings"`
				}
				status, _, body := postJSON(t, testClient, s.URL, `{"appliedFacets":{},"limit":3,"offset":`+strconv.Itoa(offset)+`,"searchText":""}`)
				require.Equal(t, http.StatusOK, status)
				decode(t, body, &page)
				require.LessOrEqual(t, len(page.JobPostings), 3)
				for _, p := range page.JobPostings {
					ids = append(ids, p.ExternalPath)
				}
				if len(page.JobPostings) < 3 {
					break
				}
			}
		case "rippling":
			for pg := 0; ; pg++ {
				var page struct {
					Items []struct {
						ID string `json:"id"`
					} `json:"items"`
					TotalPages int `json:"totalPages"`
				}
				decode(t, fetchOK(t, withQuery(s.URL, "page", strconv.Itoa(pg), "pageSize", "3")), &page)
				require.LessOrEqual(t, len(page.Items), 3)
				for _, p := range page.Items {
					ids = append(ids, p.ID)
				}
				if pg+1 >= page.TotalPages {
					break
				}
			}
		case "lever":
			for skip := 0; ; skip += 3 {
				var page []struct {
					ID string `json:"id"`
				}
				decode(t, fetchOK(t, withQuery(s.URL, "skip", strconv.Itoa(skip), "limit", "3")), &page)
				for _, p := range page {
					ids = append(ids, p.ID)
				}
				if len(page) < 3 {
					break
				}
			}
		default:
			for offset := 0; ; {
				var page struct {
					TotalFound int `json:"totalFound"`
					Content    []struct {
						ID string `json:"id"`
					} `json:"content"`
				}
				decode(t, fetchOK(t, withQuery(s.URL, "offset", strconv.Itoa(offset), "limit", "3")), &page)
				require.LessOrEqual(t, len(page.Content), 3)
				for _, p := range page.Content {
					ids = append(ids, p.ID)
				}
				offset += len(page.Content)
				if offset >= page.TotalFound {
					break
				}
			}
		}
		want := append([]string(nil), tr[s.Key]...)
		sort.Strings(want)
		sort.Strings(ids)
		require.Equal(t, want, ids, s.Key)
	}
	require.Greater(t, checked, 5)
}

// Transitions between consecutive ticks agree with the live sets.
func TestTransitionsConsistent(t *testing.T) {
	t.Parallel()
	w := New(Config{Seed: 33, Companies: 300})
	type key struct{ domain, title, country string }
	prev := w.Truth(0)
	counts := map[string]int{}
	for tick := 1; tick <= 90; tick++ {
		cur := w.Truth(tick)
		old := map[string]TruthReq{}
		for _, r := range prev.Reqs {
			old[r.TruthID] = r
		}
		now := map[string]TruthReq{}
		idents := map[key]bool{}
		for _, r := range cur.Reqs {
			_, dup := now[r.TruthID]
			require.False(t, dup, r.TruthID)
			now[r.TruthID] = r
			k := key{r.CompanyDomain, r.Title, r.Country}
			require.False(t, idents[k], "two live reqs share company, title and country: %v", k)
			idents[k] = true
			if r.FirstTick > tick || len(r.Postings) == 0 {
				t.Fatalf("bad req %+v", r)
			}
			if o, ok := old[r.TruthID]; ok {
				require.Equal(t, o.Title, r.Title, "a req keeps its identity")
				require.Equal(t, o.Country, r.Country)
				require.Equal(t, o.FirstTick, r.FirstTick)
			}
		}
		got := map[string]string{}
		for _, tr := range cur.Transitions {
			require.Equal(t, tick, tr.Tick)
			_, dup := got[tr.TruthID]
			require.False(t, dup, tr.TruthID)
			got[tr.TruthID] = tr.Kind
			counts[tr.Kind]++
		}
		want := map[string]string{}
		for id := range old {
			if _, ok := now[id]; !ok {
				want[id] = Closed
			}
		}
		for id, r := range now {
			if _, ok := old[id]; ok {
				continue
			}
			if r.FirstTick == tick {
				want[id] = Opened
			} else {
				want[id] = Reposted
			}
		}
		require.Equal(t, want, got, "tick %d", tick)
		prev = cur
	}
	require.Greater(t, counts[Opened], 300)
	require.Greater(t, counts[Closed], 300)
	require.Greater(t, counts[Reposted], 10)
	t.Logf("transitions over 90 ticks: %v", counts)
}

// A req that goes away and comes back is a repost: same truth id and first tick, new ATS
// posting id, the gap lasts 1-8 ticks.
func TestReposts(t *testing.T) {
	t.Parallel()
	w := New(Config{Seed: 34, Companies: 300})
	seen := 0
	for i := range w.companies {
		c := &w.companies[i]
		if c.vendor == vNone {
			continue
		}
		for s := 0; s < c.nSlots(); s++ {
			g := w.genAt(c, s, 100)
			if !g.hasGap() {
				continue
			}
			seen++
			require.InDelta(t, 4.5, float64(g.gapEnd-g.gapStart), 3.5)
			before := w.genAt(c, s, g.gapStart-1)
			during := w.genAt(c, s, g.gapStart)
			after := w.genAt(c, s, g.gapEnd)
			require.True(t, before.live)
			require.False(t, during.live)
			require.True(t, after.live)
			require.Equal(t, string(truthID(nil, c, &before)), string(truthID(nil, c, &after)))
			require.NotEqual(t, string(appendATSID(nil, c, c.vendor, &before)), string(appendATSID(nil, c, c.vendor, &after)))
			require.Equal(t, string(w.appendReqID(nil, &before)), string(w.appendReqID(nil, &after)))
		}
	}
	require.Greater(t, seen, 50)
}

// A slot reuses a (title, country) only long after the previous life closed, so a return
// within days is always a repost and never a new opening.
func TestIdentityRecurrenceIsRare(t *testing.T) {
	t.Parallel()
	w := New(Config{Seed: 35, Companies: 200})
	type ident struct {
		comp           int32
		title, country int
	}
	lastClose := map[ident]int{}
	lastID := map[ident]string{}
	for i := range w.companies {
		c := &w.companies[i]
		if c.vendor == vNone {
			continue
		}
		for s := 0; s < c.nSlots(); s++ {
			for tick := 0; tick < 2000; {
				g := w.genAt(c, s, tick)
				if g.close <= tick {
					tick++
					continue
				}
				k := ident{c.idx, g.title, int(g.country)}
				id := string(truthID(nil, c, &g))
				if lc, ok := lastClose[k]; ok && lastID[k] != id {
					require.GreaterOrEqual(t, g.open-lc, 480, "identity %v back after %d ticks", k, g.open-lc)
				}
				lastClose[k], lastID[k] = g.close, id
				tick = g.close + 1
			}
		}
	}
}

// Surging companies open several times more reqs during their surge window.
func TestSurges(t *testing.T) {
	t.Parallel()
	w := New(Config{Seed: 36, Companies: 3000})
	surging := 0
	for i := range w.companies {
		c := &w.companies[i]
		if c.nSurge == 0 {
			continue
		}
		surging++
		in, out := 0, 0
		for s := 0; s < c.nSlots(); s++ {
			for tick := -2000; tick < 3000; {
				g := w.genAt(c, s, tick)
				if g.open >= int(c.surgeStart) && g.open < int(c.surgeStart+c.surgeLen) {
					in++
				} else if g.open >= 0 && g.open < 960 {
					out++
				}
				if g.close <= tick {
					tick++
				} else {
					tick = g.close + 1
				}
			}
		}
		inRate := float64(in) / float64(c.surgeLen)
		baseRate := float64(out) / 960
		require.Greater(t, inRate, 3*baseRate, "company %d surge", i)
	}
	require.InDelta(t, 0.02*0.85*3000, float64(surging), 25)
}

// About half the live reqs are cross-posted on at least one board and ~30% on the aggregator;
// ~40% carry a salary.
func TestCrossPostingRates(t *testing.T) {
	t.Parallel()
	w := New(Config{Seed: 37, Companies: 1000})
	tr := w.Truth(20)
	onBoard, onAgg := 0, 0
	for _, r := range tr.Reqs {
		b, a := false, false
		for _, p := range r.Postings[1:] {
			if p.SourceKey[:7] == "jsonld:" {
				b = true
			} else {
				a = true
			}
		}
		if b {
			onBoard++
		}
		if a {
			onAgg++
		}
	}
	n := float64(len(tr.Reqs))
	require.InDelta(t, 0.5, float64(onBoard)/n, 0.03)
	require.InDelta(t, 0.3, float64(onAgg)/n, 0.03)
	withSalary := 0
	for i := range w.companies {
		for _, g := range w.liveGens(&w.companies[i], 20) {
			if g.salary {
				withSalary++
			}
		}
	}
	require.InDelta(t, 0.4, float64(withSalary)/n, 0.03)
}
