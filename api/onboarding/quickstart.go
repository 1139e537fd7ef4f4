package onboarding

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/oltp"
)

// quickstartView is the quickstart answer.
type quickstartView struct {
	Snippets          Snippets  `json:"snippets"`
	WebhookURL        string    `json:"webhook_url"` // as stored (scheme and host lower-cased)
	WebhookEndpointID int64     `json:"webhook_endpoint_id"`
	WebhookSecret     *string   `json:"webhook_secret"` // only on the call that registered the endpoint
	Watch             watchView `json:"watch"`
	Created           bool      `json:"created"`    // this call created the watch (false: answered the one set up before)
	Onboarding        string    `json:"onboarding"` // the GET /v1/onboarding to poll for progress
}

// watchView is the auto-created watch.
type watchView struct {
	WatchID         int64     `json:"watch_id"`
	CompanyID       int64     `json:"company_id"`
	CompanyName     *string   `json:"company_name"`
	CompanyDomain   *string   `json:"company_domain"`
	EventTypes      []string  `json:"event_types"`
	MaxFiresPerHour int       `json:"max_fires_per_hour"`
	CreatedAt       time.Time `json:"created_at"`
}

func quickstartSchema() map[string]any {
	s := api.Nullable(api.Type("string"))
	return api.Object(map[string]any{
		"snippets": snippetsSchema(), "webhook_url": api.Type("string"), "webhook_endpoint_id": api.Type("integer"), "webhook_secret": s,
		"watch": api.Object(map[string]any{"watch_id": api.Type("integer"), "company_id": api.Type("integer"), "company_name": s, "company_domain": s,
			"event_types": api.ArrayOf("string"), "max_fires_per_hour": api.Type("integer"), "created_at": api.DateTime()}),
		"created": api.Type("boolean"), "onboarding": api.Type("string"),
	})
}

func (h *handlers) quickstart(c *api.Call) (int, error) {
	if h.d.Box == nil {
		return 0, api.WebhooksUnconfigured()
	}
	var b struct {
		WebhookURL string `json:"webhook_url"`
	}
	if err := c.Decode(&b); err != nil {
		return 0, err
	}
	u, err := api.CheckWebhookURL(c.Context(), h.d.Egress, b.WebhookURL, "body", "webhook_url")
	if err != nil {
		return 0, err
	}
	if err := h.ready(); err != nil {
		return 0, err
	}
	m := h.d.Snapshots.Current().Model
	co := m.HighMotion()
	if co == nil {
		return 0, api.Unavailable("A company to watch (no covered company changed in the last 4 weeks of the corpus)", nil)
	}
	companyID := int64(co.ID)
	secret, _ := api.WebhookSecret(nil)
	nw := oltp.NewWatch{CustomerID: c.Caller.CustomerID, AccountID: c.Caller.AccountID, KeyID: c.Caller.KeyID, CompanyID: &companyID,
		EventTypes: api.DefaultWatchEventTypes, MaxFiresPerHour: api.DefaultWatchMaxFiresPerHour,
		Allowance: int64(c.Caller.Plan().LiveWatchAllowance()), Inline: &oltp.InlineEndpoint{URL: u, Secret: secret}, Budgets: h.d.Budgets}
	res, err := oltp.Quickstart(c.Context(), h.d.Pool, h.d.Box, nw)
	if r := api.BudgetRefusal(c, err); r != nil {
		return 0, r
	}
	var full *oltp.AllowanceError
	switch {
	case errors.As(err, &full):
		l := c.Links()
		return 0, &api.Error{Status: fasthttp.StatusPaymentRequired, Detail: api.QuotaDetail{Reason: api.ReasonQuotaExceeded,
			Quota: api.QuotaState{Limit: full.Limit, Used: full.Used}, UpgradeURL: l.Upgrade, PurchaseURL: l.Purchase, Endpoint: c.Route.Path,
			Message: fmt.Sprintf("the quickstart creates a watch and the %s plan allows %d live watches, all in use: cancel one (DELETE /v1/watches/{watch_id}) or upgrade",
				c.Caller.Plan().Name, full.Limit)}}
	case err != nil:
		return 0, api.RegisterEndpointError(c, err, "body", "webhook_url")
	}
	watched := int64(co.ID)
	if res.Watch.CompanyID != nil {
		watched = *res.Watch.CompanyID
	}
	out := quickstartView{Snippets: makeSnippets(h.baseURL(c), c.PresentedKey(), watched), WebhookURL: res.Endpoint.URL,
		WebhookEndpointID: res.Endpoint.ID, Created: res.WatchCreated,
		Watch: watchView{WatchID: res.Watch.ID, CompanyID: watched, EventTypes: res.Watch.EventTypes, MaxFiresPerHour: res.Watch.MaxFiresPerHour,
			CreatedAt: res.Watch.CreatedAt.UTC()},
		Onboarding: "/v1/onboarding?webhook_url=" + url.QueryEscape(res.Endpoint.URL)}
	if wc := m.Company(uint64(watched)); wc != nil {
		out.Watch.CompanyName, out.Watch.CompanyDomain = &wc.Name, &wc.Domain
	}
	if res.EndpointCreated {
		out.WebhookSecret = &secret.Secret
	}
	if res.WatchCreated {
		h.d.Log.Info("quickstart", "customer_id", c.Caller.CustomerID, "webhook_endpoint_id", res.Endpoint.ID, "watch_id", res.Watch.ID, "company_id", watched)
	}
	return 0, c.JSON(200, out)
}
