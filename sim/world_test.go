package sim

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDeterminism(t *testing.T) {
	t.Parallel()
	a := New(Config{Seed: 7, Companies: 400})
	b := New(Config{Seed: 7, Companies: 400})
	for _, tick := range []int{0, 5, 123} {
		require.Equal(t, a.Directory(tick), b.Directory(tick))
		require.Equal(t, a.Truth(tick), b.Truth(tick))
		for i := range a.companies {
			ca, cb := &a.companies[i], &b.companies[i]
			require.Equal(t, a.renderGreenhouse(nil, ca, tick, true, false), b.renderGreenhouse(nil, cb, tick, true, false))
			require.Equal(t, a.renderRecruitee(nil, ca, tick, false), b.renderRecruitee(nil, cb, tick, false))
		}
		for bi := range boardDefs {
			require.Equal(t, a.renderJSONLD(nil, bi, tick, 1, "http://x", false), b.renderJSONLD(nil, bi, tick, 1, "http://x", false))
		}
		require.Equal(t, a.renderAggregator(nil, regNA, tick, 0, false), b.renderAggregator(nil, regNA, tick, 0, false))
	}
	// Computing a tick does not depend on what was computed before (no replay state).
	c := New(Config{Seed: 7, Companies: 400})
	require.Equal(t, a.Truth(123), c.Truth(123))

	other := New(Config{Seed: 8, Companies: 400})
	require.NotEqual(t, a.Truth(5).Reqs, other.Truth(5).Reqs)
}

func TestCompanies(t *testing.T) {
	t.Parallel()
	w := New(Config{Seed: 3, Companies: 5000})
	d := w.Directory(0)
	require.Len(t, d.Companies, 5000)
	require.Equal(t, []string{"na", "latam", "uki", "dach", "eu", "apac", "mea"}, d.Regions)

	countryRegion := map[string]string{}
	for _, c := range countries {
		countryRegion[c.name] = regionNames[c.region]
	}
	bands := map[string]bool{"1-10": true, "11-50": true, "51-200": true, "201-500": true, "501-1000": true, "1001-5000": true, "5001+": true, "": true}
	domains, cores := map[string]bool{}, map[string]bool{}
	agency := map[string]int{}
	unknownBand := 0
	for i, c := range d.Companies {
		core := w.companies[i].core
		require.True(t, strings.HasPrefix(c.Name, core), c.Name)
		require.NotEqual(t, core, c.Name, "the directory name carries a legal form")
		key := strings.ToLower(strings.ReplaceAll(core, " ", ""))
		require.False(t, cores[key], "base name %q repeats", core)
		cores[key] = true
		require.False(t, domains[c.Domain], "domain %q repeats", c.Domain)
		domains[c.Domain] = true
		require.Equal(t, countryRegion[c.HQCountry], c.Region, c.HQCountry)
		require.True(t, bands[c.HeadcountBand], c.HeadcountBand)
		if c.HeadcountBand == "" {
			unknownBand++
		}
		agency[c.AgencyKind]++
	}
	require.InDelta(t, 0.05, float64(unknownBand)/5000, 0.02)
	require.InDelta(t, 0.03, float64(agency["staffing_agency"])/5000, 0.015)
	require.InDelta(t, 0.01, float64(agency["job_board"])/5000, 0.008)
	require.Greater(t, agency["unknown"], 0)

	vendors := map[string]int{}
	tenants := 0
	for _, s := range d.Sources {
		if s.Kind == KindATSTenant {
			tenants++
			vendors[s.Vendor]++
			require.NotEmpty(t, s.CompanyDomain)
			require.True(t, domains[s.CompanyDomain])
		}
	}
	require.InDelta(t, 0.85, float64(tenants)/5000, 0.03)
	for _, v := range []string{"greenhouse", "lever", "ashby", "workable", "smartrecruiters", "recruitee", "personio",
		"teamtailor", "bamboohr", "breezy", "pinpoint", "join"} {
		require.Greater(t, vendors[v], 50, v)
	}
	newer := 0
	for _, v := range []string{"workday", "icims", "jobvite", "jazzhr", "rippling"} {
		require.Greater(t, vendors[v], 15, v)
		newer += vendors[v]
	}
	require.Less(t, newer, tenants/4, "the older vendors keep most tenants")
	require.Greater(t, vendors["workday"], vendors["jazzhr"], "Workday is the larger of the newer vendors")
	boards, pageBoards, aggs := 0, 0, 0
	for _, s := range d.Sources {
		switch s.Kind {
		case KindBoard:
			if isPageBoard(s.Board) {
				pageBoards++
			} else {
				boards++
			}
			require.Equal(t, "jsonld", s.Vendor)
			require.NotEmpty(t, s.Board)
			require.Equal(t, w.cfg.BaseURL+"/boards/"+s.Board+"/jobs?page=1", s.URL)
		case KindAggregator:
			aggs++
			require.Equal(t, "aggregator", s.Vendor)
			require.Equal(t, "aggregator:"+AggregatorFeedHost+"/v1/feed?region="+s.Region, s.Key)
		}
	}
	require.Equal(t, 14, boards)
	require.Equal(t, 7, pageBoards, "one job-page board per region")
	require.Equal(t, 7, aggs)
}

func TestSteadyWorld(t *testing.T) {
	t.Parallel()
	w := New(Config{Seed: 11, Companies: 1500})
	covered := 0
	for i := range w.companies {
		if w.companies[i].vendor != vNone {
			covered++
		}
	}
	for tick := 0; tick <= 300; tick += 25 {
		tr := w.Truth(tick)
		perCompany := float64(len(tr.Reqs)) / float64(covered)
		require.InDelta(t, 10, perCompany, 2, "tick %d: %.2f live reqs per covered company", tick, perCompany)
	}
}

func TestMigrationsKeepTruthIDs(t *testing.T) {
	t.Parallel()
	w, ts := testWorld(t, Config{Seed: 5, Companies: 4000})
	migrated := 0
	for i := range w.companies {
		c := &w.companies[i]
		if c.vendor2 == 0 || c.migrate > 400 {
			continue
		}
		migrated++
		m := int(c.migrate)
		oldKey := vendorNames[c.vendor] + ":" + c.tenant(c.vendor)
		newKey := vendorNames[c.vendor2] + ":" + c.tenant(c.vendor2)

		before, after := w.truth(m-1, []int32{c.idx}), w.truth(m, []int32{c.idx})
		ids := func(tr Truth) map[string]TruthReq {
			out := map[string]TruthReq{}
			for _, r := range tr.Reqs {
				if r.CompanyDomain == c.domain {
					out[r.TruthID] = r
				}
			}
			return out
		}
		b, a := ids(before), ids(after)
		changed := map[string]bool{}
		for _, tr := range after.Transitions {
			changed[tr.TruthID] = true
		}
		for id, r := range b {
			if changed[id] {
				continue // an ordinary lifecycle change that happens to fall on this tick
			}
			ra, ok := a[id]
			require.True(t, ok, "req %s survives the migration", id)
			require.Equal(t, r.Title, ra.Title)
			require.Equal(t, oldKey, r.Postings[0].SourceKey)
			require.Equal(t, newKey, ra.Postings[0].SourceKey)
		}

		hasSource := func(d Directory, key string) bool {
			for _, s := range d.Sources {
				if s.Key == key {
					return true
				}
			}
			return false
		}
		if migrated <= 2 {
			require.True(t, hasSource(w.Directory(m-1), oldKey))
			require.False(t, hasSource(w.Directory(m-1), newKey))
			require.False(t, hasSource(w.Directory(m), oldKey))
			require.True(t, hasSource(w.Directory(m), newKey))
		}

		pin(t, ts, m)
		status, _, _ := getFirstPage(t, testClient, vendorNames[c.vendor], w.tenantURL(c, c.vendor))
		require.Equal(t, http.StatusNotFound, status, "old tenant answers 404 after the migration")
		status, _, _ = getFirstPage(t, testClient, vendorNames[c.vendor2], w.tenantURL(c, c.vendor2))
		require.Equal(t, http.StatusOK, status)
		pin(t, ts, m-1)
		status, _, _ = getFirstPage(t, testClient, vendorNames[c.vendor2], w.tenantURL(c, c.vendor2))
		require.Equal(t, http.StatusNotFound, status, "new tenant does not exist before the migration")
	}
	require.Greater(t, migrated, 3)
}

func TestTickClock(t *testing.T) {
	t.Parallel()
	w := New(Config{Companies: 10})
	require.Equal(t, DefaultEpoch(), w.CycleTime(0))
	require.Equal(t, "2026-01-05T03:00:00Z", w.CycleTime(1).Format("2006-01-02T15:04:05Z07:00"))
	require.Equal(t, 8, w.TickAt(DefaultEpoch().Add(24*3600e9)))
	require.Equal(t, 8, w.TickAt(DefaultEpoch().Add(24*3600e9+1)))
	require.Equal(t, -1, w.TickAt(DefaultEpoch().Add(-1)))
	w.Pin(17)
	require.Equal(t, 17, w.CurrentTick())
}

// A board variant never repeats the canonical title ("Head of DataHead of Data (m/w/d)" was a
// bug: the abbreviation fallback appended the title twice).
func TestTitleVariantsNeverRepeatTheTitle(t *testing.T) {
	t.Parallel()
	w := New(Config{Seed: 3, Companies: 300})
	for i := range w.titles {
		title := w.titles[i].name
		for h := uint64(0); h < 200; h++ {
			g := &gen{title: i}
			v := string(w.appendTitleVariant(nil, g, h*0x9E3779B97F4A7C15+uint64(i)))
			require.NotContains(t, strings.ToLower(v), strings.ToLower(title+title), "variant %q", v)
		}
	}
}
