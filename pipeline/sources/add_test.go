package sources_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

// vendorWorld serves the vendors' real URLs from one test server: the client's transport sends
// every request there, keeping its path and query, and records the URLs asked.
type vendorWorld struct {
	mu    sync.Mutex
	asked []string
	pages map[string]string // "host/path?query" → body
}

func (w *vendorWorld) client(t *testing.T) *http.Client {
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, ok := w.pages[r.Host+r.URL.RequestURI()]
		if !ok {
			http.NotFound(rw, r)
			return
		}
		_, _ = rw.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	target, err := url.Parse(srv.URL)
	require.NoError(t, err)
	return &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		w.mu.Lock()
		w.asked = append(w.asked, r.URL.String())
		w.mu.Unlock()
		r = r.Clone(r.Context())
		r.Host = r.URL.Host
		r.URL.Scheme, r.URL.Host = target.Scheme, target.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestAddValidatesWithOneFetchThenWritesActive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "sources")
	gh, err := os.ReadFile("../ats/testdata/greenhouse_jobs.json")
	require.NoError(t, err)
	wk, err := os.ReadFile("../ats/testdata/workable_account.json")
	require.NoError(t, err)
	w := &vendorWorld{pages: map[string]string{
		"boards-api.greenhouse.io/v1/boards/acme/jobs?content=true":            string(gh),
		"apply.workable.com/api/v1/widget/accounts/acmelog?details=true":       string(wk),
		"api.ashbyhq.com/posting-api/job-board/empty?includeCompensation=true": `{"jobs":[]}`,
		"api.lever.co/v0/postings/html?mode=json&skip=0&limit=100":             `<html>moved</html>`,
	}}
	client := w.client(t)
	req := sources.AddRequest{Vendor: "greenhouse", Tenant: "acme", Domain: "https://www.acme.com", By: "ops"}

	// A dry run fetches and reports, and writes nothing.
	rep, err := sources.Add(ctx, pool, client, req)
	require.NoError(t, err)
	require.Equal(t, []string{"https://boards-api.greenhouse.io/v1/boards/acme/jobs?content=true"}, w.asked)
	require.Equal(t, "greenhouse:acme", rep.Key)
	require.Equal(t, 200, rep.Status)
	require.Positive(t, rep.Count)
	require.Equal(t, "Acme", rep.VendorName)
	require.Equal(t, "Acme", rep.Name)
	require.False(t, rep.Registry.Applied)
	require.Equal(t, oltp.Counts{Added: 1}, rep.Registry.Sources)
	require.Zero(t, count(t, pool, "crawl_sources"))

	req.Apply = true
	rep, err = sources.Add(ctx, pool, client, req)
	require.NoError(t, err)
	require.True(t, rep.Registry.Applied)
	s, co, err := oltp.GetSource(ctx, pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceActive, s.Status)
	require.Equal(t, "acme.com", co.Domain)
	require.Equal(t, "vendor:greenhouse", co.Facts["name"].Source)
	var ev map[string]any
	require.NoError(t, json.Unmarshal(s.Evidence, &ev))
	require.Equal(t, s.URL, ev["url"])
	require.EqualValues(t, 200, ev["status"])
	require.EqualValues(t, rep.Count, ev["count"])
	require.Equal(t, "Acme", ev["vendor_name"])
	require.NotEmpty(t, ev["at"])

	// A name the feed contradicts is a warning; the operator's name is written.
	rep, err = sources.Add(ctx, pool, client, sources.AddRequest{Vendor: "workable", Tenant: "acmelog", Domain: "acme-logistics.com",
		Name: "Acme Freight", By: "ops", Apply: true})
	require.NoError(t, err)
	require.Equal(t, "Acme Logistics", rep.VendorName)
	require.Len(t, rep.Warnings, 1)
	require.Contains(t, rep.Warnings[0], `the feed names the company "Acme Logistics", not "Acme Freight"`)
	_, co, err = oltp.GetSource(ctx, pool, "workable:acmelog")
	require.NoError(t, err)
	require.Equal(t, "Acme Freight", co.Name)
	require.Equal(t, "cli", co.Facts["name"].Source)

	// Refusals: a 404, an empty board, a page that is not the vendor's format, a tenant that could
	// move the URL, a feed vendor.
	_, err = sources.Add(ctx, pool, client, sources.AddRequest{Vendor: "greenhouse", Tenant: "nope", Domain: "nope.com", Name: "Nope", By: "ops"})
	require.ErrorContains(t, err, "answered 404, not 200")
	_, err = sources.Add(ctx, pool, client, sources.AddRequest{Vendor: "ashby", Tenant: "empty", Domain: "empty.com", Name: "Empty", By: "ops"})
	require.ErrorContains(t, err, "no postings")
	rep, err = sources.Add(ctx, pool, client, sources.AddRequest{Vendor: "ashby", Tenant: "empty", Domain: "empty.com", Name: "Empty", By: "ops", AllowEmpty: true})
	require.NoError(t, err)
	require.Zero(t, rep.Count)
	_, err = sources.Add(ctx, pool, client, sources.AddRequest{Vendor: "lever", Tenant: "html", Domain: "html.com", Name: "Html", By: "ops"})
	require.ErrorContains(t, err, "not a lever feed")
	n := len(w.asked)
	_, err = sources.Add(ctx, pool, client, sources.AddRequest{Vendor: "greenhouse", Tenant: "../admin", Domain: "x.com", By: "ops"})
	require.ErrorContains(t, err, "invalid tenant")
	_, err = sources.Add(ctx, pool, client, sources.AddRequest{Vendor: "jsonld", Tenant: "x", Domain: "x.com", By: "ops"})
	require.ErrorContains(t, err, "import it from a CSV file")
	require.Len(t, w.asked, n, "a refused request fetches nothing")
	require.Equal(t, 2, count(t, pool, "crawl_sources"), "only the applied adds wrote")
}

// A Workday tenant is validated with the POST its list is read with.
func TestAddValidatesAWorkdayTenantWithItsPOST(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "sources")
	wd, err := os.ReadFile("../ats/testdata/workday_jobs.json")
	require.NoError(t, err)
	var method, ctype string
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		method, ctype = r.Method, r.Header.Get("Content-Type")
		_ = json.NewDecoder(r.Body).Decode(&body)
		if r.Host != "acme.wd5.myworkdayjobs.com" || r.URL.Path != "/wday/cxs/acme/External/jobs" || r.Method != http.MethodPost {
			http.NotFound(rw, r)
			return
		}
		_, _ = rw.Write(wd)
	}))
	t.Cleanup(srv.Close)
	target, err := url.Parse(srv.URL)
	require.NoError(t, err)
	client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Host = r.URL.Host
		r.URL.Scheme, r.URL.Host = target.Scheme, target.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
	rep, err := sources.Add(ctx, pool, client, sources.AddRequest{Vendor: "workday", Tenant: "Acme/wd5/External", Domain: "acme.com", Name: "Acme", By: "ops"})
	require.NoError(t, err)
	require.Equal(t, "POST", method)
	require.Equal(t, "application/json", ctype)
	require.Equal(t, map[string]any{"appliedFacets": map[string]any{}, "limit": 20.0, "offset": 0.0, "searchText": ""}, body)
	require.Equal(t, "workday:acme/wd5/External", rep.Key)
	require.Equal(t, "https://acme.wd5.myworkdayjobs.com/wday/cxs/acme/External/jobs", rep.URL)
	require.Equal(t, 4, rep.Count)
	require.Equal(t, 1, rep.Malformed)
}
