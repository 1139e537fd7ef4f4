package sim

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testClient does not ask for gzip (tests that want it set Accept-Encoding themselves).
var testClient = &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 16}}

// testWorld starts a world behind an httptest server; BaseURL is the server's URL.
func testWorld(t *testing.T, cfg Config) (*World, *httptest.Server) {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	cfg.BaseURL = "http://" + ts.Listener.Addr().String()
	w := New(cfg)
	ts.Config.Handler = w.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	return w, ts
}

// get fetches url and returns status, headers and body.
func get(t *testing.T, u string, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	return getWith(t, testClient, u, hdr...)
}

// getWith is get through client.
func getWith(t *testing.T, client *http.Client, u string, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, body
}

func pin(t *testing.T, ts *httptest.Server, tick int) {
	t.Helper()
	resp, err := http.Post(ts.URL+"/_sim/tick?tick="+strconv.Itoa(tick), "application/json", nil)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

func withQuery(u string, kv ...string) string {
	p, err := url.Parse(u)
	if err != nil {
		panic(err)
	}
	q := p.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	p.RawQuery = q.Encode()
	return p.String()
}

var (
	nextRe = regexp.MustCompile(`<link rel="next" href="([^"]+)">`)
)

// ldScripts returns the content of each JSON-LD script block of page, as the regular expression
// (?s)<script type="application/ld\+json">(.*?)</script> finds them (a scan: boards are pages of
// hundreds of KB, which a lazy regular expression crawls under the race detector).
func ldScripts(page []byte) [][]byte {
	const open, end = `<script type="application/ld+json">`, `</script>`
	var out [][]byte
	for {
		i := bytes.Index(page, []byte(open))
		if i < 0 {
			return out
		}
		page = page[i+len(open):]
		j := bytes.Index(page, []byte(end))
		if j < 0 {
			return out
		}
		out = append(out, page[:j])
		page = page[j+len(end):]
	}
}

// jsonldPostings flattens the JobPosting objects of a board page (single objects, arrays and
// @graph blocks).
func jsonldPostings(t *testing.T, page []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range ldScripts(page) {
		var v any
		require.NoError(t, json.Unmarshal(m, &v), "script block must be JSON: %s", m)
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				out = append(out, e.(map[string]any))
			}
		case map[string]any:
			if g, ok := x["@graph"].([]any); ok {
				for _, e := range g {
					out = append(out, e.(map[string]any))
				}
			} else {
				out = append(out, x)
			}
		}
	}
	return out
}

// crawled is what a crawl of one source saw.
type crawled struct {
	ids   []string // source ids of the live postings, in body order (duplicates kept)
	pages int
	junk  int // entries that are not valid postings
}

// crawlSource reads every page of src as an adapter would: live postings only, junk entries
// (wrong types, missing title) counted and skipped.
func crawlSource(t *testing.T, src Source) crawled {
	t.Helper()
	return crawlSourceWith(t, testClient, src)
}

// crawlSourceWith is crawlSource through client.
func crawlSourceWith(t *testing.T, client *http.Client, src Source) crawled {
	t.Helper()
	var out crawled
	fetch := func(u string) []byte {
		status, _, body := getWith(t, client, u)
		require.Equal(t, http.StatusOK, status, "GET %s: %s", u, body)
		out.pages++
		return body
	}
	entries := func(body []byte, key string) []map[string]any {
		var env map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(body, &env), "body of %s", src.Key)
		var raw []json.RawMessage
		require.NoError(t, json.Unmarshal(env[key], &raw))
		var res []map[string]any
		for _, r := range raw {
			var m map[string]any
			json.Unmarshal(r, &m)
			res = append(res, m)
		}
		return res
	}
	str := func(m map[string]any, k string) (string, bool) {
		s, ok := m[k].(string)
		return s, ok && s != ""
	}
	num := func(m map[string]any, k string) (string, bool) {
		f, ok := m[k].(float64)
		return strconv.FormatInt(int64(f), 10), ok
	}
	add := func(id string, ok bool, title any) {
		if _, isStr := title.(string); !ok || !isStr {
			out.junk++
			return
		}
		out.ids = append(out.ids, id)
	}
	switch src.Vendor {
	case "greenhouse":
		for _, e := range entries(fetch(src.URL), "jobs") {
			id, ok := num(e, "id")
			add(id, ok, e["title"])
		}
	case "lever":
		for skip := 0; ; skip += 100 {
			var raw []json.RawMessage
			require.NoError(t, json.Unmarshal(fetch(withQuery(src.URL, "skip", strconv.Itoa(skip), "limit", "100")), &raw))
			for _, r := range raw {
				var m map[string]any
				json.Unmarshal(r, &m)
				id, ok := str(m, "id")
				add(id, ok, m["text"])
			}
			if len(raw) < 100 {
				break
			}
		}
	case "ashby":
		for _, e := range entries(fetch(src.URL), "jobs") {
			if listed, ok := e["isListed"].(bool); ok && !listed {
				continue
			}
			id, ok := str(e, "id")
			if _, isBool := e["isListed"].(bool); !isBool {
				ok = false
			}
			add(id, ok, e["title"])
			secondary, _ := e["secondaryLocations"].([]any)
			for n := 1; ok && n <= len(secondary); n++ {
				add(id+"#"+strconv.Itoa(n), ok, e["title"]) // each further place is a posting
			}
		}
	case "workable":
		for _, e := range entries(fetch(src.URL), "jobs") {
			// One entry per location, named as the adapter names it: shortcode/country/city.
			id, ok := str(e, "shortcode")
			country, _ := e["country"].(string)
			city, _ := e["city"].(string)
			add(id+"/"+country+"/"+city, ok, e["title"])
		}
	case "smartrecruiters":
		for offset := 0; ; {
			body := fetch(withQuery(src.URL, "offset", strconv.Itoa(offset), "limit", "100"))
			var env struct {
				TotalFound int `json:"totalFound"`
			}
			require.NoError(t, json.Unmarshal(body, &env))
			es := entries(body, "content")
			for _, e := range es {
				id, ok := str(e, "id")
				add(id, ok, e["name"])
			}
			offset += len(es)
			if len(es) == 0 || offset >= env.TotalFound {
				break
			}
		}
	case "recruitee":
		for _, e := range entries(fetch(src.URL), "offers") {
			if st, _ := e["status"].(string); st != "published" {
				continue
			}
			id, ok := num(e, "id")
			add(id, ok, e["title"])
		}
	case "personio":
		var feed struct {
			Positions []struct {
				ID         string  `xml:"id"`
				Name       *string `xml:"name"`
				Additional struct {
					Offices []string `xml:"office"`
				} `xml:"additionalOffices"`
			} `xml:"position"`
		}
		require.NoError(t, xml.Unmarshal(fetch(src.URL), &feed))
		for _, p := range feed.Positions {
			_, err := strconv.Atoi(p.ID)
			if err != nil || p.Name == nil {
				out.junk++
				continue
			}
			out.ids = append(out.ids, p.ID)
			for n := 1; n <= len(p.Additional.Offices); n++ {
				out.ids = append(out.ids, p.ID+"#"+strconv.Itoa(n)) // each further office is a posting
			}
		}
	case "teamtailor":
		for offset := 0; ; offset += 100 {
			var feed struct {
				XMLName xml.Name `xml:"rss"`
				Items   []struct {
					Title     string `xml:"title"`
					Link      string `xml:"link"`
					GUID      string `xml:"guid"`
					Locations struct {
						Location []struct{} `xml:"location"`
					} `xml:"locations"`
				} `xml:"channel>item"`
			}
			require.NoError(t, xml.Unmarshal(fetch(withQuery(src.URL, "per_page", "100", "offset", strconv.Itoa(offset))), &feed))
			for _, it := range feed.Items {
				id := teamtailorLinkID.FindStringSubmatch(it.Link)
				if id == nil || it.Title == "" {
					out.junk++
					continue
				}
				out.ids = append(out.ids, id[1])
				for n := 1; n < len(it.Locations.Location); n++ {
					out.ids = append(out.ids, id[1]+"#"+strconv.Itoa(n)) // each further location is a posting
				}
			}
			if len(feed.Items) < 100 {
				break
			}
		}
	case "bamboohr":
		for _, e := range entries(fetch(src.URL), "result") {
			id, ok := str(e, "id")
			add(id, ok, e["jobOpeningName"])
		}
	case "breezy":
		var raw []json.RawMessage
		require.NoError(t, json.Unmarshal(fetch(src.URL), &raw))
		for _, r := range raw {
			var e map[string]any
			json.Unmarshal(r, &e)
			id, ok := str(e, "id")
			add(id, ok, e["name"])
			places, _ := e["locations"].([]any)
			for n := 1; ok && n < len(places); n++ {
				add(id+"#"+strconv.Itoa(n), ok, e["name"]) // each further location is a posting
			}
		}
	case "pinpoint":
		for _, e := range entries(fetch(src.URL), "data") {
			id, ok := str(e, "id")
			add(id, ok, e["title"])
		}
	case "join":
		for page := 1; ; page++ {
			body := fetch(withQuery(src.URL, "page", strconv.Itoa(page), "pageSize", "5"))
			for _, e := range entries(body, "items") {
				id, ok := num(e, "id")
				add(id, ok, e["title"])
			}
			var env struct {
				Pagination struct {
					PageCount int `json:"pageCount"`
				} `json:"pagination"`
			}
			require.NoError(t, json.Unmarshal(body, &env))
			if page >= env.Pagination.PageCount {
				break
			}
		}
	case "jsonld":
		for u := src.URL; u != ""; {
			body := fetch(u)
			if isJobPage(body) {
				// A job page: the page is the posting (canonical link, else its URL), and each
				// further jobLocation is a posting of its own (id#n).
				id := u
				if m := canonicalRe.FindSubmatch(body); m != nil {
					id = string(m[1])
				}
				for _, p := range jsonldPostings(t, body) {
					places, _ := p["jobLocation"].([]any)
					add(id, true, p["title"])
					for n := 1; n < len(places); n++ {
						add(id+"#"+strconv.Itoa(n), true, p["title"])
					}
				}
			}
			for _, p := range jsonldPostings(t, body) {
				if isJobPage(body) {
					break
				}
				idv, _ := p["identifier"].(map[string]any)
				id, ok := "", false
				if idv != nil {
					id, ok = str(idv, "value")
				}
				add(id, ok, p["title"])
			}
			u = ""
			if m := nextRe.FindSubmatch(body); m != nil {
				u = string(m[1])
			}
		}
	case "aggregator":
		for u := src.URL; u != ""; {
			body := fetch(u)
			for _, e := range entries(body, "jobs") {
				id, ok := str(e, "id")
				add(id, ok, e["title"])
			}
			var env struct {
				Next string `json:"next_cursor"`
			}
			require.NoError(t, json.Unmarshal(body, &env))
			u = ""
			if env.Next != "" {
				u = withQuery(src.URL, "cursor", env.Next)
			}
		}
	case "workday":
		total := -1
		for offset := 0; ; {
			status, _, body := postJSON(t, client, src.URL, fmt.Sprintf(`{"appliedFacets":{},"limit":20,"offset":%d,"searchText":""}`, offset))
			require.Equal(t, http.StatusOK, status, "POST %s offset %d: %s", src.URL, offset, body)
			out.pages++
			var env struct {
				Total int `json:"total"`
			}
			require.NoError(t, json.Unmarshal(body, &env))
			if total < 0 {
				total = env.Total
			}
			es := entries(body, "jobPostings")
			for _, e := range es {
				path, ok := str(e, "externalPath")
				add(path, ok && strings.HasPrefix(path, "/job/"), e["title"])
			}
			offset += len(es)
			if len(es) == 0 || offset >= total {
				break
			}
		}
	case "icims":
		for pr := 0; ; pr++ {
			body := fetch(withQuery(src.URL, "pr", strconv.Itoa(pr)))
			for _, card := range strings.Split(string(body), `<li class="iCIMS_JobCardItem">`)[1:] {
				m := icimsCardRe.FindStringSubmatch(card)
				require.NotNil(t, m, "a card of %s links a job", src.Key)
				var title any = html.UnescapeString(m[2])
				if m[2] == "" {
					title = nil
				}
				add(m[1], true, title)
				if loc := icimsPlacesRe.FindStringSubmatch(card); loc != nil && strings.Contains(loc[1], " | ") && m[2] != "" {
					add(m[1]+"#1", true, title) // the further country is a posting of its own
				}
			}
			pm := icimsPageOfRe.FindSubmatch(body)
			if pm == nil || string(pm[1]) == string(pm[2]) {
				break
			}
		}
	case "jobvite":
		for p := 0; ; p++ {
			u := src.URL
			if p > 0 {
				u = withQuery(src.URL, "p", strconv.Itoa(p))
			}
			body := fetch(u)
			for _, m := range jobviteRowRe.FindAllSubmatch(body, -1) {
				var title any = html.UnescapeString(string(m[2]))
				if len(m[2]) == 0 {
					title = nil
				}
				add(string(m[1]), true, title)
			}
			if !bytes.Contains(body, []byte("jv-pagination-next")) {
				break
			}
		}
	case "jazzhr":
		for _, m := range jazzRowRe.FindAllSubmatch(fetch(src.URL), -1) {
			var title any = html.UnescapeString(string(m[2]))
			if len(m[2]) == 0 {
				title = nil
			}
			add(string(m[1]), true, title)
		}
	case "rippling":
		for page := 0; ; page++ {
			body := fetch(withQuery(src.URL, "page", strconv.Itoa(page)))
			var env struct {
				TotalPages int `json:"totalPages"`
			}
			require.NoError(t, json.Unmarshal(body, &env))
			for _, e := range entries(body, "items") {
				id, ok := str(e, "id")
				add(id, ok, e["name"])
			}
			if page+1 >= env.TotalPages {
				break
			}
		}
	default:
		panic(fmt.Sprintf("vendor %q", src.Vendor))
	}
	return out
}

var (
	canonicalRe      = regexp.MustCompile(`<link rel="canonical" href="([^"]+)">`)
	teamtailorLinkID = regexp.MustCompile(`/jobs/([0-9]+)-`)
	icimsCardRe      = regexp.MustCompile(`(?s)<a href="https://[a-z0-9-]+\.icims\.com/jobs/(\d+)/[^"]*" class="iCIMS_Anchor".*?<h3>(.*?)</h3>`)
	icimsPlacesRe    = regexp.MustCompile(`Job Locations</span><span>([^<]*)</span>`)
	icimsPageOfRe    = regexp.MustCompile(`Page (\d+) of (\d+)`)
	jobviteRowRe     = regexp.MustCompile(`<td class="jv-job-list-name"><a href="/[^/"]+/job/([A-Za-z0-9]+)">([^<]*)</a>`)
	jazzRowRe        = regexp.MustCompile(`<a href="https://[a-z0-9-]+\.applytojob\.com/apply/([A-Za-z0-9]+)/[^"]*">([^<]*)</a>`)
)

// postJSON POSTs body (JSON) to u and returns status, headers and body.
func postJSON(t *testing.T, client *http.Client, u, body string) (int, http.Header, []byte) {
	t.Helper()
	resp, err := client.Post(u, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, b
}

// getFirstPage fetches the first page of a source of vendor at u: Workday's with the POST its
// list answers, every other with a GET.
func getFirstPage(t *testing.T, client *http.Client, vendor, u string) (int, http.Header, []byte) {
	t.Helper()
	if vendor == "workday" {
		return postJSON(t, client, u, `{"appliedFacets":{},"limit":20,"offset":0,"searchText":""}`)
	}
	return getWith(t, client, u)
}

// isJobPage reports whether a board page is a job page (one posting without identifier).
func isJobPage(body []byte) bool {
	return bytes.Contains(body, []byte("<script type=\"application/ld+json\">")) && !bytes.Contains(body, []byte(`"identifier"`))
}

// sourceOfVendor returns the first directory source of the vendor.
func sourceOfVendor(t *testing.T, d Directory, vendor string) Source {
	t.Helper()
	for _, s := range d.Sources {
		if s.Vendor == vendor {
			return s
		}
	}
	t.Fatalf("no %s source", vendor)
	return Source{}
}

// truthBySource groups the truth's postings by source key.
func truthBySource(tr Truth) map[string][]string {
	m := map[string][]string{}
	for _, r := range tr.Reqs {
		for _, p := range r.Postings {
			m[p.SourceKey] = append(m[p.SourceKey], p.SourceID)
		}
	}
	return m
}

func decode(t *testing.T, body []byte, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(body, v), "%s", body)
}
