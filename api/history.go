package api

import (
	"time"

	"github.com/valyala/fasthttp"
)

// History is what an instance knows of the ledger history behind its answers, sent on every /v1
// answer as the X-History-* headers (Config.History). A dev stack serves while its demo
// history is still being backfilled: until Complete, every answer is as of Through (the latest
// committed cycle replayed so far), and the windowed fields whose window reaches back before
// From are null, as for a company observed for less than the window. A history with a gap (crawl
// windows of a region that no cycle committed: the service was down or behind) is not complete
// either, whatever Complete says; GapFrom and GapTo name the most recent gap.
type History struct {
	Complete bool      // the history the instance was started to hold is all committed
	From     time.Time // the first committed cycle time (zero: nothing committed yet)
	Through  time.Time // the latest committed cycle time the read model answers as of (zero: none)
	// GapFrom and GapTo are the most recent gap within From..Through (analytics.LatestGap of the
	// read snapshot): the last committed cycle of its region before it and the first after it.
	// Both zero when the history has no gap.
	GapFrom time.Time
	GapTo   time.Time
}

// History header names.
const (
	HeaderHistoryComplete = "X-History-Complete"
	HeaderHistoryFrom     = "X-History-From"
	HeaderHistoryThrough  = "X-History-Through"
	HeaderHistoryGap      = "X-History-Gap"
)

// setHistoryHeaders writes the X-History-* headers of a /v1 answer (none without
// Config.History).
func (s *Server) setHistoryHeaders(rc *fasthttp.RequestCtx) {
	if s.cfg.History == nil {
		return
	}
	h := s.cfg.History()
	complete := "false"
	if h.Complete && h.GapTo.IsZero() {
		complete = "true"
	}
	rc.Response.Header.Set(HeaderHistoryComplete, complete)
	if !h.From.IsZero() {
		rc.Response.Header.Set(HeaderHistoryFrom, h.From.UTC().Format(time.RFC3339))
	}
	if !h.Through.IsZero() {
		rc.Response.Header.Set(HeaderHistoryThrough, h.Through.UTC().Format(time.RFC3339))
	}
	if !h.GapTo.IsZero() {
		rc.Response.Header.Set(HeaderHistoryGap, h.GapFrom.UTC().Format(time.RFC3339)+"/"+h.GapTo.UTC().Format(time.RFC3339))
	}
}

// historyHeaderDocs are the OpenAPI headers of every /v1 response: the X-History-* headers and
// Cache-Control.
func historyHeaderDocs() map[string]any {
	return map[string]any{
		HeaderHistoryComplete: map[string]any{"schema": Enum("true", "false"),
			"description": "false while the instance is still committing the history it was started with (a dev stack backfilling its demo history behind the " +
				"serving API): the answer is as of X-History-Through, not the world's present, and windowed fields (new_roles_30d, velocity, direction, " +
				"is_surge, 8-week pulse) whose window reaches back before X-History-From are null, never a number computed over a shorter window. " +
				"false too while the history from X-History-From to X-History-Through has a gap (X-History-Gap). " +
				"true once it is all committed without a gap. Sent on every /v1 answer"},
		HeaderHistoryGap: map[string]any{"schema": map[string]any{"type": "string", "pattern": `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$`},
			"description": "the most recent gap in the history, as an RFC 3339 interval <from>/<to>: crawl windows (3 hours each) of a region that no cycle " +
				"committed because the service was down or behind. from is the region's last committed cycle before the gap, to its first after it; what " +
				"changed meanwhile was first seen at to (such events carry after_gap on /v1/events and in webhook bodies), and the momentum and role-demand " +
				"weeks the gap touches are partial. Absent when the history has no gap"},
		HeaderHistoryFrom: map[string]any{"schema": DateTime(),
			"description": "the first committed crawl cycle (RFC 3339): no answer knows of anything before it. Absent before the first commit"},
		fasthttp.HeaderCacheControl: map[string]any{"schema": Enum("no-store"),
			"description": "no-store on every /v1 answer: each is the caller's own, and some carry secrets (an issued key, a webhook secret)"},
		HeaderHistoryThrough: map[string]any{"schema": DateTime(),
			"description": "the latest committed crawl cycle the answer is computed as of (RFC 3339; a company's motion_as_of is at most this). Absent before the first commit"},
	}
}
