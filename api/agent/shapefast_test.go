package agent

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
)

// randomAnswer is a JSON object like a route's answer: members of conciseDrop and of the tools'
// lists among others, nested objects and lists longer and shorter than the cuts, strings that
// JSON escapes or HTML-escapes, numbers in every form, literals.
func randomAnswer(r *rand.Rand, depth int) any {
	keys := []string{"companies", "reqs", "jobs", "events", "watches", "pulse", "is_hiring", "company_id", "name", "open_reqs",
		"title", "board", "url", "function", "momentum", "matched_reqs", "first_hires", "next_cursor", "a<b", "é", "z"}
	strs := []string{"", "plain", "<b>&amp;</b>", "line\nbreak", `quote " and \ back`, "tab\t", "\u2028sep\u2029", "日本語", "\x01ctl", "emoji 😀"}
	nums := []string{"0", "-1", "42", "3.5", "1e10", "-2.5E-3", "12345678901234567890", "1.0"}
	switch k := r.IntN(10); {
	case depth > 3 || k < 3:
		switch r.IntN(4) {
		case 0:
			return strs[r.IntN(len(strs))]
		case 1:
			return json.Number(nums[r.IntN(len(nums))])
		case 2:
			return []any{true, false, nil}[r.IntN(3)]
		}
		return json.Number(nums[r.IntN(len(nums))])
	case k < 6:
		n := []int{0, 1, 2, 3, 5, 21, 25}[r.IntN(7)]
		out := make([]any, n)
		for i := range out {
			out[i] = randomAnswer(r, depth+1)
		}
		return out
	}
	out := map[string]any{}
	for range r.IntN(8) {
		out[keys[r.IntN(len(keys))]] = randomAnswer(r, depth+1)
	}
	return out
}

// encodeAnswer writes v as the routes write their answers (writeJSON: no HTML escaping, a
// newline after).
func encodeAnswer(t *testing.T, v any) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return []byte(b.String())
}

// shapeFast writes what decoding and shape write, for every tool and detail, byte for byte as
// the SDK sends the result, and plainResult writes that result as the SDK does.
func TestShapeFastWritesWhatShapeWrites(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	bodies := [][]byte{
		[]byte(`{}`),
		[]byte(`{"pulse":{"is_hiring":true,"velocity":3},"open_reqs":[1,2,3]}`),
		[]byte(`{"pulse":null,"is_hiring":false}`),
		[]byte(`{"pulse":{"momentum":[]},"is_hiring":"x"}`),
		[]byte("{\"a\" : [ 1 , {\"b\" : \"\\u003c\"} ] , \"c\":\"\\ud83d\\ude00\"}\n"),
		[]byte(`{"x_omitted":1,"x":[1,2,3]}`),
		[]byte(`{"a":1,"a":2}`),
		[]byte(`{"a":1} trailing`),
		[]byte(`[1,2]`),
		[]byte(`{"a":"` + strings.Repeat("long ", 10000) + `"}`),
		[]byte("{\"bad\":\"\xff\"}"),
		[]byte(`{"a":01}`), []byte(`{"a":1.}`), []byte(`{"a":-}`), []byte(`{"a":1e}`), []byte(`{"a":tru}`), []byte(`{"a":"\q"}`),
		[]byte("{\"a\":\"\x01\"}"), []byte(`{"a":"\u12"}`), []byte(`{"a":[1,]}`), []byte(`{"a":1,}`), []byte(`{"a" 1}`), []byte(` { "a" : [ ] , "b" : { } } `),
		[]byte(`{"pulse":{"is_hiring":[1,2,3,4,5,6],"x":1},"companies":[]}`),
		[]byte(`{"pulse":{"is_hiring":1,"is_hiring":2}}`),
		[]byte(`{"pulse":{"is_hiring":true},"is_hiring":[1,2,3]}`),
		[]byte(`{"k\u00e9y":"v\u00e9","\u003c":"\u2028"}`),
	}
	for range 120 {
		v := map[string]any{}
		for range 1 + r.IntN(6) {
			m := randomAnswer(r, 0)
			if mm, ok := m.(map[string]any); ok {
				for k, e := range mm {
					v[k] = e
				}
			}
		}
		bodies = append(bodies, encodeAnswer(t, v))
	}
	fast, plains := 0, 0
	for i, body := range bodies {
		for _, tl := range Tools() {
			for _, detail := range []string{"concise", "full"} {
				for _, status := range []int{200, 201, 202} {
					resp := api.InternalResponse{Status: status, Body: body}
					want, err := marshal(decodedResult(tl, resp, detail))
					require.NoError(t, err)
					res := result(tl, resp, detail)
					got, err := marshal(res)
					require.NoError(t, err)
					require.Equal(t, string(want), string(got), fmt.Sprintf("body %d, %s, %s, %d: %s", i, tl.Name, detail, status, body))
					if plain, ok := plainResult(res); ok { // what direct calls write
						plains++
						require.Equal(t, string(want), string(plain), fmt.Sprintf("body %d, %s, %s, %d: %s", i, tl.Name, detail, status, body))
					}
					if _, ok := shapeFast(tl, body, detail); ok && status != 202 {
						fast++
					}
				}
			}
		}
	}
	require.Greater(t, fast, len(bodies)*len(Tools()), "most answers are shaped without decoding")
	require.Equal(t, fast, plains)
}

// scalars reads a plain value as its decoder reads it.
func TestScalarsReadsPlainValuesAsTheDecoder(t *testing.T) {
	t.Parallel()
	for _, v := range []string{`"abc"`, `""`, ` "x" `, `"a\"b"`, `"é<>&"`, "\"\x01\"", `12`, `-0.5e3`, `01`, `1.`, `true`, `false`, `null`, `[1,"a"]`, `{}`, `"\u00e9"`, `1 2`} {
		want, werr := scalarsDecoded(json.RawMessage(v), true)
		got, gerr := scalars(json.RawMessage(v), true)
		require.Equal(t, werr != nil, gerr != nil, v)
		require.Equal(t, want, got, v)
	}
}
