// Package account serves the account and key routes of spec 4.1 (whoami, keys, usage, the usage
// dashboard, pause and resume, and the account's overflow past its delivered-changes allowance)
// and the public documents beside them (pricing, compliance, the schema changelog). Pricing states
// every allowance with its period and what happens past it and the unit prices (package plans);
// usage and the dashboard answer the month's bill in money (plans.Tier.Bill over oltp's usage) and
// the dashboard why watches are not delivering (api.PushBlock). It declares those routes with their schemas next to its response types and
// registers them on an api.Server; the chain has already authenticated, limited and validated
// every call.
//
// It reads and writes accounts, keys and the usage ledger through package oltp, and changes keys
// only through api.Call.ChangeKeys so every instance's key cache follows. GET /v1/keys pages.
// Past a daily creation budget its key routes answer as every creating route does
// (api.BudgetRefusal), and the dashboard's expansion nudge is api.ExpansionNudge, which GET
// /v1/onboarding reads too. It must not meter, limit or authenticate calls itself (the api chain
// does), touch ClickHouse, or import another handler package.
package account

import (
	"errors"
	"log/slog"
	"strconv"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/jsonw"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/admit"
)

// Deps is what the handlers need.
type Deps struct {
	Pool *pgxpool.Pool // accounts, keys, usage ledger, schema changelog
	Log  *slog.Logger  // default: discard
	Push PushStats     // live watches and blocked deliveries for the dashboard (default: admit.PushCounts over Pool)
	// Budgets are the daily creation budgets of key issues and rotations (zero: the defaults,
	// oltp.MaxKeysPerDay).
	Budgets oltp.Budgets
}

type handlers struct {
	d Deps
}

// Register installs the routes of this package on srv (before srv.Start).
func Register(srv *api.Server, d Deps) { srv.Register(Routes(d)...) }

func newHandlers(d Deps) *handlers {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Push == nil {
		d.Push = admit.PushCounts{PushCounts: oltp.PushCounts{Pool: d.Pool}}
	}
	return &handlers{d: d}
}

type whoamiResponse struct {
	CustomerID string   `json:"customer_id"`
	AccountID  int64    `json:"account_id"`
	KeyID      int64    `json:"key_id"`
	Tier       string   `json:"tier"`
	TierName   string   `json:"tier_name"`
	Scopes     []string `json:"scopes"`
	Demo       bool     `json:"demo"`
}

func whoamiSchema() map[string]any {
	return api.Object(map[string]any{"customer_id": api.Type("string"), "account_id": api.Type("integer"), "key_id": api.Type("integer"),
		"tier": api.Type("string"), "tier_name": api.Type("string"), "scopes": api.ArrayOf("string"), "demo": api.Type("boolean")})
}

// whoami is the connection test: the presented key's own customer only, never billed.
func (h *handlers) whoami(c *api.Call) (int, error) {
	k := c.Caller
	var buf [512]byte
	return 0, c.RawJSON(200, whoamiResponse{CustomerID: k.CustomerID, AccountID: k.AccountID, KeyID: k.KeyID, Tier: k.Tier, TierName: k.TierName, Scopes: k.Scopes, Demo: k.Demo}.appendJSON(buf[:0]))
}

// appendJSON appends w as api.Call.JSON writes it (the connection test is answered on every
// call: no reflection).
func (w whoamiResponse) appendJSON(b []byte) []byte {
	b = append(b, `{"customer_id":`...)
	b = jsonw.AppendString(b, w.CustomerID)
	b = append(b, `,"account_id":`...)
	b = strconv.AppendInt(b, w.AccountID, 10)
	b = append(b, `,"key_id":`...)
	b = strconv.AppendInt(b, w.KeyID, 10)
	b = append(b, `,"tier":`...)
	b = jsonw.AppendString(b, w.Tier)
	b = append(b, `,"tier_name":`...)
	b = jsonw.AppendString(b, w.TierName)
	b = append(b, `,"scopes":`...)
	if w.Scopes == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, s := range w.Scopes {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendString(b, s)
		}
		b = append(b, ']')
	}
	b = append(b, `,"demo":`...)
	b = strconv.AppendBool(b, w.Demo)
	return append(b, "}\n"...)
}

// accountSchema is the answer of pause and resume (oltp.AccountState).
func accountSchema() map[string]any {
	return api.Object(map[string]any{"account_id": api.Type("integer"), "account_status": api.Enum("active", "paused"), "paused": api.Type("boolean")})
}

func (h *handlers) pause(c *api.Call) (int, error)  { return h.setPaused(c, true) }
func (h *handlers) resume(c *api.Call) (int, error) { return h.setPaused(c, false) }

func (h *handlers) setPaused(c *api.Call, paused bool) (int, error) {
	var st oltp.AccountState
	err := c.ChangeKeys(func(token string) (err error) {
		st, err = oltp.SetPaused(c.Context(), h.d.Pool, c.Caller.CustomerID, c.Caller.AccountID, paused, token)
		return err
	})
	if errors.Is(err, oltp.ErrNotFound) {
		return 0, api.NotFound("Account not found")
	}
	if err != nil {
		return 0, api.Internal(err)
	}
	return 0, c.JSON(200, st)
}
