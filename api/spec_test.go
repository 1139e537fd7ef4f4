package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
)

// specRoutes is every route of section 4 of the spec (shared/spec/hiring-signal-service.md).
func specRoutes() []string {
	return []string{
		// 4.1 Account and keys.
		"GET /v1/whoami", "POST /v1/quickstart", "GET /v1/onboarding", "GET /v1/keys", "POST /v1/keys",
		"DELETE /v1/keys/{key_id}", "POST /v1/keys/{key_id}/rotate", "GET /v1/usage", "GET /v1/usage/dashboard",
		"POST /v1/account/pause", "POST /v1/account/resume", "GET /v1/pricing", "GET /v1/compliance",
		// 4.2 Company reads.
		"GET /v1/companies/{company_id}/is-hiring", "GET /v1/companies/{company_id}/open-reqs",
		"GET /v1/companies/{company_id}/enrichment", "GET /v1/companies/{company_id}/hiring-pulse",
		"GET /v1/companies/{company_id}/first-hire", "GET /v1/companies/{company_id}/repost-pain",
		"GET /v1/companies/{company_id}/ats-migrations", "GET /v1/companies/{company_id}/pre-action-brief",
		"GET /v1/companies/{company_id}/intent", "POST /v1/companies/{company_id}/outcomes", "GET /v1/companies/resolve",
		// 4.3 Search.
		"GET /v1/reqs/search", "POST /v1/reqs/qualified", "GET /v1/jobs/search", "GET /v1/jobs/role", "GET /v1/markets/role-demand",
		// 4.4 Change feed, webhooks, watches, deliveries.
		"GET /v1/events", "POST /v1/webhooks", "POST /v1/watches", "GET /v1/watches", "DELETE /v1/watches/{watch_id}",
		"GET /v1/webhook-deliveries", "GET /v1/webhook-deliveries/{delivery_id}",
		"POST /v1/webhook-deliveries/{delivery_id}/replay", "GET /v1/attribution",
		// 4.5 Enrichment connector and migration.
		"POST /v1/connector/enrich", "POST /v1/migration-import",
	}
}

// unreadySide registers every route of api/companies, api/search, api/events and api/outcomes (the harness adds those of
// api/account), each answering 503 as over a read side not built yet.
func unreadySide(_ *api.Config, s *api.Server) {
	if s != nil {
		for _, rt := range declared() {
			rt.Handler = func(*api.Call) (int, error) {
				return 0, api.Unavailable("The read side (first build in progress)", nil)
			}
			s.Register(rt)
		}
	}
}

// The document lists exactly the routes served, each with a handler; the routes of the spec not
// built yet are reported, not served.
func TestTheDocumentListsExactlyTheBuiltRoutes(t *testing.T) {
	t.Parallel()
	srv := everyRoute()
	b, err := srv.OpenAPI()
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	documented := map[string]bool{}
	for path, ops := range doc.Paths {
		for m := range ops {
			documented[strings.ToUpper(m)+" "+path] = true
		}
	}
	handled := map[string]bool{}
	for _, rt := range srv.Routes() {
		handled[rt.Method+" "+rt.Path] = rt.Handler != nil || !strings.HasPrefix(rt.Path, "/v1/")
	}
	routed := 0
	for method, paths := range srv.Router().List() {
		for _, p := range paths {
			routed++
			require.True(t, documented[method+" "+p], "%s %s is served but not in the document", method, p)
		}
	}
	require.Equal(t, routed, len(documented))
	for op := range documented {
		require.True(t, handled[op], "%s is in the document without a handler", op)
	}
	spec := map[string]bool{}
	for _, op := range specRoutes() {
		spec[op] = true
		if !documented[op] {
			t.Log("not built yet:", op)
		}
	}
	for op := range documented {
		if !spec[op] && strings.Contains(op, " /v1/") {
			t.Log("served beyond the spec's list:", op)
		}
	}
}

// Two builds of the same routes write the same document, byte for byte: a schema's required list
// in map order made every build differ, so a generated client or a diff of the contract changed
// with nothing changed.
func TestTheDocumentIsTheSameOnEveryBuild(t *testing.T) {
	first, err := everyRoute().OpenAPI()
	require.NoError(t, err)
	for range 8 {
		again, err := everyRoute().OpenAPI()
		require.NoError(t, err)
		require.Equal(t, string(first), string(again))
	}
}
