package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planehq/hiringsignal/api"
)

// MaxResultBytes bounds the text of one tool result (about 8,000 tokens at 4 bytes a token,
// and structuredContent is the same size): a full answer past it is answered concise, with a
// note; rows are never dropped (they are billed and the cursor counts them).
const MaxResultBytes = 32 << 10

// Nested lists of a row are cut to these many items (the page's own list is kept whole).
const (
	conciseNested = 2
	fullNested    = 20
)

// result turns the route's answer into the tool result.
func result(t Tool, r api.InternalResponse, detail string) *mcp.CallToolResult {
	if r.Status == 200 || r.Status == 201 {
		if b, ok := shapeFast(t, r.Body, detail); ok {
			// The SDK writes structuredContent with json.Marshal: these very bytes.
			return okResult(json.RawMessage(b), string(b))
		}
	}
	return decodedOrRefusal(t, r, detail)
}

// decodedOrRefusal is result for an answer shapeFast does not shape.
func decodedOrRefusal(t Tool, r api.InternalResponse, detail string) *mcp.CallToolResult {
	switch r.Status {
	case 204:
		return okResult(map[string]any{"ok": true}, "Done.")
	case 200, 201, 202:
		return decodedResult(t, r, detail)
	default:
		return refusal(t, r)
	}
}

// decodedResult is the result of a 200, 201 or 202 shaped from the answer decoded.
func decodedResult(t Tool, r api.InternalResponse, detail string) *mcp.CallToolResult {
	var v map[string]any
	if err := decode(r.Body, &v); err != nil {
		return errorResult(map[string]any{"reason": "unavailable", "message": "the answer could not be read; retry"}, "The answer could not be read; retry.")
	}
	if t.Brief {
		if p, ok := v["pulse"].(map[string]any); ok {
			v["is_hiring"] = p["is_hiring"]
		}
	}
	out, text, note := shape(t, v, detail)
	if r.Status == 202 {
		note = "Accepted, not answered yet: " + fmt.Sprint(v["message"]) + " Call the tool again shortly."
	}
	if note != "" {
		out["note"] = note
		text = append([]byte(note+"\n"), text...)
	}
	return okResult(out, string(text))
}

func okResult(structured any, text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{StructuredContent: structured, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// shape applies detail: full cuts nested lists to fullNested items, concise leaves out
// conciseDrop and cuts them to conciseNested. An answer past MaxResultBytes is answered more
// concisely (nested lists cut to one item, then none), with a note; the page's rows are never
// dropped (they are billed and the cursor counts them).
// It returns the answer, its JSON and the note.
func shape(t Tool, v map[string]any, detail string) (map[string]any, []byte, string) {
	type step struct {
		nested int
		drop   []string
	}
	steps := []step{{conciseNested, conciseDrop}, {1, conciseDrop}, {0, conciseDrop}}
	if detail == "full" {
		steps = append([]step{{fullNested, nil}}, steps...)
	}
	var out map[string]any
	var b []byte
	for i, st := range steps {
		out = trim(v, t, st.nested, st.drop, 0).(map[string]any)
		if b, _ = json.Marshal(out); len(b) <= MaxResultBytes {
			if i == 0 {
				return out, b, ""
			}
			break
		}
	}
	return out, b, "The answer was cut to stay small (nested lists shortened, secondary fields left out): ask for fewer rows (limit) to get more of each."
}

// trim copies v without the members named in drop (never the page's own list, t.List: a
// company's technologies are its page) and with every list below the page's own list cut to
// nested items (the count cut is answered as <name>_omitted).
func trim(v any, t Tool, nested int, drop []string, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if contains(drop, k) && !(depth == 0 && k == t.List) { // the page's own rows stay, whatever their name
				continue
			}
			arr, isArr := e.([]any)
			if isArr && !(depth == 0 && k == t.List) && len(arr) > nested {
				out[k+"_omitted"] = len(arr) - nested
				arr = arr[:nested]
				e = arr
			}
			out[k] = trim(e, t, nested, drop, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = trim(e, t, nested, drop, depth+1)
		}
		return out
	}
	return v
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// errorBody is the chain's error shape: detail is a sentence, a list of field errors (422) or
// an object with reason, message, quota and upgrade_url.
type errorBody struct {
	Detail json.RawMessage `json:"detail"`
}

type reasonDetail struct {
	Reason     string `json:"reason"`
	Message    string `json:"message"`
	UpgradeURL string `json:"upgrade_url"`
	SignupURL  string `json:"signup_url"`
	Quota      *struct {
		Limit int64   `json:"limit"`
		Used  int64   `json:"used"`
		Reset *string `json:"reset"`
	} `json:"quota"`
}

type fieldError struct {
	Loc []any  `json:"loc"`
	Msg string `json:"msg"`
}

// refusal is the isError result of a route's refusal: limits carry reason, retry_after,
// remaining and upgrade_url; a bad argument or an unknown id says what to change.
func refusal(t Tool, r api.InternalResponse) *mcp.CallToolResult {
	var eb errorBody
	_ = json.Unmarshal(r.Body, &eb)
	var sentence string
	_ = json.Unmarshal(eb.Detail, &sentence)
	switch r.Status {
	case 422:
		var items []fieldError
		_ = json.Unmarshal(eb.Detail, &items)
		problems := make([]string, 0, len(items))
		for _, it := range items {
			problems = append(problems, argName(it.Loc)+": "+it.Msg)
		}
		if len(problems) == 0 {
			problems = append(problems, "the arguments do not fit the input schema")
		}
		return argumentError(t, problems)
	case 404:
		msg := strings.TrimSuffix(sentence, ".") + ". Check the id: resolve_company or find_hiring_companies answer company_id; list_watches answers watch_id. Nothing was billed."
		return errorResult(map[string]any{"reason": "not_found", "message": msg}, msg)
	case 401, 402, 403, 429:
		return limitResult(r, eb, sentence)
	case 409:
		return errorResult(map[string]any{"reason": "conflict", "message": sentence + detailMessage(eb)}, "Conflict: "+sentence+detailMessage(eb))
	}
	msg := fmt.Sprintf("The service could not answer (HTTP %d): %s Retry shortly; nothing was billed.", r.Status, sentence)
	return errorResult(map[string]any{"reason": "unavailable", "retry_after": retryAfter(r), "message": msg}, msg)
}

// detailMessage is the message of an object detail ("" otherwise), with a leading space.
func detailMessage(eb errorBody) string {
	var d reasonDetail
	if json.Unmarshal(eb.Detail, &d) == nil && d.Message != "" {
		return " " + d.Message
	}
	return ""
}

// limitResult is the machine-readable refusal of a limit: reason, retry_after (seconds, null
// when waiting does not help), remaining (calls or units left, null when not counted),
// upgrade_url (null when upgrading does not help) and message.
func limitResult(r api.InternalResponse, eb errorBody, sentence string) *mcp.CallToolResult {
	out := map[string]any{"reason": nil, "retry_after": nil, "remaining": nil, "upgrade_url": nil, "status": r.Status}
	var d reasonDetail
	if sentence == "" && json.Unmarshal(eb.Detail, &d) == nil {
		out["reason"] = d.Reason
		if d.UpgradeURL != "" {
			out["upgrade_url"] = d.UpgradeURL
		} else if d.SignupURL != "" {
			out["upgrade_url"] = d.SignupURL
		}
		sentence = d.Message
	}
	switch r.Status {
	case 401:
		out["reason"] = "missing_key"
	case 403:
		if out["reason"] == nil || out["reason"] == "" {
			out["reason"] = "invalid_key"
		}
	case 429:
		out["retry_after"] = retryAfter(r)
		if n, err := strconv.ParseInt(r.Header["RateLimit-Remaining"], 10, 64); err == nil {
			out["remaining"] = n
		}
	case 402:
		if q := d.Quota; q != nil {
			out["remaining"] = max(q.Limit-q.Used, 0)
			if q.Reset != nil {
				if at, err := time.Parse(time.RFC3339, *q.Reset); err == nil {
					out["retry_after"] = int64(math.Ceil(max(time.Until(at).Seconds(), 1)))
				}
			}
		}
	}
	// The REST message points to the Retry-After header, which a tool result has not: it says
	// the seconds instead, once.
	ra := out["retry_after"]
	said := false
	if ra != nil && strings.Contains(sentence, api.WaitRetryAfter) {
		sentence, said = strings.Replace(sentence, api.WaitRetryAfter, fmt.Sprintf("wait %v seconds", ra), 1), true
	}
	out["message"] = sentence
	text := fmt.Sprintf("Refused (%v): %s", out["reason"], sentence)
	if !strings.HasSuffix(text, ".") {
		text += "."
	}
	if ra != nil && !said {
		text += fmt.Sprintf(" Retry after %v seconds.", ra)
	}
	if u := out["upgrade_url"]; u != nil {
		text += fmt.Sprintf(" Upgrade: %v", u)
	}
	return errorResult(out, text)
}

// retryAfter is the Retry-After header in seconds, or nil.
func retryAfter(r api.InternalResponse) any {
	if n, err := strconv.ParseInt(r.Header["Retry-After"], 10, 64); err == nil {
		return n
	}
	return nil
}

// argName is the argument a 422 location names: ["query","geo",1] → geo, ["body","criteria",
// "req","q"] → criteria.req.q.
func argName(loc []any) string {
	parts := make([]string, 0, len(loc))
	for i, p := range loc {
		if s, ok := p.(string); ok && !(i == 0 && (s == "query" || s == "path" || s == "body" || s == "header")) {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "arguments"
	}
	return strings.Join(parts, ".")
}
