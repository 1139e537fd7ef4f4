package chaostest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/devstack"
	"github.com/planehq/hiringsignal/internal/testkit/proctest"
	"github.com/planehq/hiringsignal/oltp"
)

// The chaos test of the stores. Under a steady load of metered calls, the private Postgres of the
// running binary is stopped and started again, then its ClickHouse: every call must answer 200 or
// 503 (never 500, never a hang past the client timeout), calls must answer 200 again after each
// restart without restarting the binary, and once the binary stopped cleanly (which flushes its
// metering log) the calls Postgres recorded for the key must equal the 200s the load counted.
//
// The stores are a private pair started for this test only (own directory and ports), so stopping
// them disturbs no other test.

const (
	workers       = 4
	pace          = 20 * time.Millisecond // pause between two calls of one worker: at most ~200 calls/s in all
	clientTimeout = 10 * time.Second      // a call not answered by then is a hang
	loadCap       = 4 * time.Minute       // the load stops by itself after this, whatever happens
	isHiringRoute = "/v1/companies/{company_id}/is-hiring"
	hang          = 0 // status recorded for a transport error or a timeout
)

func TestStoreOutagesUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts its own Postgres and ClickHouse and the real binary")
	}
	requireServerBinaries(t)
	ctx := context.Background()

	st := privateStack(t)
	env := []string{"HS_POSTGRES_URL=" + st.PostgresURL(), "HS_CLICKHOUSE_ADDR=" + st.ClickHouseAddr(), "HS_LOG_LEVEL=info"}
	bin := build(t)

	// A tiny crawled world served by `dev` on the private pair.
	listen, sim := freeAddr(t), freeAddr(t)
	p := start(t, bin, env, "dev", "--listen", listen, "--sim-listen", sim, "--sim-companies", "40", "--backfill-days", "1",
		"--metering-dir", t.TempDir(), "--read-refresh", "200ms")
	base := "http://" + listen
	p.waitUntil(t, "dev answers /readyz 200", 3*time.Minute, func() bool { code, _ := get(base + "/readyz"); return code == http.StatusOK })
	var company string
	p.waitUntil(t, "dev prints its demo calls", time.Minute, func() bool {
		m := regexp.MustCompile(`/v1/companies/(\d+)/is-hiring`).FindStringSubmatch(p.stdout())
		if m != nil {
			company = m[1]
		}
		return m != nil
	})

	// A growth account of its own, without a per-minute limit the load could reach.
	acct := createAccount(t, bin, env)
	pool, err := oltp.Open(ctx, st.PostgresURL())
	require.NoError(t, err)
	require.NoError(t, oltp.SetCallsPerMinute(ctx, pool, acct.AccountID, new(int64(10_000_000))))
	pool.Close()

	g := newLoad(base+"/v1/companies/"+company+"/is-hiring", acct.Key)
	g.setPhase("preflight")
	code, body := g.call()
	require.Equal(t, http.StatusOK, code, "is-hiring of company %s before the load: %s", company, body)

	g.setPhase("steady")
	stopLoad := g.run()
	defer stopLoad()
	p.waitUntil(t, "200s under steady load", 30*time.Second, func() bool { return g.count("steady", 200) >= 100 })

	// Postgres goes away: calls answer 503 (key verification needs it once the key cache is
	// bypassed), readiness names it.
	g.setPhase("postgres down")
	require.NoError(t, st.Down(ctx, devstack.Started{Postgres: true}))
	down := time.Now()
	p.waitUntil(t, "503s while Postgres is down", 30*time.Second, func() bool {
		return g.count("postgres down", 503) >= 20 && time.Since(down) > 3*time.Second
	})
	code, body = get(base + "/readyz")
	require.Equal(t, http.StatusServiceUnavailable, code, body)
	require.Contains(t, body, "postgres")

	_, err = st.Up(ctx)
	require.NoError(t, err)
	g.setPhase("postgres restarted")
	p.waitUntil(t, "200s after Postgres restarted", time.Minute, func() bool { return g.count("postgres restarted", 200) >= 50 })

	// ClickHouse goes away: the metered reads are served from the in-memory read model, so they
	// may keep answering 200; readiness must say ClickHouse is down.
	g.setPhase("clickhouse down")
	require.NoError(t, st.Down(ctx, devstack.Started{ClickHouse: true}))
	down = time.Now()
	var readyzDown string
	p.waitUntil(t, "/readyz 503 naming clickhouse", 30*time.Second, func() bool {
		code, body := get(base + "/readyz")
		if code == http.StatusServiceUnavailable && strings.Contains(body, "clickhouse") {
			readyzDown = body
		}
		return readyzDown != "" && time.Since(down) > 3*time.Second
	})

	_, err = st.Up(ctx)
	require.NoError(t, err)
	g.setPhase("clickhouse restarted")
	p.waitUntil(t, "/readyz 200 and 200s after ClickHouse restarted", time.Minute, func() bool {
		code, _ := get(base + "/readyz")
		return code == http.StatusOK && g.count("clickhouse restarted", 200) >= 50
	})
	stopLoad()
	t.Logf("answers by phase:\n%s", g.report())

	// Every answer was 200 or 503; nothing hung; each outage and recovery was seen.
	g.mu.Lock()
	samples := g.samples
	g.mu.Unlock()
	require.Empty(t, samples, "answers other than 200 and 503 (a hang counts as %s)", statusName(hang))
	require.Positive(t, g.count("postgres down", 503), "503 while Postgres was down")
	require.False(t, p.exited(), "the binary was never restarted")

	// A clean stop writes the metering log out to Postgres.
	p.stop(t)
	log := p.log()
	require.NotContains(t, log, "handler panic")
	require.NotContains(t, log, "status=500")
	require.NotContains(t, log, "DATA RACE")
	left, _ := filepath.Glob(filepath.Join(p.meteringDir, "seg-*"))
	require.Empty(t, left, "metering segments left on disk after a clean stop")

	pool, err = oltp.Open(ctx, st.PostgresURL())
	require.NoError(t, err)
	defer pool.Close()
	var calls, monthly int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT coalesce(sum(calls), 0) FROM usage_events WHERE key_id = $1 AND route = $2`,
		acct.KeyID, isHiringRoute).Scan(&calls))
	require.NoError(t, pool.QueryRow(ctx, `SELECT coalesce(sum(calls), 0) FROM usage_monthly WHERE account_id = $1`, acct.AccountID).Scan(&monthly))
	ok := g.total(200)
	require.Equal(t, ok, calls, "calls in usage_events = 200s the load counted")
	require.Equal(t, ok, monthly, "calls in usage_monthly = 200s the load counted")
}

// requireServerBinaries skips the test when the Postgres or ClickHouse server binaries (or, as
// root, the postgres user that runs Postgres) are missing.
func requireServerBinaries(t *testing.T) {
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		if _, err := os.Stat(filepath.Join(devstack.PostgresBinDir, name)); err != nil {
			if _, err := exec.LookPath(name); err != nil {
				t.Skipf("no Postgres server binary %s (in %s or PATH): install postgresql to run the chaos test", name, devstack.PostgresBinDir)
			}
		}
	}
	if _, err := exec.LookPath("clickhouse-server"); err != nil {
		t.Skip("no clickhouse-server in PATH: install it to run the chaos test")
	}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("postgres"); err != nil {
			t.Skip("running as root needs the postgres user to run Postgres")
		}
		if _, err := exec.LookPath("runuser"); err != nil {
			t.Skip("running as root needs runuser to run Postgres as the postgres user")
		}
	}
}

// privateStack starts a Postgres and a ClickHouse for this test only, on free ports, with their
// data in a directory of their own; they are stopped and removed when the test ends.
func privateStack(t *testing.T) *devstack.Stack {
	t.Helper()
	// Not t.TempDir(): its parent is mode 700, and the postgres user must reach the data dir.
	dir, err := os.MkdirTemp("", "hs-chaos-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	st := &devstack.Stack{Dir: dir, PostgresPort: freePort(t), ClickHousePort: freePort(t), ClickHouseHTTP: freePort(t),
		Log: slog.New(slog.DiscardHandler)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	started, err := st.Up(ctx)
	t.Cleanup(func() { _ = st.Down(context.Background(), devstack.Started{Postgres: true, ClickHouse: true}) })
	require.NoError(t, err)
	require.True(t, started.Postgres && started.ClickHouse, "the private pair was started by this test")
	return st
}

func build(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hiringsignal")
	out, err := exec.Command("go", "build", "-race", "-o", path, "github.com/planehq/hiringsignal/cmd/hiringsignal").CombinedOutput()
	require.NoError(t, err, "cannot build the binary:\n%s", out)
	return path
}

// childEnv is this process's environment without HS_* variables (a surrounding `make test` sets
// them for the shared stores), plus env.
func childEnv(env []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HS_") {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

type newAccount struct {
	AccountID int64  `json:"account_id"`
	KeyID     int64  `json:"key_id"`
	Key       string `json:"key"`
}

func createAccount(t *testing.T, bin string, env []string) newAccount {
	t.Helper()
	cmd := exec.Command(bin, "accounts", "create", "--plan", "growth", "--email", "chaos@example.com")
	cmd.Env = childEnv(env)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "accounts create: %s", stderr.String())
	var a newAccount
	require.NoError(t, json.Unmarshal(out, &a), "accounts create printed %q", out)
	require.NotEmpty(t, a.Key)
	return a
}

// proc is the running binary: its stderr (the slog lines) and stdout are kept as they arrive.
type proc struct {
	cmd         *exec.Cmd
	meteringDir string
	mu          sync.Mutex
	lines       []string
	out         bytes.Buffer
	done        chan struct{}
	err         error // the exit status, once done is closed
}

func start(t *testing.T, bin string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = childEnv(env)
	cmd.Dir = t.TempDir()
	proctest.DieWithParent(cmd)
	p := &proc{cmd: cmd, done: make(chan struct{})}
	for i, a := range args {
		if a == "--metering-dir" && i+1 < len(args) {
			p.meteringDir = args[i+1]
		}
	}
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	cmd.Stdout = lockedWriter{p}
	require.NoError(t, cmd.Start())
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
		}
	}()
	go func() { <-scanned; p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		if !p.exited() {
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("binary log (last 200 lines):\n%s", p.tail(200))
		}
	})
	return p
}

type lockedWriter struct{ p *proc }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.out.Write(b)
}

func (p *proc) stdout() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func (p *proc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

func (p *proc) tail(n int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines[max(0, len(p.lines)-n):], "\n")
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitUntil polls cond every 100ms until it holds; it fails the test when within passes or the
// binary exits first.
func (p *proc) waitUntil(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if p.exited() {
			t.Fatalf("the binary exited (%v) while waiting for %s", p.err, what)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s", what, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop sends SIGTERM and requires a clean exit: status 0 and "stopped" logged.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-p.done:
		require.NoError(t, p.err, "exit status after SIGTERM")
	case <-time.After(90 * time.Second): // the binary's shutdown budget is 60 s
		t.Fatal("the binary did not exit after SIGTERM")
	}
	require.Contains(t, p.log(), "msg=stopped")
}

// load calls one metered URL from a few workers and counts the answers by phase and status.
type load struct {
	url, key string
	client   *http.Client
	phase    atomic.Value // string

	mu      sync.Mutex
	counts  map[string]map[int]int64
	samples []string // the first answers other than 200 and 503, with their bodies
}

func newLoad(url, key string) *load {
	g := &load{url: url, key: key, counts: map[string]map[int]int64{},
		client: &http.Client{Timeout: clientTimeout, Transport: &http.Transport{MaxIdleConnsPerHost: workers}}}
	g.phase.Store("")
	return g
}

func (g *load) setPhase(p string) { g.phase.Store(p) }

// call makes one call and records its answer under the phase it started in.
func (g *load) call() (int, string) {
	phase := g.phase.Load().(string)
	code, body := hang, ""
	req, err := http.NewRequest(http.MethodGet, g.url, nil)
	if err == nil {
		req.Header.Set("X-API-Key", g.key)
		var resp *http.Response
		if resp, err = g.client.Do(req); err == nil {
			b, rerr := io.ReadAll(resp.Body)
			resp.Body.Close()
			code, body = resp.StatusCode, string(b)
			if rerr != nil {
				code, err = hang, rerr
			}
		}
	}
	if err != nil {
		body = err.Error()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.counts[phase] == nil {
		g.counts[phase] = map[int]int64{}
	}
	g.counts[phase][code]++
	if code != 200 && code != 503 && len(g.samples) < 10 {
		g.samples = append(g.samples, fmt.Sprintf("%s: %s: %.300s", phase, statusName(code), body))
	}
	return code, body
}

// run starts the workers; the returned function stops them and waits (a second call does
// nothing). They also stop by themselves after loadCap.
func (g *load) run() (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	end := time.Now().Add(loadCap)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				g.call()
				select {
				case <-quit:
					return
				case <-time.After(pace):
				}
			}
		}()
	}
	var once sync.Once
	return func() { once.Do(func() { close(quit); wg.Wait() }) }
}

func (g *load) count(phase string, code int) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.counts[phase][code]
}

func (g *load) total(code int) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	var n int64
	for _, byCode := range g.counts {
		n += byCode[code]
	}
	return n
}

func (g *load) report() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var b strings.Builder
	for _, phase := range []string{"preflight", "steady", "postgres down", "postgres restarted", "clickhouse down", "clickhouse restarted"} {
		codes := make([]int, 0, len(g.counts[phase]))
		for c := range g.counts[phase] {
			codes = append(codes, c)
		}
		sort.Ints(codes)
		fmt.Fprintf(&b, "  %-21s", phase)
		for _, c := range codes {
			fmt.Fprintf(&b, " %s=%d", statusName(c), g.counts[phase][c])
		}
		b.WriteByte('\n')
	}
	for _, s := range g.samples {
		fmt.Fprintf(&b, "  sample: %s\n", s)
	}
	return b.String()
}

func statusName(code int) string {
	if code == hang {
		return "hang/transport-error"
	}
	return strconv.Itoa(code)
}

// get is a plain GET with a short timeout; code 0 when it did not answer.
func get(url string) (int, string) {
	c := &http.Client{Timeout: 5 * time.Second}
	r, err := c.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b)
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func freeAddr(t *testing.T) string { return "127.0.0.1:" + strconv.Itoa(freePort(t)) }
