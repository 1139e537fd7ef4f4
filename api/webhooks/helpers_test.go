package webhooks_test

import (
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/deliveries"
	"github.com/planehq/hiringsignal/api/webhooks"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
)

type harness struct {
	*apitest.Server
	box *secretbox.Box
	log *apitest.LogBuffer
}

// start serves the webhook routes and the delivery routes (the test delivery among them) under
// the production URL policy (dev: the dev policy), with the server's log kept at debug level.
func start(t *testing.T, dev bool) *harness {
	t.Helper()
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	log, lb := apitest.DebugLog()
	policy := egress.Policy{LookupNetIP: apitest.FakeDNS}
	if dev {
		policy.AllowHTTP, policy.AllowPrivate = true, true
	}
	srv := apitest.StartServer(t, apitest.Options{DB: "webhooks", Config: func(c *api.Config) { c.Log = log },
		Register: func(srv *api.Server, pool *pgxpool.Pool) {
			webhooks.Register(srv, webhooks.Deps{Pool: pool, Log: log, Box: box, Egress: policy})
			deliveries.Register(srv, deliveries.Deps{Pool: pool, Log: log}) // POST /v1/webhooks/{id}/test
		}})
	return &harness{Server: srv, box: box, log: lb}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func idOf(t *testing.T, m map[string]any) int64 {
	t.Helper()
	return int64(m["id"].(float64))
}
