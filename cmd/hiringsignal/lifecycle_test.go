package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/testkit/proctest"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// These tests run the real binary (apptest style): built once per package run, started on
// fresh databases, stopped with SIGTERM at awkward moments. A clean stop exits 0 and logs
// "stopped", which the binary only does when every part's Stop returned, i.e. waited for the
// goroutines it started.

var buildOnce builtBinary

// binary is the binary built with the race detector.
func binary(t *testing.T) string {
	t.Helper()
	return buildOnce.get(t, "hiringsignal-bin-", "-race")
}

// builtBinary is the binary of this package built once per package run, with its flags.
type builtBinary struct {
	sync.Once
	path string
	err  error
}

// get builds the binary into a fresh temporary directory named with prefix, the first time.
func (b *builtBinary) get(t *testing.T, prefix string, flags ...string) string {
	t.Helper()
	b.Do(func() {
		dir, err := os.MkdirTemp("", prefix)
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "hiringsignal")
		args := append(append([]string{"build"}, flags...), "-o", b.path, ".")
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("cannot build the binary: %w\n%s", err, out)
		}
	})
	require.NoError(t, b.err)
	return b.path
}

// proc is a running binary whose stderr (the slog lines) is scanned as it arrives.
type proc struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	seen  chan struct{} // receives a value after every line
	done  chan error
}

func start(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	return startOut(t, io.Discard, env, args...)
}

// startOut is start with the binary's stdout written to stdout.
func startOut(t *testing.T, stdout io.Writer, env []string, args ...string) *proc {
	t.Helper()
	return startBinary(t, binary(t), stdout, env, args...)
}

// startBinary is startOut of the binary at bin.
func startBinary(t *testing.T, bin string, stdout io.Writer, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = t.TempDir()
	proctest.DieWithParent(cmd)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	cmd.Stdout = stdout
	require.NoError(t, cmd.Start())
	p := &proc{cmd: cmd, seen: make(chan struct{}, 1), done: make(chan error, 1)}
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
			select {
			case p.seen <- struct{}{}:
			default:
			}
		}
	}()
	go func() { <-scanned; p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("binary log:\n%s", p.log())
		}
	})
	return p
}

func (p *proc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// waitFor waits until a log line matches re and returns it.
func (p *proc) waitFor(t *testing.T, re *regexp.Regexp, within time.Duration) string {
	t.Helper()
	deadline := time.After(within)
	for {
		p.mu.Lock()
		for _, l := range p.lines {
			if re.MatchString(l) {
				p.mu.Unlock()
				return l
			}
		}
		p.mu.Unlock()
		select {
		case <-p.seen:
		case err := <-p.done:
			p.done <- err
			t.Fatalf("the binary exited (%v) before logging %q", err, re)
		case <-deadline:
			t.Fatalf("no log line matching %q within %s", re, within)
		}
	}
}

// stop sends SIGTERM and requires a clean exit (status 0, "stopped" logged) within the
// shutdown budget.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-p.done:
		require.NoError(t, err, "exit status after SIGTERM")
	case <-time.After(shutdownTimeout + 10*time.Second):
		t.Fatal("the binary did not exit after SIGTERM")
	}
	require.Contains(t, p.log(), `msg=stopped`)
	require.NotContains(t, p.log(), "level=ERROR")
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

func requireClosed(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
		t.Fatalf("%s still accepts connections after the binary exited", addr)
	}
}

// requireLedgerConsistent checks the committed ledger: events 1..watermark, each exactly once.
func requireLedgerConsistent(t *testing.T, opts analytics.Options) uint64 {
	t.Helper()
	ch, err := analytics.Open(opts)
	require.NoError(t, err)
	defer ch.Close()
	ctx := context.Background()
	wm, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	var n, distinct, lo, hi uint64
	require.NoError(t, ch.QueryRow(ctx, `SELECT count(), uniqExact(event_seq), min(event_seq), max(event_seq)
		FROM (SELECT event_seq FROM events FINAL WHERE event_seq <= ?)`, wm).Scan(&n, &distinct, &lo, &hi))
	require.Equal(t, wm, n, "committed events")
	require.Equal(t, n, distinct, "no committed event twice")
	if wm > 0 {
		require.Equal(t, uint64(1), lo)
		require.Equal(t, wm, hi)
	}
	return wm
}

func devArgs(t *testing.T, opts analytics.Options, sim, listen string) []string {
	return []string{"dev", "--clickhouse-database", opts.Database, "--sim-listen", sim, "--listen", listen,
		"--sim-companies", "60", "--backfill-days", "1", "--metering-dir", t.TempDir(), "--read-refresh", "200ms", "--webhook-secret-keys", testSecretKeys}
}

// testSecretKeys is a --webhook-secret-keys value for the binary under test.
var testSecretKeys = base64.StdEncoding.EncodeToString(secretbox.GenerateKey())

var backfillProgress = regexp.MustCompile(`msg=backfill progress=.* tick=\d+`)

// TestDevStopsCleanlyMidCrawl sends SIGTERM to `dev` in the middle of its backfill, requires a
// clean exit with its ports closed and a consistent ledger, then runs `dev` again on the same
// stores: it resumes, serves, and stops cleanly once more.
func TestDevStopsCleanlyMidCrawl(t *testing.T) {
	t.Parallel()
	pg := storetest.PostgresURL(t, "cmd_lifecycle")
	opts := storetest.ClickHouseOptions(t, "cmd_lifecycle")
	env := []string{"HS_POSTGRES_URL=" + pg, "HS_CLICKHOUSE_ADDR=" + opts.Addr, "HS_LOG_LEVEL=info"}

	sim, listen := freePort(t), freePort(t)
	p := start(t, env, devArgs(t, opts, sim, listen)...)
	p.waitFor(t, backfillProgress, 3*time.Minute) // at least one tick committed; the next is running
	p.stop(t)
	requireClosed(t, sim)
	requireClosed(t, listen)
	first := requireLedgerConsistent(t, opts)
	require.NotZero(t, first, "the backfill committed cycles before the stop")

	sim, listen = freePort(t), freePort(t)
	p = start(t, env, devArgs(t, opts, sim, listen)...)
	p.waitFor(t, regexp.MustCompile(`msg="stores ready"`), 5*time.Minute)
	requireReady(t, listen, 3*time.Minute)
	requireMetrics(t, "http://"+listen+"/metrics", `hs_snapshot_build_duration_seconds_count 1`, `hs_http_request_duration_seconds_count{route="whoami"}`,
		"hs_metering_backlog_segments ", "hs_search_gate_rejections_total 0", "hs_auth_postgres_lookups_total")
	p.stop(t)
	requireClosed(t, sim)
	requireClosed(t, listen)
	require.GreaterOrEqual(t, requireLedgerConsistent(t, opts), first, "the second run resumed the history")
}

// TestServeStopsCleanly stops `serve` twice: once while it still waits for a store that does
// not answer (the read side must not start after the stop), once when it is ready.
func TestServeStopsCleanly(t *testing.T) {
	t.Parallel()
	pg := storetest.PostgresURL(t, "cmd_lifecycle")
	opts := storetest.ClickHouseOptions(t, "cmd_lifecycle")

	t.Run("before the stores answer", func(t *testing.T) {
		dead := freePort(t) // nothing listens there
		listen := freePort(t)
		p := start(t, []string{"HS_POSTGRES_URL=" + pg, "HS_CLICKHOUSE_ADDR=" + dead},
			"serve", "--listen", listen, "--clickhouse-database", opts.Database, "--metering-dir", t.TempDir(), "--webhook-secret-keys", testSecretKeys)
		p.waitFor(t, regexp.MustCompile(`stores not ready; retrying`), time.Minute)
		p.stop(t)
		require.NotContains(t, p.log(), "stores ready")
		requireClosed(t, listen)
	})

	t.Run("without webhook secret keys", func(t *testing.T) {
		listen := freePort(t)
		p := start(t, []string{"HS_POSTGRES_URL=" + pg, "HS_CLICKHOUSE_ADDR=" + opts.Addr, "HS_WEBHOOK_SECRET_KEYS="},
			"serve", "--listen", listen, "--clickhouse-database", opts.Database, "--metering-dir", t.TempDir())
		select {
		case err := <-p.done:
			require.Error(t, err, "serve refuses to start")
		case <-time.After(time.Minute):
			t.Fatal("serve started without --webhook-secret-keys")
		}
		require.Contains(t, p.log(), "--webhook-secret-keys")
		requireClosed(t, listen)
	})

	t.Run("when ready", func(t *testing.T) {
		listen := freePort(t)
		p := start(t, []string{"HS_POSTGRES_URL=" + pg, "HS_CLICKHOUSE_ADDR=" + opts.Addr},
			"serve", "--listen", listen, "--clickhouse-database", opts.Database, "--metering-dir", t.TempDir(), "--read-refresh", "200ms", "--webhook-secret-keys", testSecretKeys)
		requireReady(t, listen, 2*time.Minute)
		// One listener serves the process: the key cache's two channels and the dispatcher's.
		require.Eventually(t, func() bool {
			return metricsHave(t, "http://"+listen+"/metrics", "hs_pg_listener_connected 1", "hs_pg_listener_channels 3", "hs_pg_listener_reconnects_total 0")
		}, time.Minute, 100*time.Millisecond, "the Postgres listener does not LISTEN to the key cache's and the dispatcher's channels")
		p.stop(t)
		requireClosed(t, listen)
	})
}

// requireMetrics reads an operator metrics page and requires each of want in it.
func requireMetrics(t *testing.T, url string, want ...string) {
	t.Helper()
	r, err := http.Get(url)
	require.NoError(t, err)
	defer r.Body.Close()
	require.Equal(t, http.StatusOK, r.StatusCode)
	b, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	for _, w := range want {
		require.Contains(t, string(b), w)
	}
}

// metricsHave reads an operator metrics page and says whether it holds each of want.
func metricsHave(t *testing.T, url string, want ...string) bool {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		return false
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil || r.StatusCode != http.StatusOK {
		return false
	}
	for _, w := range want {
		if !strings.Contains(string(b), w) {
			return false
		}
	}
	return true
}

// requireReady waits until the binary listening on listen answers /readyz with 200.
func requireReady(t *testing.T, listen string, within time.Duration) {
	t.Helper()
	require.Eventually(t, func() bool {
		r, err := http.Get("http://" + listen + "/readyz")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == http.StatusOK
	}, within, 100*time.Millisecond, "never became ready")
}

var crawlDone = regexp.MustCompile(`msg="crawl done" tick=(\d+)`)

// TestDevAcceleratedClock runs `dev --cycle-every 2s` on a tiny world: once the backfill behind
// the API is complete the crawl commits one new cycle per 2 s of wall time (three consecutive
// cycles here, nine hours of world time, well within a minute), and it stops cleanly.
func TestDevAcceleratedClock(t *testing.T) {
	t.Parallel()
	pg := storetest.PostgresURL(t, "cmd_lifecycle")
	opts := storetest.ClickHouseOptions(t, "cmd_lifecycle")
	env := []string{"HS_POSTGRES_URL=" + pg, "HS_CLICKHOUSE_ADDR=" + opts.Addr, "HS_LOG_LEVEL=info", "HS_CYCLE_EVERY=2s"}
	sim, listen := freePort(t), freePort(t)
	p := start(t, env, devArgs(t, opts, sim, listen)...)
	p.waitFor(t, regexp.MustCompile(`msg="simulated clock" cycle_every=2s speedup=5400`), 2*time.Minute)
	requireReady(t, listen, 3*time.Minute)
	// The crawl of the present starts once the history is committed (behind the serving API).
	p.waitFor(t, regexp.MustCompile(`msg="demo history complete"`), 5*time.Minute)
	var ticks []int
	require.Eventually(t, func() bool {
		ticks = ticks[:0]
		for _, l := range strings.Split(p.log(), "\n") {
			if m := crawlDone.FindStringSubmatch(l); m != nil {
				n, err := strconv.Atoi(m[1])
				require.NoError(t, err)
				ticks = append(ticks, n)
			}
		}
		return len(ticks) >= 3
	}, 2*time.Minute, 200*time.Millisecond, "three crawls of the accelerated clock")
	for i := 1; i < len(ticks); i++ {
		require.Greater(t, ticks[i], ticks[i-1], "each crawl is of a later cycle: %v", ticks)
	}
	requireWorldTimeRules(t, pg, opts, "http://"+listen)
	requireOnboardingOnDev(t, pg, "http://"+listen)
	p.stop(t)
	requireLedgerConsistent(t, opts)
}

// requireWorldTimeRules checks that max_age, on-demand crawls and the crawl floor of a dev stack
// whose world runs hours ahead of the wall clock follow the world's time: max_age=60 is stale a
// world minute after the last read (on the wall clock that read would lie in the future, never
// stale), the on-demand crawl observes at world time, and the 15-minute crawl floor is 15 world
// minutes (a fraction of a second at 2 s per cycle), so a second demand queues a second crawl.
func requireWorldTimeRules(t *testing.T, pg string, opts analytics.Options, base string) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pg)
	require.NoError(t, err)
	defer pool.Close()
	acct, err := oltp.CreateAccount(ctx, pool, "growth", fmt.Sprintf("devclock-%d@example.com", time.Now().UnixNano()))
	require.NoError(t, err)
	get := func(path string, out any) int {
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", acct.Key)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.NoError(t, json.NewDecoder(resp.Body).Decode(out))
		return resp.StatusCode
	}
	var feed struct {
		Events []struct {
			CompanyID uint64 `json:"company_id"`
		} `json:"events"`
	}
	require.Equal(t, 200, get("/v1/events?since=0&limit=1", &feed))
	require.NotEmpty(t, feed.Events)
	company := feed.Events[0].CompanyID

	crawl := func() int64 {
		var job struct {
			JobID  int64  `json:"job_id"`
			Status string `json:"status"`
		}
		// Stale a world minute after its last read (fresh only in the first 11 ms of a cycle).
		require.Eventually(t, func() bool {
			return get(fmt.Sprintf("/v1/companies/%d/hiring-pulse?max_age=60", company), &job) == 202
		}, 10*time.Second, 50*time.Millisecond, "max_age=60 answers 202 crawling")
		require.Equal(t, "crawling", job.Status)
		require.Eventually(t, func() bool {
			var j struct {
				Status string `json:"status"`
			}
			require.Equal(t, 200, get(fmt.Sprintf("/v1/crawl-jobs/%d", job.JobID), &j))
			return j.Status == "done"
		}, time.Minute, 100*time.Millisecond, "the on-demand crawl finishes")
		return job.JobID
	}
	first := crawl()
	time.Sleep(time.Second) // 15 world minutes are 1/6 s here
	require.NotEqual(t, first, crawl(), "past the crawl floor in world time: a new crawl")

	ch, err := analytics.Open(opts)
	require.NoError(t, err)
	defer ch.Close()
	var observed time.Time
	require.NoError(t, ch.QueryRow(ctx, "SELECT max(cycle_time) FROM cycles WHERE region = ?", analytics.CompanyRegion(company)).Scan(&observed))
	require.True(t, observed.After(time.Now().Add(time.Hour)), "the on-demand crawl observed at world time (%s), hours ahead of the wall clock", observed)
}
