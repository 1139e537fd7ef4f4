package jsonw_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/jsonw"
)

// encoded is what encoding/json writes for s (a newline after it), HTML-escaped or not.
func encoded(t *testing.T, s string, html bool) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	require.NoError(t, enc.Encode(s))
	return b.String()
}

func TestStringsAreEncodingJSONsOwn(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "acme", `quo"te \ back`, "<key> & co", "tab\tnew\nline\r\b\f\x00\x1f\x7f",
		"Zürich 東京", "bad \xff utf-8 \xc3", "line\u2028para\u2029", "emoji 🙂"} {
		require.Equal(t, "x"+encoded(t, s, false), string(jsonw.AppendString([]byte("x"), s))+"\n", "string %q", s)
		for _, html := range []bool{false, true} {
			require.Equal(t, encoded(t, s, html), `"`+string(jsonw.AppendEscaped(nil, []byte(s), html))+`"`+"\n", "string %q, html %v", s, html)
		}
	}
}

func FuzzAppendEscaped(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff", "\u2028", "\x00", "<&>"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, html bool) {
		require.Equal(t, encoded(t, s, html), `"`+string(jsonw.AppendEscaped(nil, s, html))+`"`+"\n")
	})
}
