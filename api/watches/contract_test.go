package watches_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/deliveries"
	"github.com/planehq/hiringsignal/api/watches"
	"github.com/planehq/hiringsignal/api/webhooks"
)

// Every push route answers, for every kind of key and body, a status its operation documents,
// with a body its schema describes.
func TestEveryPushAnswerIsDocumented(t *testing.T) {
	t.Parallel()
	h := start(t)
	good := h.RoomyAccount(t, "free")
	paused := h.RoomyAccount(t, "free")
	good2 := h.Account(t, "free")
	require.Equal(t, 200, h.Post(t, "/v1/account/pause", paused.Key, nil).Status)
	ep := itoa(h.Endpoint(t, good.Key, "https://hooks.example.com/sweep"))
	keys := []string{"", "hsk_invalid", good.Key, api.PublicDemoKey, paused.Key, good2.Key}
	bodies := []string{"", "{", "[]", `{"url":"https://hooks.example.com/sweep","company_id":42,"webhook_endpoint_id":` + ep + `}`,
		`{"url":"https://127.0.0.1/","criteria":{"req":{"q":"engineer"}},"webhook_url":"https://hooks.example.com/sweep2","overlap_seconds":60}`,
		`{"url":1,"secret":"whsec_x","company_id":-1,"event_types":["x"],"max_fires_per_hour":0}`}
	delivered := itoa(h.delivery(t, good, h.Endpoint(t, good.Key, "https://hooks.example.com/sweep3"), "delivered"))
	blocked := itoa(h.delivery(t, good2, h.Endpoint(t, good2.Key, "https://hooks.example.com/sweep"), "wall_blocked"))
	routes := slices.Concat(webhooks.Routes(webhooks.Deps{}), watches.Routes(watches.Deps{}), deliveries.Routes(deliveries.Deps{}))
	for _, rt := range routes {
		for _, ref := range []string{ep, "999999", "x", delivered, blocked} {
			path := strings.NewReplacer("{id}", ref, "{watch_id}", ref, "{delivery_id}", ref).Replace(rt.Path)
			for _, key := range keys {
				for _, body := range bodies {
					if rt.Body == nil && body != "" {
						continue
					}
					var b any
					if body != "" {
						b = body
					}
					r := h.Do(t, rt.Method, path, key, b)
					h.Conforms(t, rt.Method, rt.Path, r)
				}
			}
		}
	}
}
