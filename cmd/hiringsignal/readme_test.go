package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/proctest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// readmeBase is the API address the README's commands name; the test runs them against its own.
const readmeBase = "http://127.0.0.1:8080"

// readmeBlocks returns the sh code blocks of the README section headed heading (up to the next
// section of the same level), one entry per block.
func readmeBlocks(t *testing.T, heading string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n"+heading+"\n")
	require.True(t, ok, "README.md has a section %q", heading)
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var blocks []string
	for {
		_, rest, ok := strings.Cut(section, "\n```sh\n")
		if !ok {
			return blocks
		}
		block, after, ok := strings.Cut(rest, "\n```")
		require.True(t, ok, "an sh block of %q is closed", heading)
		blocks = append(blocks, block)
		section = after
	}
}

// readmeCommands splits blocks into the commands to run (comments and blank lines dropped) and
// the variables the reader is told to set (export NAME=...).
func readmeCommands(blocks []string) (cmds []string, exports []string) {
	for _, b := range blocks {
		for _, l := range strings.Split(b, "\n") {
			l = strings.TrimSpace(l)
			if i := strings.Index(l, "  #"); i >= 0 {
				l = strings.TrimSpace(l[:i])
			}
			switch {
			case l == "" || strings.HasPrefix(l, "#"):
			case strings.HasPrefix(l, "export "):
				name, _, _ := strings.Cut(strings.TrimPrefix(l, "export "), "=")
				exports = append(exports, name)
			default:
				cmds = append(cmds, l)
			}
		}
	}
	return cmds, exports
}

var (
	printedKey     = regexp.MustCompile(`(?m)^\s+(hsk_\S+)$`)
	printedCompany = regexp.MustCompile(`/v1/companies/(\d+)/is-hiring`)
)

// TestReadmeFirstFiveMinutes runs the README's "first five minutes" walkthrough as written: it
// starts `dev` (a small world on an accelerated clock, its own databases and ports), takes the
// key and the company it prints, and runs every command of the section's sh blocks against it
// the moment they are printed — whoami, a search and a brief answer 2xx JSON, and `listen`
// prints a delivery of the watched company with both signatures verified. It also checks the
// X-History-* headers while the history fills in and once it is complete.
func TestReadmeFirstFiveMinutes(t *testing.T) {
	t.Parallel()
	cmds, exports := readmeCommands(readmeBlocks(t, "## The first five minutes"))
	require.ElementsMatch(t, []string{"HS_KEY", "COMPANY"}, exports)
	require.Len(t, cmds, 4, "whoami, a search, a brief, listen: %q", cmds)

	pg := storetest.PostgresURL(t, "cmd_readme")
	opts := storetest.ClickHouseOptions(t, "cmd_readme")
	env := []string{"HS_POSTGRES_URL=" + pg, "HS_CLICKHOUSE_ADDR=" + opts.Addr, "HS_LOG_LEVEL=info", "HS_CYCLE_EVERY=2s"}
	sim, listen := freePort(t), freePort(t)
	var out syncBuffer
	p := startOut(t, &out, env, devArgs(t, opts, sim, listen)...)
	var key, company string
	require.Eventually(t, func() bool {
		k, c := printedKey.FindStringSubmatch(out.String()), printedCompany.FindStringSubmatch(out.String())
		if k == nil || c == nil {
			return false
		}
		key, company = k[1], c[1]
		return true
	}, 4*time.Minute, 100*time.Millisecond, "dev printed a key and a company")

	base := "http://" + listen
	requireHistoryHeaders(t, base, key)
	shEnv := append(os.Environ(), "HS_KEY="+key, "COMPANY="+company)
	for _, c := range cmds {
		c = strings.ReplaceAll(c, readmeBase, base)
		if strings.HasPrefix(c, "./bin/hiringsignal listen ") {
			requireListenDelivers(t, strings.Replace(c, "./bin/hiringsignal", binary(t), 1), shEnv, company)
			continue
		}
		cmd := exec.Command("sh", "-c", c)
		cmd.Env = shEnv
		b, err := cmd.Output()
		require.NoError(t, err, "%s\n%s", c, b)
		var v map[string]any
		require.NoError(t, json.Unmarshal(b, &v), "%s answers a JSON object: %s", c, b)
	}

	p.waitFor(t, regexp.MustCompile(`msg="demo history complete"`), 3*time.Minute)
	complete, _, _ := historyOf(t, base, key)
	require.Equal(t, "true", complete)
	p.stop(t)
}

// requireHistoryHeaders checks the X-History-* headers of a /v1 answer and that the 8-week
// windowed fields of a one-day history are null.
func requireHistoryHeaders(t *testing.T, base, key string) {
	t.Helper()
	complete, from, through := historyOf(t, base, key)
	require.Contains(t, []string{"true", "false"}, complete)
	f, err := time.Parse(time.RFC3339, from)
	require.NoError(t, err, "X-History-From")
	th, err := time.Parse(time.RFC3339, through)
	require.NoError(t, err, "X-History-Through")
	require.False(t, th.Before(f), "through %s is not before from %s", through, from)

	req, err := http.NewRequest(http.MethodGet, base+"/v1/reqs/search?q=engineer&limit=3", nil)
	require.NoError(t, err)
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var page struct {
		Companies []struct {
			Pulse map[string]any `json:"pulse"`
		} `json:"companies"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
	require.NotEmpty(t, page.Companies)
	for _, c := range page.Companies {
		require.Nil(t, c.Pulse["direction"], "direction over a history of a day")
		require.Nil(t, c.Pulse["is_surge"], "is_surge over a history of a day")
	}
}

// historyOf answers the X-History-* headers of GET /v1/whoami.
func historyOf(t *testing.T, base, key string) (complete, from, through string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/v1/whoami", nil)
	require.NoError(t, err)
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return resp.Header.Get("X-History-Complete"), resp.Header.Get("X-History-From"), resp.Header.Get("X-History-Through")
}

// requireListenDelivers runs the README's listen command until it prints a verified delivery of
// company, then stops it with Ctrl-C (SIGINT) and requires a clean exit.
func requireListenDelivers(t *testing.T, command string, env []string, company string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "exec "+command)
	cmd.Env = env
	proctest.DieWithParent(cmd)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	deadline := time.After(3 * time.Minute)
	for delivered := false; !delivered; {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "listen exited before a delivery: %s", stderr.String())
			delivered = strings.HasSuffix(l, "signatures ok")
			if delivered {
				require.Contains(t, l, "delivery_id=")
			}
		case <-deadline:
			t.Fatalf("listen printed no verified delivery of company %s within 3 minutes: %s", company, stderr.String())
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	for range lines { // drain until listen closes its stdout
	}
	require.NoError(t, cmd.Wait(), "listen exits cleanly on Ctrl-C: %s", stderr.String())
}
