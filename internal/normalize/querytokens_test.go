package normalize

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// QueryTokens says when the lexer dropped words, which Tokens never does.
func TestQueryTokensReportsDroppedWords(t *testing.T) {
	t.Parallel()
	f := func(s string, words int, complete bool) {
		t.Helper()
		toks, ok := QueryTokens(s)
		if words >= 0 {
			require.Len(t, toks, words, s)
		}
		require.Equal(t, complete, ok, s)
		require.Equal(t, Tokens(s), toks)
	}
	f("", 0, true)
	f("senior backend engineer", 3, true)
	f(strings.Repeat("word ", maxLexTokens), maxLexTokens, true)
	f(strings.Repeat("word ", maxLexTokens+1), maxLexTokens, false) // the lexer's word capacity
	f(strings.Repeat("x", maxLexBytes), 1, true)                    // exactly the byte capacity
	f(strings.Repeat("x", maxLexBytes+1), 0, false)                 // one word over it
	f(strings.Repeat("evp ", 30), -1, false)                        // abbreviations overflow the word buffer
	f(strings.Repeat("界", maxLexBytes/3+1), 0, false)               // multi-byte runes count as bytes
}
