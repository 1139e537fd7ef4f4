package watches_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// Companies of the test read snapshot.
const (
	acme  = 42
	beta  = 43
	nobod = 999999 // no company
)

// fixedSnapshot is a read snapshot whose model holds acme and beta, built without ClickHouse.
type fixedSnapshot struct{ s *snapshot.Snapshot }

func (f fixedSnapshot) Current() *snapshot.Snapshot { return f.s }

func newSnapshot() fixedSnapshot {
	m := readmodel.NewBuilder(nil, 1, time.Now(), nil, []analytics.Company{
		{CompanyID: acme, Domain: "acme.com", Name: "Acme"}, {CompanyID: beta, Domain: "beta.io", Name: "Beta"},
	}).Build(readmodel.Side{})
	return fixedSnapshot{&snapshot.Snapshot{Model: m}}
}

type harness struct {
	*apitest.Server
	box *secretbox.Box
	log *apitest.LogBuffer
}

// start serves the webhook and watch routes (and the account routes) under the production URL
// policy, over the fixed snapshot, with the server's log kept at debug level.
func start(t *testing.T) *harness {
	t.Helper()
	log, lb := apitest.DebugLog()
	srv := apitest.StartServer(t, apitest.Options{DB: "watches", Config: func(c *api.Config) { c.Log = log },
		Push: &apitest.Push{Egress: egress.Policy{LookupNetIP: apitest.FakeDNS}, Snapshots: newSnapshot()}})
	return &harness{Server: srv, box: srv.Box, log: lb}
}

// usage is key's customer's usage totals over the last 24 h, once everything metered reached
// Postgres.
func (h *harness) usage(t *testing.T, key string) map[string]any {
	t.Helper()
	require.NoError(t, h.API.FlushUsage(context.Background()))
	return apitest.Object(t, h.Get(t, "/v1/usage", key, nil))
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func id(m map[string]any) string { return itoa(int64(m["watch_id"].(float64))) }
