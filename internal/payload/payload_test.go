package payload

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBodyCarriesTheSpecFieldsAndNullsOnTests(t *testing.T) {
	t.Parallel()
	b := Body{Event: EventTest, OccurredAt: "2026-11-23T00:00:00Z", WebhookID: 7, DeliveryID: 9, IdempotencyKey: TestKey(9)}
	var m map[string]any
	require.NoError(t, json.Unmarshal(b.Marshal(), &m))
	for _, f := range []string{"event", "company", "raw_title", "location", "detected_on", "url"} {
		require.Contains(t, m, f)
	}
	require.Nil(t, m["event_seq"])
	require.Equal(t, "test_9", m["idempotency_key"])
	require.Equal(t, "evt_3_42", EventKey(3, 42))
}

// A test delivery's key, event and body name its id, its endpoint and its creation time.
func TestTestDeliveryNamesItsIDEndpointAndCreation(t *testing.T) {
	key, event, body := TestDelivery(7)(9, time.Date(2026, 11, 23, 1, 2, 3, 4, time.FixedZone("x", 3600)))
	require.Equal(t, "test_9", key)
	require.Equal(t, EventTest, event)
	want := Body{Event: EventTest, OccurredAt: "2026-11-23T00:02:03Z", WebhookID: 7, DeliveryID: 9, IdempotencyKey: "test_9"}
	require.Equal(t, string(want.Marshal()), string(body))
}

// close_reason and after_gap are members only when they say something: a body of an ordinary
// event is byte for byte what it was before they existed.
func TestCloseReasonAndAfterGapAreAbsentUnlessSet(t *testing.T) {
	t.Parallel()
	var m map[string]any
	plain := Body{Event: "closed", OccurredAt: "2026-11-24T06:00:00Z"}
	require.NoError(t, json.Unmarshal(plain.Marshal(), &m))
	require.NotContains(t, m, "close_reason")
	require.NotContains(t, m, "after_gap")
	require.Nil(t, Gap(time.Time{}, time.Time{}))

	from := time.Date(2026, 11, 20, 3, 0, 0, 0, time.UTC)
	to := time.Date(2026, 11, 24, 7, 0, 0, 0, time.FixedZone("x", 3600))
	b := Body{Event: "closed", OccurredAt: "2026-11-24T06:00:00Z", CloseReason: "source_retired", AfterGap: Gap(from, to)}
	m = nil
	require.NoError(t, json.Unmarshal(b.Marshal(), &m))
	require.Equal(t, "source_retired", m["close_reason"])
	require.Equal(t, map[string]any{"from": "2026-11-20T03:00:00Z", "to": "2026-11-24T06:00:00Z"}, m["after_gap"])
}
