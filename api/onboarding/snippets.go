package onboarding

import (
	"encoding/json"
	"fmt"

	"github.com/planehq/hiringsignal/api"
)

// Snippets are the quickstart's code, each working as pasted: the caller's key and this API's
// address are in them.
type Snippets struct {
	Curl            string `json:"curl"`             // a shell command: is-hiring of the watched company
	Python          string `json:"python"`           // Python 3, standard library only: the same call
	TypeScript      string `json:"typescript"`       // Node 18+ (fetch), an ES module: the same call
	MCP             string `json:"mcp"`              // MCP client configuration (Cursor, Windsurf and others taking a URL and headers)
	MCPClaudeCode   string `json:"mcp_claude_code"`  // the same server added to Claude Code
	TableEnrichment string `json:"table_enrichment"` // a Google Sheets Apps Script custom function over POST /v1/connector/enrich
}

func snippetsSchema() map[string]any {
	s := api.Type("string")
	return api.Object(map[string]any{"curl": s, "python": s, "typescript": s, "mcp": s, "mcp_claude_code": s, "table_enrichment": s})
}

// q is s as a double-quoted string literal valid in Python, TypeScript, JavaScript and JSON.
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// shq is s single-quoted for a POSIX shell.
func shq(s string) string {
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
		} else {
			out += string(r)
		}
	}
	return out + "'"
}

func makeSnippets(base, key string, companyID int64) Snippets {
	url := fmt.Sprintf("%s/v1/companies/%d/is-hiring", base, companyID)
	auth := "Bearer " + key
	mcpURL := base + "/mcp"
	return Snippets{
		Curl: fmt.Sprintf("curl -sS -H %s %s", shq("Authorization: "+auth), shq(url)),
		Python: fmt.Sprintf("import json, urllib.request\n\nreq = urllib.request.Request(%s, headers={\"Authorization\": %s})\n"+
			"with urllib.request.urlopen(req) as r:\n    print(json.load(r))\n", q(url), q(auth)),
		TypeScript:    fmt.Sprintf("const r = await fetch(%s, { headers: { Authorization: %s } });\nconsole.log(await r.json());\n", q(url), q(auth)),
		MCP:           fmt.Sprintf("{ \"mcpServers\": { \"hiringsignal\": { \"url\": %s,\n    \"headers\": { \"Authorization\": %s } } } }\n", q(mcpURL), q(auth)),
		MCPClaudeCode: fmt.Sprintf("claude mcp add --transport http hiringsignal %s --header %s", shq(mcpURL), shq("Authorization: "+auth)),
		TableEnrichment: fmt.Sprintf(`/**
 * =HIRING(A2) or =HIRING(A2, B2): is the company at domain A2 (or named B2) hiring? Extensions > Apps Script, paste, save.
 * One call per cell, metered like any call; POST /v1/connector/enrich/batch takes up to 100 rows per call.
 * @customfunction
 */
function HIRING(domain, name) {
  const res = UrlFetchApp.fetch(%s, {
    method: "post", contentType: "application/json", muteHttpExceptions: true,
    headers: { Authorization: %s },
    payload: JSON.stringify({ domain: domain || undefined, name: name || undefined }),
  });
  const row = JSON.parse(res.getContentText());
  if (res.getResponseCode() !== 200) return "error " + res.getResponseCode();
  return [[row.is_hiring === null ? "unknown" : row.is_hiring, row.open_req_count, row.velocity, row.direction, row.coverage_status]];
}
`, q(base+"/v1/connector/enrich"), q(auth)),
	}
}
