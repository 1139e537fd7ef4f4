package account

import (
	"time"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/oltp"
)

// UsageWindowMax is the longest usage window, in hours (90 days).
const UsageWindowMax = 2160

// usageResponse: the five customer totals (calls, source_rows, changes, watches,
// delivered_changes) each equal the sum over keys[].
type usageResponse struct {
	WindowHours int64     `json:"window"`
	Since       time.Time `json:"since"`
	oltp.UsageTotals
	ByFunctionName      map[string]int64 `json:"by_function_name"`
	ReferralCreditUnits int64            `json:"referral_credit_units"`
	SLACreditUnits      int64            `json:"sla_credit_units"`
	Keys                []keyUsage       `json:"keys"`
	// Bill is this billing month's bill in money, whatever the window.
	Bill billJSON `json:"bill"`
}

// keyUsage is one key's totals with its calls by function name.
type keyUsage struct {
	oltp.KeyUsage
	ByFunctionName map[string]int64 `json:"by_function_name"`
}

// byFunctionName folds calls by taxonomy id (by_function) into calls by the function's name; an
// id outside the named vocabulary keeps its id, as function_name is null for it.
func byFunctionName(byID map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(byID))
	for id, n := range byID {
		k := id
		if name, ok := normalize.FunctionName(id); ok {
			k = name
		}
		out[k] += n
	}
	return out
}

func usageSchema() map[string]any {
	counts := map[string]any{"type": "object", "additionalProperties": api.Type("integer")}
	channels := api.Object(map[string]any{"rest": api.Type("integer"), "mcp": api.Type("integer")})
	channels["required"] = []string{"rest", "mcp"}
	channels["description"] = "calls by how they reached the API: rest (HTTP requests to the routes) and mcp (agent tool calls at /mcp); set by the server, never by the caller"
	byID := map[string]any{"type": "object", "additionalProperties": api.Type("integer"),
		"description": "metered calls by function taxonomy id (the function value of req rows and the id the function filter takes)"}
	byName := map[string]any{"type": "object", "additionalProperties": api.Type("integer"),
		"description": "the same calls by function name (function_name; the ids of one name summed); an id outside the named vocabulary keeps its id"}
	key := api.Object(map[string]any{"key_id": api.Type("integer"), "calls": api.Type("integer"), "source_rows": api.Type("integer"), "changes": api.Type("integer"),
		"watches": api.Type("integer"), "delivered_changes": api.Type("integer"), "forced_fresh": api.Type("integer"), "by_meter_class": counts, "by_function": byID,
		"by_function_name": byName, "by_channel": channels})
	s := api.Object(map[string]any{"window": api.Type("integer"), "since": api.DateTime(), "calls": api.Type("integer"), "source_rows": api.Type("integer"), "changes": api.Type("integer"),
		"watches": api.Type("integer"), "delivered_changes": api.Type("integer"), "forced_fresh": api.Type("integer"), "by_meter_class": counts, "by_function": byID,
		"by_function_name": byName, "by_channel": channels,
		"referral_credit_units": api.Type("integer"), "sla_credit_units": api.Type("integer"), "keys": map[string]any{"type": "array", "items": key},
		"bill": billSchema()})
	s["description"] = "Each of calls, source_rows, changes, watches and delivered_changes equals the sum over keys[]; keys[] lists keys with metered events in the window, ascending by key_id. " +
		"bill is the account's bill of the current billing month (calendar_month_utc) in money, whatever the window: month to date and projected to the month's end."
	return s
}

// refuseDemo answers the shared public demo key on the usage routes 403 insufficient_scope: it
// bills nothing, so it has no usage of its own, and every usage read flushes metering and reads
// the ledger (a public key must not drive that).
func refuseDemo(c *api.Call) error {
	if !c.Caller.Demo {
		return nil
	}
	return &api.Error{Status: fasthttp.StatusForbidden, Detail: map[string]any{"reason": api.ReasonInsufficientScope, "endpoint": c.Route.Path,
		"message": "the shared public demo key bills nothing and has no usage to read: sign up for a key of your own at " + c.Links().Signup}}
}

func (h *handlers) usageTotals(c *api.Call) (int, error) {
	if err := refuseDemo(c); err != nil {
		return 0, err
	}
	window, _ := c.Int("window")
	if err := c.FlushUsage(); err != nil {
		h.d.Log.Warn("usage read before this instance's metering reached Postgres", "err", err)
	}
	// Whole seconds: the ledger rolls calls up per second, so the window starts on a bucket edge.
	since := c.Now().Add(-time.Duration(window) * time.Hour).UTC().Truncate(time.Second)
	keys, err := oltp.UsageByKey(c.Context(), h.d.Pool, c.Caller.CustomerID, since)
	if err != nil {
		return 0, api.Internal(err)
	}
	out := usageResponse{WindowHours: window, Since: since, Keys: make([]keyUsage, 0, len(keys)),
		UsageTotals: oltp.NewUsageTotals()}
	for _, cls := range []string{oltp.MeterSourceRow, oltp.MeterChange, oltp.MeterWatch, oltp.MeterDeliveredChange} {
		out.ByMeterClass[cls] = 0
	}
	for _, k := range keys {
		out.Add(k.UsageTotals)
		out.Keys = append(out.Keys, keyUsage{KeyUsage: k, ByFunctionName: byFunctionName(k.ByFunction)})
	}
	out.ByFunctionName = byFunctionName(out.ByFunction)
	if out.Bill, err = h.monthBill(c); err != nil {
		return 0, api.Internal(err)
	}
	return 0, c.JSON(200, out)
}
