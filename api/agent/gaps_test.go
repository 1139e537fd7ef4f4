package agent

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The change feed tool answers an event's after_gap and close_reason in full and in concise
// detail alike: they say whether the change is news of the cycle that saw it.
func TestChangeFeedResultsKeepAfterGapAndCloseReason(t *testing.T) {
	t.Parallel()
	var feed Tool
	for _, tl := range Tools() {
		if tl.Name == "change_feed" {
			feed = tl
		}
	}
	require.Equal(t, "events.list", feed.Route)
	gap := map[string]any{"from": "2026-11-20T03:00:00Z", "to": "2026-11-24T06:00:00Z"}
	page := map[string]any{"next_cursor": 3, "has_more": false, "events": []any{
		map[string]any{"event_seq": 2, "event_type": "opened", "raw_title": "Engineer", "after_gap": gap},
		map[string]any{"event_seq": 3, "event_type": "closed", "raw_title": "Engineer", "after_gap": gap, "close_reason": "source_retired"},
	}}
	for _, detail := range []string{"concise", "full"} {
		out, _, note := shape(feed, page, detail)
		require.Empty(t, note)
		evs := out["events"].([]any)
		require.Equal(t, gap, evs[0].(map[string]any)["after_gap"], detail)
		require.Equal(t, gap, evs[1].(map[string]any)["after_gap"], detail)
		require.Equal(t, "source_retired", evs[1].(map[string]any)["close_reason"], detail)
	}
}
