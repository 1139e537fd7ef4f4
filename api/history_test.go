package api_test

import (
	"encoding/json"
	"strings"
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
				for _, name := range []string{api.HeaderHistoryComplete, api.HeaderHistoryFrom, api.HeaderHistoryThrough} {
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
