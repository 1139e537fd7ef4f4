package account_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/account"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
)

// start serves this package's routes, and more, from a fresh schema.
func start(t *testing.T, more ...*api.Route) *apitest.Server {
	t.Helper()
	return apitest.StartServer(t, apitest.Options{DB: "account", NoAccount: true, Register: func(srv *api.Server, pool *pgxpool.Pool) {
		account.Register(srv, account.Deps{Pool: pool, Log: apitest.Quiet()})
		srv.Register(more...)
	}})
}

// object is r's body, a JSON object.
func object(t *testing.T, r apitest.Response) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m), string(r.Body))
	return m
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
