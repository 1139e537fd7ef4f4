package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// TestSourcesCommand runs `hiringsignal sources` on a real Postgres: an import's dry run writes
// nothing, --apply writes, list and show read it back as JSON, pause needs a reason, and a file
// with a bad row fails naming its line.
func TestSourcesCommand(t *testing.T) {
	t.Parallel()
	pg := storetest.PostgresURL(t, "cmd_sources")
	dir := t.TempDir()
	file := filepath.Join(dir, "inventory.csv")
	require.NoError(t, os.WriteFile(file, []byte(`domain,name,vendor,tenant,hq_country,url,region
acme.com,Acme,greenhouse,acme,DE,,
acme.com,Acme,lever,acme,,,
beta.io,Beta,ashby,Beta,US,,
,Jobs North,jsonld,,,https://www.jobsnorth.example/jobs,na
`), 0o600))
	run := func(args ...string) (stdout, stderr string, err error) {
		t.Helper()
		cmd := exec.Command(binary(t), append(append([]string{"sources"}, args...), "--postgres-url", pg, "--by", "test")...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err = cmd.Run()
		return out.String(), errb.String(), err
	}
	pool, err := pgxpool.New(context.Background(), pg)
	require.NoError(t, err)
	defer pool.Close()
	sourcesHeld := func() int {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), "SELECT count(*) FROM crawl_sources").Scan(&n))
		return n
	}

	out, stderr, err := run("import", file)
	require.NoError(t, err, stderr)
	require.Contains(t, out, "inventory.csv: 4 rows; dry run: nothing written (--apply writes)")
	require.Regexp(t, `companies\s+2\s+0\s+0`, out)
	require.Regexp(t, `sources\s+4\s+0\s+0`, out)
	require.Zero(t, sourcesHeld())

	out, stderr, err = run("import", file, "--apply", "--json")
	require.NoError(t, err, stderr)
	var rep struct {
		Applied bool        `json:"applied"`
		Sources oltp.Counts `json:"sources"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.True(t, rep.Applied)
	require.Equal(t, oltp.Counts{Added: 4}, rep.Sources)
	require.Equal(t, 4, sourcesHeld())

	out, stderr, err = run("list", "--json", "--vendor", "greenhouse")
	require.NoError(t, err, stderr)
	var list struct {
		Sources []oltp.RegistrySource `json:"sources"`
		Next    string                `json:"next"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &list), out)
	require.Len(t, list.Sources, 1)
	require.Equal(t, "greenhouse:acme", list.Sources[0].Key)
	require.Equal(t, "dach", list.Sources[0].Region)
	out, stderr, err = run("list", "--limit", "2")
	require.NoError(t, err, stderr)
	require.Contains(t, out, "KEY")
	require.Contains(t, out, "more: --after ")

	_, stderr, err = run("pause", "greenhouse:acme")
	require.Error(t, err)
	require.Contains(t, stderr, "say why")
	out, stderr, err = run("pause", "greenhouse:acme", "--reason", "answers 429 all day")
	require.NoError(t, err, stderr)
	require.Contains(t, out, "greenhouse:acme: paused (was active)")

	out, stderr, err = run("show", "greenhouse:acme", "--json")
	require.NoError(t, err, stderr)
	var shown struct {
		Source  oltp.RegistrySource   `json:"source"`
		Company *oltp.RegistryCompany `json:"company"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &shown), out)
	require.Equal(t, oltp.SourcePaused, shown.Source.Status)
	require.Equal(t, "answers 429 all day", shown.Source.StatusReason)
	require.Equal(t, "test", shown.Source.StatusBy)
	require.Equal(t, "Acme", shown.Company.Name)
	require.Equal(t, "csv:inventory.csv:2", shown.Company.Facts["name"].Source)
	out, stderr, err = run("show", "greenhouse:acme")
	require.NoError(t, err, stderr)
	require.Contains(t, out, "paused: answers 429 all day")

	out, stderr, err = run("retire", "greenhouse:acme", "--reason", "moved to ashby")
	require.NoError(t, err, stderr)
	require.Contains(t, out, "retired (was paused)")
	out, stderr, err = run("resume", "greenhouse:acme")
	require.NoError(t, err, stderr)
	require.Contains(t, out, "active (was retired")

	// Health: three failed windows of lever:acme; list shows its last read, count and cooldown,
	// show the last read's reason.
	now := time.Now().UTC()
	for tick := 1; tick <= oltp.CooldownAfter; tick++ {
		require.NoError(t, oltp.StoreCrawlReads(context.Background(), pool, []oltp.CrawlRead{{Tick: tick, SourceKey: "lever:acme", ReadAt: now,
			Worker: "w", Status: "failed", Reason: "status 503", Sightings: []byte{}, NextDue: now}}))
	}
	until := now.Add(oltp.CooldownBase).Format("2006-01-02T15:04")
	out, stderr, err = run("list", "--vendor", "lever")
	require.NoError(t, err, stderr)
	require.Regexp(t, `(?m)^KEY\s+STATUS\s+REGION\s+COMPANY\s+LAST READ\s+LAST OK\s+FAILURES\s+COOLING UNTIL$`, out)
	require.Regexp(t, `(?m)^lever:acme\s+active\s+dach\s+acme.com\s+failed\s+-\s+3\s+`+until, out)
	out, stderr, err = run("show", "lever:acme")
	require.NoError(t, err, stderr)
	require.Contains(t, out, "failed: status 503")
	require.Contains(t, out, "3 failures in a row; cooling down until "+until)

	// A chain of pages carried to a later window: show says where it stands.
	_, err = pool.Exec(context.Background(), `UPDATE crawl_sources SET lease_owner = 'w' WHERE source_key = 'lever:acme'`)
	require.NoError(t, err)
	require.NoError(t, oltp.SaveChainPart(context.Background(), pool, "w", "lever:acme",
		oltp.ChainPart{Pages: 128, Postings: 256, Tick: 7, Sightings: []byte{}},
		oltp.CrawlChain{Pages: 128, Next: "https://api.lever.co/v0/postings/acme?mode=json&skip=256&limit=2"}))
	out, stderr, err = run("show", "lever:acme")
	require.NoError(t, err, stderr)
	require.Regexp(t, `carried chain\s+128 pages, 256 postings read since window 7 \(.*\); goes on at https://api.lever.co/v0/postings/acme\?mode=json&skip=256&limit=2; last part by w`, out)
	out, stderr, err = run("show", "lever:acme", "--json")
	require.NoError(t, err, stderr)
	var carried struct {
		Chain *oltp.CrawlChain `json:"carried_chain"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &carried), out)
	require.Equal(t, 128, carried.Chain.Pages)

	bad := filepath.Join(dir, "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("domain,name,vendor,tenant\ngamma.io,Gamma,greenhouse,../x\n"), 0o600))
	_, stderr, err = run("import", bad, "--apply")
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee))
	require.Equal(t, 1, ee.ExitCode())
	require.Contains(t, stderr, `line 2: invalid tenant "../x"`)
	require.Equal(t, 4, sourcesHeld())
}
