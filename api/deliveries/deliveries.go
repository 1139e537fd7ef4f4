// Package deliveries serves the webhook delivery routes (spec 2.3, 3, 4.4): the caller's
// deliveries (filtered, cursor-paged, most recent first; never a body), one delivery with its
// attempts and its body (null for a delivery neither admitted nor sent: oltp.ServesBody), replay
// (reopen a delivered or failed delivery within the replay window, bounded per delivery and per
// customer, a never-billed one only past the wall and the cap as the notifier admits), and the
// test delivery of an endpoint (POST /v1/webhooks/{id}/test: a delivery written and answered like
// the others, tagged webhooks). Whether a replay or a test delivery is admitted, its bounds and
// the words of a refusal are package admit's (push/admit); this package answers them.
//
// Every read and write goes through oltp scoped to the caller's customer: another customer's
// delivery or endpoint answers exactly like a missing one. A replay only reopens the row and a
// test only writes one, waking the dispatcher (NOTIFY in the same transaction): it must not send,
// sign, bill, match events, write delivery rows of the notifier, touch ClickHouse, or import
// another handler package.
package deliveries

import (
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// Deps is what the handlers need.
type Deps struct {
	Pool *pgxpool.Pool
	Log  *slog.Logger // default: discard
}

type handlers struct{ d Deps }

// Register installs the routes of this package on srv (before srv.Start).
func Register(srv *api.Server, d Deps) { srv.Register(Routes(d)...) }

func newHandlers(d Deps) *handlers {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &handlers{d: d}
}

// DetailNotFound is the 404 of a delivery id that does not exist or is another customer's.
const DetailNotFound = "Webhook delivery not found"

// detailEndpointNotFound is the 404 of a test delivery to an endpoint that does not exist, is
// deleted or is another customer's, as the webhook routes word it.
const detailEndpointNotFound = "Webhook endpoint not found"

// refused is the answer of err, a refusal of package admit (a replay's or a test delivery's):
// admit.ErrAccountPaused is 403 account_paused, a *admit.Refusal a 409 api.Conflict with its
// reason and words as admit has them; any other error is returned as it is.
func refused(c *api.Call, err error) error {
	var refusal *admit.Refusal
	switch {
	case errors.Is(err, admit.ErrAccountPaused):
		return api.AccountPaused(c.Route.Path, err.Error())
	case errors.As(err, &refusal):
		return &api.Error{Status: fasthttp.StatusConflict, Detail: api.Conflict{Reason: refusal.Reason, Message: refusal.Msg, Endpoint: c.Route.Path, Status: refusal.Status}}
	}
	return err
}

type page struct {
	Deliveries []oltp.Delivery `json:"deliveries"`
	NextCursor *int64          `json:"next_cursor"`
	HasMore    bool            `json:"has_more"`
}

func (h *handlers) list(c *api.Call) (int, error) {
	q := oltp.DeliveryQuery{CustomerID: c.Caller.CustomerID, Statuses: dedupe(c.Strings("status")), Limit: c.Limit()}
	if v, ok := c.Int("watch_id"); ok {
		q.WatchID = &v
	}
	if v, ok := c.Int("webhook_endpoint_id"); ok {
		q.EndpointID = &v
	}
	if v, ok := c.Time("created_since"); ok {
		q.CreatedSince = &v
	}
	q.Before, _ = c.Int("cursor")
	ds, more, err := oltp.ListDeliveries(c.Context(), h.d.Pool, q)
	if err != nil {
		return 0, err
	}
	out := page{Deliveries: ds, HasMore: more}
	if out.Deliveries == nil {
		out.Deliveries = []oltp.Delivery{}
	}
	if more {
		out.NextCursor = &ds[len(ds)-1].ID
	}
	return 0, c.JSON(200, out)
}

type detail struct {
	oltp.Delivery
	Attempts []oltp.Attempt  `json:"attempts"`
	Body     json.RawMessage `json:"body"` // null when oltp.ServesBody is false
}

func (h *handlers) get(c *api.Call) (int, error) {
	id, _ := c.Int("delivery_id")
	d, err := oltp.GetDelivery(c.Context(), h.d.Pool, c.Caller.CustomerID, id)
	if errors.Is(err, oltp.ErrNotFound) {
		return 0, api.NotFound(DetailNotFound)
	}
	if err != nil {
		return 0, err
	}
	out := detail{Delivery: d.Delivery, Attempts: d.Attempts, Body: d.Body}
	if out.Attempts == nil {
		out.Attempts = []oltp.Attempt{}
	}
	if d.Body != nil && !json.Valid(d.Body) {
		// Bodies are payload.Marshal's bytes; a row written otherwise is served, not hidden.
		h.d.Log.Error("webhook delivery body is not JSON", "delivery_id", d.ID)
		b, _ := json.Marshal(map[string]string{"raw": string(d.Body)})
		out.Body = b
	}
	return 0, c.JSON(200, out)
}

func (h *handlers) replay(c *api.Call) (int, error) {
	id, _ := c.Int("delivery_id")
	d, reopened, err := admit.ReplayDelivery(c.Context(), h.d.Pool, c.Caller.CustomerID, id)
	switch {
	case errors.Is(err, oltp.ErrNotFound):
		return 0, api.NotFound(DetailNotFound)
	case err != nil:
		return 0, refused(c, err)
	}
	if reopened {
		h.d.Log.Info("webhook delivery replayed", "delivery_id", d.ID, "customer_id", c.Caller.CustomerID)
	}
	return 0, c.JSON(200, d)
}

func dedupe(vals []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range vals {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// test writes a test delivery to endpoint id when package admit admits it
// (admit.CreateTestDelivery: pending, due now, the dispatcher woken in the same transaction) and
// answers it; the dispatcher sends it.
func (h *handlers) test(c *api.Call) (int, error) {
	id, _ := c.Int("id")
	d, err := admit.CreateTestDelivery(c.Context(), h.d.Pool, oltp.NewTestDelivery{CustomerID: c.Caller.CustomerID, AccountID: c.Caller.AccountID,
		KeyID: c.Caller.KeyID, EndpointID: id})
	switch {
	case errors.Is(err, oltp.ErrNotFound):
		return 0, api.NotFound(detailEndpointNotFound)
	case err != nil:
		return 0, refused(c, err)
	}
	return 0, c.JSON(201, d)
}
