package agent_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/agent"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/read/snapshot"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// The world: 40 companies crawled every three days for two months.
var worldConfig = readmodeltest.Config{Seed: 7, Companies: 40, First: 100, Last: 100 + 24*20, Step: 24}

// fixture is the world crawled once per test binary, its read snapshot, and a server with every
// route a tool runs plus /mcp. Tests share it read-only and make accounts of their own.
type fixture struct {
	w     *readmodeltest.World
	snaps *snapshot.Service
	srv   *apitest.Server
}

var world = apitest.NewShared("agent", func(tb testing.TB) *fixture {
	w := readmodeltest.Crawl(tb, worldConfig)
	snaps := snapshot.New(snapshot.Config{ClickHouse: w.CH, Log: apitest.Quiet(), Poll: time.Hour})
	_, err := snaps.Refresh(context.Background(), true)
	require.NoError(tb, err)
	f := &fixture{w: w, snaps: snaps}
	f.srv = f.start(tb, nil)
	return f
})

// start serves the company, search, event, watch and account routes over the fixture's snapshot,
// and the agent interface over them, with the handlers' clock an hour past the snapshot; config
// adjusts the server (e.g. a fixed Now for the minute window).
func (f *fixture) start(tb testing.TB, config func(*api.Config)) *apitest.Server {
	clock := &apitest.Clock{}
	clock.Set(f.snaps.Current().AsOf.Add(time.Hour))
	return apitest.StartServer(tb, apitest.Options{DB: "agent", Config: config,
		Push: &apitest.Push{Egress: egress.Policy{LookupNetIP: fakeDNS}, Snapshots: f.snaps},
		Register: func(s *api.Server, pool *pgxpool.Pool) {
			companies.Register(s, companies.Deps{Snapshots: f.snaps, Pool: pool, Log: apitest.Quiet(), Now: clock.Now})
			search.Register(s, search.Deps{Snapshots: f.snaps, QueueWait: time.Minute})
			events.Register(s, events.Deps{Snapshots: f.snaps, ClickHouse: f.w.CH, Log: apitest.Quiet()})
			agent.Register(agent.Deps{API: s})
		}})
}

func fakeDNS(_ context.Context, _, host string) ([]netip.Addr, error) {
	if host == "hooks.example.com" {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// bearer sends the key as Authorization: Bearer on every request of the MCP client.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP client session to srv's /mcp with key, speaking protocol revision version
// ("" = the SDK's latest, the stateless revision).
func connect(tb testing.TB, srv *apitest.Server, key, version string) *mcp.ClientSession {
	tb.Helper()
	s, err := dial(srv, key, version)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// dial is connect that returns the SDK's error.
func dial(srv *apitest.Server, key, version string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "agent-test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: srv.Base + agent.Path, HTTPClient: &http.Client{Transport: bearer{key}, Timeout: 30 * time.Second},
		MaxRetries: -1, DisableStandaloneSSE: true}
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	return c.Connect(context.Background(), tr, opts)
}

// call runs tool with args and returns its result and structuredContent as a map.
func call(tb testing.TB, s *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	tb.Helper()
	r, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(tb, err, "a tool's refusal is a result, never a transport error")
	var m map[string]any
	b, err := json.Marshal(r.StructuredContent)
	require.NoError(tb, err)
	require.NoError(tb, json.Unmarshal(b, &m))
	require.Len(tb, r.Content, 1)
	_, isText := r.Content[0].(*mcp.TextContent)
	require.True(tb, isText, "every result carries a text copy")
	return r, m
}

// ok runs tool and requires a successful result.
func ok(tb testing.TB, s *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	tb.Helper()
	r, m := call(tb, s, tool, args)
	require.False(tb, r.IsError, "%s: %s", tool, r.Content[0].(*mcp.TextContent).Text)
	return m
}

// usage is the caller's /v1/usage after everything metered reached Postgres.
type usage struct {
	Calls      int64            `json:"calls"`
	SourceRows int64            `json:"source_rows"`
	Changes    int64            `json:"changes"`
	Watches    int64            `json:"watches"`
	ByChannel  map[string]int64 `json:"by_channel"`
}

func readUsage(tb testing.TB, srv *apitest.Server, key string) usage {
	tb.Helper()
	require.NoError(tb, srv.API.FlushUsage(context.Background()))
	return apitest.GetJSON[usage](tb, srv, "/v1/usage", key, nil, 200)
}
