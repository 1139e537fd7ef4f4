// Package watches serves the watch routes (spec 2.3, 3, 4.4): create (one company or one saved
// search, bound to a webhook endpoint of the caller, within the plan's live-watch allowance and the
// account's daily watch budget, oltp.Budgets), list the live ones with their fire counters and
// heartbeat (and, when the account's delivered-changes allowance or hard spend cap stops its
// deliveries, why and until when: api.PushBlock), and cancel.
//
// It validates a watch completely (the criteria through package criteria, the inline endpoint
// through the registration rules of package api that POST /v1/webhooks follows, the company
// against the read snapshot) before anything is written, then creates it in one oltp transaction
// that holds the allowance under concurrency. It must not deliver, match events or write
// watch_fires (the notifier does), query ClickHouse, or import another handler package.
package watches

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// Bounds of a watch (docs/decisions.md, "Push: webhook endpoints and watches"); its defaults,
// which a quickstart's watch takes too, are api.DefaultWatchMaxFiresPerHour and
// api.DefaultWatchEventTypes.
const (
	MinMaxFiresPerHour = 1
	MaxMaxFiresPerHour = 1000
)

// The heartbeat words of a watch's status.
const (
	StatusActive      = "active"       // delivering as its events come
	StatusRateLimited = "rate_limited" // fired max_fires_per_hour times in the last hour: further fires are dropped until the hour rolls on
	StatusPaused      = "paused"       // the account is paused: nothing is delivered until it is resumed
	// StatusBlockedByAllowance: the plan's delivered changes of the billing month are used (overflow
	// stop or queue): nothing is delivered until the month turns or an upgrade; blocked says more.
	StatusBlockedByAllowance = admit.BlockedByAllowance
	// StatusBlockedBySpendCap: the account is at its hard spend cap: nothing is delivered until the
	// month turns or the cap is raised.
	StatusBlockedBySpendCap = admit.BlockedBySpendCap
)

// Statuses are the status words, in the order they win: a paused account, then what stops its
// deliveries (the wall, the cap), then the watch's own fire limit.
var Statuses = []string{StatusActive, StatusRateLimited, StatusPaused, StatusBlockedByAllowance, StatusBlockedBySpendCap}

// Snapshots gives the current read snapshot (*snapshot.Service implements it): company_id is
// checked against its companies.
type Snapshots interface{ Current() *snapshot.Snapshot }

// Deps is what the handlers need.
type Deps struct {
	Pool      *pgxpool.Pool
	Log       *slog.Logger   // default: discard
	Box       *secretbox.Box // seals the secret of an inline endpoint; nil: 503 naming the flag
	Egress    egress.Policy  // the URL policy of an inline webhook_url (as POST /v1/webhooks)
	Snapshots Snapshots
	// FireWindows are the spans of the fire counters (fires_last_hour, the rate_limited status,
	// fires_last_7d, fires_last_30d), the notifier's fire window among them. Zero: an hour, 7 and
	// 30 days; dev's accelerated clock passes those spans of world time in wall time.
	FireWindows oltp.FireWindows
	// Budgets are the daily creation budgets; a creation spends the watch budget, and an inline
	// webhook_url registered by it the endpoint budget (zero: the defaults).
	Budgets oltp.Budgets
}

type handlers struct{ d Deps }

// Register installs the routes of this package on srv (before srv.Start).
func Register(srv *api.Server, d Deps) { srv.Register(Routes(d)...) }

func newHandlers(d Deps) *handlers {
	if d.FireWindows == (oltp.FireWindows{}) {
		d.FireWindows = oltp.RealFireWindows
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &handlers{d: d}
}

// watchJSON is a watch as answered (spec 2.3): exactly one of company_id and criteria is set,
// the other null.
type watchJSON struct {
	WatchID           int64           `json:"watch_id"`
	CompanyID         *int64          `json:"company_id"`
	Criteria          json.RawMessage `json:"criteria"`
	WebhookEndpointID int64           `json:"webhook_endpoint_id"`
	EventTypes        []string        `json:"event_types"`
	MaxFiresPerHour   int             `json:"max_fires_per_hour"`
	FiresLastHour     int64           `json:"fires_last_hour"`
	RateLimited       bool            `json:"rate_limited"`
	LastFiredAt       *time.Time      `json:"last_fired_at"`
	FiresLast7d       int64           `json:"fires_last_7d"`
	FiresLast30d      int64           `json:"fires_last_30d"`
	Status            string          `json:"status"`
	// Blocked is why the watch is not delivering when its account's wall or cap stops it (status
	// blocked_by_allowance or blocked_by_spend_cap): the allowance, its period and its reset.
	Blocked   *api.AllowanceBlock `json:"blocked"`
	CreatedAt time.Time           `json:"created_at"`
}

type createdJSON struct {
	watchJSON
	WebhookSecret *string `json:"webhook_secret"`
}

// toJSON is w as answered: paused when its account is, else blocked_by_allowance or
// blocked_by_spend_cap when block (its account's, api.PushBlock) stops its deliveries, else
// rate_limited past its fire limit, else active.
func toJSON(w oltp.Watch, paused bool, block *api.AllowanceBlock) watchJSON {
	out := watchJSON{WatchID: w.ID, CompanyID: w.CompanyID, Criteria: w.Criteria, WebhookEndpointID: w.EndpointID, EventTypes: w.EventTypes,
		MaxFiresPerHour: w.MaxFiresPerHour, FiresLastHour: w.FiresLastHour, RateLimited: w.FiresLastHour >= int64(w.MaxFiresPerHour),
		LastFiredAt: w.LastFiredAt, FiresLast7d: w.FiresLast7d, FiresLast30d: w.FiresLast30d, Status: StatusActive, CreatedAt: w.CreatedAt}
	switch {
	case paused:
		out.Status = StatusPaused
	case block != nil:
		out.Status, out.Blocked = block.Status, block
	case out.RateLimited:
		out.Status = StatusRateLimited
	}
	return out
}

func (h *handlers) create(c *api.Call) (int, error) {
	if h.d.Box == nil {
		return 0, api.WebhooksUnconfigured()
	}
	var b createBody
	if err := c.Decode(&b); err != nil {
		return 0, err
	}
	nw, err := b.validate()
	if err != nil {
		return 0, err
	}
	if b.WebhookURL != nil {
		url, err := api.CheckWebhookURL(c.Context(), h.d.Egress, *b.WebhookURL, "body", "webhook_url")
		if err != nil {
			return 0, err
		}
		s, err := api.WebhookSecret(b.Secret, "body", "secret")
		if err != nil {
			return 0, err
		}
		nw.Inline = &oltp.InlineEndpoint{URL: url, Secret: s}
	}
	if nw.CompanyID != nil {
		if err := h.companyExists(*nw.CompanyID); err != nil {
			return 0, err
		}
	}
	nw.CustomerID, nw.AccountID, nw.KeyID = c.Caller.CustomerID, c.Caller.AccountID, c.Caller.KeyID
	nw.Allowance = int64(c.Caller.Plan().LiveWatchAllowance())
	nw.Budgets = h.d.Budgets
	w, _, created, err := oltp.CreateWatch(c.Context(), h.d.Pool, h.d.Box, nw)
	if r := api.BudgetRefusal(c, err); r != nil {
		return 0, r
	}
	var full *oltp.AllowanceError
	switch {
	case errors.Is(err, oltp.ErrEndpointNotFound):
		return 0, api.NotFound(detailEndpointNotFound)
	case errors.As(err, &full):
		l := c.Links()
		return 0, &api.Error{Status: fasthttp.StatusPaymentRequired, Detail: api.QuotaDetail{Reason: api.ReasonQuotaExceeded,
			Quota: api.QuotaState{Limit: full.Limit, Used: full.Used}, UpgradeURL: l.Upgrade, PurchaseURL: l.Purchase, Endpoint: c.Route.Path,
			Message: fmt.Sprintf("the %s plan allows %d live watches and the account has %d: cancel one (DELETE /v1/watches/{watch_id}) or upgrade", c.Caller.Plan().Name, full.Limit, full.Used)}}
	case err != nil:
		return 0, api.RegisterEndpointError(c, err, "body", "webhook_url")
	}
	block, _, err := api.PushBlock(c)
	if err != nil {
		return 0, api.Internal(err)
	}
	out := createdJSON{watchJSON: toJSON(w, false, block)}
	if created {
		out.WebhookSecret = &nw.Inline.Secret.Secret
	}
	return 1, c.JSON(201, out)
}

const (
	detailEndpointNotFound = "Webhook endpoint not found: webhook_endpoint_id names no live endpoint of yours (GET /v1/webhooks lists them)"
	detailWatchNotFound    = "Watch not found"
)

// companyExists is 404 for a company_id the read snapshot does not know (503 before its first
// build, when every company would read as unknown).
func (h *handlers) companyExists(id int64) error {
	if r, ok := h.d.Snapshots.(interface{ Ready() bool }); ok && !r.Ready() {
		return api.Unavailable("The company read model (first build in progress)", nil)
	}
	if h.d.Snapshots == nil || h.d.Snapshots.Current().Model.Company(uint64(id)) == nil {
		return api.NotFound(fmt.Sprintf("No company with company_id %d", id))
	}
	return nil
}

func (h *handlers) list(c *api.Call) (int, error) {
	ws, err := oltp.ListWatchesIn(c.Context(), h.d.Pool, c.Caller.CustomerID, c.Now(), h.d.FireWindows)
	if err != nil {
		return 0, err
	}
	paused := c.KeyAuth().Paused
	var block *api.AllowanceBlock
	if len(ws) > 0 {
		if block, _, err = api.PushBlock(c); err != nil {
			return 0, api.Internal(err)
		}
	}
	out := make([]watchJSON, 0, len(ws))
	for _, w := range ws {
		out = append(out, toJSON(w, paused, block))
	}
	return 0, c.JSON(200, map[string]any{"watches": out})
}

func (h *handlers) cancel(c *api.Call) (int, error) {
	id, _ := c.Int("watch_id")
	err := oltp.CancelWatch(c.Context(), h.d.Pool, c.Caller.CustomerID, id)
	if errors.Is(err, oltp.ErrNotFound) {
		return 0, api.NotFound(detailWatchNotFound)
	}
	if err != nil {
		return 0, err
	}
	return 0, c.NoContent()
}
