package api_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
)

// Every /v1 answer, an error too, carries the X-History-* headers of Config.History; the
// instance's own routes (health) do not; the document declares them on every /v1 response.
func TestEveryV1AnswerSaysHowCompleteItsHistoryIs(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 9, 28, 0, 0, 0, 0, time.UTC)
	through := from.Add(36 * time.Hour)
	h := newHarness(t, func(cfg *api.Config, _ *api.Server) {
		cfg.History = func() api.History { return api.History{Complete: false, From: from, Through: through} }
	})
	a := h.account("growth")
	for _, c := range []struct {
		key    string
		status int
	}{{a.Key, 200}, {"hsk_invalid", 403}, {"", 401}} {
		r := h.do("GET", "/v1/whoami", c.key, "")
		require.Equal(t, c.status, r.status)
		require.Equal(t, "false", r.header[api.HeaderHistoryComplete], "status %d", c.status)
		require.Equal(t, "2026-09-28T00:00:00Z", r.header[api.HeaderHistoryFrom])
		require.Equal(t, "2026-09-29T12:00:00Z", r.header[api.HeaderHistoryThrough])
		require.NotContains(t, r.header, api.HeaderHistoryGap, "no gap, no gap header")
	}
	r := h.do("GET", "/healthz", "", "")
	require.Equal(t, 200, r.status)
	require.NotContains(t, r.header, api.HeaderHistoryComplete)

	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Headers map[string]any `json:"headers"`
			} `json:"responses"`
		} `json:"paths"`
	}
	r = h.do("GET", "/openapi.json", "", "")
	require.Equal(t, 200, r.status)
	require.NoError(t, json.Unmarshal(r.body, &doc))
	n := 0
	for path, ops := range doc.Paths {
		if !strings.HasPrefix(path, "/v1/") {
			continue
		}
		for method, op := range ops {
			for status, resp := range op.Responses {
				for _, name := range []string{api.HeaderHistoryComplete, api.HeaderHistoryFrom, api.HeaderHistoryThrough, api.HeaderHistoryGap} {
					require.Contains(t, resp.Headers, name, "%s %s %s", method, path, status)
				}
				n++
			}
		}
	}
	require.Positive(t, n)
}

// Without Config.History no answer carries them.
func TestNoHistoryHeadersWithoutAHistory(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	r := h.do("GET", "/v1/whoami", h.account("growth").Key, "")
	require.Equal(t, 200, r.status)
	require.NotContains(t, r.header, api.HeaderHistoryComplete)
}

// A gap in the history: X-History-Complete is false whatever the instance's own history says,
// and X-History-Gap names the most recent gap as an RFC 3339 interval; the same history without
// a gap reads complete.
func TestAGapMakesTheHistoryIncompleteAndIsNamed(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 9, 28, 0, 0, 0, 0, time.UTC)
	through := from.Add(60 * 24 * time.Hour)
	var gap atomic.Bool
	gap.Store(true)
	h := newHarness(t, func(cfg *api.Config, _ *api.Server) {
		cfg.History = func() api.History {
			hist := api.History{Complete: true, From: from, Through: through}
			if gap.Load() {
				hist.GapFrom = time.Date(2026, 11, 20, 3, 0, 0, 0, time.UTC)
				hist.GapTo = time.Date(2026, 11, 24, 7, 0, 0, 0, time.FixedZone("x", 3600))
			}
			return hist
		}
	})
	key := h.account("growth").Key
	r := h.do("GET", "/v1/whoami", key, "")
	require.Equal(t, 200, r.status)
	require.Equal(t, "false", r.header[api.HeaderHistoryComplete])
	require.Equal(t, "2026-11-20T03:00:00Z/2026-11-24T06:00:00Z", r.header[api.HeaderHistoryGap])
	r = h.do("GET", "/v1/whoami", "", "")
	require.Equal(t, 401, r.status)
	require.Equal(t, "2026-11-20T03:00:00Z/2026-11-24T06:00:00Z", r.header[api.HeaderHistoryGap], "errors too")

	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Headers map[string]struct {
					Schema struct {
						Pattern string `json:"pattern"`
					} `json:"schema"`
				} `json:"headers"`
			} `json:"responses"`
		} `json:"paths"`
	}
	d := h.do("GET", "/openapi.json", "", "")
	require.NoError(t, json.Unmarshal(d.body, &doc))
	pattern := doc.Paths["/v1/whoami"]["get"].Responses["200"].Headers[api.HeaderHistoryGap].Schema.Pattern
	require.Regexp(t, regexp.MustCompile(pattern), r.header[api.HeaderHistoryGap], "the header matches its documented pattern")

	gap.Store(false)
	r = h.do("GET", "/v1/whoami", key, "")
	require.Equal(t, "true", r.header[api.HeaderHistoryComplete])
	require.NotContains(t, r.header, api.HeaderHistoryGap)
}
