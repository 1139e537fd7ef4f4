package onboarding_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/api/connector"
	"github.com/planehq/hiringsignal/api/onboarding"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/dispatch"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/snapshot"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// devPolicy is dev's URL policy: http and loopback receivers allowed.
var devPolicy = egress.Policy{AllowHTTP: true, AllowPrivate: true}

type fixture struct {
	w     *readmodeltest.World
	snaps *snapshot.Service
	m     *readmodel.Model
}

var world = apitest.NewShared("onboarding", func(tb testing.TB) *fixture {
	w := readmodeltest.Crawl(tb, readmodeltest.Config{Seed: 11, Companies: 40, First: 100, Last: 100 + 24*12, Step: 24})
	snaps := snapshot.New(snapshot.Config{ClickHouse: w.CH, Log: apitest.Quiet(), Poll: time.Hour})
	_, err := snaps.Refresh(context.Background(), true)
	require.NoError(tb, err)
	return &fixture{w: w, snaps: snaps, m: snaps.Current().Model}
})

// start serves the push routes and this package's over the world's snapshot on a fresh schema
// under policy; the box is returned for a dispatcher.
func start(t *testing.T, f *fixture, policy egress.Policy) (*apitest.Server, *secretbox.Box) {
	t.Helper()
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	srv := apitest.StartServer(t, apitest.Options{DB: "onboarding", Push: &apitest.Push{Box: box, Egress: policy, Snapshots: f.snaps},
		Register: func(s *api.Server, pool *pgxpool.Pool) {
			onboarding.Register(s, onboarding.Deps{Pool: pool, Log: apitest.Quiet(), Box: box, Egress: policy, Snapshots: f.snaps})
			connector.Register(s, connector.Deps{Pool: pool, Log: apitest.Quiet(), Snapshots: f.snaps})                // metered calls for the nudge
			companies.Register(s, companies.Deps{Snapshots: f.snaps, Pool: pool, Log: apitest.Quiet(), ColdAfter: -1}) // what the snippets call
		}})
	return srv, box
}

type quickstart struct {
	Snippets          map[string]string `json:"snippets"`
	WebhookURL        string            `json:"webhook_url"`
	WebhookEndpointID int64             `json:"webhook_endpoint_id"`
	WebhookSecret     *string           `json:"webhook_secret"`
	Watch             struct {
		WatchID     int64   `json:"watch_id"`
		CompanyID   int64   `json:"company_id"`
		CompanyName *string `json:"company_name"`
	} `json:"watch"`
	Created    bool   `json:"created"`
	Onboarding string `json:"onboarding"`
}

type status struct {
	Step                    string   `json:"step"`
	Steps                   []string `json:"steps"`
	WebhookEndpointID       *int64   `json:"webhook_endpoint_id"`
	LiveWatches             int      `json:"live_watches"`
	FirstWebhookDelivered   bool     `json:"first_webhook_delivered"`
	ExpansionNudgeTriggered bool     `json:"expansion_nudge_triggered"`
	Company                 *struct {
		CompanyID uint64 `json:"company_id"`
	} `json:"company"`
}

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

func TestQuickstartSetsUpOnceAndAnswersTheSameAgain(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv, _ := start(t, f, egress.Policy{LookupNetIP: apitest.FakeDNS})
	acct := srv.Account(t, "starter")
	hook := "https://hooks.example.com/plane"
	r := srv.Post(t, "/v1/quickstart", acct.Key, map[string]any{"webhook_url": hook})
	srv.Conforms(t, "POST", "/v1/quickstart", r)
	var first quickstart
	r.Decode(t, 200, &first)
	require.True(t, first.Created)
	require.NotNil(t, first.WebhookSecret)
	require.Equal(t, hook, first.WebhookURL)
	require.EqualValues(t, f.m.HighMotion().ID, first.Watch.CompanyID)
	require.NotNil(t, first.Watch.CompanyName)
	for name, s := range first.Snippets {
		require.Contains(t, s, acct.Key, name)
	}
	require.Len(t, first.Snippets, 6)

	again := apitest.PostJSON[quickstart](t, srv, "/v1/quickstart", acct.Key, map[string]any{"webhook_url": hook}, 200)
	require.False(t, again.Created)
	require.Nil(t, again.WebhookSecret, "the secret is answered once")
	require.Equal(t, first.WebhookEndpointID, again.WebhookEndpointID)
	require.Equal(t, first.Watch.WatchID, again.Watch.WatchID)
	require.Equal(t, 1, count(t, srv.Pool, "SELECT count(*) FROM watches WHERE customer_id = $1", acct.CustomerID))
	require.Equal(t, 1, count(t, srv.Pool, "SELECT count(*) FROM webhook_endpoints WHERE customer_id = $1", acct.CustomerID))

	// Not billable: no call, no watch unit.
	require.NoError(t, srv.API.FlushUsage(context.Background()))
	u := apitest.Object(t, srv.Get(t, "/v1/usage", acct.Key, nil))
	require.EqualValues(t, 0, u["calls"])
	require.EqualValues(t, 0, u["watches"])

	// Canceled, a quickstart sets the watch up again (never two live ones).
	require.Equal(t, 204, srv.Do(t, "DELETE", "/v1/watches/"+itoa(first.Watch.WatchID), acct.Key, nil).Status)
	third := apitest.PostJSON[quickstart](t, srv, "/v1/quickstart", acct.Key, map[string]any{"webhook_url": hook}, 200)
	require.True(t, third.Created)
	require.NotEqual(t, first.Watch.WatchID, third.Watch.WatchID)
	require.Equal(t, first.WebhookEndpointID, third.WebhookEndpointID)
	require.Equal(t, 1, count(t, srv.Pool, "SELECT count(*) FROM watches WHERE customer_id = $1 AND canceled_at IS NULL", acct.CustomerID))
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestQuickstartCalledTwiceAtOnceCreatesOneWatchAndOneEndpoint(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv, _ := start(t, f, egress.Policy{LookupNetIP: apitest.FakeDNS})
	acct := srv.Account(t, "growth")
	const n = 8
	var wg sync.WaitGroup
	answers := make([]quickstart, n)
	statuses := make([]int, n)
	for i := range n {
		wg.Go(func() {
			r := srv.Post(t, "/v1/quickstart", acct.Key, map[string]any{"webhook_url": "https://hooks.example.com/at-once"})
			statuses[i] = r.Status
			_ = json.Unmarshal(r.Body, &answers[i])
		})
	}
	wg.Wait()
	created := 0
	for i := range n {
		require.Equal(t, 200, statuses[i])
		require.Equal(t, answers[0].Watch.WatchID, answers[i].Watch.WatchID)
		require.Equal(t, answers[0].WebhookEndpointID, answers[i].WebhookEndpointID)
		if answers[i].Created {
			created++
		}
	}
	require.Equal(t, 1, created)
	require.Equal(t, 1, count(t, srv.Pool, "SELECT count(*) FROM watches WHERE customer_id = $1", acct.CustomerID))
	require.Equal(t, 1, count(t, srv.Pool, "SELECT count(*) FROM webhook_endpoints WHERE customer_id = $1", acct.CustomerID))
}

func TestQuickstartRefusesBadWebhookURLs(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv, _ := start(t, f, egress.Policy{LookupNetIP: apitest.FakeDNS})
	key := srv.Account(t, "growth").Key
	for name, body := range map[string]any{
		"missing":  map[string]any{},
		"empty":    map[string]any{"webhook_url": ""},
		"http":     map[string]any{"webhook_url": "http://hooks.example.com/x"},
		"loopback": map[string]any{"webhook_url": "https://127.0.0.1/x"},
		"not url":  map[string]any{"webhook_url": "hooks"},
		"number":   map[string]any{"webhook_url": 5},
		"no body":  nil,
	} {
		r := srv.Post(t, "/v1/quickstart", key, body)
		require.Equal(t, 422, r.Status, "%s: %s", name, r.Body)
	}
	require.Equal(t, 422, srv.Get(t, "/v1/onboarding", key, url.Values{"webhook_url": {"http://hooks.example.com/x"}}).Status)
	require.Equal(t, 422, srv.Get(t, "/v1/onboarding", key, nil).Status)
}

func TestQuickstartPastTheWatchAllowanceIs402AndLeavesNothing(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv, _ := start(t, f, egress.Policy{LookupNetIP: apitest.FakeDNS})
	acct := srv.Account(t, "free")
	key := acct.Key
	for i := range 3 {
		apitest.PostJSON[quickstart](t, srv, "/v1/quickstart", key, map[string]any{"webhook_url": "https://hooks.example.com/" + itoa(int64(i))}, 200)
	}
	r := srv.Post(t, "/v1/quickstart", key, map[string]any{"webhook_url": "https://hooks.example.com/fourth"})
	require.Equal(t, 402, r.Status, string(r.Body))
	require.Equal(t, 3, count(t, srv.Pool, "SELECT count(*) FROM webhook_endpoints WHERE customer_id = $1", acct.CustomerID), "the refused quickstart left no endpoint")
	require.Equal(t, 3, count(t, srv.Pool, "SELECT count(*) FROM quickstarts WHERE customer_id = $1", acct.CustomerID))
}

// The curl and Python snippets run as pasted against the server and answer the watched
// company's is-hiring.
func TestSnippetsRunAsPasted(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv, _ := start(t, f, egress.Policy{LookupNetIP: apitest.FakeDNS})
	key := srv.Account(t, "growth").Key
	q := apitest.PostJSON[quickstart](t, srv, "/v1/quickstart", key, map[string]any{"webhook_url": "https://hooks.example.com/snippets"}, 200)
	require.Contains(t, q.Snippets["curl"], srv.Base)
	run := func(name string, args ...string) map[string]any {
		out, err := exec.Command(name, args...).Output()
		require.NoError(t, err, "%s: %s", name, out)
		var v map[string]any
		require.NoError(t, json.Unmarshal(out, &v), "%s printed %s", name, out)
		return v
	}
	got := run("sh", "-c", q.Snippets["curl"])
	require.EqualValues(t, q.Watch.CompanyID, got["company_id"])
	require.Equal(t, true, got["is_hiring"])
	if _, err := exec.LookPath("python3"); err == nil {
		// The Python snippet prints a dict (repr); make it print JSON to compare.
		py := strings.Replace(q.Snippets["python"], "print(json.load(r))", "print(json.dumps(json.load(r)))", 1)
		got := run("python3", "-c", py)
		require.EqualValues(t, q.Watch.CompanyID, got["company_id"])
	} else {
		t.Log("python3 not installed: the Python snippet was not run")
	}
	if _, err := exec.LookPath("node"); err == nil {
		dir := t.TempDir()
		file := dir + "/snippet.mjs"
		ts := strings.Replace(q.Snippets["typescript"], "console.log(await r.json());", "console.log(JSON.stringify(await r.json()));", 1)
		require.NoError(t, os.WriteFile(file, []byte(ts), 0o600))
		got := run("node", file)
		require.EqualValues(t, q.Watch.CompanyID, got["company_id"])
	}
	var mcp map[string]any
	require.NoError(t, json.Unmarshal([]byte(q.Snippets["mcp"]), &mcp), q.Snippets["mcp"])
}

// Onboarding progresses no_watch → watching → delivered (a signed delivery the endpoint
// verified and accepted, sent by the real dispatcher) → expansion (80% of the daily quota), and
// answers the same when polled again.
func TestOnboardingProgressesThroughARealSignedDelivery(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv, box := start(t, f, devPolicy)
	acct := srv.Account(t, "free")
	big := int64(1000) // before the key is first used (and cached)
	require.NoError(t, oltp.SetCallsPerMinute(context.Background(), srv.Pool, acct.AccountID, &big))

	var secret atomic.Value
	var accepted atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s, _ := secret.Load().(string)
		if s == "" || !signing.VerifyPlane(s, r.Header.Get("X-Plane-Signature"), body) {
			w.WriteHeader(401)
			return
		}
		accepted.Add(1)
		w.WriteHeader(204)
	}))
	t.Cleanup(recv.Close)
	hook := recv.URL + "/hooks"
	poll := func(domain string) status {
		q := url.Values{"webhook_url": {hook}}
		if domain != "" {
			q.Set("domain", domain)
		}
		r := srv.Get(t, "/v1/onboarding", acct.Key, q)
		srv.Conforms(t, "GET", "/v1/onboarding", r)
		var s status
		r.Decode(t, 200, &s)
		return s
	}
	s := poll("")
	require.Equal(t, onboarding.StepNoWatch, s.Step)
	require.Equal(t, onboarding.Steps, s.Steps)
	require.Nil(t, s.Company)
	co := f.w.Companies[f.m.HighMotion().ID]
	require.EqualValues(t, f.m.HighMotion().ID, poll(co.Domain).Company.CompanyID)

	q := apitest.PostJSON[quickstart](t, srv, "/v1/quickstart", acct.Key, map[string]any{"webhook_url": hook}, 200)
	secret.Store(*q.WebhookSecret)
	s = poll("")
	require.Equal(t, onboarding.StepWatching, s.Step)
	require.Equal(t, 1, s.LiveWatches)
	require.False(t, s.FirstWebhookDelivered)
	require.Equal(t, s, poll(""), "polling again answers the same")

	d, err := dispatch.New(dispatch.Config{Pool: srv.Pool, Listener: srv.Listener, Box: box, Egress: devPolicy, Log: apitest.Quiet(), Poll: 50 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, d.Start(context.Background()))
	t.Cleanup(func() { _ = d.Stop(context.Background()) })
	require.Equal(t, 201, srv.Post(t, "/v1/webhooks/"+itoa(q.WebhookEndpointID)+"/test", acct.Key, nil).Status)
	require.Eventually(t, func() bool { return poll("").FirstWebhookDelivered }, 20*time.Second, 100*time.Millisecond)
	require.EqualValues(t, 1, accepted.Load())
	s = poll("")
	require.Equal(t, onboarding.StepDelivered, s.Step)
	require.False(t, s.ExpansionNudgeTriggered)
	require.Equal(t, s, poll(""))

	// 80 of the Free plan's 100 daily calls (the minute limit was lifted to make them now).
	for range 79 {
		apitest.PostJSON[map[string]any](t, srv, "/v1/connector/enrich", acct.Key, map[string]any{"domain": co.Domain}, 200)
	}
	require.Equal(t, onboarding.StepDelivered, poll("").Step, "79 calls: no nudge yet")
	apitest.PostJSON[map[string]any](t, srv, "/v1/connector/enrich", acct.Key, map[string]any{"domain": co.Domain}, 200)
	s = poll("")
	require.Equal(t, onboarding.StepExpansion, s.Step)
	require.True(t, s.ExpansionNudgeTriggered)
	require.EqualValues(t, 1, accepted.Load(), "polling delivered nothing more")
}

// readFlushes is how many metering flushes usage reads forced on srv (/metrics).
func readFlushes(t *testing.T, srv *apitest.Server) float64 {
	t.Helper()
	r := srv.Get(t, "/metrics", "", nil)
	require.Equal(t, 200, r.Status)
	for _, line := range strings.Split(string(r.Body), "\n") {
		if v, ok := strings.CutPrefix(line, "hs_metering_read_flushes_total "); ok {
			f, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err)
			return f
		}
	}
	t.Fatal("no hs_metering_read_flushes_total on /metrics")
	return 0
}

// The usage routes refuse the public demo key because every usage read flushes metering; the
// onboarding status read the expansion nudge the same way, so the demo key drove a flush per
// call. The demo key bills nothing and is never nudged: nothing is flushed for it.
func TestTheDemoKeysOnboardingStatusFlushesNothing(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv, _ := start(t, f, devPolicy)
	q := url.Values{"webhook_url": {"http://127.0.0.1:9/demo"}}
	before := readFlushes(t, srv)
	for range 3 {
		r := srv.Get(t, "/v1/onboarding", api.PublicDemoKey, q)
		require.Equal(t, 200, r.Status, string(r.Body))
		require.False(t, apitest.Object(t, r)["expansion_nudge_triggered"].(bool))
	}
	require.Equal(t, before, readFlushes(t, srv), "the demo key forced no flush")
	own := srv.Account(t, "free")
	require.Equal(t, 200, srv.Get(t, "/v1/onboarding", own.Key, q).Status)
	require.Equal(t, before+1, readFlushes(t, srv), "a key of its own reads its nudge after a flush")
}
