package account_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPricingIsTheSpecPriceList(t *testing.T) {
	t.Parallel()
	h := start(t)
	p := object(t, h.Do(t, "GET", "/v1/pricing", "", ""))
	tiers := p["tiers"].([]any)
	require.Len(t, tiers, 5)
	want := []struct {
		name, id          any
		amount            any
		sellable          bool
		quota, hard, soft any
		bundle            any
		watches           float64
	}{
		{"Free", "tier_0", 0.0, false, 100.0, 10000.0, 8000.0, map[string]any{"watches": 3.0, "fires": 50.0, "credits": 0.0}, 3},
		{"Trial", "tier_1", 0.01, false, 10000.0, 10000.0, 8000.0, nil, 5},
		{"Starter", "tier_2", 49.0, true, 50000.0, 25000.0, 20000.0, map[string]any{"watches": 5.0, "fires": 250.0, "credits": 1000.0}, 5},
		{"Growth", "tier_3", 199.0, true, 200000.0, 100000.0, 80000.0, map[string]any{"watches": 25.0, "fires": 1500.0, "credits": 5000.0}, 25},
		{"Enterprise", nil, nil, false, nil, nil, nil, nil, 100},
	}
	for i, w := range want {
		tr := tiers[i].(map[string]any)
		require.Equal(t, w.name, tr["name"])
		require.Equal(t, w.id, tr["tier_id"])
		require.Equal(t, w.amount, tr["monthly_amount"])
		require.Equal(t, w.sellable, tr["sellable"])
		require.Equal(t, w.quota, tr["daily_quota"])
		require.Equal(t, w.hard, tr["default_hard_cap_units"])
		require.Equal(t, w.soft, tr["default_soft_cap_units"])
		require.Equal(t, w.bundle, tr["bundle"])
		require.Equal(t, "usd", tr["currency"])
		require.Equal(t, w.watches, tr["live_watch_allowance"], "every tier states its live-watch allowance")
	}
	require.NotContains(t, tiers[0].(map[string]any)["gated_endpoints"], "hiring-pulse")
	require.Contains(t, tiers[1].(map[string]any)["gated_endpoints"], "hiring-pulse")
	require.Equal(t, map[string]any{"amount_per_weighted_unit": 0.1, "currency": "usd", "weighted_unit": "sourced company row", "weight": 1.0}, p["source_price"])
	require.Equal(t, map[string]any{"window_seconds": 60.0, "per_key_by_tier": map[string]any{"tier_0": 20.0, "tier_1": 100.0, "tier_2": 500.0, "tier_3": 2000.0},
		"keyless_per_ip": 60.0, "account_keys_by_tier": map[string]any{"tier_0": 1.0, "tier_1": 1.0, "tier_2": 5.0, "tier_3": 5.0, "enterprise": 5.0}}, p["rate_limits"])
	c := p["compliance"].(map[string]any)
	require.True(t, strings.HasSuffix(c["statement_url"].(string), "/v1/compliance"))
}
