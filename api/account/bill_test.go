package account_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api/metering"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/oltp"
)

// A month's bill computed by hand from the account's usage (GET /v1/usage's bill units) and the
// published prices (GET /v1/pricing: monthly_cents, unit_prices, the bundle's credits) is the
// dashboard's money figure to the cent, and usage's. Before, pricing gave no price for calls,
// change units, watch units or delivered changes, credits meant nothing and the dashboard showed
// units only.
func TestAMonthsBillFromUsageAndThePublishedPricesIsTheDashboards(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := start(t)
	a := srv.RoomyAccount(t, "growth")
	now := time.Now().UTC()
	rec := func(class string, calls int32, units int64) metering.Record {
		return metering.Record{CustomerID: a.CustomerID, AccountID: a.AccountID, KeyID: a.KeyID, Method: "GET", Route: "/v1/" + class, MeterClass: class,
			Calls: calls, Units: units, OccurredAt: now}
	}
	require.NoError(t, metering.InsertSegment(ctx, srv.Pool, "seg-bill-"+a.CustomerID, []metering.Record{
		rec(oltp.MeterCall, 700, 0), rec(oltp.MeterSourceRow, 60, 4_870), rec(oltp.MeterChange, 25, 412), rec(oltp.MeterWatch, 7, 7),
		rec(oltp.MeterDeliveredChange, 0, 1_530),
	}))
	// Last month's usage is not this month's bill.
	old := rec(oltp.MeterSourceRow, 1, 999)
	old.OccurredAt = plans.MonthStart(now).Add(-time.Hour)
	require.NoError(t, metering.InsertSegment(ctx, srv.Pool, "seg-bill-old-"+a.CustomerID, []metering.Record{old}))

	// 30 delivered changes were admitted past the allowance under overage and accepted this month;
	// one more is still unsent and one was accepted last month: neither is this month's charge.
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	ep, _, err := oltp.RegisterEndpoint(ctx, srv.Pool, box, a.CustomerID, "https://hooks.example.com/bill", oltp.EndpointSecret{Secret: "whsec_test"})
	require.NoError(t, err)
	company := int64(1)
	w, _, _, err := oltp.CreateWatch(ctx, srv.Pool, box, oltp.NewWatch{CustomerID: a.CustomerID, AccountID: a.AccountID, KeyID: a.KeyID, Allowance: 25,
		EndpointID: ep.ID, CompanyID: &company, EventTypes: []string{"opened"}, MaxFiresPerHour: 20})
	require.NoError(t, err)
	for i := range 32 {
		status, billed := oltp.DeliveryDelivered, any(now)
		switch i {
		case 30:
			status, billed = oltp.DeliveryPending, nil
		case 31:
			billed = plans.MonthStart(now).Add(-time.Minute)
		}
		_, err := srv.Pool.Exec(ctx, `INSERT INTO webhook_deliveries (idempotency_key, customer_id, account_id, endpoint_id, watch_id, event_seq, event_type, body,
				status, billed_at, overage) VALUES ($1, $2, $3, $4, $5, $6, 'opened', '{}', $7, $8, true)`,
			"bill-"+a.CustomerID+"-"+itoa(int64(i)), a.CustomerID, a.AccountID, ep.ID, w.ID, i+1, status, billed)
		require.NoError(t, err)
	}

	type tier struct {
		Name         string           `json:"name"`
		MonthlyCents int64            `json:"monthly_cents"`
		UnitPrices   map[string]int64 `json:"unit_prices"`
		Bundle       struct {
			Credits int64 `json:"credits"`
		} `json:"bundle"`
	}
	var pricing struct {
		Tiers []tier `json:"tiers"`
	}
	r := srv.Get(t, "/v1/pricing", "", nil)
	srv.Conforms(t, "GET", "/v1/pricing", r)
	require.NoError(t, json.Unmarshal(r.Body, &pricing))
	i := slices.IndexFunc(pricing.Tiers, func(x tier) bool { return x.Name == "Growth" })
	require.GreaterOrEqual(t, i, 0)
	growth := pricing.Tiers[i]

	type bill struct {
		Units                   map[string]int64 `json:"units"`
		OverageDeliveredChanges int64            `json:"overage_delivered_changes"`
		MonthToDate             struct {
			Cents   int64  `json:"cents"`
			Display string `json:"display"`
		} `json:"month_to_date"`
		Projected struct {
			Cents int64 `json:"cents"`
		} `json:"projected"`
	}
	var usage struct {
		Bill bill `json:"bill"`
	}
	r = srv.Get(t, "/v1/usage", a.Key, nil)
	srv.Conforms(t, "GET", "/v1/usage", r)
	require.NoError(t, json.Unmarshal(r.Body, &usage))
	u := usage.Bill
	require.Equal(t, map[string]int64{"call": 792, "source_row": 4_870, "change": 412, "watch": 7, "delivered_change": 1_530}, u.Units)
	require.EqualValues(t, 30, u.OverageDeliveredChanges)

	// The bill by hand: the monthly amount; source rows, change units and watch units past the
	// credits (the dearest first); overage delivered changes; calls.
	cents := growth.MonthlyCents
	credits := growth.Bundle.Credits
	classes := []string{"source_row", "change", "watch"}
	slices.SortStableFunc(classes, func(x, y string) int { return int(growth.UnitPrices[y] - growth.UnitPrices[x]) })
	for _, c := range classes {
		covered := min(credits, u.Units[c])
		credits -= covered
		cents += (u.Units[c] - covered) * growth.UnitPrices[c]
	}
	cents += u.OverageDeliveredChanges * growth.UnitPrices["delivered_change"]
	cents += u.Units["call"] * growth.UnitPrices["call"]
	require.EqualValues(t, 19_900+(4_870+412+7-5_000)*10+30*10, cents, "the published prices are what this test expects")

	var dash struct {
		Bill bill `json:"bill"`
	}
	r = srv.Get(t, "/v1/usage/dashboard", a.Key, nil)
	srv.Conforms(t, "GET", "/v1/usage/dashboard", r)
	require.NoError(t, json.Unmarshal(r.Body, &dash))
	require.Equal(t, cents, dash.Bill.MonthToDate.Cents, "the dashboard's money is the bill from usage and the published prices")
	require.Equal(t, plans.Dollars(cents), dash.Bill.MonthToDate.Display)
	require.Equal(t, cents, u.MonthToDate.Cents)
	require.GreaterOrEqual(t, dash.Bill.Projected.Cents, cents, "the month's end costs at least the month so far")

	// Free is never charged a unit.
	free := srv.RoomyAccount(t, "free")
	r = srv.Get(t, "/v1/usage/dashboard", free.Key, nil)
	require.NoError(t, json.Unmarshal(r.Body, &dash))
	require.Zero(t, dash.Bill.MonthToDate.Cents)
	require.Equal(t, "$0.00", dash.Bill.MonthToDate.Display)
}
