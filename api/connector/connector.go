// Package connector serves how a customer's own company lists meet the read model (spec 4.5):
// the table-enrichment connector (POST /v1/connector/enrich and its batch form), the migration
// import of a list from another data vendor (POST /v1/migration-import) and the coverage requests
// its misses become (GET /v1/coverage-requests).
//
// It resolves companies against the in-memory read model (package readmodel) the way
// companies/resolve does, writes only coverage requests to Postgres (package oltp), and reads
// where the search for a requested company stands from the source registry and the discovery
// queue through oltp. It must not query ClickHouse, crawl, queue or run discovery, or touch other
// packages' routes or tables.
package connector

import (
	"log/slog"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/read/readmodel"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// Bounds (docs/decisions.md, "Getting started: the connector and the migration import").
const (
	BatchMax       = 100    // rows of one POST /v1/connector/enrich/batch
	ImportMax      = 10_000 // companies of one POST /v1/migration-import
	MaxInputLength = 253    // characters of a domain, a name or a row_id
)

// Snapshots gives the current read snapshot (*snapshot.Service implements it).
type Snapshots interface{ Current() *snapshot.Snapshot }

// Deps is what the handlers need.
type Deps struct {
	Snapshots Snapshots     // the company read model companies resolve against
	Pool      *pgxpool.Pool // coverage requests
	Log       *slog.Logger  // default: discard
}

type handlers struct{ d Deps }

// Register installs the connector routes on srv (before srv.Start).
func Register(srv *api.Server, d Deps) { srv.Register(Routes(d)...) }

func newHandlers(d Deps) *handlers {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &handlers{d: d}
}

// model is the current read model: 503 until the first build (every company would be a miss).
func (h *handlers) model() (*readmodel.Model, error) {
	if r, ok := h.d.Snapshots.(interface{ Ready() bool }); ok && !r.Ready() {
		return nil, api.Unavailable("The company read model (first build in progress)", nil)
	}
	return h.d.Snapshots.Current().Model, nil
}

// resolveOne finds the company a row names: its domain first (the lowest company_id registered
// there, confidence 1.0), else its name (the best companies/resolve candidate). nil when neither
// matches.
func resolveOne(m *readmodel.Model, domain, name string) (*readmodel.Company, float64) {
	if domain != "" {
		if cos := m.ByDomain(domain); len(cos) > 0 {
			return cos[0], readmodel.ConfidenceExact
		}
	}
	if name != "" {
		if cands := m.ResolveName(name, 1); len(cands) > 0 {
			return cands[0].Company, cands[0].Confidence
		}
	}
	return nil, 0
}

// item is one company of a request: a domain, a name or both, trimmed.
type item struct {
	Domain string `json:"domain"`
	Name   string `json:"name"`
}

func (it *item) trim() { it.Domain, it.Name = strings.TrimSpace(it.Domain), strings.TrimSpace(it.Name) }

// check is what is wrong with it at loc (nothing: nil).
func (it *item) check(loc ...any) []problem.FieldError {
	var errs []problem.FieldError
	if it.Domain == "" && it.Name == "" {
		errs = append(errs, problem.ValueError(nil, "send a domain, a name or both (both were empty)", loc...))
	}
	for _, f := range [][2]string{{"domain", it.Domain}, {"name", it.Name}} {
		if v := f[1]; len(v) > MaxInputLength {
			errs = append(errs, problem.FieldError{Type: "string_too_long", Loc: slices.Concat(loc, []any{f[0]}),
				Msg: "String should have at most 253 characters", Input: v, Ctx: map[string]any{"max_length": MaxInputLength}})
		}
	}
	return errs
}
