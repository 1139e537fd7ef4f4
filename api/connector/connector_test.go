package connector_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/connector"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/snapshot"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// fixture is a small crawled world and a server with the connector routes over its snapshot.
type fixture struct {
	w         *readmodeltest.World
	srv       *apitest.Server
	m         *readmodel.Model
	covered   uint64 // a covered company with live reqs
	uncovered uint64 // a company without coverage
}

var world = apitest.NewShared("connector", func(tb testing.TB) *fixture {
	w := readmodeltest.Crawl(tb, readmodeltest.Config{Seed: 7, Companies: 60, First: 100, Last: 100 + 24*20, Step: 24})
	snaps := snapshot.New(snapshot.Config{ClickHouse: w.CH, Log: apitest.Quiet(), Poll: time.Hour})
	_, err := snaps.Refresh(context.Background(), true)
	require.NoError(tb, err)
	srv := apitest.StartServer(tb, apitest.Options{DB: "connector", Register: func(s *api.Server, pool *pgxpool.Pool) {
		connector.Register(s, connector.Deps{Snapshots: snaps, Pool: pool, Log: apitest.Quiet()})
	}})
	f := &fixture{w: w, srv: srv, m: snaps.Current().Model}
	for id := range w.Companies {
		if w.Covered[id] && len(w.Live[id]) > 0 && f.covered == 0 {
			f.covered = id
		}
		if !w.Covered[id] && f.uncovered == 0 {
			f.uncovered = id
		}
	}
	require.NotZero(tb, f.covered)
	require.NotZero(tb, f.uncovered)
	return f
})

type row struct {
	RowID           *string  `json:"row_id"`
	CompanyID       *uint64  `json:"company_id"`
	Domain          *string  `json:"domain"`
	MatchConfidence *float64 `json:"match_confidence"`
	CoverageStatus  string   `json:"coverage_status"`
	IsHiring        *bool    `json:"is_hiring"`
	OpenReqCount    *int     `json:"open_req_count"`
	Velocity        *float64 `json:"velocity"`
	Direction       *string  `json:"direction"`
	IsSurge         *bool    `json:"is_surge"`
	Message         *string  `json:"message"`
	CheckedAt       string   `json:"checked_at"`
}

// usage is the caller's calls and source rows once everything metered reached Postgres.
func usage(t *testing.T, s *apitest.Server, key string) (calls, sourceRows int64) {
	t.Helper()
	require.NoError(t, s.API.FlushUsage(context.Background()))
	var u struct {
		Calls      int64 `json:"calls"`
		SourceRows int64 `json:"source_rows"`
	}
	s.Get(t, "/v1/usage", key, nil).Decode(t, 200, &u)
	return u.Calls, u.SourceRows
}

func requireFlat(t *testing.T, r apitest.Response) {
	t.Helper()
	for k, v := range r.Fields(t) {
		s := strings.TrimSpace(string(v))
		require.False(t, strings.HasPrefix(s, "{") || strings.HasPrefix(s, "["), "%s is nested: %s", k, s)
	}
}

func TestEnrichHitIsAFlatRowOfTheCompanyAndItsPulse(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "growth").Key
	co := f.w.Companies[f.covered]
	r := f.srv.Post(t, "/v1/connector/enrich", key, map[string]any{"domain": "https://www." + co.Domain + "/about", "row_id": "r-17"})
	require.Equal(t, 200, r.Status, string(r.Body))
	f.srv.Conforms(t, "POST", "/v1/connector/enrich", r)
	requireFlat(t, r)
	var v row
	r.Decode(t, 200, &v)
	require.Equal(t, f.covered, *v.CompanyID)
	require.Equal(t, "r-17", *v.RowID)
	require.Equal(t, 1.0, *v.MatchConfidence)
	require.Equal(t, "covered", v.CoverageStatus)
	require.Equal(t, len(f.w.Live[f.covered]), *v.OpenReqCount)
	require.True(t, *v.IsHiring)
	require.NotNil(t, v.Velocity)
	require.Nil(t, v.Message)

	byName := apitest.PostJSON[row](t, f.srv, "/v1/connector/enrich", key, map[string]any{"name": co.Name}, 200)
	require.Equal(t, f.covered, *byName.CompanyID)
	require.Nil(t, byName.RowID)
	// A domain that matches nothing falls back to the name.
	fallback := apitest.PostJSON[row](t, f.srv, "/v1/connector/enrich", key, map[string]any{"domain": "nowhere.invalid", "name": co.Name}, 200)
	require.Equal(t, f.covered, *fallback.CompanyID)
}

// A miss is 200 with null motion, and free as companies/resolve is: it meters to the presented
// key (usage lists the key) but bills no call and no unit; a hit is one call.
func TestEnrichMissIs200WithNullMotionAndIsNotBilled(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "starter").Key
	r := f.srv.Post(t, "/v1/connector/enrich", key, map[string]any{"domain": "no-such-company.example", "row_id": "7"})
	f.srv.Conforms(t, "POST", "/v1/connector/enrich", r)
	requireFlat(t, r)
	var v row
	r.Decode(t, 200, &v)
	require.Nil(t, v.CompanyID)
	require.Equal(t, "no_ats_signal", v.CoverageStatus)
	require.NotNil(t, v.Message)
	require.Contains(t, *v.Message, "no-such-company.example")
	_, err := time.Parse(time.RFC3339, v.CheckedAt)
	require.NoError(t, err)
	require.Nil(t, v.IsHiring)
	require.Nil(t, v.OpenReqCount)
	require.Nil(t, v.Velocity)
	require.Nil(t, v.Direction)
	require.Nil(t, v.IsSurge)
	calls, rows := usage(t, f.srv, key)
	require.Zero(t, calls, "a miss bills no call")
	require.Zero(t, rows)
	require.Equal(t, 1, meteredKeys(t, f.srv, key), "a miss still meters to the presented key")
	apitest.PostJSON[row](t, f.srv, "/v1/connector/enrich", key, map[string]any{"domain": f.w.Companies[f.covered].Domain}, 200)
	calls, rows = usage(t, f.srv, key)
	require.EqualValues(t, 1, calls, "a hit meters one call")
	require.Zero(t, rows)
}

// meteredKeys is how many keys the caller's usage lists (keys with a metered event).
func meteredKeys(t *testing.T, s *apitest.Server, key string) int {
	t.Helper()
	require.NoError(t, s.API.FlushUsage(context.Background()))
	var u struct {
		Keys []struct {
			KeyID int64 `json:"key_id"`
		} `json:"keys"`
	}
	s.Get(t, "/v1/usage", key, nil).Decode(t, 200, &u)
	return len(u.Keys)
}

func TestEnrichUncoveredCompanyHasNullMotion(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "growth").Key
	v := apitest.PostJSON[row](t, f.srv, "/v1/connector/enrich", key, map[string]any{"domain": f.w.Companies[f.uncovered].Domain}, 200)
	require.Equal(t, f.uncovered, *v.CompanyID)
	require.Equal(t, "no_ats_signal", v.CoverageStatus)
	require.Nil(t, v.IsHiring)
	require.Nil(t, v.OpenReqCount)
	require.NotNil(t, v.Message)
}

func TestEnrichBadRowsAre422(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "growth").Key
	for name, body := range map[string]any{
		"neither":    map[string]any{"row_id": "1"},
		"blank":      map[string]any{"domain": "  ", "name": ""},
		"extra":      map[string]any{"domain": "a.com", "email": "x@a.com"},
		"too long":   map[string]any{"name": strings.Repeat("x", 254)},
		"wrong type": map[string]any{"domain": 5},
		"no body":    nil,
	} {
		r := f.srv.Post(t, "/v1/connector/enrich", key, body)
		require.Equal(t, 422, r.Status, "%s: %s", name, r.Body)
	}
	calls, _ := usage(t, f.srv, key)
	require.Zero(t, calls)
}

// A batch answers every row in order and bills one call plus a source_row per row that found a
// company (known without coverage included); a row that missed is free, and a batch whose every
// row missed bills nothing (metered to the key, as a single miss).
func TestEnrichBatchAnswersEachRowInOrderAndBillsTheRowsFound(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "growth").Key
	rows := []map[string]any{
		{"row_id": "a", "domain": f.w.Companies[f.covered].Domain},
		{"row_id": "b", "domain": "missing.example"},
		{"row_id": "c", "name": f.w.Companies[f.uncovered].Name},
	}
	r := f.srv.Post(t, "/v1/connector/enrich/batch", key, map[string]any{"rows": rows})
	f.srv.Conforms(t, "POST", "/v1/connector/enrich/batch", r)
	var v struct {
		Rows []row `json:"rows"`
	}
	r.Decode(t, 200, &v)
	require.Len(t, v.Rows, 3)
	require.Equal(t, "a", *v.Rows[0].RowID)
	require.Equal(t, f.covered, *v.Rows[0].CompanyID)
	require.Equal(t, "b", *v.Rows[1].RowID)
	require.Nil(t, v.Rows[1].CompanyID)
	require.Equal(t, f.uncovered, *v.Rows[2].CompanyID)
	calls, src := usage(t, f.srv, key)
	require.EqualValues(t, 1, calls)
	require.EqualValues(t, 2, src, "the missed row bills no source_row")

	misses := f.srv.Account(t, "growth").Key
	var m struct {
		Rows []row `json:"rows"`
	}
	f.srv.Post(t, "/v1/connector/enrich/batch", misses, map[string]any{"rows": []map[string]any{{"domain": "missing.example"}, {"name": "Zzyzx Nonexistent Ltd"}}}).Decode(t, 200, &m)
	require.Len(t, m.Rows, 2)
	calls, src = usage(t, f.srv, misses)
	require.Zero(t, calls, "a batch of misses bills no call")
	require.Zero(t, src)
	require.Equal(t, 1, meteredKeys(t, f.srv, misses))

	big := make([]map[string]any, connector.BatchMax+1)
	for i := range big {
		big[i] = map[string]any{"name": fmt.Sprint("c", i)}
	}
	require.Equal(t, 422, f.srv.Post(t, "/v1/connector/enrich/batch", key, map[string]any{"rows": big}).Status)
	require.Equal(t, 422, f.srv.Post(t, "/v1/connector/enrich/batch", key, map[string]any{"rows": []any{}}).Status)
	bad := f.srv.Post(t, "/v1/connector/enrich/batch", key, map[string]any{"rows": []any{map[string]any{"name": "x"}, map[string]any{"row_id": "2"}}})
	require.Equal(t, []string{"body.rows.1"}, bad.Invalid(t).Locs())
}

// The shared demo key (unmetered, no daily quota) gets at most api.DemoPageLimit rows of a batch,
// as it gets at most that page on every paged route: more is 422 too_long naming the cap, not 100
// enriched rows a call. The single enrich is one row; the migration import needs the write scope
// the demo key does not have.
func TestDemoKeyBatchIsCappedAtTheDemoPage(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	rows := func(n int) map[string]any {
		out := make([]map[string]any, n)
		for i := range out {
			out[i] = map[string]any{"row_id": fmt.Sprint(i), "domain": f.w.Companies[f.covered].Domain}
		}
		return map[string]any{"rows": out}
	}
	r := f.srv.Post(t, "/v1/connector/enrich/batch", api.PublicDemoKey, rows(api.DemoPageLimit+1))
	f.srv.Conforms(t, "POST", "/v1/connector/enrich/batch", r)
	inv := r.Invalid(t)
	require.Equal(t, []string{"body.rows"}, inv.Locs())
	require.Equal(t, "too_long", inv.Detail[0].Type)
	require.EqualValues(t, api.DemoPageLimit, inv.Detail[0].Ctx["max_length"])
	require.Equal(t, 422, f.srv.Post(t, "/v1/connector/enrich/batch", api.PublicDemoKey, rows(connector.BatchMax)).Status)

	var v struct {
		Rows []row `json:"rows"`
	}
	f.srv.Post(t, "/v1/connector/enrich/batch", api.PublicDemoKey, rows(api.DemoPageLimit)).Decode(t, 200, &v)
	require.Len(t, v.Rows, api.DemoPageLimit)
	require.Equal(t, f.covered, *v.Rows[0].CompanyID)
	// Any other key keeps the route's own cap.
	f.srv.Post(t, "/v1/connector/enrich/batch", f.srv.Account(t, "growth").Key, rows(connector.BatchMax)).Decode(t, 200, &v)
	require.Len(t, v.Rows, connector.BatchMax)

	require.Equal(t, 200, f.srv.Post(t, "/v1/connector/enrich", api.PublicDemoKey, map[string]any{"domain": f.w.Companies[f.covered].Domain}).Status)
	require.Equal(t, 403, f.srv.Post(t, "/v1/migration-import", api.PublicDemoKey, map[string]any{"companies": []any{map[string]any{"domain": "a.example"}}}).Status)
}

type imported struct {
	Resolved []struct {
		Index           int     `json:"index"`
		CompanyID       uint64  `json:"company_id"`
		MatchConfidence float64 `json:"match_confidence"`
		CoverageStatus  string  `json:"coverage_status"`
	} `json:"resolved"`
	Misses []struct {
		Index     int     `json:"index"`
		Domain    *string `json:"domain"`
		Name      *string `json:"name"`
		RequestID int64   `json:"request_id"`
	} `json:"misses"`
	Covered        int      `json:"covered"`
	Total          int      `json:"total"`
	IgnoredColumns []string `json:"ignored_columns"`
	Skipped        []struct {
		Index  int    `json:"index"`
		Line   int    `json:"line"`
		Reason string `json:"reason"`
	} `json:"skipped"`
}

type coverageList struct {
	Requests []struct {
		RequestID      int64   `json:"request_id"`
		Domain         *string `json:"domain"`
		Name           *string `json:"name"`
		Source         string  `json:"source"`
		TimesRequested int     `json:"times_requested"`
	} `json:"requests"`
	NextCursor *int64 `json:"next_cursor"`
}

func TestMigrationImportResolvesAndTurnsMissesIntoCoverageRequests(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "growth").Key
	cov, unc := f.w.Companies[f.covered], f.w.Companies[f.uncovered]
	list := []map[string]any{
		{"domain": cov.Domain},
		{"name": unc.Name},
		{"domain": "gone-vendor.example", "name": "Gone Vendor GmbH"},
		{"name": "Nobody Anywhere Ltd"},
		{"domain": "GONE-VENDOR.example"}, // the same company as item 2: one coverage request
	}
	r := f.srv.Post(t, "/v1/migration-import", key, map[string]any{"companies": list})
	f.srv.Conforms(t, "POST", "/v1/migration-import", r)
	var v imported
	r.Decode(t, 200, &v)
	require.Equal(t, 5, v.Total)
	require.Len(t, v.Resolved, 2)
	require.Equal(t, f.covered, v.Resolved[0].CompanyID)
	require.Equal(t, 1.0, v.Resolved[0].MatchConfidence)
	require.Equal(t, f.uncovered, v.Resolved[1].CompanyID)
	require.Equal(t, 1, v.Covered)
	require.Len(t, v.Misses, 3)
	require.Equal(t, []int{2, 3, 4}, []int{v.Misses[0].Index, v.Misses[1].Index, v.Misses[2].Index})
	require.Equal(t, v.Misses[0].RequestID, v.Misses[2].RequestID)
	require.NotEqual(t, v.Misses[0].RequestID, v.Misses[1].RequestID)

	reqs := apitest.GetJSON[coverageList](t, f.srv, "/v1/coverage-requests", key, nil, 200)
	require.Len(t, reqs.Requests, 2)
	require.Equal(t, "Nobody Anywhere Ltd", *reqs.Requests[0].Name)
	require.Equal(t, "gone-vendor.example", *reqs.Requests[1].Domain)
	require.Equal(t, "migration_import", reqs.Requests[1].Source)

	// Importing again asks again: the same requests, counted twice.
	again := apitest.PostJSON[imported](t, f.srv, "/v1/migration-import", key, map[string]any{"companies": list[2:4]}, 200)
	require.Equal(t, v.Misses[0].RequestID, again.Misses[0].RequestID)
	reqs = apitest.GetJSON[coverageList](t, f.srv, "/v1/coverage-requests", key, url.Values{"limit": {"1"}}, 200)
	require.Len(t, reqs.Requests, 1)
	require.Equal(t, 2, reqs.Requests[0].TimesRequested)
	next := apitest.GetJSON[coverageList](t, f.srv, "/v1/coverage-requests", key, url.Values{"limit": {"1"}, "cursor": {fmt.Sprint(*reqs.NextCursor)}}, 200)
	require.Len(t, next.Requests, 1)
	require.Nil(t, next.NextCursor)
	require.Equal(t, v.Misses[0].RequestID, next.Requests[0].RequestID)

	// Not billable; another customer sees none of it.
	calls, _ := usage(t, f.srv, key)
	require.Zero(t, calls)
	other := f.srv.Account(t, "growth").Key
	require.Empty(t, apitest.GetJSON[coverageList](t, f.srv, "/v1/coverage-requests", other, nil, 200).Requests)
}

func TestMigrationImportTakesCSV(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "starter").Key
	cov := f.w.Companies[f.covered]
	csv := "\ufeffName,Website,Domain\n" + fmt.Sprintf("%q,x,%s\n", cov.Name, cov.Domain) + "\"Comma, Inc\",y,comma.example\n,,\n"
	r := f.srv.Do(t, "POST", "/v1/migration-import", key, csv, "Content-Type", "text/csv")
	f.srv.Conforms(t, "POST", "/v1/migration-import", r)
	var v imported
	r.Decode(t, 200, &v)
	require.Equal(t, 3, v.Total, "every data row counts, the empty one too")
	require.Len(t, v.Resolved, 1)
	require.Equal(t, f.covered, v.Resolved[0].CompanyID)
	require.Len(t, v.Misses, 1)
	require.Equal(t, "Comma, Inc", *v.Misses[0].Name)
	require.Equal(t, "comma.example", *v.Misses[0].Domain, "Domain comes before Website")
	require.Len(t, v.Skipped, 1)
	require.Equal(t, 2, v.Skipped[0].Index)
	require.Equal(t, 4, v.Skipped[0].Line)
	require.Empty(t, v.IgnoredColumns)

	for name, body := range map[string]string{"no columns": "owner,stage\nbob,lead\n", "empty": "", "header only": "domain\n", "ragged quote": "domain\n\"a.com\n",
		"no row names a company": "Account Name,Website\n,\n  ,\n"} {
		r := f.srv.Do(t, "POST", "/v1/migration-import", key, body, "Content-Type", "text/csv")
		require.Equal(t, 422, r.Status, "%s: %s", name, r.Body)
	}
}

// CRM exports name their columns their own way: a CSV's name and domain columns are found under
// the common headers, any case; a website URL gives its domain; the other columns are echoed as
// ignored and a row with neither a name nor a domain as skipped, with its line and why. total
// counts every data row: nothing is dropped without a word.
func TestMigrationImportReadsCRMExportsAndDropsNothingSilently(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "growth").Key
	cov, unc := f.w.Companies[f.covered], f.w.Companies[f.uncovered]
	post := func(body string) imported {
		t.Helper()
		r := f.srv.Do(t, "POST", "/v1/migration-import", key, body, "Content-Type", "text/csv")
		f.srv.Conforms(t, "POST", "/v1/migration-import", r)
		var v imported
		r.Decode(t, 200, &v)
		require.Equal(t, v.Total, len(v.Resolved)+len(v.Misses)+len(v.Skipped), "every row is resolved, missed or skipped")
		return v
	}

	// 50 rows: 47 with a domain, a name-only row of a known company, one name-only unknown, one with neither.
	var b strings.Builder
	b.WriteString("Company Name,Domain,Owner\n")
	for i := range 47 {
		fmt.Fprintf(&b, "Co %d,co-%d.example,ann\n", i, i)
	}
	fmt.Fprintf(&b, "%q,,bob\n", unc.Name)
	b.WriteString("Nameless Vendor Ltd,,bob\n")
	b.WriteString(",,carl\n")
	v := post(b.String())
	require.Equal(t, 50, v.Total)
	require.Equal(t, []string{"Owner"}, v.IgnoredColumns)
	require.Len(t, v.Resolved, 1)
	require.Equal(t, f.uncovered, v.Resolved[0].CompanyID, "the name-only row resolves by its name")
	require.Equal(t, 47, v.Resolved[0].Index)
	require.Len(t, v.Misses, 48)
	require.Equal(t, "Nameless Vendor Ltd", *v.Misses[47].Name)
	require.Nil(t, v.Misses[47].Domain)
	require.Len(t, v.Skipped, 1)
	require.Equal(t, 49, v.Skipped[0].Index)
	require.Equal(t, 51, v.Skipped[0].Line)
	require.Contains(t, v.Skipped[0].Reason, `"Company Name" and "Domain" are empty`)

	// Salesforce (Account Name, Website) and HubSpot (Company name, Company Domain Name, Website
	// URL) exports, any case: a URL gives its host.
	v = post("ACCOUNT NAME,website,Industry\n" + fmt.Sprintf("Whatever Name,https://www.%s/careers?x=1,Software\n", cov.Domain) +
		"Unknown Account,http://unknown-account.example/,Retail\n")
	require.Equal(t, []string{"Industry"}, v.IgnoredColumns)
	require.Len(t, v.Resolved, 1)
	require.Equal(t, f.covered, v.Resolved[0].CompanyID, "the website's host resolves")
	require.Equal(t, 1.0, v.Resolved[0].MatchConfidence)
	require.Len(t, v.Misses, 1)
	require.Equal(t, "unknown-account.example", *v.Misses[0].Domain)
	require.Equal(t, "Unknown Account", *v.Misses[0].Name)
	v = post("Company name,Company Domain Name,Website URL,Lifecycle Stage\n" + fmt.Sprintf("X,,https://%s/,customer\n", cov.Domain) + "company_only_name,,,lead\n")
	require.Equal(t, 2, v.Total)
	require.Equal(t, []string{"Lifecycle Stage"}, v.IgnoredColumns)
	require.Len(t, v.Resolved, 1)
	require.Equal(t, f.covered, v.Resolved[0].CompanyID, "Website URL fills in an empty Company Domain Name")
	require.Len(t, v.Misses, 1)

	// JSON has neither: both are always answered.
	j := apitest.PostJSON[imported](t, f.srv, "/v1/migration-import", key, map[string]any{"companies": []any{map[string]any{"domain": cov.Domain}}}, 200)
	require.NotNil(t, j.IgnoredColumns)
	require.Empty(t, j.IgnoredColumns)
	require.NotNil(t, j.Skipped)
	require.Empty(t, j.Skipped)
}

func TestMigrationImportBoundsTheList(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "growth").Key
	var b strings.Builder
	b.WriteString("domain\n")
	for i := range connector.ImportMax + 1 {
		fmt.Fprintf(&b, "c%d.example\n", i)
	}
	r := f.srv.Do(t, "POST", "/v1/migration-import", key, b.String(), "Content-Type", "text/csv")
	require.Equal(t, 422, r.Status)
	require.Equal(t, []string{"body.companies"}, r.Invalid(t).Locs())
	for name, body := range map[string]any{
		"empty list": map[string]any{"companies": []any{}},
		"blank item": map[string]any{"companies": []any{map[string]any{"domain": ""}}},
		"not a list": map[string]any{"companies": "a.com"},
		"no body":    nil,
	} {
		require.Equal(t, 422, f.srv.Post(t, "/v1/migration-import", key, body).Status, name)
	}
	items := make([]map[string]string, connector.ImportMax+1)
	for i := range items {
		items[i] = map[string]string{"domain": "a.example"}
	}
	require.Equal(t, 422, f.srv.Post(t, "/v1/migration-import", key, map[string]any{"companies": items}).Status)
}

// A 10,000-company import (every company of the world, the rest misses) is answered in full.
func TestMigrationImportOfTenThousandCompanies(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "growth").Key
	items := make([]map[string]string, 0, connector.ImportMax)
	for _, co := range f.w.Companies {
		items = append(items, map[string]string{"domain": co.Domain, "name": co.Name})
	}
	known := len(items)
	for i := len(items); i < connector.ImportMax; i++ {
		items = append(items, map[string]string{"domain": fmt.Sprintf("unknown-%d.example", i)})
	}
	r := f.srv.Post(t, "/v1/migration-import", key, map[string]any{"companies": items})
	var v imported
	r.Decode(t, 200, &v)
	require.Equal(t, connector.ImportMax, v.Total)
	require.Len(t, v.Resolved, known)
	require.Len(t, v.Misses, connector.ImportMax-known)
	var n int
	require.NoError(t, f.srv.Pool.QueryRow(context.Background(), `SELECT count(*) FROM coverage_requests WHERE source = 'migration_import' AND match_key LIKE 'domain:unknown-%'`).Scan(&n))
	require.GreaterOrEqual(t, n, connector.ImportMax-known)
}
