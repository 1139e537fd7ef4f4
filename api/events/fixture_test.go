package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
	"github.com/planehq/hiringsignal/read/snapshot"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// The world: 50 companies crawled every cycle for 4 days (32 cycles), so a 24-hour floor holds
// back the last 8 cycles.
var worldConfig = readmodeltest.Config{Seed: 9, Companies: 50, First: 400, Last: 431, Step: 1}

// fixture is the world crawled once per test binary, a server paging the snapshot built at the
// crawl's end, and the ledger read straight from ClickHouse at that watermark (the reference).
// Tests share it read-only; one that commits further cycles uses a store of its own.
type fixture struct {
	w      *readmodeltest.World
	srv    *apitest.Server
	snap   *snapshot.Snapshot
	ledger []ledgerRow // every committed event, ascending event_seq
}

var world = apitest.NewShared("events", func(tb testing.TB) *fixture {
	w := readmodeltest.Crawl(tb, worldConfig)
	srv, snaps := startServer(tb, w.CH)
	f := &fixture{w: w, srv: srv, snap: snaps.Current()}
	f.ledger = readLedger(tb, w.CH, f.snap.Watermark)
	require.NotEmpty(tb, f.ledger)
	return f
})

// startServer serves the change feed from a new read snapshot of ch, built before it returns
// (the one place this package wires its handler to a server).
func startServer(tb testing.TB, ch driver.Conn) (*apitest.Server, *snapshot.Service) {
	tb.Helper()
	snaps := snapshot.New(snapshot.Config{ClickHouse: ch, Log: apitest.Quiet(), Poll: time.Hour})
	_, err := snaps.Refresh(context.Background(), true)
	require.NoError(tb, err)
	srv := apitest.StartServer(tb, apitest.Options{DB: "events", Register: func(s *api.Server, _ *pgxpool.Pool) {
		events.Register(s, events.Deps{Snapshots: snaps, ClickHouse: ch, Log: apitest.Quiet()})
	}})
	return srv, snaps
}

// ledgerRow is an event as the reference reads it (FINAL: the highest version of each event_seq).
type ledgerRow struct {
	Seq        uint64
	Type       string
	ReqKey     string
	CompanyID  uint64
	RawTitle   string
	Function   string
	Country    string
	Board      string
	URL        string
	OccurredAt time.Time
	ObservedAt time.Time
}

// readLedger reads every event at or below wm, independently of package analytics' feed read.
func readLedger(tb testing.TB, ch driver.Conn, wm uint64) []ledgerRow {
	tb.Helper()
	rows, err := ch.Query(context.Background(), `SELECT event_seq, event_type, req_key, company_id, raw_title, function, country, board, url,
		occurred_at, observed_at FROM events FINAL WHERE event_seq <= ? ORDER BY event_seq`, wm)
	require.NoError(tb, err)
	defer rows.Close()
	var out []ledgerRow
	for rows.Next() {
		var r ledgerRow
		require.NoError(tb, rows.Scan(&r.Seq, &r.Type, &r.ReqKey, &r.CompanyID, &r.RawTitle, &r.Function, &r.Country, &r.Board, &r.URL,
			&r.OccurredAt, &r.ObservedAt))
		out = append(out, r)
	}
	require.NoError(tb, rows.Err())
	return out
}

// The answer, as the tests read it: the handler's own types (a field the route adds is decoded too).
type (
	event = events.Event
	page  = events.Page
)

// everyType names every event type: the whole feed, reobserved included (without event_type a
// page leaves reobserved out).
var everyType = url.Values{"event_type": analytics.EventTypes}

// caller is a fresh account on a server that counts the events it was served, to check the
// change units metered to it.
type caller struct {
	srv    *apitest.Server
	key    string
	served int
	calls  int
	schema map[string]any // the served document's 200 schema of GET /v1/events, read once
}

func newCaller(t *testing.T, srv *apitest.Server, plan string) *caller {
	t.Helper()
	return &caller{srv: srv, key: srv.Account(t, plan).Key}
}

// page gets one page: since, limit (0: absent) and the filters q.
func (c *caller) page(t *testing.T, since uint64, limit int, q url.Values) page {
	t.Helper()
	v := url.Values{"since": {strconv.FormatUint(since, 10)}}
	for k, vs := range q {
		v[k] = vs
	}
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	r := c.srv.Get(t, "/v1/events", c.key, v)
	var p page
	r.Decode(t, 200, &p)
	if c.schema == nil {
		c.schema = responseSchema(t, c.srv)
	}
	requireConforms(t, c.schema, r.Body)
	c.served += len(p.Events)
	c.calls++
	require.GreaterOrEqual(t, p.NextCursor, since, "the cursor never goes back")
	if n := len(p.Events); n > 0 {
		require.Greater(t, p.Events[0].EventSeq, since)
		require.LessOrEqual(t, p.Events[n-1].EventSeq, p.NextCursor)
	}
	return p
}

// all pages from since until has_more is false and returns every event served and the last cursor.
func (c *caller) all(t *testing.T, since uint64, limit int, q url.Values) ([]event, uint64) {
	t.Helper()
	var out []event
	for i := 0; ; i++ {
		require.Less(t, i, 100_000, "the feed does not end")
		p := c.page(t, since, limit, q)
		out = append(out, p.Events...)
		since = p.NextCursor
		if !p.HasMore {
			return out, since
		}
	}
}

// usage is the caller's metered calls and change units, once everything reached Postgres.
func (c *caller) usage(t *testing.T) (calls, changes int) {
	t.Helper()
	require.NoError(t, c.srv.API.FlushUsage(context.Background()))
	var u struct {
		Calls   int `json:"calls"`
		Changes int `json:"changes"`
	}
	c.srv.Get(t, "/v1/usage", c.key, nil).Decode(t, 200, &u)
	return u.Calls, u.Changes
}

// requireUnits checks that the caller was metered one change unit per event served, and every
// page it asked for as a call (empty ones included).
func (c *caller) requireUnits(t *testing.T) {
	t.Helper()
	calls, changes := c.usage(t)
	require.Equal(t, c.served, changes, "change units equal events served")
	require.Equal(t, c.calls, calls, "every page is a metered call")
}

func seqsOf(evs []event) []uint64 {
	out := make([]uint64, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.EventSeq)
	}
	return out
}

func ledgerSeqs(rows []ledgerRow, keep func(ledgerRow) bool) []uint64 {
	var out []uint64
	for _, r := range rows {
		if keep == nil || keep(r) {
			out = append(out, r.Seq)
		}
	}
	return out
}

// responseSchema is the 200 schema of GET /v1/events in the document srv serves.
func responseSchema(t *testing.T, srv *apitest.Server) map[string]any {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	srv.Get(t, "/openapi.json", "", nil).Decode(t, 200, &doc)
	schema := doc.Paths["/v1/events"]["get"].Responses["200"].Content["application/json"].Schema
	require.NotNil(t, schema)
	return schema
}

// requireConforms checks an answer against the response schema: every required field present,
// none undeclared, null only where declared, types, enums and date-times as documented.
func requireConforms(t *testing.T, schema map[string]any, body []byte) {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(body, &v))
	conform(t, schema, v, "$")
}

func conform(t *testing.T, s map[string]any, v any, at string) {
	t.Helper()
	types := map[string]bool{}
	switch ty := s["type"].(type) {
	case string:
		types[ty] = true
	case []any:
		for _, x := range ty {
			types[x.(string)] = true
		}
	}
	switch x := v.(type) {
	case nil:
		require.True(t, types["null"], "%s is null but not nullable", at)
	case string:
		require.True(t, types["string"], "%s is a string", at)
		if enum, ok := s["enum"].([]any); ok {
			require.Contains(t, enum, x, at)
		}
		if s["format"] == "date-time" {
			_, err := time.Parse(time.RFC3339, x)
			require.NoError(t, err, at)
			require.Equal(t, 'Z', rune(x[len(x)-1]), "%s is UTC", at)
		}
	case float64:
		require.True(t, types["integer"] || types["number"], "%s is a number", at)
		if types["integer"] {
			require.Equal(t, float64(int64(x)), x, "%s is an integer", at)
		}
		if m, ok := s["minimum"].(float64); ok {
			require.GreaterOrEqual(t, x, m, at)
		}
	case bool:
		require.True(t, types["boolean"], "%s is a boolean", at)
	case []any:
		require.True(t, types["array"], "%s is an array", at)
		if m, ok := s["maxItems"].(float64); ok {
			require.LessOrEqual(t, float64(len(x)), m, at)
		}
		for i, item := range x {
			conform(t, s["items"].(map[string]any), item, fmt.Sprintf("%s[%d]", at, i))
		}
	case map[string]any:
		require.True(t, types["object"], "%s is an object", at)
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, r := range req {
			require.Contains(t, x, r.(string), "%s lacks the required %s", at, r)
		}
		for k, val := range x {
			ps, ok := props[k].(map[string]any)
			require.True(t, ok, "%s.%s is not declared", at, k)
			conform(t, ps, val, at+"."+k)
		}
	}
}
