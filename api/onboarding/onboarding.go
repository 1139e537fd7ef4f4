// Package onboarding serves getting started (spec 3, 4.1): POST /v1/quickstart hands out working
// snippets carrying the caller's own key and sets up, once per customer and webhook URL, an
// endpoint and a watch on a high-motion company (within the daily creation budgets,
// oltp.Budgets); GET /v1/onboarding reports how far that URL got (first watch, first signed
// delivery accepted, the 80%-quota expansion nudge), and says so when the account's
// delivered-changes allowance or hard spend cap stops its watches (api.PushBlock).
//
// It applies the webhook URL policy, secrets and watch defaults that POST /v1/webhooks and POST
// /v1/watches follow, and the dashboard's quota nudge, all of package api (api.CheckWebhookURL,
// api.WebhookSecret, api.DefaultWatchEventTypes, api.ExpansionNudge); it writes only through
// oltp.Quickstart (endpoint, watch and the quickstarts row in one transaction). It must not
// deliver, meter, query ClickHouse, or import another handler package.
package onboarding

import (
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// Snapshots gives the current read snapshot (*snapshot.Service implements it).
type Snapshots interface{ Current() *snapshot.Snapshot }

// Deps is what the handlers need.
type Deps struct {
	Pool      *pgxpool.Pool
	Log       *slog.Logger   // default: discard
	Box       *secretbox.Box // seals the quickstart endpoint's secret; nil: 503 naming the flag
	Egress    egress.Policy  // the webhook URL policy (as POST /v1/webhooks)
	Snapshots Snapshots      // where the high-motion company and the onboarding domain are found
	// BaseURL is the API's address as callers reach it, written into the snippets (e.g.
	// https://api.example.com); "" takes the request's scheme and Host.
	BaseURL string
	// Budgets are the daily creation budgets a quickstart spends: the quickstart budget for a
	// webhook_url not quickstarted before, the watch and endpoint budgets for what it creates
	// (zero: the defaults).
	Budgets oltp.Budgets
}

type handlers struct{ d Deps }

// Register installs the routes of this package on srv (before srv.Start).
func Register(srv *api.Server, d Deps) { srv.Register(Routes(d)...) }

func newHandlers(d Deps) *handlers {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	d.BaseURL = strings.TrimRight(d.BaseURL, "/")
	return &handlers{d: d}
}

// baseURL is where the caller reached the API: Deps.BaseURL, else the request's scheme (https
// behind TLS or a proxy saying X-Forwarded-Proto: https) and Host.
func (h *handlers) baseURL(c *api.Call) string {
	if h.d.BaseURL != "" {
		return h.d.BaseURL
	}
	scheme := "http"
	if c.Ctx.IsTLS() || strings.EqualFold(string(c.Ctx.Request.Header.Peek("X-Forwarded-Proto")), "https") {
		scheme = "https"
	}
	return scheme + "://" + string(c.Ctx.Host())
}

// ready is 503 until the first snapshot build (no company to watch or resolve before).
func (h *handlers) ready() error {
	if r, ok := h.d.Snapshots.(interface{ Ready() bool }); ok && !r.Ready() {
		return api.Unavailable("The company read model (first build in progress)", nil)
	}
	return nil
}
