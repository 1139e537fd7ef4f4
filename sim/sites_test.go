package sim

import (
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/normalize"
)

// firstOfEachKind returns, per site kind at tick, the first company whose site renders it.
func firstOfEachKind(w *World, tick int) map[uint8]*company {
	out := map[uint8]*company{}
	for i := range w.companies {
		c := &w.companies[i]
		k := w.siteOf(c).kindAt(c, tick)
		if _, ok := out[k]; !ok {
			out[k] = c
		}
	}
	return out
}

var scriptOrHref = regexp.MustCompile(`(?:href|src)="([^"]+)"`)

// links lists the href and src values of a page (test-only: the pages are the simulator's own).
func links(body []byte) []string {
	var out []string
	for _, m := range scriptOrHref.FindAllSubmatch(body, -1) {
		out = append(out, strings.ReplaceAll(string(m[1]), "&amp;", "&"))
	}
	return out
}

// Every kind of careers site is served as docs/crawl-contract.md describes it, on the company's
// own domain, and the vendors answer for the demo tenants, the gone tenants and their home pages.
func TestCareersSitesServeEveryKind(t *testing.T) {
	t.Parallel()
	w, client := hostWorld(t, Config{Seed: 7, Companies: 600})
	const tick = 40
	pinHost(t, client, tick)
	noFollow := *client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

	kinds := firstOfEachKind(w, tick)
	for k := range siteKindNames {
		require.Contains(t, kinds, uint8(k), "a %s site in a world of 600", siteKindNames[k])
	}
	for k, c := range kinds {
		name := siteKindNames[k]
		s := w.siteOf(c)
		host := w.siteHost(c, s)
		v := c.vendorAt(tick)
		boardPage := func(tenant string) string {
			if v == vJoin { // JOIN's page names the company's slug; its tenant is a number
				u, err := atsurl.JoinCompanyPage(c.kebab)
				require.NoError(t, err)
				return u
			}
			u, err := atsurl.BoardPage(vendorNames[v], tenant, "")
			require.NoError(t, err)
			return u
		}

		status, _, robots := getWith(t, client, "https://"+c.domain+"/robots.txt")
		if k == kDown {
			require.Equal(t, http.StatusServiceUnavailable, status, name)
			status, _, _ = getWith(t, client, "https://www."+c.domain+"/")
			require.Equal(t, http.StatusServiceUnavailable, status, name)
			continue
		}
		require.Equal(t, http.StatusOK, status, name)
		require.Equal(t, s.sitemap, strings.Contains(string(robots), "Sitemap: https://"+host+"/sitemap.xml"), "%s: %s", name, robots)
		if s.www {
			status, hdr, _ := getWith(t, &noFollow, "https://"+c.domain+"/")
			require.Equal(t, http.StatusMovedPermanently, status, name)
			require.Equal(t, "https://www."+c.domain+"/", hdr.Get("Location"))
		}
		status, _, home := getWith(t, client, "https://"+host+"/")
		require.Equal(t, http.StatusOK, status, name)
		require.Contains(t, string(home), c.core)
		homeLinks := links(home)
		_, _, sitemap := getWith(t, client, "https://"+host+"/sitemap.xml")
		careersURL := "https://" + host + s.path
		if !s.hasCareersPage(k) {
			require.NotContains(t, homeLinks, s.path, name)
			require.NotContains(t, string(sitemap), careersURL, name)
			status, _, _ := getWith(t, client, careersURL)
			require.Equal(t, http.StatusNotFound, status, name)
			continue
		}
		require.Contains(t, string(sitemap), "<loc>"+careersURL+"</loc>", name)
		if s.homeLink && !s.direct {
			require.Contains(t, homeLinks, s.path, name)
		}
		if k == kRobots {
			require.Contains(t, string(robots), "Disallow: "+s.path+"\n", name)
		}
		if k == kRedirect {
			status, hdr, _ := getWith(t, &noFollow, careersURL)
			require.Equal(t, http.StatusFound, status)
			require.Equal(t, boardPage(c.tenant(v)), hdr.Get("Location"))
			status, _, page := getWith(t, client, careersURL)
			require.Equal(t, http.StatusOK, status, "the board page answers")
			require.Contains(t, string(page), "Jobs at "+atsCompanyName(c))
			continue
		}
		status, _, careers := getWith(t, client, careersURL)
		require.Equal(t, http.StatusOK, status, name)
		refs := links(careers)
		switch k {
		case kEmbed:
			var embeds []atsurl.Board
			for _, l := range refs {
				if b, ok := atsurl.Recognize(l); ok {
					embeds = append(embeds, b)
				}
			}
			require.Equal(t, []atsurl.Board{{Vendor: vendorNames[v], Tenant: c.tenant(v)}}, embeds)
			require.True(t, strings.Contains(string(careers), `id="grnhse_app"`) || strings.Contains(string(careers), `id="ashby_embed"`))
		case kLink, kIframe, kRobots:
			require.True(t, slices.ContainsFunc(refs, func(l string) bool { return strings.HasPrefix(l, boardPage(c.tenant(v))) }), "%s: %v", name, refs)
		case kLookalike:
			require.Contains(t, refs, boardPage(c.tenant(v)))
			fakes := 0
			for _, l := range refs {
				if strings.Contains(l, "mirror") || strings.Contains(l, "-greenhouse.io") || strings.Contains(l, "-lever.co") ||
					strings.Contains(l, "-ashbyhq.com") || strings.Contains(l, "-workable.com") || strings.Contains(l, "-smartrecruiters.com") ||
					strings.Contains(l, "-recruitee.com") || strings.Contains(l, "-personio.de") || strings.Contains(l, "-teamtailor.com") ||
					strings.Contains(l, "-bamboohr.com") || strings.Contains(l, "-breezy.hr") || strings.Contains(l, "-pinpointhq.com") ||
					strings.Contains(l, "-myworkdayjobs.com") || strings.Contains(l, "-icims.com") || strings.Contains(l, "-jobvite.com") ||
					strings.Contains(l, "-applytojob.com") || strings.Contains(l, "-rippling.com") {
					fakes++
					_, ok := atsurl.Recognize(l)
					require.False(t, ok, "a look-alike host is no vendor's: %s", l)
				}
			}
			require.Equal(t, 3, fakes, "%v", refs)
		case kDemo:
			d := demoTenants[v]
			require.Contains(t, refs, boardPage(d.tenant))
			first, err := atsurl.FirstPage(vendorNames[v], d.tenant, "")
			require.NoError(t, err)
			status, _, feed := getWith(t, client, first)
			require.Equal(t, http.StatusOK, status, "the demo tenant's feed answers: %s", first)
			if v != vLever && v != vAshby { // the feeds that state a name state the demo company's
				require.Contains(t, string(feed), d.name)
			}
			status, _, _ = getWith(t, client, boardPage(d.tenant))
			require.Equal(t, http.StatusOK, status)
		case kVendorHome:
			gone := c.tenant(v) + goneSuffix
			require.Contains(t, refs, boardPage(gone))
			home, err := atsurl.HomePage(vendorNames[v])
			require.NoError(t, err)
			first, err := atsurl.FirstPage(vendorNames[v], gone, "")
			require.NoError(t, err)
			for _, u := range []string{first, boardPage(gone)} {
				status, hdr, _ := getWith(t, &noFollow, u)
				require.Equal(t, http.StatusFound, status, u)
				require.Equal(t, home, hdr.Get("Location"), u)
			}
			status, _, page := getWith(t, client, home)
			require.Equal(t, http.StatusOK, status, home)
			require.Contains(t, string(page), vendorNames[v])
		case kJSONLD:
			gens := w.liveGens(c, tick)
			blocks := regexp.MustCompile(`(?s)<script type="application/ld\+json">(.*?)</script>`).FindAllSubmatch(careers, -1)
			require.Len(t, blocks, len(gens), "one JobPosting per live req")
			for i, b := range blocks {
				var jp struct {
					Type  string `json:"@type"`
					Title string `json:"title"`
					Org   struct {
						Name string `json:"name"`
					} `json:"hiringOrganization"`
				}
				require.NoError(t, json.Unmarshal(b[1], &jp), "%s", b[1])
				require.Equal(t, "JobPosting", jp.Type)
				require.Equal(t, w.titles[gens[i].title].name, jp.Title)
				require.Equal(t, normalize.CompanyKey(c.name), normalize.CompanyKey(jp.Org.Name))
			}
			for _, l := range refs {
				_, ok := atsurl.Recognize(l)
				require.False(t, ok, "a jsonld site names no ATS: %s", l)
			}
		case kNone:
			require.Contains(t, string(careers), "no open positions")
		}
	}

	// A Config.RobotsDisallow entry disallows a company's whole site.
	c := kinds[kLink]
	w2, client2 := hostWorld(t, Config{Seed: 7, Companies: 600, RobotsDisallow: []string{w.siteHost(c, w.siteOf(c))}})
	pinHost(t, client2, tick)
	_, _, robots := getWith(t, client2, "https://"+w2.siteHost(c, w2.siteOf(c))+"/robots.txt")
	require.Equal(t, robotsDisallow, string(robots))
	for _, st := range w2.DiscoveryTruth(tick) {
		if st.Domain == c.domain {
			require.False(t, st.Discoverable)
			require.Equal(t, UndiscoverableRobots, st.Why)
		}
	}
}

// DiscoveryTruth names each company's own sources and says which companies discovery can find
// and why not the others.
func TestDiscoveryTruth(t *testing.T) {
	t.Parallel()
	w := New(Config{Seed: 9, Companies: 3000, HostMode: true})
	const tick = 200
	truth := w.DiscoveryTruth(tick)
	require.Len(t, truth, 3000)
	byKind := map[string]int{}
	discoverable := 0
	for i, st := range truth {
		c := &w.companies[i]
		byKind[st.Site]++
		require.Equal(t, c.domain, st.Domain)
		require.Equal(t, c.name, st.Name)
		v := c.vendorAt(tick)
		if v == vNone {
			require.Empty(t, st.Own)
			require.Contains(t, []string{SiteNone, SiteDown}, st.Site)
		} else {
			require.Equal(t, tenantKey(c, v), st.Own[0])
		}
		if st.Site == SiteJSONLD {
			require.Len(t, st.Own, 2)
			require.True(t, strings.HasPrefix(st.Own[1], "jsonld:"+c.domain) || strings.HasPrefix(st.Own[1], "jsonld:www."+c.domain), st.Own[1])
		}
		switch st.Site {
		case SiteRobots:
			require.Equal(t, UndiscoverableRobots, st.Why)
		case SiteDown:
			require.Equal(t, UndiscoverableDown, st.Why)
		case SiteNone:
			require.Equal(t, UndiscoverableUnpublished, st.Why)
		case SiteEmbed, SiteLink, SiteIframe, SiteRedirect, SiteLookalike:
			require.True(t, st.Discoverable, st.Site)
		case SiteUnlinked, SiteDemo, SiteVendorHome:
			label, _, _ := strings.Cut(c.domain, ".")
			if st.Discoverable {
				require.Equal(t, label, c.tenant(v), "found by a guess of the domain's label")
			} else {
				require.Equal(t, UndiscoverableUnpublished, st.Why)
			}
		}
		require.Equal(t, st.Discoverable, st.Why == "")
		if st.Discoverable {
			discoverable++
		}
	}
	require.Greater(t, byKind[SiteUnlinked], 50, "%v", byKind)
	require.Greater(t, discoverable, 2000, "most companies publish a source: %v", byKind)
	require.Equal(t, truth, w.DiscoveryTruth(tick), "deterministic")
}

// Every ATS vendor's board page answers in host mode where a careers site names it (for JOIN the
// company page, whose data states the company's number), a gone tenant redirects to the
// vendor's home page only where the vendor does so, and every vendor's home page answers.
func TestEveryVendorsBoardPageAnswers(t *testing.T) {
	t.Parallel()
	w, client := hostWorld(t, Config{Seed: 7, Companies: 600})
	const tick = 40
	pinHost(t, client, tick)
	noFollow := *client
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for v := uint8(vGreenhouse); v <= lastATS; v++ {
		var c *company
		for i := range w.companies {
			if w.companies[i].vendorAt(tick) == v {
				c = &w.companies[i]
				break
			}
		}
		require.NotNil(t, c, "a company on %s", vendorNames[v])
		u, ok := boardPageOf(c, v, c.tenant(v))
		require.True(t, ok, vendorNames[v])
		if v == vJoin {
			slug, ok := atsurl.JoinCompanySlug(u)
			require.True(t, ok, u)
			require.Equal(t, c.kebab, slug)
		} else {
			b, ok := atsurl.Recognize(u)
			require.True(t, ok, u)
			require.Equal(t, atsurl.Board{Vendor: vendorNames[v], Tenant: c.tenant(v)}, b, u)
		}
		status, _, body := getWith(t, client, u)
		require.Equal(t, http.StatusOK, status, u)
		if v == vJoin {
			require.Contains(t, string(body), `"company":{"id":`+c.tenant(v)+`,"name":`, "the page's data states the number")
			require.Contains(t, string(body), `"domain":"`+c.kebab+`"`)
		} else if v != vJazzHR { // JazzHR's board page is its list
			require.Contains(t, string(body), "Jobs at "+html.EscapeString(atsCompanyName(c)), u)
		}

		home, err := atsurl.HomePage(vendorNames[v])
		require.NoError(t, err)
		status, _, _ = getWith(t, client, home)
		require.Equal(t, http.StatusOK, status, home)
		if v == vJoin {
			continue // a JOIN tenant is a number: no gone tenant ends so
		}
		gone, ok := boardPageOf(c, v, c.tenant(v)+goneSuffix)
		require.True(t, ok)
		status, hdr, _ := getWith(t, &noFollow, gone)
		if goneHome(v) {
			require.Equal(t, http.StatusFound, status, gone)
			require.Equal(t, home, hdr.Get("Location"))
		} else {
			require.Equal(t, http.StatusNotFound, status, gone)
		}
	}
	status, _, _ := getWith(t, client, "https://join.com/companies/nosuchcompany")
	require.Equal(t, http.StatusNotFound, status)
}
