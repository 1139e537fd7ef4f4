package oltp

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Meter classes of the usage ledger (spec 1): source_row, change, watch and delivered_change
// carry units; call marks a metered call that serves no unit (company reads).
const (
	MeterCall            = "call"
	MeterSourceRow       = "source_row"
	MeterChange          = "change"
	MeterWatch           = "watch"
	MeterDeliveredChange = "delivered_change"
)

// UsageTotals are metered totals: calls, the units of each meter class, forced-fresh calls, units
// by meter class and calls by function.
type UsageTotals struct {
	Calls            int64            `json:"calls"`
	SourceRows       int64            `json:"source_rows"`
	Changes          int64            `json:"changes"`
	Watches          int64            `json:"watches"`
	DeliveredChanges int64            `json:"delivered_changes"`
	ForcedFresh      int64            `json:"forced_fresh"`
	ByMeterClass     map[string]int64 `json:"by_meter_class"`
	ByFunction       map[string]int64 `json:"by_function"`
	// ByChannel is calls by how they reached the API: rest (HTTP requests to the routes) and
	// mcp (agent tool calls at /mcp), both always present.
	ByChannel map[string]int64 `json:"by_channel"`
}

// Channels of usage_events.channel.
const (
	ChannelREST = "rest"
	ChannelMCP  = "mcp"
)

// NewUsageTotals are zero totals with their maps made (both channels present).
func NewUsageTotals() UsageTotals {
	return UsageTotals{ByMeterClass: map[string]int64{}, ByFunction: map[string]int64{}, ByChannel: map[string]int64{ChannelREST: 0, ChannelMCP: 0}}
}

// Add adds o to t (whose maps must not be nil).
func (t *UsageTotals) Add(o UsageTotals) {
	t.Calls += o.Calls
	t.SourceRows += o.SourceRows
	t.Changes += o.Changes
	t.Watches += o.Watches
	t.DeliveredChanges += o.DeliveredChanges
	t.ForcedFresh += o.ForcedFresh
	for m, v := range o.ByMeterClass {
		t.ByMeterClass[m] += v
	}
	for f, v := range o.ByFunction {
		t.ByFunction[f] += v
	}
	for ch, v := range o.ByChannel {
		t.ByChannel[ch] += v
	}
}

// KeyUsage is one key's metered totals over a window.
type KeyUsage struct {
	KeyID int64 `json:"key_id"`
	UsageTotals
}

// UsageByKey returns the metered totals of every key of customerID with at least one metered
// event since since, ascending by key_id.
func UsageByKey(ctx context.Context, pool *pgxpool.Pool, customerID string, since time.Time) ([]KeyUsage, error) {
	rows, err := pool.Query(ctx, `SELECT key_id, meter_class, COALESCE(function, ''), channel, sum(calls), sum(units),
			COALESCE(sum(calls) FILTER (WHERE forced_fresh), 0)
		FROM usage_events WHERE customer_id = $1 AND occurred_at >= $2
		GROUP BY key_id, meter_class, COALESCE(function, ''), channel ORDER BY key_id`, customerID, since)
	if err != nil {
		return nil, fmt.Errorf("cannot read usage: %w", err)
	}
	defer rows.Close()
	var out []KeyUsage
	for rows.Next() {
		var keyID, calls, units, forced int64
		var class, fn, channel string
		if err := rows.Scan(&keyID, &class, &fn, &channel, &calls, &units, &forced); err != nil {
			return nil, fmt.Errorf("cannot read usage: %w", err)
		}
		if len(out) == 0 || out[len(out)-1].KeyID != keyID {
			out = append(out, KeyUsage{KeyID: keyID, UsageTotals: NewUsageTotals()})
		}
		k := &out[len(out)-1]
		k.Calls += calls
		k.ByChannel[channel] += calls
		k.ForcedFresh += forced
		switch class {
		case MeterSourceRow:
			k.SourceRows += units
		case MeterChange:
			k.Changes += units
		case MeterWatch:
			k.Watches += units
		case MeterDeliveredChange:
			k.DeliveredChanges += units
		}
		if class != MeterCall {
			k.ByMeterClass[class] += units
		}
		if fn != "" {
			k.ByFunction[fn] += calls
		}
	}
	return out, rows.Err()
}

// CallsSince counts metered calls per key of customerID since since.
func CallsSince(ctx context.Context, pool *pgxpool.Pool, customerID string, since time.Time) (map[int64]int64, error) {
	rows, err := pool.Query(ctx, `SELECT key_id, sum(calls) FROM usage_events WHERE customer_id = $1 AND occurred_at >= $2 GROUP BY key_id`,
		customerID, since)
	if err != nil {
		return nil, fmt.Errorf("cannot count calls: %w", err)
	}
	out := map[int64]int64{}
	defer rows.Close()
	for rows.Next() {
		var k, n int64
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, rows.Err()
}

// UnitsSince sums the units of meterClass metered to customerID since since.
func UnitsSince(ctx context.Context, pool *pgxpool.Pool, customerID, meterClass string, since time.Time) (int64, error) {
	var n int64
	err := pool.QueryRow(ctx, `SELECT COALESCE(sum(units), 0) FROM usage_events WHERE customer_id = $1 AND meter_class = $2 AND occurred_at >= $3`,
		customerID, meterClass, since).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("cannot sum %s units: %w", meterClass, err)
	}
	return n, nil
}
