package pipeline_test

import (
	"context"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// TestFeedCoverage crawls a world that speaks the real feed shapes and asserts, per
// source format, that every sighting links its real posting and carries the country the world
// gives its req, that no implausible pay is served, and that dropped pay is counted. It prints
// the coverage per format.
func TestFeedCoverage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const tick = 40
	world, base := simServer(t, sim.Config{Seed: 7, Companies: 300, NoGzip: true})
	ch, _ := storetest.ClickHouse(t, "pipeline")
	var mu sync.Mutex
	var sightings []pipeline.Sighting
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog(),
		OnSighting: func(s pipeline.Sighting) { mu.Lock(); sightings = append(sightings, s); mu.Unlock() }})
	require.NoError(t, err)
	world.Pin(tick)
	stats, err := c.RunTick(ctx, base, tick)
	require.NoError(t, err)
	dropped := 0
	for _, s := range stats {
		require.Empty(t, s.FailedSources)
		dropped += s.SalaryDropped
	}

	formatOf := map[string]string{} // source key → format (vendor; job-page boards apart)
	dir := world.Directory(tick)
	for _, s := range dir.Sources {
		formatOf[s.Key] = s.Vendor
		if s.Vendor == "jsonld" && strings.Contains(get(t, s.URL), "rel=\"next\" href=\""+base+"/boards/"+s.Board+"/job/") {
			formatOf[s.Key] = "jsonld job pages"
		}
	}
	truthCountry := map[[2]string]string{}
	multi := 0
	for _, r := range world.Truth(tick).Reqs {
		if strings.HasSuffix(r.TruthID, "-x") {
			multi++
		}
		for _, p := range r.Postings {
			truthCountry[[2]string{p.SourceKey, p.SourceID}] = r.Country
		}
	}
	require.Positive(t, multi, "the world has reqs published for two countries")

	type cov struct{ n, url, country, known, salary int }
	per := map[string]*cov{}
	for _, s := range sightings {
		f := formatOf[s.SourceKey]
		cv := per[f]
		if cv == nil {
			cv = &cov{}
			per[f] = cv
		}
		cv.n++
		if s.URL != "" {
			cv.url++
		}
		want, ok := truthCountry[[2]string{s.SourceKey, s.SourceID}]
		require.True(t, ok, "%s %s is not in the truth", s.SourceKey, s.SourceID)
		if want != "" {
			cv.known++
			wantName, _ := normalize.CountryName(want)
			require.Equal(t, wantName, s.Country, "country of %s %s", s.SourceKey, s.SourceID)
			cv.country++
		}
		require.NotEmpty(t, s.URL, "%s %s has no url", s.SourceKey, s.SourceID)
		require.True(t, strings.HasPrefix(s.URL, "https://") || strings.HasPrefix(s.URL, base+"/boards/"), s.URL)
		if s.Salary {
			cv.salary++
			require.LessOrEqual(t, s.SalaryMinUSD, s.SalaryMaxUSD)
			require.GreaterOrEqual(t, s.SalaryMinUSD, 1000.0, "no implausible pay is served")
		}
	}
	formats := make([]string, 0, len(per))
	for f := range per {
		formats = append(formats, f)
	}
	sort.Strings(formats)
	require.Len(t, formats, 20, "every format (and job pages) was crawled: %v", formats)
	for _, f := range formats {
		cv := per[f]
		t.Logf("%-18s sightings %5d  url %5d (%.1f%%)  country %5d of %5d known (%.1f%%)  salary %d",
			f, cv.n, cv.url, 100*float64(cv.url)/float64(cv.n), cv.country, cv.known, 100*float64(cv.country)/float64(cv.known), cv.salary)
		require.Equal(t, cv.n, cv.url, f)
		require.Equal(t, cv.known, cv.country, f)
	}
	t.Logf("published pay not served (implausible or unknown): %d", dropped)
	require.Positive(t, dropped, "the world's implausible Recruitee pay is dropped and counted")
}

func get(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}
