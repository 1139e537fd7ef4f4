package jobtext

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// Descriptions as feeds send them become plain text with paragraphs and list items.
func TestClean(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", ""},
		{"html blocks and lists",
			"<p>We build <b>payments</b>&nbsp;infrastructure.</p><h2>Requirements</h2><ul><li>Go</li><li><p>PostgreSQL</p></li></ul><p>Apply now.</p>",
			"We build payments infrastructure.\n\nRequirements\n\n- Go\n- PostgreSQL\n\nApply now."},
		{"greenhouse content, escaped once",
			"&lt;div class=&quot;content-intro&quot;&gt;&lt;p&gt;Tom &amp;amp; Jerry&lt;/p&gt;&lt;/div&gt;&lt;ul&gt;&lt;li&gt;Kafka&lt;/li&gt;&lt;/ul&gt;",
			"Tom & Jerry\n\n- Kafka"},
		{"escaped twice", "&amp;lt;p&amp;gt;Hello&amp;lt;/p&amp;gt;&amp;lt;p&amp;gt;World&amp;lt;/p&amp;gt;", "Hello\n\nWorld"},
		{"scripts styles comments dropped",
			"<style>p{color:red}</style><p>Visible</p><script>var x = '<p>hidden</p>';</script><!-- <p>comment</p> --><noscript>no</noscript><p>Text</p>",
			"Visible\n\nText"},
		{"br and entities", "Line one<br>Line two<br/><br/>Caf&eacute; &amp; cr&egrave;me &#8211; &#x2713;", "Line one\nLine two\nCafé & crème – ✓"},
		{"nested lists and divs", "<div><div>Intro</div><ol><li>First<ul><li>inner</li></ul></li><li>Second</li></ol></div>", "Intro\n\n- First\n- inner\n- Second"},
		{"table rows", "<table><tr><td>Salary</td><td>€60k</td></tr><tr><td>Place</td><td>Berlin</td></tr></table>", "Salary €60k\nPlace Berlin"},
		{"pre keeps lines", "<pre>a  b\nc</pre>", "a b\nc"},
		{"plain crlf and bullets", "Requirements\r\n\r\n\r\n• Go\r\n* Rust\r\n- SQL\r\n·  Kafka\r\nDone", "Requirements\n\n- Go\n- Rust\n- SQL\n- Kafka\nDone"},
		{"plain text with angle brackets stays plain", "Generics like List<T> and a < b > c", "Generics like List<T> and a < b > c"},
		{"plain entities", "R&amp;D &quot;team&quot;", "R&D \"team\""},
		{"whitespace collapsed", "  a \t\t b \u00a0 c\u2003d  ", "a b c d"},
		{"invisible characters dropped", "Ja\u200bva\u00adScript\ufeff", "JavaScript"},
		{"invalid utf-8 dropped", "ab\xffcd\xc3", "abcd"},
		{"bullet html text", "<p>• Python<br>• Go</p>", "- Python\n- Go"},
		{"empty items vanish", "<ul><li></li><li> </li><li>x</li></ul>", "- x"},
		{"cr only line ends", "a\rb\r\rc", "a\nb\n\nc"},
	} {
		got := Clean(c.in, 0)
		require.Equal(t, c.want, got, c.name)
		require.Equal(t, got, Clean(got, 0), "%s: clean text is a fixed point", c.name)
	}
}

// The bound is in bytes and falls at a word boundary, or at a rune boundary inside a long run.
func TestCleanBound(t *testing.T) {
	t.Parallel()
	require.Equal(t, "hello", Clean("hello wonderful world", 14))
	require.Equal(t, "hello wonderful", Clean("hello wonderful world", 15))
	require.Equal(t, "hello wonderful world", Clean("hello wonderful world", 21))
	require.Equal(t, "hello wonderful world", Clean("hello wonderful world", 0), "0 is no bound")
	require.Equal(t, "- aaa", Clean("<ul><li>aaa</li><li>bbbbbbbb</li></ul>", 9), "no dangling list marker")
	require.Equal(t, "Intro", Clean("<p>Intro</p><p>Second paragraph</p>", 10), "no dangling break")
	long := strings.Repeat("é", 1000)
	got := Clean(long, 101)
	require.True(t, utf8.ValidString(got))
	require.Equal(t, strings.Repeat("é", 50), got, "a run of junk is cut at a rune boundary")
	// Reading stops at the bound: a huge input bounded small costs little and stays small.
	huge := strings.Repeat("<p>word word word</p>", 200_000)
	require.Equal(t, "word word", Clean(huge, 12))
}

// Descriptions the feeds sent in each shape give the same text.
func TestCleanShapesAgree(t *testing.T) {
	t.Parallel()
	html := "<p>About us</p><ul><li>Go &amp; Rust</li><li>Remote</li></ul>"
	escaped := strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;").Replace(html)
	plain := "About us\r\n\r\n• Go & Rust\r\n• Remote\r\n"
	want := "About us\n\n- Go & Rust\n- Remote"
	require.Equal(t, want, Clean(html, 0))
	require.Equal(t, want, Clean(escaped, 0))
	require.Equal(t, want, Clean(plain, 0))
}
