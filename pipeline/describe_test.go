package pipeline_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
)

// leverBoard is a Lever feed whose postings the test sets between cycles.
type leverBoard struct {
	mu       sync.Mutex
	postings []map[string]any
}

func (b *leverBoard) set(ps ...map[string]any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.postings = ps
}

func (b *leverBoard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(b.postings)
}

func leverPosting(id, title, commitment, workplace, description string) map[string]any {
	return map[string]any{"id": id, "text": title, "hostedUrl": "https://jobs.lever.co/acme/" + id, "createdAt": 1767225600000,
		"workplaceType": workplace, "categories": map[string]any{"location": "Berlin", "commitment": commitment, "department": "Engineering"},
		"description": description}
}

const (
	backendText = `<p>We are hiring a backend engineer for our payments platform. This is a fully remote role open to candidates in the United States.</p>
<h3>Requirements</h3><ul><li>5+ years of experience with Go and PostgreSQL</li></ul>
<h3>Nice to have</h3><ul><li>Kafka</li></ul>
<p>The base salary range is $150,000 - $180,000 per year. We sponsor visas.</p>`
	analystText = `<p>This is a part-time role in a hybrid model: 3 days a week in our Berlin office.</p>
<h3>Your profile</h3><ul><li>3+ years of SQL and Tableau</li></ul>`
	analystText2 = `<p>This is a part-time role in a hybrid model: 2 days a week in our Berlin office.</p>
<h3>Your profile</h3><ul><li>3+ years of SQL and Looker</li></ul>`
)

// A posting's facts come from its feed's structured fields first and its title and description
// for the gaps, ride on its req's events, and its cleaned description is stored once per distinct
// text: a reobservation of the same text, or a crawler restarted on the same ledger, writes none.
func TestCrawlStoresFactsAndEachDescriptionOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := &leverBoard{}
	srv := httptest.NewServer(b)
	defer srv.Close()
	ch, _ := storetest.ClickHouse(t, "pipeline_facts")
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	t0 := time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC)
	dir := func(tick int) *pipeline.Directory {
		d := oneTenantDirectory(srv.URL+"/v0/postings/acme?mode=json&skip=0&limit=100", tick, t0.Add(time.Duration(tick)*3*time.Hour))
		d.Sources[0].Key, d.Sources[0].Vendor = "lever:acme", "lever"
		return d
	}
	run := func(c *pipeline.Crawler, tick int) pipeline.CycleStats {
		t.Helper()
		st, err := c.RunCycle(ctx, dir(tick), "dach")
		require.NoError(t, err)
		return st
	}
	facts := func() map[string]analytics.Facts {
		t.Helper()
		wm, _, err := analytics.Watermark(ctx, ch)
		require.NoError(t, err)
		var keys []string
		rows, err := ch.Query(ctx, "SELECT DISTINCT req_key FROM events")
		require.NoError(t, err)
		for rows.Next() {
			var k string
			require.NoError(t, rows.Scan(&k))
			keys = append(keys, k)
		}
		require.NoError(t, rows.Err())
		last, err := analytics.LatestEvents(ctx, ch, wm, keys)
		require.NoError(t, err)
		out := map[string]analytics.Facts{}
		for _, e := range last {
			out[e.RawTitle] = e.Facts
		}
		return out
	}
	stored := func() (rows uint64) {
		t.Helper()
		require.NoError(t, ch.QueryRow(ctx, "SELECT count() FROM req_descriptions").Scan(&rows))
		return rows
	}

	b.set(leverPosting("a1", "Senior Backend Engineer", "Full-time", "remote", backendText),
		leverPosting("b1", "Data Analyst", "Contract", "", analystText),
		leverPosting("c1", "Office Manager", "", "", ""))
	st := run(c, 0)
	require.Equal(t, 3, st.ByType["opened"])
	got := facts()

	be := got["Senior Backend Engineer"]
	require.Equal(t, []string{"go", "postgresql", "kafka"}, be.Technologies)
	require.Equal(t, []uint8{analytics.TechRequired, analytics.TechRequired, analytics.TechNiceToHave}, be.TechKinds)
	require.Equal(t, "senior", be.Seniority, "the title's")
	require.Equal(t, "full_time", be.EmploymentType, "the feed's commitment")
	require.Equal(t, "remote", be.WorkplaceType, "the feed's workplaceType")
	require.Equal(t, []string{"United States"}, be.RemoteCountries, "the text names where the remote role is open")
	require.NotNil(t, be.YearsMin)
	require.Equal(t, uint8(5), *be.YearsMin)
	require.NotNil(t, be.Visa)
	require.True(t, *be.Visa)
	require.NotNil(t, be.StatedPay, "the feed declares no pay: the text's is stated")
	require.Equal(t, 150000.0, *be.StatedPay.Min)
	require.Equal(t, 180000.0, *be.StatedPay.Max)
	require.Equal(t, "USD", be.StatedPay.Currency)
	require.Equal(t, "year", be.StatedPay.Period)
	require.NotZero(t, be.DescriptionHash)

	an := got["Data Analyst"]
	require.Equal(t, "contract", an.EmploymentType, "the feed's commitment wins over the text's part-time")
	require.Equal(t, "hybrid", an.WorkplaceType, "the feed states none: the text's")
	require.Empty(t, an.RemoteCountries)
	require.Equal(t, []string{"sql", "tableau"}, an.Technologies)
	require.Empty(t, an.Seniority, "neither the title, the feed nor the text says")
	require.Nil(t, an.Visa)
	require.Nil(t, an.StatedPay)

	om := got["Office Manager"]
	require.Equal(t, analytics.Facts{Seniority: "manager"}, om, "no description, no feed terms: only what the title says")

	require.Equal(t, uint64(2), stored(), "one row per description")
	texts, err := analytics.ReadDescriptions(ctx, ch, map[string]uint64{reqKeyOf(t, ch, "Senior Backend Engineer"): be.DescriptionHash})
	require.NoError(t, err)
	for _, text := range texts {
		require.Contains(t, text, "fully remote role")
		require.Contains(t, text, "- 5+ years of experience with Go and PostgreSQL", "cleaned to text, list items kept")
		require.NotContains(t, text, "<p>")
	}

	// Steady cycles write nothing; the weekly reobservation writes only the text that changed.
	run(c, 1)
	require.Equal(t, uint64(2), stored())
	b.set(leverPosting("a1", "Senior Backend Engineer", "Full-time", "remote", backendText),
		leverPosting("b1", "Data Analyst", "Contract", "", analystText2),
		leverPosting("c1", "Office Manager", "", "", ""))
	st = run(c, pipeline.ReobserveEvery)
	require.Equal(t, 3, st.ByType["reobserved"])
	require.Equal(t, uint64(3), stored(), "the analyst's new text only")
	got = facts()
	require.Equal(t, []string{"sql", "looker"}, got["Data Analyst"].Technologies)
	require.NotEqual(t, an.DescriptionHash, got["Data Analyst"].DescriptionHash)
	require.Equal(t, be, got["Senior Backend Engineer"])

	// A crawler started on the same ledger knows what is stored.
	c2, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	st = run(c2, 2*pipeline.ReobserveEvery)
	require.Equal(t, 3, st.ByType["reobserved"])
	require.Equal(t, uint64(3), stored())
	require.Equal(t, got, facts())
}

func reqKeyOf(t *testing.T, ch driver.Conn, rawTitle string) string {
	t.Helper()
	var k string
	require.NoError(t, ch.QueryRow(context.Background(), "SELECT any(req_key) FROM events WHERE raw_title = ?", rawTitle).Scan(&k))
	return k
}

// Pay served from the feed is the req's salary and the text's is not read; pay the feed publishes
// that cannot be served (hourly figures labelled yearly) leaves the text's pay to be stated.
func TestTextPayIsReadWhenTheFeedsCannotBeServed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := &leverBoard{}
	srv := httptest.NewServer(b)
	defer srv.Close()
	ch, _ := storetest.ClickHouse(t, "pipeline_facts")
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	d := oneTenantDirectory(srv.URL+"/v0/postings/acme?mode=json&skip=0&limit=100", 0, time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC))
	d.Sources[0].Key, d.Sources[0].Vendor = "lever:acme", "lever"
	served := leverPosting("a1", "Senior Backend Engineer", "Full-time", "remote", backendText)
	served["salaryRange"] = map[string]any{"currency": "USD", "interval": "per-year-salary", "min": 150000, "max": 180000}
	refused := leverPosting("a2", "Backend Engineer", "Full-time", "remote", backendText)
	refused["salaryRange"] = map[string]any{"currency": "USD", "interval": "per-year-salary", "min": 72, "max": 87}
	b.set(served, refused)
	st, err := c.RunCycle(ctx, d, "dach")
	require.NoError(t, err)
	require.Equal(t, 2, st.ByType["opened"])
	require.Equal(t, 1, st.SalaryDropped)

	wm, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	keys := []string{reqKeyOf(t, ch, "Senior Backend Engineer"), reqKeyOf(t, ch, "Backend Engineer")}
	last, err := analytics.LatestEvents(ctx, ch, wm, keys)
	require.NoError(t, err)
	s, r := last[keys[0]], last[keys[1]]
	require.Equal(t, uint8(1), s.SalDeclared)
	require.Nil(t, s.StatedPay, "the feed's pay is served: the text's is not read")
	require.Zero(t, r.SalDeclared, "72-87 a year is no salary")
	require.NotNil(t, r.StatedPay, "the text states the pay the feed could not")
	require.Equal(t, 150000.0, *r.StatedPay.Min)
	require.Equal(t, "USD", r.StatedPay.Currency)
}
