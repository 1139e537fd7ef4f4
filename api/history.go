package api

import (
	"time"

	"github.com/valyala/fasthttp"
)

// History is what an instance knows of the ledger history behind its answers, sent on every /v1
// answer as the X-History-* headers (Config.History). A dev stack serves while its demo
// history is still being backfilled: until Complete, every answer is as of Through (the latest
// committed cycle replayed so far), and the windowed fields whose window reaches back before
// From are null, as for a company observed for less than the window.
type History struct {
	Complete bool      // the history the instance was started to hold is all committed
	From     time.Time // the first committed cycle time (zero: nothing committed yet)
	Through  time.Time // the latest committed cycle time the read model answers as of (zero: none)
}

// History header names.
const (
	HeaderHistoryComplete = "X-History-Complete"
	HeaderHistoryFrom     = "X-History-From"
	HeaderHistoryThrough  = "X-History-Through"
)

// setHistoryHeaders writes the X-History-* headers of a /v1 answer (none without
// Config.History).
func (s *Server) setHistoryHeaders(rc *fasthttp.RequestCtx) {
	if s.cfg.History == nil {
		return
	}
	h := s.cfg.History()
	complete := "false"
	if h.Complete {
		complete = "true"
	}
	rc.Response.Header.Set(HeaderHistoryComplete, complete)
	if !h.From.IsZero() {
		rc.Response.Header.Set(HeaderHistoryFrom, h.From.UTC().Format(time.RFC3339))
	}
	if !h.Through.IsZero() {
		rc.Response.Header.Set(HeaderHistoryThrough, h.Through.UTC().Format(time.RFC3339))
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
				"true once it is all committed. Sent on every /v1 answer"},
		HeaderHistoryFrom: map[string]any{"schema": DateTime(),
			"description": "the first committed crawl cycle (RFC 3339): no answer knows of anything before it. Absent before the first commit"},
		fasthttp.HeaderCacheControl: map[string]any{"schema": Enum("no-store"),
			"description": "no-store on every /v1 answer: each is the caller's own, and some carry secrets (an issued key, a webhook secret)"},
		HeaderHistoryThrough: map[string]any{"schema": DateTime(),
			"description": "the latest committed crawl cycle the answer is computed as of (RFC 3339; a company's motion_as_of is at most this). Absent before the first commit"},
	}
}
