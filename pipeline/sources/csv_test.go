package sources_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline/sources"
)

const goodCSV = `Domain,Name,Vendor,Tenant,Variant,HQ_Country,Industry,Headcount_Band,Agency_Kind,URL,Region
https://www.Acme.com/careers,Acme,greenhouse,acme,,Germany,Software,51-200,employer,,
acme.com,Acme,lever,acme,eu,DE,,,,,
beta.io,Beta Ltd,,,,GBR,,,,,
gamma.example,Gamma,ashby,,,,,,,https://jobs.ashbyhq.com/Gamma,latam
,Jobs North,jsonld,,,,,,,https://www.jobsnorth.example/jobs?page=1,na
,Feed,aggregator,,,,,,,https://feed.example/v1/feed?region=eu,eu
`

func opts(file string, apply bool) sources.ImportOptions {
	return sources.ImportOptions{File: "/tmp/" + file, By: "ops@example.com", Apply: apply}
}

func count(t *testing.T, pool *pgxpool.Pool, table string) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n))
	return n
}

func TestImportDryRunApplyReimportAndChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "sources")

	rep, err := sources.Import(ctx, pool, strings.NewReader(goodCSV), opts("a.csv", false))
	require.NoError(t, err)
	require.Equal(t, 6, rep.Rows)
	require.Equal(t, "a.csv", rep.File)
	require.False(t, rep.Applied)
	require.Equal(t, oltp.Counts{Added: 3}, rep.Companies)
	require.Equal(t, oltp.Counts{Added: 5}, rep.Sources)
	require.Zero(t, count(t, pool, "crawl_companies"), "a dry run writes nothing")

	rep, err = sources.Import(ctx, pool, strings.NewReader(goodCSV), opts("a.csv", true))
	require.NoError(t, err)
	require.True(t, rep.Applied)
	require.Equal(t, oltp.Counts{Added: 3}, rep.Companies)
	require.Equal(t, oltp.Counts{Added: 5}, rep.Sources)

	s, co, err := oltp.GetSource(ctx, pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, "acme.com", co.Domain, "the domain is reduced to its host")
	require.Equal(t, "DE", co.HQCountry)
	require.Equal(t, "dach", co.Region)
	require.Equal(t, "employer", co.AgencyKind)
	require.Equal(t, "csv:a.csv:2", co.Facts["name"].Source)
	require.Equal(t, "https://boards-api.greenhouse.io/v1/boards/acme/jobs?content=true", s.URL)
	require.Equal(t, "dach", s.Region)
	require.Equal(t, oltp.SourceActive, s.Status)
	require.Contains(t, string(s.Evidence), `"source": "csv:a.csv:2"`)
	s, _, err = oltp.GetSource(ctx, pool, "lever:acme:eu")
	require.NoError(t, err)
	require.Equal(t, "https://api.eu.lever.co/v0/postings/acme?mode=json&skip=0&limit=100", s.URL)
	s, co, err = oltp.GetSource(ctx, pool, "ashby:Gamma")
	require.NoError(t, err, "a tenant is read from a pasted board URL")
	require.Equal(t, "latam", s.Region, "a company without a country takes the region its row gives")
	require.Equal(t, "unknown", co.AgencyKind)
	s, co, err = oltp.GetSource(ctx, pool, "jsonld:www.jobsnorth.example/jobs?page=1")
	require.NoError(t, err)
	require.Nil(t, co)
	require.Equal(t, oltp.SourceBoard, s.Kind)
	require.Equal(t, "Jobs North", s.Board)
	require.Equal(t, "na", s.Region)
	s, _, err = oltp.GetSource(ctx, pool, "aggregator:feed.example/v1/feed?region=eu")
	require.NoError(t, err)
	require.Equal(t, oltp.SourceAggregator, s.Kind)

	// The same file again, under another name too, changes nothing.
	for _, f := range []string{"a.csv", "copy.csv"} {
		rep, err = sources.Import(ctx, pool, strings.NewReader(goodCSV), opts(f, true))
		require.NoError(t, err)
		require.Equal(t, oltp.Counts{Unchanged: 3}, rep.Companies)
		require.Equal(t, oltp.Counts{Unchanged: 5}, rep.Sources)
		require.Empty(t, rep.Changes)
	}
	_, co, err = oltp.GetSource(ctx, pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, "csv:a.csv:2", co.Facts["name"].Source)

	// A changed name updates the company and its fact, nothing else.
	changed := "domain,name,vendor,tenant\nacme.com,Acme SE,greenhouse,acme\n"
	rep, err = sources.Import(ctx, pool, strings.NewReader(changed), opts("b.csv", true))
	require.NoError(t, err)
	require.Equal(t, oltp.Counts{Changed: 1}, rep.Companies)
	require.Equal(t, oltp.Counts{Unchanged: 1}, rep.Sources)
	require.Equal(t, []oltp.Change{{What: "company", Key: "acme.com", Action: "changed", Fields: []string{"name"}}}, rep.Changes)
	_, co, err = oltp.GetSource(ctx, pool, "greenhouse:acme")
	require.NoError(t, err)
	require.Equal(t, "Acme SE", co.Name)
	require.Equal(t, "csv:b.csv:2", co.Facts["name"].Source)
	require.Equal(t, "csv:a.csv:2", co.Facts["industry"].Source)
	require.Equal(t, "Software", co.Industry, "a column the file lacks keeps its value")
}

func TestBadRowsAreReportedByLineAndNothingIsWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "sources")
	file := `domain,name,vendor,tenant,hq_country,url,region
acme.com,Acme,greenhouse,acme,DE,,
acme.com,Acme,taleo,acme,,,
evil.com,Evil,greenhouse,../x,,,
evil.com,Evil,lever,a/b,,,
beta.io,Beta,ashby,beta,Atlantis,,
acme.com,Acme,greenhouse,acme,,,
acme.com,Acme Corp,,,,,
,Board,jsonld,,,https://board.example/jobs,
,Board,jsonld,,,http://board.example/jobs,na
gamma.io,Gamma,workable,gamma,,https://apply.workable.com/other/,
delta.io,Delta,recruitee,Delta.Evil,,,
`
	_, err := sources.Import(ctx, pool, strings.NewReader(file), opts("bad.csv", true))
	var ie *sources.ImportError
	require.True(t, errors.As(err, &ie), "%v", err)
	lines := map[int]string{}
	for _, e := range ie.Errors {
		lines[e.Line] = e.Reason
	}
	require.Len(t, lines, 10, "%v", err)
	require.NotContains(t, lines, 2)
	require.Contains(t, lines[3], `unknown vendor "taleo": use one of aggregator, ashby, bamboohr, breezy, greenhouse, icims, jazzhr, jobvite, join, jsonld, lever, personio, pinpoint, recruitee, rippling, smartrecruiters, teamtailor, workable, workday`)
	require.Contains(t, lines[4], `invalid tenant "../x"`)
	require.Contains(t, lines[5], `invalid tenant "a/b"`)
	require.Contains(t, lines[6], `unknown hq_country "Atlantis"`)
	require.Contains(t, lines[7], "source greenhouse:acme repeats line 2")
	require.Contains(t, lines[8], `name "Acme Corp" for acme.com differs from "Acme" on line 2`)
	require.Contains(t, lines[9], "region is empty")
	require.Contains(t, lines[10], "http is accepted only for a simulated world")
	require.Contains(t, lines[11], "is not workable tenant \"gamma\"'s board")
	require.Contains(t, lines[12], "one DNS label")
	require.Contains(t, err.Error(), "bad.csv has 10 bad rows; nothing was written")
	require.Contains(t, err.Error(), "\n  line 3: ")
	require.Zero(t, count(t, pool, "crawl_companies"))
	require.Zero(t, count(t, pool, "crawl_sources"))

	// http is accepted for a simulated world when asked.
	o := opts("sim.csv", false)
	o.AllowHTTP = true
	_, err = sources.Import(ctx, pool, strings.NewReader("domain,name,vendor,tenant,url,region\n,Board,jsonld,,http://127.0.0.1:7070/boards/x,na\n"), o)
	require.NoError(t, err)
}

func TestHeaderErrors(t *testing.T) {
	t.Parallel()
	parse := func(s string) error {
		_, _, err := sources.ParseCSV(strings.NewReader(s), opts("h.csv", false))
		return err
	}
	require.ErrorContains(t, parse("domain,name,vendor\nacme.com,Acme,\n"), `line 1: missing column "tenant": the columns are domain, name, vendor, tenant (required) and variant`)
	require.ErrorContains(t, parse("domain,name,vendor,tenant,slug\n"), `unknown column "slug": the columns are domain, name, vendor, tenant (required) and variant, hq_country, industry, headcount_band, agency_kind, url, region`)
	require.ErrorContains(t, parse("domain,name,vendor,tenant,name\n"), `column "name" is named twice`)
	require.ErrorContains(t, parse(""), "the file is empty")
	require.NoError(t, parse("\ufeffdomain,name,vendor,tenant\r\nacme.com,Acme,,\r\n"), "a byte-order mark and CRLF lines are read")

	err := parse("domain,name,vendor,tenant\nacme.com,Acme\nbeta.io,Beta,,,\n")
	var ie *sources.ImportError
	require.True(t, errors.As(err, &ie))
	require.Equal(t, []sources.RowError{{Line: 2, Reason: "has 2 fields, the header has 4"}, {Line: 3, Reason: "has 5 fields, the header has 4"}}, ie.Errors)
}

func TestCompanyRowsMerge(t *testing.T) {
	t.Parallel()
	b, rows, err := sources.ParseCSV(strings.NewReader(`domain,name,vendor,tenant,industry,headcount_band
acme.com,Acme,greenhouse,acme,,
acme.com,Acme,,,Software,11-50
`), opts("m.csv", false))
	require.NoError(t, err)
	require.Equal(t, 2, rows)
	require.Len(t, b.Companies, 1)
	c := b.Companies[0]
	require.Equal(t, "Software", c.Industry)
	require.Equal(t, "11-50", c.HeadcountBand)
	require.Equal(t, "csv:m.csv:2", c.Source)
	require.Equal(t, map[string]string{"industry": "csv:m.csv:3", "headcount_band": "csv:m.csv:3"}, c.Sources)

	_, _, err = sources.ParseCSV(strings.NewReader("domain,name,vendor,tenant,headcount_band,agency_kind\nacme.com,Acme,,,12-40,agency\n"), opts("m.csv", false))
	require.ErrorContains(t, err, `unknown headcount_band "12-40": use one of 1-10, 11-50`)
	require.ErrorContains(t, err, `unknown agency_kind "agency": use one of employer, staffing_agency`)
	_, _, err = sources.ParseCSV(strings.NewReader("domain,name,vendor,tenant,hq_country,region\nacme.com,Acme,,,DE,eu\n"), opts("m.csv", false))
	require.ErrorContains(t, err, "region eu disagrees with hq_country DE (region dach)")
	_, _, err = sources.ParseCSV(strings.NewReader("domain,name,vendor,tenant\n127.0.0.1,Local,,\nlocalhost,Local,,\n"), opts("m.csv", false))
	require.ErrorContains(t, err, `line 2: domain "127.0.0.1" is not a host name`)
	require.ErrorContains(t, err, `line 3: domain "localhost" is not a host name`)
}

func TestDirectoryFromTheRegistry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "sources")
	_, err := sources.Import(ctx, pool, strings.NewReader(goodCSV), opts("a.csv", true))
	require.NoError(t, err)
	cand := sources.ImportOptions{File: "c.csv", By: "ops", Status: oltp.SourceCandidate, Apply: true}
	_, err = sources.Import(ctx, pool, strings.NewReader("domain,name,vendor,tenant\nbeta.io,Beta Ltd,personio,beta\n"), cand)
	require.NoError(t, err)
	_, err = oltp.SetSourceStatus(ctx, pool, "lever:acme:eu", oltp.SourcePaused, "429s", "ops")
	require.NoError(t, err)
	_, err = oltp.SetSourceStatus(ctx, pool, "ashby:Gamma", oltp.SourceRetired, "moved", "ops")
	require.NoError(t, err)

	at := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	d, err := sources.Directory(ctx, pool, 42, at)
	require.NoError(t, err)
	require.Equal(t, 42, d.Tick)
	require.Equal(t, at, d.CycleTime)
	require.Equal(t, []string{"na", "latam", "uki", "dach", "eu", "apac", "mea"}, d.Regions)
	require.Len(t, d.Companies, 3)
	require.Equal(t, "acme.com", d.Companies[0].Domain)
	require.Equal(t, "Germany", d.Companies[0].HQCountry, "the country's canonical name, as the simulator's directory gives it")
	require.Equal(t, "", d.Companies[0].AgencyKind, "an employer is the crawl's empty kind")
	require.Equal(t, "United Kingdom", d.Companies[1].HQCountry)
	require.Equal(t, "uki", d.Companies[1].Region)
	require.Equal(t, "unknown", d.Companies[1].AgencyKind)
	status := map[string]string{}
	for _, s := range d.Sources {
		status[s.Key] = s.Status
	}
	require.Equal(t, map[string]string{
		"greenhouse:acme": "active", "lever:acme:eu": "paused",
		"jsonld:www.jobsnorth.example/jobs?page=1": "active", "aggregator:feed.example/v1/feed?region=eu": "active",
	}, status, "retired and candidate sources are not in the directory; paused ones are")
	for _, s := range d.Sources {
		if s.Key == "jsonld:www.jobsnorth.example/jobs?page=1" {
			require.Equal(t, "Jobs North", s.BoardName())
			require.Equal(t, "board", s.SourceType())
		}
	}
}
