// Package payload is the JSON body of a webhook delivery (spec 6.1): the spec's fields (event,
// company, raw_title, location, detected_on, url) plus what a receiver needs without a second
// call. The notifier builds ledger-event bodies and the test route builds test bodies with it;
// the dispatcher sends the stored bytes as they are to a webhook (a retry or a replay sends the
// same bytes), and a Slack message or an email digest renders them (package destination).
// It also owns the after_gap member (AfterGap), which the change feed serves in the same shape,
// and the account event (AccountEvent: an allowance warning), which a delivery carries as
// account_event and the change feed lists as account_events.
//
// It owns the shape and the idempotency keys only: it must not read or write any store, sign or
// send anything.
package payload

import (
	"encoding/json"
	"fmt"
	"time"
)

// EventTest is the event of a delivery made by POST /v1/webhooks/{id}/test.
const EventTest = "test"

// EventAllowanceWarning is the event of an account event warning that an allowance of the account
// reached 80% or 100% of its limit (AccountEvent).
const EventAllowanceWarning = "allowance_warning"

// AccountEvent is an event of the account rather than of a req: today an allowance warning. A
// delivery carries it as account_event (its other event fields empty or null, as a test
// delivery's); the change feed lists it in account_events.
type AccountEvent struct {
	AccountEventID   int64  `json:"account_event_id"`
	EventType        string `json:"event_type"` // allowance_warning
	Allowance        string `json:"allowance"`  // the allowance: delivered_changes
	ThresholdPercent int    `json:"threshold_percent"`
	Limit            int64  `json:"limit"`
	Used             int64  `json:"used"`
	Period           string `json:"period"`       // calendar_month_utc
	PeriodStart      string `json:"period_start"` // RFC 3339 UTC
	ResetsAt         string `json:"resets_at"`    // RFC 3339 UTC: when the count starts again
	Overflow         string `json:"overflow"`     // what happens past the limit: stop, overage, queue
	Message          string `json:"message"`      // the warning in a sentence, with the way out
	OccurredAt       string `json:"occurred_at"`  // RFC 3339 UTC
}

// AccountEventKey is the idempotency key of the delivery of account event eventID to endpoint
// endpointID.
func AccountEventKey(eventID, endpointID int64) string {
	return fmt.Sprintf("acct_%d_%d", eventID, endpointID)
}

// Body is one delivery's JSON body. Pointer fields are null on a test delivery and on an account
// event's.
type Body struct {
	Event          string  `json:"event"`       // opened, reobserved, reposted, closed, test, or allowance_warning
	Company        string  `json:"company"`     // company name ("" when the corpus has none)
	RawTitle       string  `json:"raw_title"`   // the posting title as the board published it
	Location       string  `json:"location"`    // the posting's location text, else its country
	DetectedOn     string  `json:"detected_on"` // the board the event was detected on
	URL            string  `json:"url"`         // the real posting
	Country        *string `json:"country"`
	CountryCode    *string `json:"country_code"`
	Function       *string `json:"function"`
	FunctionName   *string `json:"function_name"`
	EventSeq       *uint64 `json:"event_seq"`
	ReqKey         *string `json:"req_key"`
	CompanyID      *uint64 `json:"company_id"`
	OccurredAt     string  `json:"occurred_at"` // RFC 3339 UTC; a test delivery: its creation time
	ObservedAt     *string `json:"observed_at"`
	WatchID        *int64  `json:"watch_id"`
	WebhookID      int64   `json:"webhook_endpoint_id"`
	DeliveryID     int64   `json:"delivery_id"`
	IdempotencyKey string  `json:"idempotency_key"` // = X-Plane-Idempotency-Key and webhook-id
	// CloseReason is why a closed event closed when it was no ordinary close (source_retired);
	// absent otherwise.
	CloseReason string `json:"close_reason,omitempty"`
	// AfterGap is set on an event first seen in the first crawl cycle after a gap in its region's
	// history: the change happened somewhere in (from, to], not at occurred_at. Absent otherwise.
	AfterGap *AfterGap `json:"after_gap,omitempty"`
	// AccountEvent is set on the delivery of an account event (event allowance_warning); absent
	// otherwise.
	AccountEvent *AccountEvent `json:"account_event,omitempty"`
}

// AfterGap is the after_gap member of an event (a delivery body, a change feed row): the last
// committed crawl cycle of the region before the gap and the first after it, RFC 3339 UTC.
type AfterGap struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Gap is the after_gap member of an event with gap bounds from and to, nil when it has none (to
// is zero).
func Gap(from, to time.Time) *AfterGap {
	if to.IsZero() {
		return nil
	}
	return &AfterGap{From: from.UTC().Format(time.RFC3339), To: to.UTC().Format(time.RFC3339)}
}

// Marshal is the exact bytes stored, signed and sent.
func (b *Body) Marshal() []byte {
	out, err := json.Marshal(b)
	if err != nil {
		panic(fmt.Sprintf("payload: cannot encode a delivery body: %v", err)) // only strings and numbers: cannot happen
	}
	return out
}

// EventKey is the idempotency key of the delivery of ledger event eventSeq for watch watchID:
// the same on every attempt and replay, unique across the service (one delivery per watch and
// event). It is printable ASCII without spaces, as the webhook-id header needs.
func EventKey(watchID int64, eventSeq uint64) string {
	return fmt.Sprintf("evt_%d_%d", watchID, eventSeq)
}

// TestKey is the idempotency key of test delivery deliveryID.
func TestKey(deliveryID int64) string { return fmt.Sprintf("test_%d", deliveryID) }

// TestDelivery builds the test deliveries of endpoint endpointID: given the delivery's id and
// creation time, its idempotency key (TestKey), its event (EventTest) and its body, occurred_at
// being the creation time (oltp.NewTestDelivery.Payload).
func TestDelivery(endpointID int64) func(id int64, createdAt time.Time) (key, event string, body []byte) {
	return func(id int64, createdAt time.Time) (string, string, []byte) {
		key := TestKey(id)
		b := Body{Event: EventTest, OccurredAt: createdAt.UTC().Format(time.RFC3339), WebhookID: endpointID, DeliveryID: id, IdempotencyKey: key}
		return key, EventTest, b.Marshal()
	}
}
