package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/require"
)

// plainCall accepts a body only where the SDK's decoder reads the same tools/call: the same id
// (encoded back the same) and params; everything else is left to the SDK.
func TestPlainCallReadsAsTheSDK(t *testing.T) {
	t.Parallel()
	accepted := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
		` {"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":null}]}},"id":"abc","jsonrpc":"2.0"} ` + "\n",
		`{"jsonrpc":"2.0","id":-42,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":999999999999999,"method":"tools/call","params":{"name":"é"}}`,
		`{"jsonrpc":"2.0","id":"","method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"x"}}`,
	}
	for _, b := range accepted {
		env, ok := plainCall([]byte(b))
		require.True(t, ok, b)
		msg, err := jsonrpc.DecodeMessage([]byte(b))
		require.NoError(t, err, b)
		req := msg.(*jsonrpc.Request)
		require.Equal(t, "tools/call", req.Method)
		require.Equal(t, req.ID, env.id, b)
		require.JSONEq(t, string(req.Params), string(env.params), b)
		want, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
		require.NoError(t, err)
		got, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: env.id, Result: json.RawMessage(`{}`)})
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), b)
		require.True(t, runsTool([]byte(b)), b)
	}
	left := []string{
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}`,                    // a notification
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,                       // another method
		`{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"x"}}`,            // escaped
		`{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"x"}}`,             // another case
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/call","params":{}}`, // repeated
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":01,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":9999999999999999,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":true,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{}}`,
		`{"id":1,"method":"tools/call","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{},"extra":1}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}} {}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"\xff\"}}",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`,
	}
	for _, b := range left {
		_, ok := plainCall([]byte(b))
		require.False(t, ok, b)
	}
}

// callParams takes a name and arguments only as the SDK's case-sensitive decoder reads them.
func TestCallParamsReadsOnlyPlainParams(t *testing.T) {
	t.Parallel()
	name, args, ok := callParams(json.RawMessage(`{"arguments":{"a":1},"name":"x"}`))
	require.True(t, ok)
	require.Equal(t, "x", name)
	require.JSONEq(t, `{"a":1}`, string(args))
	for _, p := range []string{`{}`, `{"Name":"x"}`, `{"name":1}`, `{"name":"x","name":"y"}`, `{"name":"x","_meta":{}}`, `{"name":"x","arguments":{},"arguments":{}}`} {
		_, _, ok := callParams(json.RawMessage(p))
		require.False(t, ok, p)
	}
}
