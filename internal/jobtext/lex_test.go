package jobtext

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Words keep the symbols that make them technologies, fold case and diacritics, and a dot after
// an abbreviation ends no sentence.
func TestLex(t *testing.T) {
	t.Parallel()
	d := lexDoc("Title", "C++, C#, .NET and R&D; e.g. Node.js. Prácticas Über 5+ years")
	var words []string
	for i := range d.words {
		words = append(words, d.fw(i))
	}
	require.Equal(t, []string{"title", "c++", "c#", ".net", "and", "r&d", "e", "g", "node", "js", "practicas", "uber", "5", "years"}, words)
	require.True(t, d.lines[0].title)
	require.False(t, d.lines[1].title)
	require.Equal(t, "C#", d.text(2))
	require.Equal(t, ".NET", d.text(3))
	sent := func(i int) int32 { return d.words[i].sent }
	require.Equal(t, sent(6), sent(8), "no sentence ends after e.g.")
	require.NotEqual(t, sent(9), sent(10), "a sentence ends after Node.js.")
	require.NotEqual(t, sent(5), sent(6), "a semicolon ends a sentence")
}

// Folding a word in one pass gives what folding rune by rune gives, with the same flags.
func TestFoldWord(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"Go", "GO", "go", "iOS", ".NET", "C++", "R&D", "5", "2026", "Prácticas", "ÜBER", "Zürich", "ß", "Ǆ", "x1", "İstanbul"} {
		var want []byte
		for _, r := range w {
			want = appendFold(want, r)
		}
		got, flags, hash := foldWord([]byte("pre "), w)
		require.Equal(t, "pre "+string(want), string(got), w)
		require.Equal(t, wordFlags(w), flags, w)
		require.Equal(t, keyHash(string(want)), hash, "the word table's hash of the folded word %q", w)
	}
}
