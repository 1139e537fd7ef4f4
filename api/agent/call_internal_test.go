package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
)

// shaper.request reads the arguments it takes exactly as request reads them (the same path,
// query and detail), takes the plain calls a model makes, and leaves everything else to request:
// every problem (request words it), a repeated member, an escape, a body.
func TestRequestReadsPlainArgumentsAsTheDecoder(t *testing.T) {
	t.Parallel()
	brief := Tool{Name: "brief", Route: "brief", ReadOnly: true, Args: []string{"company_id", "max_age"}}
	search := Tool{Name: "search", Route: "search", ReadOnly: true, Args: []string{"q", "geo", "limit", "exclude_agencies"}}
	cancel := Tool{Name: "cancel", Route: "cancel", Args: []string{"watch_id"}}
	create := Tool{Name: "create", Route: "create", Args: []string{"company_id", "q"}}
	routes := map[string]api.Route{
		"brief": {Name: "companies.brief", Params: []api.Param{{Name: "company_id", In: "path", Type: "integer", Required: true},
			{Name: "max_age", In: "query", Type: "integer"}, {Name: "X-Trace", In: "header"}}},
		"search": {Name: "reqs.search", Params: []api.Param{{Name: "q", In: "query"}, {Name: "geo", In: "query", Repeatable: true},
			{Name: "limit", In: "query", Type: "integer"}, {Name: "exclude_agencies", In: "query", Type: "boolean"}, {Name: "role", In: "query", AliasOf: "q"}}},
		"cancel": {Name: "watches.cancel", Params: []api.Param{{Name: "watch_id", In: "path"}}},
		"create": {Name: "watches.create", Body: &api.Body{Fields: []api.Field{{Name: "company_id"}, {Name: "q"}}}},
	}
	cases := []struct {
		tl           Tool
		plain, other []string // plain: read without a decoder; other: left to request or read alike
	}{
		{brief, []string{`{"company_id":42}`, `{"company_id":"42"}`, ` { "company_id" : 42 , "max_age" : 3600 } `, `{"company_id":42,"detail":"full"}`,
			`{"company_id":42,"detail":"concise"}`, `{"company_id":-1.5e3}`, `{"company_id":true}`, `{"company_id":"a/b c?é"}`,
			`{"compan\u0079_id":42}`},
			[]string{`{"company_id":42,"detail":"all"}`, `{"company_id":42,"detail":"\u0066ull"}`, `{"company_id":42,"detail":1}`, `{"company_id":""}`,
				`{}`, ``, `null`, ` null `, `[1]`, `"x"`, `{"company_id":42,"company_id":43}`, `{"company_id":null}`, `{"company_id":[42]}`,
				`{"company_id":{"a":1}}`, `{"company_id":"4\u0032"}`, `{"colour":"red"}`, `{"X-Trace":"1"}`,
				`{"company_id":42} x`, `{"company_id":42`, "{\"company_id\":\"\xff\"}", "\u00a0{\"company_id\":42}", `{"company_id":01}`}},
		{search, []string{`{"q":"engineer","limit":3}`, `{"geo":["Germany","France"]}`, `{"geo":"Germany"}`, `{"geo":[]}`, `{"geo":[1,true,"x"]}`,
			`{"exclude_agencies":false,"q":"a b"}`, `{"q":"<b>&</b>"}`, `{}`, `null`},
			[]string{`{"geo":[["x"]]}`, `{"geo":[null]}`, `{"q":["a","b"]}`, `{"role":"x"}`, `{"q":"a\"b"}`, `{"limit":1,"limit":2}`}},
		{cancel, []string{`{"watch_id":"w1"}`, `{"watch_id":7}`}, []string{`{"watch_id":"w1","detail":"full"}`, `{}`, `null`}},
		{create, nil, []string{`{"company_id":42}`, `{"q":"x"}`, `{}`}},
	}
	read := 0
	for _, c := range cases {
		rt := routes[c.tl.Route]
		for i, raw := range append(append([]string(nil), c.plain...), c.other...) {
			want, wantDetail, problems := request(c.tl, rt, json.RawMessage(raw))
			s := shapers.Get().(*shaper)
			got, detail, ok := s.request(c.tl, rt, json.RawMessage(raw))
			what := fmt.Sprintf("%s %s", c.tl.Name, raw)
			require.Equal(t, i < len(c.plain), ok, "%s: read without a decoder", what)
			if ok {
				read++
				require.Empty(t, problems, "%s: read, though request finds problems", what)
				require.Equal(t, wantDetail, detail, what)
				require.Equal(t, want.Route, got.Route, what)
				require.Equal(t, want.Path, got.Path, what)
				require.Equal(t, want.Query, got.Query, what)
				require.Nil(t, got.Body, what)
			}
			s.release()
		}
	}
	require.Equal(t, 20, read)
	// A shaper the pool makes new (as after a collection emptied it) reads an empty array as the
	// decoder does, as one used before does.
	rt := routes[search.Route]
	want, _, _ := request(search, rt, json.RawMessage(`{"geo":[]}`))
	fresh := shapers.New().(*shaper)
	got, _, ok := fresh.request(search, rt, json.RawMessage(`{"geo":[]}`))
	require.True(t, ok)
	require.Equal(t, want.Query, got.Query, "a new shaper")
	fresh.release()
}

// What a direct call writes for a result shaped from the route's bytes (shaper.answer) is what
// the SDK's encoding of that result writes: response of plainResult of okResult.
func TestAnswerWritesTheSDKsResponse(t *testing.T) {
	t.Parallel()
	ids := []any{float64(7), "abc", float64(-3), "<b>", float64(123456789012345)} // as plainID reads them
	bodies := []string{`{}`, `{"a":"<b>&</b>","b":[1,2,3],"pulse":{"is_hiring":true}}`, `{"k\u00e9y":"v\u00e9","\u003c":"\u2028","q":"a\"b\\c\n"}`,
		`{"t":"` + strings.Repeat("é€😀", 2000) + `"}`}
	tl := Tools()[1] // company_hiring_brief
	for _, rawID := range ids {
		id, err := jsonrpc.MakeID(rawID)
		require.NoError(t, err)
		for _, body := range bodies {
			for _, detail := range []string{"concise", "full"} {
				s := shapers.Get().(*shaper)
				require.True(t, s.shape(tl, []byte(body), detail), body)
				b := append([]byte(nil), s.buf.Bytes()...)
				plain, ok := plainResult(okResult(json.RawMessage(b), string(b)))
				require.True(t, ok)
				want, err := response(id, plain)
				require.NoError(t, err)
				got, err := s.answer(id)
				require.NoError(t, err)
				require.Equal(t, string(want), string(got), "%v %s", rawID, body)
				res, err := marshal(okResult(json.RawMessage(b), string(b)))
				require.NoError(t, err)
				sdk, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: res})
				require.NoError(t, err)
				require.Equal(t, string(sdk), string(got), "%v %s: as the SDK encodes it", rawID, body)
				s.release()
			}
		}
	}
}
