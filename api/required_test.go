package api_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/account"
	"github.com/planehq/hiringsignal/api/agent"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/api/connector"
	"github.com/planehq/hiringsignal/api/deliveries"
	feed "github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/api/onboarding"
	"github.com/planehq/hiringsignal/api/outcomes"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/api/watches"
	"github.com/planehq/hiringsignal/api/webhooks"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
)

// everyRoute is a server with every handler package's routes and the MCP server registered, as
// serve wires them (no stores: only its document is read).
func everyRoute() *api.Server {
	srv := api.New(api.Config{Log: apitest.Quiet()})
	account.Register(srv, account.Deps{})
	companies.Register(srv, companies.Deps{})
	search.Register(srv, search.Deps{})
	webhooks.Register(srv, webhooks.Deps{})
	watches.Register(srv, watches.Deps{})
	feed.Register(srv, feed.Deps{})
	deliveries.Register(srv, deliveries.Deps{})
	outcomes.Register(srv, outcomes.Deps{})
	connector.Register(srv, connector.Deps{})
	onboarding.Register(srv, onboarding.Deps{})
	agent.Register(agent.Deps{API: srv})
	return srv
}

// Every object schema of every answer in the document (each status of each operation, and the
// error components) that declares properties lists the ones always answered in required (each of
// them declared) and closes the object (additionalProperties false, or a schema for a map), so
// a generated client types exactly the members that can be missing as optional (before this
// test, 3 of 352 listed required).
func TestEveryResponseObjectSchemaListsRequired(t *testing.T) {
	t.Parallel()
	b, err := everyRoute().OpenAPI()
	require.NoError(t, err)
	require.NotContains(t, string(b), `\u0000optional`, "an Optional marker reached the document: wrap only an Object's property schemas")
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))

	var objects, withRequired, freeForm int
	optional := map[string]bool{} // property names some object leaves out of required
	var problems []string
	var walk func(s any, at string)
	walk = func(s any, at string) {
		switch s := s.(type) {
		case []any:
			for i, x := range s {
				walk(x, fmt.Sprintf("%s[%d]", at, i))
			}
		case map[string]any:
			if props, ok := s["properties"].(map[string]any); ok && len(props) > 0 {
				objects++
				req, hasReq := s["required"].([]any)
				if hasReq {
					withRequired++
				} else {
					problems = append(problems, at+": no required list")
				}
				for _, r := range req {
					if _, ok := props[r.(string)]; !ok {
						problems = append(problems, fmt.Sprintf("%s: required %q is not a property", at, r))
					}
				}
				if len(req) > 0 { // required: [] is a criteria object echoed as sent
					for name := range props {
						if !slices.Contains(req, any(name)) {
							optional[name] = true
						}
					}
				}
				if ap, ok := s["additionalProperties"]; !ok || ap == true {
					problems = append(problems, at+": additionalProperties not false (the answer is closed)")
				}
			} else if typeHas(s["type"], "object") && s["additionalProperties"] == nil && s["properties"] == nil {
				freeForm++
			}
			keys := make([]string, 0, len(s))
			for k := range s {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if k != "enum" && k != "required" && k != "example" && k != "default" {
					walk(s[k], at+"/"+k)
				}
			}
		}
	}
	// The count of response schemas (one per documented status of each operation with a
	// JSON body, $ref resolved) whose top object, or each of its oneOf alternatives, lists required.
	components := doc["components"].(map[string]any)["schemas"].(map[string]any)
	var responses, listing int
	for path, ops := range doc["paths"].(map[string]any) {
		for method, op := range ops.(map[string]any) {
			walk(op.(map[string]any)["responses"], strings.ToUpper(method)+" "+path)
			for _, resp := range op.(map[string]any)["responses"].(map[string]any) {
				sch, _ := apitest.Dig(resp, "content", "application/json", "schema").(map[string]any)
				if sch == nil {
					continue
				}
				if ref, ok := sch["$ref"].(string); ok {
					sch = components[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
				}
				responses++
				tops := []any{sch}
				if alts, ok := sch["oneOf"].([]any); ok {
					tops = alts
				}
				if !slices.ContainsFunc(tops, func(x any) bool { _, ok := x.(map[string]any)["required"]; return !ok }) {
					listing++
				} else {
					t.Log("no required list:", strings.ToUpper(method), path)
				}
			}
		}
	}
	walk(components, "components")
	t.Logf("%d of %d response schemas list required; %d object schemas with properties, %d list required; %d free-form objects (no properties: a payload as sent, a JSON-RPC message, a ctx)",
		listing, responses, objects, withRequired, freeForm)
	require.Empty(t, problems, strings.Join(problems, "\n"))
	require.Greater(t, responses, 300, "the walk must reach every operation's answers")
	require.Equal(t, responses-2, listing, "every response schema but two free-form ones (the JSON-RPC answer of /mcp, the document itself) lists required")
	require.Equal(t, objects, withRequired)

	// The members some answers leave out are exactly those docs/decisions.md names (the server
	// marshals them with omitempty). A property added to an Object's map in place, after Object
	// listed required, shows up here: use api.Extend, or api.Optional on purpose and add it here.
	names := make([]string, 0, len(optional))
	for n := range optional {
		names = append(names, n)
	}
	slices.Sort(names)
	// (data and id: a JSON-RPC error of /mcp, whose data only some SDK errors carry and whose id
	// a refused notification has none of)
	require.Equal(t, []string{"after_gap", "close_reason", "companies", "data", "description", "id", "message", "next_cursor", "plan_gate", "required_scope", "signup_url"}, names)
}

func typeHas(t any, want string) bool {
	if list, ok := t.([]any); ok {
		return slices.Contains(list, any(want))
	}
	return t == want
}
