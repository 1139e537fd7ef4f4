package outcomes

import (
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/oltp"
)

// Bounds of GET /v1/attribution.
const (
	DefaultLimit = 50
	PageMax      = 200
)

// attributionJSON is the answer of GET /v1/attribution.
type attributionJSON struct {
	Labels        []attributedJSON                 `json:"labels"`
	NextCursor    *int64                           `json:"next_cursor"`
	HasMore       bool                             `json:"has_more"`
	Signalled     int                              `json:"signalled_labels"`
	Attributed14d int                              `json:"attributed_14d"`
	ByOutcome     map[string]oltp.AttributionCount `json:"by_outcome"`
	WindowDays    int                              `json:"window_days"`
}

type attributedJSON struct {
	oltp.AttributedLabel
	RetainedUntil time.Time `json:"retained_until"`
}

func (h *handlers) attribution(c *api.Call) (int, error) {
	before, _ := c.Int("cursor")
	rows, more, err := oltp.ListAttribution(c.Context(), h.d.Pool, c.Caller.CustomerID, before, c.Limit())
	if err != nil {
		return 0, err
	}
	tot, err := oltp.AttributionSummary(c.Context(), h.d.Pool, c.Caller.CustomerID)
	if err != nil {
		return 0, err
	}
	out := attributionJSON{Labels: make([]attributedJSON, 0, len(rows)), HasMore: more, Signalled: tot.Labels, Attributed14d: tot.Attributed14d,
		ByOutcome: tot.ByOutcome, WindowDays: int(oltp.AttributionWindow.Hours() / 24)}
	for _, r := range rows {
		out.Labels = append(out.Labels, attributedJSON{AttributedLabel: r, RetainedUntil: r.OccurredAt.Add(oltp.OutcomeRetention)})
	}
	if more {
		out.NextCursor = &rows[len(rows)-1].ID
	}
	return 0, c.JSON(200, out)
}
