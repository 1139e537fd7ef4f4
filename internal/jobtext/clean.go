package jobtext

import (
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// DefaultMax is the bound for callers of Clean that have no other: 64 KiB, several times a long
// posting (a long one is 10–15 KB of text).
const DefaultMax = 64 << 10

// Clean turns a description as a feed sends it into plain text: an HTML fragment, HTML that was
// HTML-escaped once or twice (Greenhouse's content), text with entities, or plain text with CRLF
// line ends. Blocks (paragraphs, headings, lists, table rows) are separated by a blank line, list
// items start a line with "- " (so do lines of plain text that start with a bullet character),
// <br> breaks a line; scripts, styles, comments and the like are dropped, entities decoded,
// whitespace collapsed, invisible characters and invalid UTF-8 dropped. The result is at most max
// bytes, cut at a word boundary (inside a word of more than 256 bytes that is over half the text,
// at a rune boundary); max <= 0 means no bound. Its cost is linear in len(raw), and it stops reading once max is
// reached.
func Clean(raw string, max int) string {
	if raw == "" {
		return ""
	}
	raw = unescapeEscapedHTML(raw)
	// The text is rarely longer than its markup (tags and entities shrink, "<li>" is "- "): one
	// array of that size holds it, a finished Clean's when it is large enough (the result is
	// copied out of it).
	size := len(raw) + 16
	if max > 0 {
		size = min(size, max+utf8.UTFMax)
	}
	buf, _ := cleanBufs.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	w := writer{max: max, b: reuse(*buf, size)}
	if looksLikeHTML(raw) {
		w.html(raw)
	} else {
		w.plain(raw)
	}
	out := w.result()
	if cap(w.b) <= maxPooledClean {
		*buf = w.b[:0]
		cleanBufs.Put(buf)
	}
	return out
}

// cleanBufs holds the text arrays of finished Cleans, up to maxPooledClean bytes each.
var cleanBufs sync.Pool

const maxPooledClean = 64 << 10

// unescapeEscapedHTML decodes raw when it is HTML sent HTML-escaped ("&lt;p&gt;…"): when escaped
// tags are at least as many as real ones. Twice at most, for text escaped twice ("&amp;lt;p").
func unescapeEscapedHTML(raw string) string {
	if !hasEscapedLT(raw) {
		return raw // no escaped tag opening: countTags would count none
	}
	for range 3 {
		esc, real := countTags(raw)
		if esc == 0 || esc < real {
			return raw
		}
		raw = html.UnescapeString(raw)
	}
	return raw
}

// hasEscapedLT reports whether s has "lt;" or "LT;": from each ";" (rare outside entities).
func hasEscapedLT(s string) bool {
	for i := strings.IndexByte(s, ';'); i >= 0; {
		if i >= 2 && (s[i-2:i] == "lt" || s[i-2:i] == "LT") {
			return true
		}
		j := strings.IndexByte(s[i+1:], ';')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// countTags counts escaped tag openings ("&lt;p", "&lt;/p", "&amp;lt;p") and real ones ("<p").
func countTags(s string) (escaped, real int) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			if i+1 < len(s) && tagStart(s[i+1:]) {
				real++
			}
		case '&':
			rest := strings.TrimPrefix(s[i+1:], "amp;")
			if (strings.HasPrefix(rest, "lt;") || strings.HasPrefix(rest, "LT;")) && tagStart(rest[3:]) {
				escaped++
			}
		}
	}
	return escaped, real
}

// tagStart reports whether s starts like the inside of a tag: a letter, "/" and a letter, or "!".
func tagStart(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '!' {
		return true
	}
	if s[0] == '/' {
		s = s[1:]
	}
	return s != "" && isASCIILetter(s[0])
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// htmlTags are the element names that make a text HTML when one appears as a tag: common ones
// only, so plain text that writes "List<T>" or "a <b> c" about something else stays plain.
var htmlTags = map[string]bool{
	"p": true, "br": true, "div": true, "span": true, "ul": true, "ol": true, "li": true, "b": true,
	"strong": true, "i": true, "em": true, "u": true, "a": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "table": true, "tr": true, "td": true, "th": true, "tbody": true,
	"thead": true, "section": true, "article": true, "header": true, "footer": true, "blockquote": true,
	"pre": true, "code": true, "hr": true, "img": true, "font": true, "small": true, "sup": true,
	"sub": true, "dl": true, "dt": true, "dd": true, "script": true, "style": true, "html": true,
	"body": true, "head": true, "meta": true, "link": true, "center": true, "main": true, "nav": true,
	"figure": true, "iframe": true, "noscript": true, "svg": true, "title": true, "template": true,
}

// looksLikeHTML reports whether s has a comment or a tag of a common element.
func looksLikeHTML(s string) bool {
	for i := strings.IndexByte(s, '<'); i >= 0; {
		rest := s[i+1:]
		if strings.HasPrefix(rest, "!--") || strings.HasPrefix(rest, "!DOCTYPE") || strings.HasPrefix(rest, "!doctype") {
			return true
		}
		if rest != "" && rest[0] == '/' {
			rest = rest[1:]
		}
		n := 0
		for n < len(rest) && n < 12 && (isASCIILetter(rest[n]) || (n > 0 && rest[n] >= '0' && rest[n] <= '9')) {
			n++
		}
		if n > 0 && n < len(rest) {
			switch rest[n] {
			case '>', ' ', '/', '\t', '\n', '\r':
				if htmlTags[strings.ToLower(rest[:n])] {
					return true
				}
			}
		}
		j := strings.IndexByte(rest, '<')
		if j < 0 {
			break
		}
		i = len(s) - len(rest) + j
	}
	return false
}

// Break strengths, weakest first.
const (
	brNone = iota
	brSpace
	brLine
	brPara
)

// writer accumulates the clean text: whitespace and breaks are held back until the next visible
// character, so the text never starts or ends with one and never repeats one.
type writer struct {
	b       []byte
	max     int  // <= 0: no bound
	pending int  // the strongest break seen since the last character
	item    bool // the next character starts a list item
	lineBeg bool // nothing written on the current line yet (bullet characters are items there)
	full    bool // past max: stop
}

// brk asks for a break of strength k before the next character.
func (w *writer) brk(k int) {
	if k > w.pending {
		w.pending = k
	}
	if k >= brLine {
		w.lineBeg = true
	}
}

// listItem starts a list item on a new line.
func (w *writer) listItem() {
	w.brk(brLine)
	w.item = true
}

// flushTo writes the held-back break (none at the very start) and the item marker to b, the
// text so far, and returns it.
func (w *writer) flushTo(b []byte) []byte {
	if len(b) > 0 {
		switch w.pending {
		case brSpace:
			b = append(b, ' ')
		case brLine:
			b = append(b, '\n')
		case brPara:
			b = append(b, '\n', '\n')
		}
	}
	w.pending = brNone
	if w.item {
		b = append(b, '-', ' ')
		w.item = false
	}
	w.lineBeg = false
	return b
}

// text writes s with its whitespace collapsed into the held-back break. At the start of a line,
// a bullet character followed by a space makes the line a list item.
func (w *writer) text(s string) {
	// b is w.b, kept in a local while the text is written: a store of a slice into w (which
	// may be on the heap) costs a write barrier while the garbage collector runs.
	b := w.b
	for i := 0; i < len(s) && !w.full; {
		if c := s[i]; c < utf8.RuneSelf {
			// ASCII: a space, a bullet starting a line, or a run of visible characters written at
			// once (cut where the rune-by-rune loop would have stopped: the first byte past max).
			switch {
			case c <= ' ' || c == 0x7f:
				w.brk(brSpace)
				i++
				continue
			case w.lineBeg && (c == '-' || c == '*') && followedBySpace(s[i+1:]):
				w.item = true
				w.lineBeg = false
				i++
				continue
			}
			j := i + 1
			for j < len(s) && s[j] > ' ' && s[j] < 0x7f {
				j++
			}
			b = w.flushTo(b)
			run := s[i:j]
			if w.max > 0 && len(b)+len(run) > w.max {
				run = run[:max(1, w.max+1-len(b))] // flush may have passed max: one more
				w.full = true
			}
			b = append(b, run...)
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			continue // invalid UTF-8
		case isSpaceRune(r):
			w.brk(brSpace)
			continue
		case isInvisible(r):
			continue
		}
		if w.lineBeg && isBullet(r) && followedBySpace(s[i:]) {
			w.item = true
			w.lineBeg = false
			continue
		}
		b = w.flushTo(b)
		b = utf8.AppendRune(b, r)
		if w.max > 0 && len(b) > w.max {
			w.full = true
		}
	}
	w.b = b
}

// followedBySpace reports whether s is empty or starts with a space.
func followedBySpace(s string) bool {
	if s == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	return isSpaceRune(r)
}

// isSpaceRune reports the characters that collapse into a space: ASCII and Unicode spaces and
// every control character (a line break inside a text run is a space; lines are the caller's).
func isSpaceRune(r rune) bool {
	switch {
	case r <= ' ' || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r >= 0x80 && r < 0xa0, r == 0xa0, r == 0x1680, r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029,
		r == 0x202f, r == 0x205f, r == 0x3000, r == 0x85:
		return true
	}
	return false
}

// isInvisible reports format characters dropped from the text: zero-width spaces and joiners, the
// soft hyphen, the byte order mark, word joiners and bidirectional marks.
func isInvisible(r rune) bool {
	switch {
	case r == 0xad, r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2064,
		r == 0xfeff, r == 0xfffe, r == 0xffff:
		return true
	}
	return false
}

// isBullet reports the characters feeds start list lines with.
func isBullet(r rune) bool {
	switch r {
	case '-', '*', '•', '·', '◦', '▪', '▫', '●', '○', '■', '□', '➢', '➤', '►', '▶', '✓', '✔', '–', '—', '→', '⁃', '∙':
		return true
	}
	return false
}

// plain writes plain text: lines as lines (CRLF, CR or LF), blank lines as paragraph breaks,
// entities decoded.
func (w *writer) plain(s string) {
	if strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	blank := false
	for s != "" && !w.full {
		line := s
		s = ""
		if i := strings.IndexAny(line, "\r\n"); i >= 0 {
			next := i + 1
			if line[i] == '\r' && next < len(line) && line[next] == '\n' {
				next++
			}
			line, s = line[:i], line[next:]
		}
		if strings.TrimSpace(line) == "" {
			blank = true
			continue
		}
		if blank {
			w.brk(brPara)
		} else {
			w.brk(brLine)
		}
		blank = false
		w.text(line)
	}
}

// blockTags break the text before and after them (a paragraph break; a line break inside a list
// item).
var blockTags = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "header": true, "footer": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "ul": true, "ol": true,
	"dl": true, "table": true, "blockquote": true, "pre": true, "hr": true, "address": true,
	"aside": true, "center": true, "details": true, "summary": true, "fieldset": true, "figure": true,
	"figcaption": true, "form": true, "main": true, "nav": true, "caption": true, "dialog": true,
	"body": true, "html": true,
}

// lineTags break the line before and after them.
var lineTags = map[string]bool{"tr": true, "dt": true, "dd": true, "br": true, "option": true}

// skipTags are elements whose content is no part of the text.
var skipTags = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true, "head": true, "title": true,
	"iframe": true, "object": true, "svg": true, "math": true, "select": true, "button": true,
	"textarea": true, "canvas": true, "video": true, "audio": true, "map": true,
}

// htmlState is what an HTML fragment's tags have opened so far.
type htmlState struct {
	skip, inItem, pre int
}

// html writes an HTML fragment: read by scanHTML where it can, else by the html tokenizer.
// scanHTML reads the markup feeds send (tags, attributes, entities) into the same tokens the
// tokenizer would, and gives up on anything else (comments, doctypes, raw-text elements such as
// <script>, a tag cut off by the end, NUL bytes); then the text is written again from the start
// by the tokenizer, so the answer is the tokenizer's either way.
func (w *writer) html(s string) {
	if strings.IndexByte(s, 0) < 0 && w.scanHTML(s) {
		return
	}
	*w = writer{max: w.max, b: w.b[:0]}
	w.tokenizeHTML(s)
}

// tokenizeHTML writes an HTML fragment read by the html tokenizer.
func (w *writer) tokenizeHTML(s string) {
	z := html.NewTokenizer(strings.NewReader(s))
	var st htmlState
	for !w.full {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return
		case html.TextToken:
			if st.skip > 0 {
				continue
			}
			w.textToken(&st, string(z.Text()))
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, _ := z.TagName()
			w.tag(&st, tagKind(string(name)), tt)
		}
	}
}

// textToken writes the (decoded) text of a text token.
func (w *writer) textToken(st *htmlState, t string) {
	if st.pre > 0 {
		w.preText(t)
	} else {
		w.text(t)
	}
}

// What a tag does to the text (tagKind).
const (
	tkSkip  = 1 << iota // skipTags
	tkLine              // lineTags
	tkBlock             // blockTags
	tkRaw               // rawTextTags
	tkItem              // li
	tkCell              // td, th
	tkPre               // pre
)

// tagKinds are the kinds of every tag the maps name.
var tagKinds = func() map[string]uint8 {
	m := map[string]uint8{"li": tkItem, "td": tkCell, "th": tkCell, "pre": tkPre}
	for set, k := range map[*map[string]bool]uint8{&skipTags: tkSkip, &lineTags: tkLine, &blockTags: tkBlock, &rawTextTags: tkRaw} {
		for t := range *set {
			m[t] |= k
		}
	}
	return m
}()

// tagKind is the kind of a tag (its lower-case name); the commonest are answered without the map.
func tagKind(name string) uint8 {
	switch name {
	case "p", "div", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6":
		return tkBlock
	case "br":
		return tkLine
	case "strong", "b", "em", "i", "span", "a", "u":
		return 0
	}
	return tagKinds[name]
}

// tag applies a tag token of kind k (tagKind) to the text's breaks and the open elements.
func (w *writer) tag(st *htmlState, k uint8, tt html.TokenType) {
	start := tt != html.EndTagToken
	if k&tkSkip != 0 {
		if tt == html.StartTagToken {
			st.skip++
		} else if tt == html.EndTagToken && st.skip > 0 {
			st.skip--
		}
		return
	}
	if st.skip > 0 {
		return
	}
	switch {
	case k&tkItem != 0:
		if start {
			st.inItem++
			w.listItem()
		} else {
			if st.inItem > 0 {
				st.inItem--
			}
			w.brk(brLine)
		}
	case k&tkCell != 0:
		w.brk(brSpace)
	case k&tkLine != 0:
		w.brk(brLine)
	case k&tkBlock != 0:
		if k&tkPre != 0 {
			if tt == html.StartTagToken {
				st.pre++
			} else if tt == html.EndTagToken && st.pre > 0 {
				st.pre--
			}
		}
		if st.inItem > 0 {
			w.brk(brLine)
		} else {
			w.brk(brPara)
		}
	}
}

// rawTextTags are the elements whose content the html tokenizer reads as raw text up to their
// end tag; scanHTML leaves a fragment that opens one to the tokenizer.
var rawTextTags = map[string]bool{
	"iframe": true, "noembed": true, "noframes": true, "noscript": true, "plaintext": true, "script": true,
	"style": true, "textarea": true, "title": true, "xmp": true,
}

// scanHTML writes an HTML fragment the way tokenizeHTML does, in one pass over s without the
// tokenizer's copies, and reports whether it could: false, with w written partly, when s holds
// something only the tokenizer reads (see html). Tokens are cut where the tokenizer cuts them
// (golang.org/x/net/html's Next, readTag, readTagName, readTagAttrKey and readTagAttrVal), so
// text tokens and tag names are the same bytes.
func (w *writer) scanHTML(s string) bool {
	var st htmlState
	textStart := 0
	for i := 0; !w.full; {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 || i+j+1 >= len(s) {
			w.scanText(&st, s[textStart:])
			return true
		}
		j += i
		c := s[j+1]
		var tt html.TokenType
		nameAt := j + 1
		switch {
		case isASCIILetter(c):
			tt = html.StartTagToken
		case c == '/':
			tt = html.EndTagToken
			if j+2 >= len(s) {
				return false // "</" at the end: a text token of its own
			}
			switch c2 := s[j+2]; {
			case c2 == '>': // "</>": no token, but it ends the text before it
				w.scanText(&st, s[textStart:j])
				i, textStart = j+3, j+3
				continue
			case !isASCIILetter(c2):
				return false // a bogus comment
			}
			nameAt = j + 2
		case c == '!' || c == '?':
			return false // comments, doctypes, processing instructions
		default:
			i = j + 1 // "<" that opens nothing is text
			continue
		}
		w.scanText(&st, s[textStart:j])
		if w.full {
			return true
		}
		nameEnd, end, attrs, ok := scanTag(s, nameAt)
		if !ok {
			return false
		}
		name := s[nameAt:nameEnd]
		if hasUpperASCII(name) {
			name = lowerASCII(name) // as TagName: ASCII letters only
		}
		k := tagKind(name)
		if tt == html.StartTagToken {
			if k&tkRaw != 0 {
				return false
			}
			if s[end-2] == '/' {
				if attrs && k&(tkSkip|tkPre) != 0 {
					return false // self-closing or not depends on the last attribute's value
				}
				if !attrs {
					tt = html.SelfClosingTagToken
				}
			}
		}
		w.tag(&st, k, tt)
		i, textStart = end, end
	}
	return true
}

// scanText writes one text token: its line ends made "\n" and its entities decoded, as the
// tokenizer's Text does.
func (w *writer) scanText(st *htmlState, t string) {
	if t == "" || st.skip > 0 {
		return
	}
	if strings.IndexByte(t, '\r') >= 0 {
		t = strings.ReplaceAll(t, "\r\n", "\n")
		t = strings.ReplaceAll(t, "\r", "\n")
	}
	if strings.IndexByte(t, '&') >= 0 {
		t = html.UnescapeString(t)
	}
	w.textToken(st, t)
}

// hasUpperASCII reports whether s has an upper-case ASCII letter.
func hasUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// lowerASCII is s with its upper-case ASCII letters made lower case, and nothing else changed.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// isTagSpace reports the bytes the html tokenizer skips inside a tag.
func isTagSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' }

// scanTag reads a tag whose name starts at s[p] (its first byte a letter) as the html tokenizer
// does: the name's end, the index after its ">", whether it has an attribute with a name, and
// false when s ends inside it.
func scanTag(s string, p int) (nameEnd, end int, attrs, ok bool) {
	k := p + 1
	for {
		if k >= len(s) {
			return 0, 0, false, false
		}
		c := s[k]
		if isTagSpace(c) {
			nameEnd = k
			k++
			break
		}
		if c == '/' || c == '>' {
			nameEnd = k
			break
		}
		k++
	}
	skipSpace := func() bool {
		for k < len(s) && isTagSpace(s[k]) {
			k++
		}
		return k < len(s)
	}
	if !skipSpace() {
		return 0, 0, false, false
	}
	for {
		c := s[k]
		k++
		if c == '>' {
			return nameEnd, k, attrs, true
		}
		k--
		// The attribute's name.
		keyStart := k
		for {
			if k >= len(s) {
				return 0, 0, false, false
			}
			c := s[k]
			k++
			if c == '=' && keyStart+1 == k {
				continue // "=" first is part of the name
			}
			if c == '=' || isTagSpace(c) || c == '/' || c == '>' {
				k--
				break
			}
		}
		if k > keyStart {
			attrs = true
		}
		// Its value.
		if !skipSpace() {
			return 0, 0, false, false
		}
		c = s[k]
		k++
		switch {
		case c == '/':
		case c != '=':
			k--
		default:
			if !skipSpace() {
				return 0, 0, false, false
			}
			q := s[k]
			k++
			switch q {
			case '>':
				k--
			case '\'', '"':
				e := strings.IndexByte(s[k:], q)
				if e < 0 {
					return 0, 0, false, false
				}
				k += e + 1
			default:
				for {
					if k >= len(s) {
						return 0, 0, false, false
					}
					c := s[k]
					k++
					if isTagSpace(c) {
						break
					}
					if c == '>' {
						k--
						break
					}
				}
			}
		}
		if !skipSpace() {
			return 0, 0, false, false
		}
	}
}

// preText writes the text of a <pre> element: its line breaks kept as lines.
func (w *writer) preText(s string) {
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			w.brk(brLine)
		}
		w.text(line)
	}
}

// result is the written text cut to max at a word boundary.
func (w *writer) result() string {
	b := w.b
	if w.max > 0 && len(b) > w.max {
		cut := w.max
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		if b[cut] != ' ' && b[cut] != '\n' {
			// Inside a word: back to the space before it, unless that word is longer than
			// maxWordCut and more than half the text (a run of junk, not a word).
			if j := lastSpace(b[:cut]); j > 0 && (cut-j <= maxWordCut || j > cut/2) {
				cut = j
			}
		}
		b = b[:cut]
		for {
			n := len(b)
			for n > 0 && (b[n-1] == ' ' || b[n-1] == '\n') {
				n--
			}
			if n > 0 && b[n-1] == '-' && (n == 1 || b[n-2] == '\n') {
				n-- // a list marker whose item was cut off
			}
			if n == len(b) {
				break
			}
			b = b[:n]
		}
	}
	return string(b)
}

// maxWordCut is the longest word Clean drops whole when max falls inside it.
const maxWordCut = 256

// lastSpace is the index of the last space or line break in b, or -1.
func lastSpace(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ' ' || b[i] == '\n' {
			return i
		}
	}
	return -1
}
