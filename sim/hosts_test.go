package sim

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testca"
)

// hostWorld starts a host-mode world behind a TLS server holding a test CA's certificate for
// every host the world answers on, and returns a client that reaches any https URL on that
// server (a dial override, as a crawler's --connect-to) trusting only the test CA.
func hostWorld(t *testing.T, cfg Config) (*World, *http.Client) {
	t.Helper()
	cfg.HostMode = true
	w := New(cfg)
	ca, err := testca.New()
	require.NoError(t, err)
	leaf, err := ca.Leaf(HostNames())
	require.NoError(t, err)
	ts := httptest.NewUnstartedServer(w.Handler())
	ts.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}, GetCertificate: ca.GetCertificate(w.ServesSite)}
	ts.StartTLS()
	t.Cleanup(ts.Close)
	addr := ts.Listener.Addr().String()
	var d net.Dialer
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, hostport string) (net.Conn, error) {
			if _, port, _ := net.SplitHostPort(hostport); port != "443" {
				return nil, &net.AddrError{Err: "only :443 is mapped to the simulator", Addr: hostport}
			}
			return d.DialContext(ctx, network, addr)
		},
		TLSClientConfig:     &tls.Config{RootCAs: ca.Pool()},
		DisableCompression:  true,
		MaxIdleConnsPerHost: 4,
	}
	t.Cleanup(tr.CloseIdleConnections)
	return w, &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

func pinHost(t *testing.T, client *http.Client, tick int) {
	t.Helper()
	// /_sim/* answers on any host.
	resp, err := client.Post("https://"+AggregatorFeedHost+"/_sim/tick?tick="+strconv.Itoa(tick), "application/json", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// Host mode serves each ATS vendor's real first page (atsurl.FirstPage) in the vendor's format,
// with posting links on the vendor's public job-page hosts.
func TestHostModeServesEveryVendorAtItsRealURL(t *testing.T) {
	t.Parallel()
	w, client := hostWorld(t, Config{Seed: 41, Companies: 400})
	const tick = 30
	pinHost(t, client, tick)
	d := w.Directory(tick)
	truth := truthBySource(w.Truth(tick))

	for _, vendor := range []string{"greenhouse", "lever", "ashby", "workable", "smartrecruiters", "recruitee", "personio",
		"teamtailor", "bamboohr", "breezy", "pinpoint", "join", "workday", "icims", "jobvite", "jazzhr", "rippling"} {
		var src Source
		for _, s := range d.Sources {
			if s.Vendor == vendor && len(truth[s.Key]) > 0 {
				src = s
				break
			}
		}
		require.NotEmpty(t, src.Key, "a %s tenant with postings", vendor)
		first, err := atsurl.FirstPage(vendor, src.Tenant, "")
		require.NoError(t, err)
		require.Equal(t, first, src.URL, "the directory lists the real URL")
		require.Equal(t, atsurl.SourceKey(vendor, src.Tenant, "", ""), src.Key)

		status, hdr, body := getFirstPage(t, client, vendor, first)
		require.Equal(t, http.StatusOK, status, "%s: %s", first, body)
		links := postingLinks(t, vendor, src.Tenant, hdr.Get("Content-Type"), body)
		if vendor != "personio" && vendor != "bamboohr" && vendor != "join" { // these feeds carry no posting link
			require.NotEmpty(t, links, vendor)
		}
		for _, l := range links {
			u, err := url.Parse(l)
			require.NoError(t, err, l)
			require.Equal(t, "https", u.Scheme, l)
			require.Equal(t, wantLinkHost(vendor, src.Tenant), u.Hostname(), l)
			if b, ok := atsurl.Recognize(l); ok {
				require.Equal(t, atsurl.Board{Vendor: vendor, Tenant: src.Tenant}, b, "%s names its tenant", l)
			} else {
				require.Contains(t, []string{"workable", "smartrecruiters"}, vendor, "%s is a board URL of its tenant", l)
			}
			if vendor == "teamtailor" {
				require.True(t, strings.HasPrefix(u.Path, "/jobs/"), "%s is a job page", l)
			}
		}

		// The crawl of the real URL finds exactly the truth's postings.
		got := crawlSourceWith(t, client, src)
		a, b := slices.Clone(truth[src.Key]), slices.Clone(got.ids)
		sort.Strings(a)
		sort.Strings(b)
		require.Equal(t, a, b, src.Key)

		// An unknown tenant of the same vendor 404s on the same host.
		unknown := "nosuchtenant0"
		switch vendor {
		case "join":
			unknown = "999999999" // JOIN's tenant is a company number
		case "workday":
			company, dc, _, _ := atsurl.WorkdayParts(src.Tenant)
			unknown = company + "/" + dc + "/NoSuchSite"
		}
		other, err := atsurl.FirstPage(vendor, unknown, "")
		require.NoError(t, err)
		status, _, _ = getFirstPage(t, client, vendor, other)
		require.Equal(t, http.StatusNotFound, status, other)
	}

	// Workday's list answers a POST only; every other feed a GET.
	var wd Source
	for _, s := range d.Sources {
		if s.Vendor == "workday" {
			wd = s
			break
		}
	}
	status, _, _ := getWith(t, client, wd.URL)
	require.Equal(t, http.StatusMethodNotAllowed, status, "GET %s", wd.URL)
	status, _, body := postJSON(t, client, wd.URL, `{"appliedFacets":{},"limit":21,"offset":0,"searchText":""}`)
	require.Equal(t, http.StatusBadRequest, status, "a limit above 20: %s", body)
}

// wantLinkHost is where a vendor's payload links its postings.
func wantLinkHost(vendor, tenant string) string {
	switch vendor {
	case "greenhouse":
		return "job-boards.greenhouse.io"
	case "lever":
		return "jobs.lever.co"
	case "ashby":
		return "jobs.ashbyhq.com"
	case "workable":
		return "apply.workable.com"
	case "smartrecruiters":
		return "api.smartrecruiters.com"
	case "recruitee":
		return tenant + ".recruitee.com"
	case "teamtailor":
		return tenant + ".teamtailor.com"
	case "breezy":
		return tenant + ".breezy.hr"
	case "pinpoint":
		return tenant + ".pinpointhq.com"
	case "workday":
		company, dc, _, _ := atsurl.WorkdayParts(tenant)
		return company + "." + dc + ".myworkdayjobs.com"
	case "icims":
		return tenant + ".icims.com"
	case "jobvite":
		return "jobs.jobvite.com"
	case "jazzhr":
		return tenant + ".applytojob.com"
	case "rippling":
		return "ats.rippling.com"
	}
	return ""
}

// postingLinks extracts the posting links a vendor's first page carries, checking its format.
func postingLinks(t *testing.T, vendor, tenant, ctype string, body []byte) []string {
	t.Helper()
	var links []string
	objects := func(raw json.RawMessage, fields ...string) {
		var es []map[string]any
		require.NoError(t, json.Unmarshal(raw, &es), vendor)
		for _, e := range es {
			for _, f := range fields {
				if s, ok := e[f].(string); ok {
					links = append(links, s)
				}
			}
		}
	}
	env := func(key string) json.RawMessage {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(body, &m), vendor)
		require.Contains(t, m, key, vendor)
		return m[key]
	}
	switch vendor {
	case "greenhouse":
		objects(env("jobs"), "absolute_url")
	case "lever":
		objects(body, "hostedUrl", "applyUrl")
	case "ashby":
		objects(env("jobs"), "jobUrl", "applyUrl")
	case "workable":
		objects(env("jobs"), "url", "shortlink", "application_url")
	case "smartrecruiters":
		objects(env("content"), "ref")
	case "recruitee":
		objects(env("offers"), "careers_url", "careers_apply_url")
	case "teamtailor":
		require.True(t, strings.HasPrefix(ctype, "application/rss+xml"), ctype)
		var feed struct {
			XMLName xml.Name `xml:"rss"`
			Items   []struct {
				Link string `xml:"link"`
			} `xml:"channel>item"`
		}
		require.NoError(t, xml.Unmarshal(body, &feed))
		for _, it := range feed.Items {
			links = append(links, it.Link)
		}
		return links
	case "breezy":
		objects(body, "url")
	case "pinpoint":
		objects(env("data"), "url")
	case "bamboohr":
		// BambooHR's list carries no posting link (a reader builds /careers/{id} on the
		// tenant's host); check its format only.
		var list struct {
			Meta struct {
				TotalCount *int `json:"totalCount"`
			} `json:"meta"`
		}
		decode(t, body, &list)
		require.NotNil(t, list.Meta.TotalCount)
		objects(env("result"), "url")
	case "join":
		// JOIN's API carries no posting link; check its format only.
		var page struct {
			Pagination struct {
				PageCount *int `json:"pageCount"`
			} `json:"pagination"`
		}
		decode(t, body, &page)
		require.NotNil(t, page.Pagination.PageCount)
		objects(env("items"), "url")
	case "workday":
		// externalPath is a path on the site; the posting's page is the site's URL and that path.
		var es []struct {
			ExternalPath string `json:"externalPath"`
		}
		require.NoError(t, json.Unmarshal(env("jobPostings"), &es))
		company, dc, site, _ := atsurl.WorkdayParts(tenant)
		for _, e := range es {
			require.True(t, strings.HasPrefix(e.ExternalPath, "/job/"), e.ExternalPath)
			links = append(links, "https://"+company+"."+dc+".myworkdayjobs.com/"+site+e.ExternalPath)
		}
	case "icims", "jazzhr":
		for _, m := range hrefRe.FindAllSubmatch(body, -1) {
			if h := html.UnescapeString(string(m[1])); strings.Contains(h, "/jobs/") && vendor == "icims" || strings.Contains(h, "/apply/") && vendor == "jazzhr" {
				links = append(links, h)
			}
		}
	case "jobvite":
		// The links are relative to jobs.jobvite.com, where the site is.
		for _, m := range jobviteHrefRe.FindAllSubmatch(body, -1) {
			links = append(links, "https://jobs.jobvite.com"+string(m[1]))
		}
	case "rippling":
		objects(env("items"), "url")
	case "personio":
		// Personio's XML feed carries no posting link (a reader builds the position's page
		// from the tenant's host); check its format only.
		require.True(t, strings.HasPrefix(ctype, "application/xml"), ctype)
		var feed struct {
			XMLName   xml.Name
			Positions []struct {
				ID string `xml:"id"`
			} `xml:"position"`
		}
		require.NoError(t, xml.Unmarshal(body, &feed))
		require.Equal(t, "workzag-jobs", feed.XMLName.Local)
		require.NotEmpty(t, feed.Positions)
	}
	switch vendor {
	case "personio":
	case "icims", "jobvite", "jazzhr":
		require.True(t, strings.HasPrefix(ctype, "text/html"), ctype)
	default:
		require.True(t, strings.HasPrefix(ctype, "application/json"), ctype)
	}
	return links
}

var (
	hrefRe        = regexp.MustCompile(`href="([^"]+)"`)
	jobviteHrefRe = regexp.MustCompile(`<td class="jv-job-list-name"><a href="(/[^"]+)"`)
)

// Every source of a host-mode world, boards, job pages and aggregator feeds included, read at its
// real URL and followed through its links, gives exactly the truth's postings; source keys are
// atsurl.SourceKey of the real URLs.
func TestHostModeTruthMatchesBodies(t *testing.T) {
	t.Parallel()
	w, client := hostWorld(t, Config{Seed: 31, Companies: 250})
	const tick = 37
	pinHost(t, client, tick)
	tr := w.Truth(tick)
	want := truthBySource(tr)
	pages := map[string]int{}
	for _, s := range w.Directory(tick).Sources {
		u, err := url.Parse(s.URL)
		require.NoError(t, err)
		require.Equal(t, "https", u.Scheme, s.URL)
		switch s.Kind {
		case KindATSTenant:
			require.Equal(t, atsurl.SourceKey(s.Vendor, s.Tenant, "", ""), s.Key)
		default:
			checked, err := atsurl.SourceURL(s.Vendor, s.URL, false)
			require.NoError(t, err)
			require.Equal(t, atsurl.SourceKey(s.Vendor, "", "", checked), s.Key)
		}
		got := crawlSourceWith(t, client, s)
		require.Zero(t, got.junk, s.Key)
		a, b := slices.Clone(want[s.Key]), slices.Clone(got.ids)
		sort.Strings(a)
		sort.Strings(b)
		require.Equal(t, a, b, "source %s", s.Key)
		pages[s.Vendor] = max(pages[s.Vendor], got.pages)
		delete(want, s.Key)
	}
	require.Empty(t, want, "truth postings on sources missing from the directory")
	require.Greater(t, pages["jsonld"], 1, "board pages link their next page on the board's host")
	require.Greater(t, pages["aggregator"], 1)
}

// The source keys are the same in both modes, so the registry, the ledger and the truth agree
// whichever way the world is served; only the URLs differ.
func TestSourceKeysAreTheSameInBothModes(t *testing.T) {
	t.Parallel()
	plain := New(Config{Seed: 7, Companies: 300, BaseURL: "http://127.0.0.1:7070"})
	host := New(Config{Seed: 7, Companies: 300, HostMode: true})
	const tick = 50
	dp, dh := plain.Directory(tick), host.Directory(tick)
	require.Equal(t, len(dp.Sources), len(dh.Sources))
	for i := range dp.Sources {
		require.Equal(t, dp.Sources[i].Key, dh.Sources[i].Key)
	}
	require.Contains(t, dh.Sources[len(dh.Sources)-1].Key, "aggregator:"+AggregatorFeedHost+"/v1/feed?region=")
	keys := func(tr Truth) []string {
		var out []string
		for _, r := range tr.Reqs {
			for _, p := range r.Postings {
				out = append(out, p.SourceKey)
			}
		}
		return out
	}
	require.Equal(t, keys(plain.Truth(tick)), keys(host.Truth(tick)))
	var boards int
	for _, s := range dp.Sources {
		if s.Kind == KindBoard {
			boards++
			require.Equal(t, "jsonld:"+boardDefs[boardNamed(s.Board)].host+"/jobs?page=1", s.Key)
			require.True(t, strings.HasPrefix(s.URL, "http://127.0.0.1:7070/boards/"), s.URL)
		}
	}
	require.Equal(t, len(boardDefs), boards)
}

// robots.txt answers on every host (allow all unless configured); Greenhouse's board endpoint
// answers while the tenant is on Greenhouse; paths the vendors do not serve 404; the
// simulator's own paths stay served on any other host.
func TestHostModeRoutes(t *testing.T) {
	t.Parallel()
	w, client := hostWorld(t, Config{Seed: 5, Companies: 4000, RobotsDisallow: []string{"www.jobsnorth.example", "*.jobs.personio.de"}})
	const tick = 10
	pinHost(t, client, tick)

	for host, disallow := range map[string]bool{
		"boards-api.greenhouse.io": false, "acme.recruitee.com": false, AggregatorFeedHost: false, "careerharbor.example": false,
		"www.jobsnorth.example": true, "acme.jobs.personio.de": true,
	} {
		status, hdr, body := getWith(t, client, "https://"+host+"/robots.txt")
		require.Equal(t, http.StatusOK, status, host)
		require.True(t, strings.HasPrefix(hdr.Get("Content-Type"), "text/plain"), host)
		if disallow {
			require.Equal(t, "User-agent: *\nDisallow: /\n", string(body), host)
		} else {
			require.Equal(t, "User-agent: *\nAllow: /\n", string(body), host)
		}
	}

	// Greenhouse's board endpoint: a tenant on Greenhouse, one that left it at a later tick, an
	// unknown one.
	var on, left *company
	for i := range w.companies {
		c := &w.companies[i]
		if on == nil && c.vendorAt(tick) == vGreenhouse && c.vendor2 == 0 {
			on = c
		}
		if left == nil && c.vendor == vGreenhouse && c.vendor2 != 0 && int(c.migrate) > tick {
			left = c
		}
	}
	require.NotNil(t, on)
	require.NotNil(t, left, "a Greenhouse tenant that migrates")
	boardURL := func(c *company) string {
		u, err := atsurl.BoardURL(atsurl.Greenhouse, c.tenant(vGreenhouse), "")
		require.NoError(t, err)
		return u
	}
	status, hdr, body := getWith(t, client, boardURL(on))
	require.Equal(t, http.StatusOK, status, "%s", body)
	require.True(t, strings.HasPrefix(hdr.Get("Content-Type"), "application/json"))
	var board struct {
		Name    *string `json:"name"`
		Content *string `json:"content"`
	}
	decode(t, body, &board)
	require.NotNil(t, board.Name)
	require.NotNil(t, board.Content)
	require.Equal(t, atsCompanyName(on), *board.Name)
	require.Contains(t, *board.Content, *board.Name)

	status, _, _ = getWith(t, client, boardURL(left))
	require.Equal(t, http.StatusOK, status, "on Greenhouse before its migration")
	pinHost(t, client, int(left.migrate))
	status, _, _ = getWith(t, client, boardURL(left))
	require.Equal(t, http.StatusNotFound, status, "gone from Greenhouse after its migration")
	first, err := atsurl.FirstPage(vendorNames[left.vendor2], left.tenant(left.vendor2), "")
	require.NoError(t, err)
	status, _, _ = getFirstPage(t, client, vendorNames[left.vendor2], first)
	require.Equal(t, http.StatusOK, status, "served by its new vendor: %s", first)
	pinHost(t, client, tick)

	for _, u := range []string{
		"https://boards-api.greenhouse.io/v1/boards/nosuchboard0",
		"https://boards-api.greenhouse.io/v1/boards/" + on.slug + "/jobs/4000000001",
		"https://boards-api.eu.greenhouse.io/v1/boards/" + on.slug + "/jobs?content=true",
		"https://boards-api.greenhouse.io/greenhouse/v1/boards/" + on.slug + "/jobs",
		"https://api.lever.co/v0/postings",
		"https://apply.workable.com/" + on.slug + "/",
		"https://www.jobsnorth.example/job/jn-1",
		"https://www.jobsnorth.example/boards/jobsnorth/jobs",
		"https://" + AggregatorFeedHost + "/aggregator/v1/feed?region=na",
		"https://" + AggregatorFeedHost + "/v1/feed?region=mars",
		"https://" + on.slug + ".na.teamtailor.com/jobs.rss?per_page=200&offset=0",
		"https://www.teamtailor.com/jobs.rss",
		"https://" + on.slug + ".teamtailor.com/jobs",
		"https://join.com/companies/" + on.slug,
		"https://join.com/api/public/companies/999999999/jobs?page=1&pageSize=5",
		"https://" + on.slug + ".bamboohr.com/careers/1/detail",
	} {
		status, _, body := getWith(t, client, u)
		require.Equal(t, http.StatusNotFound, status, "%s: %s", u, body)
	}
	resp, err := client.Post("https://api.lever.co/v0/postings/acme", "application/json", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	// The simulator's own paths on any other host (here its plain listener) serve the same
	// bodies as the real URLs.
	plain := httptest.NewServer(w.Handler())
	t.Cleanup(plain.Close)
	real, err := atsurl.FirstPage(atsurl.Greenhouse, on.slug, "")
	require.NoError(t, err)
	_, _, viaHost := getWith(t, client, real)
	status, _, viaPath := get(t, plain.URL+"/greenhouse/v1/boards/"+on.slug+"/jobs?content=true")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, viaHost, viaPath)
	status, _, _ = get(t, plain.URL+"/greenhouse/v1/boards/"+on.slug)
	require.Equal(t, http.StatusOK, status, "the board endpoint on the simulator's path")
	status, _, body = get(t, plain.URL+"/robots.txt")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, robotsAllow, string(body))
}

// The registry CSV parses back: every ATS row's real first page is served, every row's source
// key and URL are the host-mode directory's, and every company's facts are the directory's
// (the country as its ISO code, naming the same country and region in internal/normalize).
func TestRegistryCSVParsesBack(t *testing.T) {
	t.Parallel()
	w, client := hostWorld(t, Config{Seed: 23, Companies: 300})
	const tick = 12
	pinHost(t, client, tick)
	var buf bytes.Buffer
	require.NoError(t, w.RegistryCSV(&buf, tick))
	rows, err := csv.NewReader(&buf).ReadAll()
	require.NoError(t, err)
	require.Equal(t, RegistryColumns, rows[0])
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	d := w.Directory(tick)
	dirSources := map[string]Source{}
	for _, s := range d.Sources {
		dirSources[s.Key] = s
	}
	companies := map[string]Company{}
	for _, c := range d.Companies {
		companies[c.Domain] = c
	}

	seen := map[string]bool{}
	ats, companyOnly, feeds := 0, 0, 0
	for _, row := range rows[1:] {
		require.Len(t, row, len(RegistryColumns))
		f := func(name string) string { return row[col[name]] }
		require.Empty(t, f("variant"))
		vendor := f("vendor")
		if f("domain") != "" {
			c, ok := companies[f("domain")]
			require.True(t, ok, f("domain"))
			require.False(t, seen["company:"+c.Domain], "one row per company")
			seen["company:"+c.Domain] = true
			require.Equal(t, c.Name, f("name"))
			name, ok := normalize.CountryName(f("hq_country"))
			require.True(t, ok, f("hq_country"))
			require.Equal(t, c.HQCountry, name)
			require.Equal(t, c.Region, normalize.RegionOf(f("hq_country")))
			require.Equal(t, c.Industry, f("industry"))
			require.Equal(t, c.HeadcountBand, f("headcount_band"))
			require.Equal(t, c.AgencyKind, f("agency_kind"))
			require.Empty(t, f("url"))
			require.Empty(t, f("region"))
			if vendor == "" {
				require.Empty(t, f("tenant"))
				companyOnly++
				continue
			}
			ats++
			tenant, err := atsurl.Tenant(vendor, f("tenant"))
			require.NoError(t, err)
			require.Equal(t, f("tenant"), tenant, "tenants are canonical")
			key := atsurl.SourceKey(vendor, tenant, "", "")
			s, ok := dirSources[key]
			require.True(t, ok, key)
			require.Equal(t, c.Domain, s.CompanyDomain)
			first, err := atsurl.FirstPage(vendor, tenant, "")
			require.NoError(t, err)
			require.Equal(t, s.URL, first)
			status, _, body := getFirstPage(t, client, vendor, first)
			require.Equal(t, http.StatusOK, status, "%s: %.200s", first, body)
			require.False(t, seen[key])
			seen[key] = true
			continue
		}
		feeds++
		require.Contains(t, []string{"jsonld", "aggregator"}, vendor)
		require.Empty(t, f("tenant"))
		require.Empty(t, f("hq_country"))
		require.NotEmpty(t, f("name"))
		require.True(t, normalize.ValidRegion(f("region")), f("region"))
		u, err := atsurl.SourceURL(vendor, f("url"), false)
		require.NoError(t, err)
		key := atsurl.SourceKey(vendor, "", "", u)
		s, ok := dirSources[key]
		require.True(t, ok, key)
		require.Equal(t, s.URL, u)
		require.Equal(t, s.Region, f("region"))
		require.False(t, seen[key])
		seen[key] = true
	}
	require.Equal(t, len(d.Companies), ats+companyOnly)
	require.Equal(t, len(d.Sources), ats+feeds, "one row per source of the directory")
	require.Greater(t, companyOnly, 0, "companies known only through boards")
	require.Equal(t, len(boardDefs)+numRegions, feeds)
}

// Every tenant of the world is one the vendor's allowlist accepts unchanged, so its real URL
// renders.
func TestTenantsAreRealTenants(t *testing.T) {
	t.Parallel()
	for _, seed := range []int64{1, 2, 3} {
		w := New(Config{Seed: seed, Companies: 3000})
		for v := vGreenhouse; v <= lastATS; v++ {
			require.NotEmpty(t, w.tenants[v])
			for tenant := range w.tenants[v] {
				got, err := atsurl.Tenant(vendorNames[v], tenant)
				require.NoError(t, err, "seed %d", seed)
				require.Equal(t, tenant, got)
			}
		}
	}
}

// Each simulated country is the country internal/normalize names by its code, in the same
// crawl region.
func TestCountriesAgreeWithNormalize(t *testing.T) {
	t.Parallel()
	for _, c := range countries {
		require.Equal(t, regionNames[c.region], normalize.RegionOf(c.a2), c.a2)
		name, ok := normalize.CountryName(c.a2)
		require.True(t, ok, c.a2)
		require.Equal(t, c.name, name, c.a2)
		require.Equal(t, c.a2, normalize.CountryCode(c.name))
	}
	require.Equal(t, normalize.Regions(), Regions())
}
