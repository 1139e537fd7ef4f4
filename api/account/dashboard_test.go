package account_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// searchStub is GET /v1/reqs/search as api/search declares it, serving n rows: a billable call
// for the dashboard to count.
func searchStub(n int) *api.Route {
	for _, rt := range search.Routes(search.Deps{}) {
		if rt.Name == "reqs.search" {
			rt.Handler = func(c *api.Call) (int, error) { return n, c.JSON(200, map[string]any{"companies": make([]int, n)}) }
			return rt
		}
	}
	panic("api/search declares no reqs.search")
}

func TestDashboard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t, searchStub(1))
	free := h.Account(t, "free")
	big := int64(1000)
	require.NoError(t, oltp.SetCallsPerMinute(ctx, h.Pool, free.AccountID, &big))
	for i := 0; i < 80; i++ {
		require.Equal(t, 200, h.Do(t, "GET", "/v1/reqs/search", free.Key, "").Status)
	}
	d := object(t, h.Do(t, "GET", "/v1/usage/dashboard", free.Key, ""))
	k := d["keys"].([]any)[0].(map[string]any)
	require.EqualValues(t, 80, k["used"])
	require.Equal(t, "amber", k["status"])
	require.Equal(t, true, d["expansion_nudge_triggered"])
	require.Nil(t, d["upgrade_prompt"])
	require.Equal(t, map[string]any{"changes_allowance": 50.0, "changes_used": 0.0, "changes_wall_reached": false, "watches_allowance": 3.0, "watches_used": 0.0}, d["free_tier"])
	require.Equal(t, map[string]any{"wall_blocked": 0.0, "cap_blocked": 0.0}, d["blocked_deliveries"])
	require.Equal(t, "free", d["plan"], "the account's plan (spec 2.1, Customer and account)")
	for i := 0; i < 20; i++ {
		h.Do(t, "GET", "/v1/reqs/search", free.Key, "")
	}
	d = object(t, h.Do(t, "GET", "/v1/usage/dashboard", free.Key, ""))
	require.Equal(t, "red", d["keys"].([]any)[0].(map[string]any)["status"])
	require.Equal(t, "quota_exceeded", d["upgrade_prompt"].(map[string]any)["reason"])

	g := h.Account(t, "growth")
	d = object(t, h.Do(t, "GET", "/v1/usage/dashboard", g.Key, ""))
	require.Nil(t, d["free_tier"])
	require.Equal(t, "growth", d["plan"])
	require.Equal(t, "green", d["keys"].([]any)[0].(map[string]any)["status"])
	require.Equal(t, "ok", d["spend_cap"].(map[string]any)["status"])
}

// A rotation replacement inherits its lineage's daily quota, so the dashboard shows what the
// rotated key used today on the replacement, not 0.
func TestDashboardShowsTheLineageUseOnARotatedKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t, searchStub(1))
	free := h.Account(t, "free")
	big := int64(1000)
	require.NoError(t, oltp.SetCallsPerMinute(ctx, h.Pool, free.AccountID, &big))
	for i := 0; i < 30; i++ {
		require.Equal(t, 200, h.Do(t, "GET", "/v1/reqs/search", free.Key, "").Status)
	}
	r := h.Do(t, "POST", "/v1/keys/"+itoa(free.KeyID)+"/rotate", free.Key, `{}`)
	require.Equal(t, 201, r.Status, string(r.Body))
	replacement := object(t, r)["key"].(string)
	d := object(t, h.Do(t, "GET", "/v1/usage/dashboard", replacement, ""))
	keys := d["keys"].([]any)
	require.Len(t, keys, 1, "the rotated key is revoked")
	require.EqualValues(t, 30, keys[0].(map[string]any)["used"])
}

// free_tier.changes_wall_reached reads the notifier's own figures: the notifier walls on every
// delivery admitted this month, pending and retrying ones included, so counting only accepted
// (billed) deliveries made the dashboard say false while new changes were already wall_blocked.
func TestDashboardWallReachedAgreesWithTheNotifiersWall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t)
	free := h.Account(t, "free")
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	ep, _, err := oltp.RegisterEndpoint(ctx, h.Pool, box, free.CustomerID, "https://hooks.example.com/in", oltp.EndpointSecret{})
	require.NoError(t, err)
	company := int64(42)
	w, _, _, err := oltp.CreateWatch(ctx, h.Pool, box, oltp.NewWatch{CustomerID: free.CustomerID, AccountID: free.AccountID, KeyID: free.KeyID,
		Allowance: 3, EndpointID: ep.ID, CompanyID: &company, EventTypes: []string{"opened"}, MaxFiresPerHour: 20})
	require.NoError(t, err)
	wall := func() any {
		return object(t, h.Do(t, "GET", "/v1/usage/dashboard", free.Key, ""))["free_tier"].(map[string]any)["changes_wall_reached"]
	}
	insert := func(from, to int) {
		_, err := h.Pool.Exec(ctx, `INSERT INTO webhook_deliveries (idempotency_key, customer_id, account_id, key_id, endpoint_id, watch_id, event_seq,
			event_type, body, status, next_attempt_at)
			SELECT 'w' || $5::bigint || ':' || s, $1, $2, $3, $4, $5::bigint, s, 'opened', '{}', 'pending', now() + interval '1 hour'
			FROM generate_series($6::int, $7::int) s`, free.CustomerID, free.AccountID, free.KeyID, ep.ID, w.ID, from, to)
		require.NoError(t, err)
	}
	allowance, _ := plans.DeliveredChangeAllowance("tier_0")
	insert(1, int(allowance)-1)
	require.Equal(t, false, wall(), "one more change is admitted")
	insert(int(allowance), int(allowance))
	admission, err := admit.AdmissionNow(ctx, h.Pool, free.AccountID, time.Now())
	require.NoError(t, err)
	require.Equal(t, oltp.DeliveryWallBlocked, admission, "the notifier walls the next change")
	require.Equal(t, true, wall(), "none billed yet, but the next change is wall_blocked")
}
