package jobtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// The lexer turns a title and a clean text into words, lines and sentences. Every table phrase
// goes through the same lexer when the tables are built, so a phrase matches the text it was
// written as whatever its punctuation ("Node.js", "NodeJS" and "node js" are the words the table
// says). A word is a run of letters, digits and marks, plus: a leading dot before letters
// (".NET"), "+" or "#" after a single letter ("C++", "C#", "F#"), and "&" between short runs of
// letters ("R&D", "AT&T", "P&L", which are then never "R" or "D").

// Gaps: what separates a word from the one before it.
const (
	gapStart = iota // the first word of a line
	gapSpace        // whitespace only
	gapGlue         // nothing, or one joiner: . - / _ ' ’
	gapHard         // any other punctuation
)

// Word flags.
const (
	wCap   = 1 << iota // the first letter is upper case
	wUpper             // every letter is upper case (and there is one)
	wNum               // digits only
	wDigit             // an ASCII digit at least
)

// word is one word of a doc.
type word struct {
	lo, hi int32 // span in doc.src
	a, b   int32 // span of the folded word in doc.low
	gapLo  int32 // start of the gap before the word in doc.src
	sent   int32 // sentence index
	line   int32 // line index
	gap    uint8
	flags  uint8
}

// line is one non-blank line of a doc.
type line struct {
	first, end int32 // words [first, end)
	lo, hi     int32 // span in doc.src
	item       bool  // a list item ("- ")
	title      bool  // a line of the title
	sec        uint8 // the section the line is in
}

// sentence is a run of words of one line between sentence ends (. ! ? ; | …).
type sentence struct {
	first, end int32
	line       int32
}

// doc is a lexed title and text.
type doc struct {
	src    string // title, a blank line, text
	low    string // the folded words, joined by single spaces
	words  []word
	lines  []line
	sents  []sentence
	lowBuf []byte   // low's array (a doc lexed again builds its low in it)
	srcBuf []byte   // src's array when it joins a title and a text
	hashes []uint64 // per word: hashWord of its folded form
	// tab is the word table words are looked up in as they are lexed (nil: not looked up, as
	// when the table's own phrases are lexed); ents and cls are per word its entry's index in
	// tab.entries plus one (0: none) and its classes.
	tab  *wordTab
	ents []int32
	cls  []uint8
}

// lexDoc lexes a title and a text (Clean's output or any plain text).
func lexDoc(title, text string) *doc {
	d := &doc{}
	d.lex(title, text)
	return d
}

// lex lexes a title and a text into d, reusing the slices d holds from an earlier text.
func (d *doc) lex(title, text string) {
	src := text
	titleEnd := 0
	if title != "" {
		// The title, a blank line and the text, in the doc's buffer: src lives until the doc
		// lexes its next text (Derive copies what it returns from it).
		b := reuse(d.srcBuf, len(title)+2+len(text))
		b = append(append(append(b, title...), "\n\n"...), text...)
		d.srcBuf = b
		src = unsafe.String(unsafe.SliceData(b), len(b))
		titleEnd = len(title)
	}
	d.src = src
	d.words = reuse(d.words, len(src)/5+4)
	d.hashes = reuse(d.hashes, len(src)/5+4)
	d.ents = reuse(d.ents, len(src)/5+4)
	d.cls = reuse(d.cls, len(src)/5+4)
	d.lines, d.sents = d.lines[:0], d.sents[:0]
	low := reuse(d.lowBuf, len(src)+len(src)/8)
	for lo := 0; lo < len(src); {
		hi := strings.IndexByte(src[lo:], '\n')
		if hi < 0 {
			hi = len(src)
		} else {
			hi += lo
		}
		low = d.lexLine(lo, hi, lo < titleEnd || (titleEnd > 0 && lo == 0), low)
		lo = hi + 1
	}
	d.low = unsafe.String(unsafe.SliceData(low), len(low)) // low's array, until the next lex
	d.lowBuf = low
}

// reuse returns s emptied when it can hold n elements, else a new slice of capacity n.
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}

// resize returns s with n zero elements, reusing its array when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// lexLine lexes src[lo:hi] as one line (skipped when it has no word).
func (d *doc) lexLine(lo, hi int, title bool, low []byte) []byte {
	s := d.src
	first := len(d.words)
	ln := int32(len(d.lines))
	sentStart := first
	prevHi := lo
	// The words and hashes are appended to locals and stored back once: a store of a slice into
	// d (on the heap) costs a write barrier while the garbage collector runs.
	words, hashes, ents, cls := d.words, d.hashes, d.ents, d.cls
	sent := int32(len(d.sents)) // the sentence the next word is in
	for i := lo; i < hi; {
		for i < hi && s[i] < utf8.RuneSelf && s[i] != '.' && !isASCIIAlnum(s[i]) {
			i++ // ASCII space and punctuation: no word starts there
		}
		if i >= hi {
			break
		}
		// An ASCII word ending before a byte that cannot extend it (not a word rune, "&", "+"
		// or "#") is read, folded and hashed in one pass; any other is nextWord's and foldWord's.
		start, end := i, -1
		sep := len(low)
		var flags uint8
		var h, wpk uint64 // the folded word's hash and packKey
		if isASCIIAlnum(s[i]) {
			if len(low) > 0 {
				low = append(low, ' ')
			}
			letters, upper, digits := 0, 0, 0
			var pk uint64 // packKey of the folded word, its first 7 bytes while they are read
			j := i
			for ; j < hi; j++ {
				c := s[j]
				switch {
				case c >= 'a' && c <= 'z':
					letters++
				case c >= 'A' && c <= 'Z':
					letters++
					upper++
					c += 'a' - 'A'
				case c >= '0' && c <= '9':
					digits++
				default:
					goto done
				}
				low = append(low, c)
				if n := j - i; n < 7 {
					pk |= uint64(c) << (8 * n)
				}
			}
		done:
			if j == hi || s[j] < utf8.RuneSelf && s[j] != '&' && s[j] != '+' && s[j] != '#' || s[j] >= utf8.RuneSelf && !startsWordRune(s[j:hi]) {
				end = j
				if n := j - i; n <= 7 {
					pk |= uint64(n) << 56
				} else {
					pk = longKey
				}
				wpk = pk
				h = hashWord(unsafe.String(unsafe.SliceData(low[len(low)-(j-i):]), j-i), pk)
				if s[i] >= 'A' && s[i] <= 'Z' {
					flags |= wCap
				}
				if letters > 0 && upper == letters {
					flags |= wUpper
				}
				if digits == j-i {
					flags |= wNum
				}
				if digits > 0 {
					flags |= wDigit
				}
			} else {
				low = low[:sep]
			}
		}
		if end < 0 {
			start, end = nextWord(s, i, hi)
			if start < 0 {
				break
			}
		}
		gap := uint8(gapStart)
		switch {
		case len(words) == first:
		case start-prevHi == 1 && s[prevHi] == ' ':
			gap = gapSpace // the commonest gap, as classifyGap answers it
		default:
			g, brk := classifyGap(s[prevHi:start])
			if brk && !strings.ContainsAny(s[prevHi:start], "!?;|…") && prevWordIsAbbrev(s, words, low) {
				brk = false // "e.g. Python", "z.B. Java", "etc. and"
			}
			gap = g
			if brk {
				d.sents = append(d.sents, sentence{first: int32(sentStart), end: int32(len(words)), line: ln})
				sentStart = len(words)
				sent++
			}
		}
		wa := sep // where the folded word starts in low: after the space before it
		if sep > 0 {
			wa++
		}
		if len(low) == sep { // not folded above
			if len(low) > 0 {
				low = append(low, ' ')
			}
			low, flags, h = foldWord(low, s[start:end])
			wpk = packKey(unsafe.String(unsafe.SliceData(low[wa:]), len(low)-wa))
		}
		hashes = append(hashes, h)
		if d.tab != nil {
			ent, cl := d.tab.find(h, unsafe.String(unsafe.SliceData(low[wa:]), len(low)-wa), wpk)
			ents, cls = append(ents, ent+1), append(cls, cl)
		}
		words = append(words, word{lo: int32(start), hi: int32(end), a: int32(wa), b: int32(len(low)), gapLo: int32(prevHi),
			sent: sent, line: ln, gap: gap, flags: flags})
		prevHi = end
		i = end
	}
	d.words, d.hashes, d.ents, d.cls = words, hashes, ents, cls
	if len(d.words) == first {
		return low
	}
	d.sents = append(d.sents, sentence{first: int32(sentStart), end: int32(len(d.words)), line: ln})
	k := lo
	for k < hi && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	item := hi-k >= 2 && s[k] == '-' && s[k+1] == ' ' // "- " after the line's blanks
	d.lines = append(d.lines, line{first: int32(first), end: int32(len(d.words)), lo: int32(lo), hi: int32(hi), item: item, title: title})
	return low
}

// prevWordIsAbbrev reports whether the last word (its folded form in low) is an abbreviation whose dot ends
// no sentence ("e.g.", "z.B.", "etc.", "ca.").
func prevWordIsAbbrev(src string, words []word, low []byte) bool {
	n := len(words)
	if n == 0 {
		return false
	}
	w := words[n-1]
	fw := string(low[w.a:w.b])
	if abbrevs[fw] {
		return true
	}
	// The last letter of a dotted abbreviation: "e.g", "i.e", "z.B", "p.a".
	return len(fw) == 1 && w.gap == gapGlue && w.gapLo < w.lo && src[w.gapLo] == '.'
}

// abbrevs are words written with a dot that ends no sentence.
var abbrevs = map[string]bool{
	"etc": true, "bzw": true, "ca": true, "inkl": true, "zzgl": true, "vs": true, "approx": true,
	"min": true, "max": true, "mind": true, "dr": true, "mr": true, "mrs": true, "ms": true, "jr": true,
	"sr": true, "st": true, "no": true, "nr": true, "incl": true, "resp": true, "usw": true, "evtl": true,
	"ggf": true, "sog": true, "env": true, "cf": true, "mme": true, "mlle": true, "sra": true,
	"aprox": true, "p": true, "yrs": true, "mo": true, "mos": true, "hr": true, "hrs": true, "wk": true,
}

// nextWord finds the next word in s[i:hi]: its span, or -1.
func nextWord(s string, i, hi int) (start, end int) {
	start = -1
	for i < hi {
		if c := s[i]; c < utf8.RuneSelf && c != '.' && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			i++ // ASCII punctuation or space
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:hi])
		if isWordRune(r) {
			start = i
			break
		}
		if r == '.' && i+1 < hi && isASCIILetter(s[i+1]) && (i == 0 || !isWordByteBefore(s, i)) {
			start = i // ".NET"
			i++
			break
		}
		i += size
	}
	if start < 0 {
		return -1, -1
	}
	runes := 0
	for i < hi {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				runes++
				i++
				continue
			}
			if c != '&' {
				break
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:hi])
		if isWordRune(r) {
			runes++
			i += size
			continue
		}
		if r == '&' && runes > 0 && runes <= 2 && i+1 < hi && isASCIILetter(s[i+1]) {
			runes = 0
			i++
			continue
		}
		break
	}
	if runes == 1 && i-start == 1 && isASCIILetter(s[start]) && i < hi && (s[i] == '+' || s[i] == '#') {
		i++
		if i < hi && s[i] == '+' {
			i++
		}
	}
	return start, i
}

// startsWordRune reports whether s starts with a word rune.
func startsWordRune(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isWordRune(r)
}

// isASCIIAlnum reports ASCII letters and digits, the ASCII word bytes.
func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isWordByteBefore reports whether the rune ending just before s[i] is a word rune.
func isWordByteBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return isWordRune(r)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// classifyGap classifies the text between two words of a line and reports whether it ends a
// sentence (a dot after an abbreviation is the caller's to forgive).
func classifyGap(g string) (kind uint8, sentenceEnd bool) {
	if len(g) == 1 { // the commonest gaps, as the cases below answer them
		switch g[0] {
		case ' ', '\t', '\r', '%', '&':
			return gapSpace, false
		case '.', '-', '/', '_', '\'':
			return gapGlue, false
		case '!', '?', ';', '|':
			return gapHard, true
		}
		return gapHard, false
	}
	if len(g) == 2 && g[1] == ' ' {
		switch g[0] {
		case ',', ':', ')':
			return gapHard, false
		case '.', '!', '?', ';', '|':
			return gapHard, true
		}
	}
	switch g {
	case "", ".", "-", "/", "_", "'", "’":
		return gapGlue, false
	}
	// Whitespace, "%" ("100% remote" reads as "100 remote") and a spaced "&" ("Weights & Biases").
	space := true
	for i := 0; i < len(g); i++ {
		if g[i] != ' ' && g[i] != '\t' && g[i] != '\r' && g[i] != '%' && g[i] != '&' {
			space = false
			break
		}
	}
	if space {
		return gapSpace, false
	}
	if strings.ContainsAny(g, "!?;|…") {
		return gapHard, true
	}
	if strings.IndexByte(g, '.') >= 0 {
		return gapHard, true
	}
	return gapHard, false
}

// foldWord appends the folded form of w to low and returns it with w's flags and the hash of
// the folded form (hashWord); one pass, ASCII without decoding.
func foldWord(low []byte, w string) ([]byte, uint8, uint64) {
	letters, upper, digits := 0, 0, 0
	ascii := true
	start := len(low)
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= utf8.RuneSelf:
			ascii = false
		case c >= 'A' && c <= 'Z':
			letters++
			upper++
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z':
			letters++
		case c >= '0' && c <= '9':
			digits++
		}
		if !ascii {
			break
		}
		low = append(low, c)
	}
	if !ascii {
		low = low[:start]
		for _, r := range w {
			low = appendFold(low, r)
		}
		f := unsafe.String(unsafe.SliceData(low[start:]), len(low)-start) // read before low grows
		return low, wordFlags(w), hashWord(f, packKey(f))
	}
	var f uint8
	if len(w) > 0 && (w[0] >= 'A' && w[0] <= 'Z' || len(w) > 1 && w[0] == '.' && w[1] >= 'A' && w[1] <= 'Z') {
		f |= wCap
	}
	if letters > 0 && upper == letters {
		f |= wUpper
	}
	if digits == len(w) {
		f |= wNum
	}
	if digits > 0 {
		f |= wDigit
	}
	folded := unsafe.String(unsafe.SliceData(low[start:]), len(low)-start) // read before low grows
	return low, f, hashWord(folded, packKey(folded))
}

// wordFlags computes the case and digit flags of a word as written.
func wordFlags(w string) uint8 {
	var f uint8
	letters, upper, digits, n := 0, 0, 0, 0
	for i, r := range w {
		n++
		switch {
		case unicode.IsLetter(r):
			letters++
			if unicode.IsUpper(r) {
				upper++
				if i == 0 || (i == 1 && w[0] == '.') {
					f |= wCap
				}
			}
		case r >= '0' && r <= '9':
			digits++
		}
	}
	if letters > 0 && upper == letters {
		f |= wUpper
	}
	if digits == n {
		f |= wNum
	}
	if digits > 0 {
		f |= wDigit
	}
	return f
}

// text is the word as written; fw its folded form.
func (d *doc) text(i int) string { w := d.words[i]; return d.src[w.lo:w.hi] }
func (d *doc) fw(i int) string   { w := d.words[i]; return d.low[w.a:w.b] }

// gapText is the text between word i and the one before it on its line.
func (d *doc) gapText(i int) string { w := d.words[i]; return d.src[w.gapLo:w.lo] }

// sameSent reports whether word j exists and is in word i's sentence.
func (d *doc) sameSent(i, j int) bool {
	return j >= 0 && j < len(d.words) && d.words[j].sent == d.words[i].sent
}

// num is the value of word i when it is a small number written in digits, else -1.
func (d *doc) num(i int) int {
	if i < 0 || i >= len(d.words) || d.words[i].flags&wNum == 0 {
		return -1
	}
	t := d.text(i)
	if len(t) > 4 {
		return -1
	}
	n := 0
	for j := 0; j < len(t); j++ {
		n = n*10 + int(t[j]-'0')
	}
	return n
}
