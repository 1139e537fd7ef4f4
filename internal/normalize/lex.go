package normalize

import (
	"unicode"
	"unicode/utf8"
)

// The lexer is the one place where raw text becomes words. Titles, company
// names, countries, locations and search text all go through it, so a key built
// from a table entry at start-up always equals the key built from the same text
// at run time.
//
// Words are folded: lower case, Latin diacritics removed ("Zürich" → "zurich"),
// apostrophes inside a word dropped ("d'Ivoire" → "divoire"), dotted
// single-letter acronyms joined ("U.S." → "us", "S.p.A." → "spa"), "&" made the
// word "and", "C++" → "cpp", "C#" → "csharp", ".NET" → "dotnet". Every other
// character separates words. The folded words are written to buf separated by
// one space, so the text of tokens i..j is the single slice buf[toks[i].a:toks[j].b]
// and multi-word table lookups need no allocation.
//
// Besides the words, the lexer records the structure titles need: segments
// (text between strong separators: , ; | a spaced dash, an en or em dash,
// brackets), bracket groups, the raw byte before each word and whether the word
// was written in capitals.
//
// The lexer keeps everything in fixed arrays, so a lexer declared in a
// function stays on its stack and lexing allocates nothing. (Slices appended
// through a pointer would make the escape analysis move every lexer to the
// heap.) Text beyond the capacity (maxLexTokens words or maxLexBytes folded
// bytes, far more than any real title or name) is ignored.

const (
	maxLexTokens = 48
	maxLexBytes  = 384
	maxLexSegs   = 16
	maxLexGroups = 8
	maxLexCuts   = 8
)

// token is one word of a lexed text.
type token struct {
	a, b   int  // folded text is buf[a:b]
	ra, rb int  // byte span of the word in the raw text
	seg    int  // index into segs
	grp    int  // bracket group (1-based index into grps), 0 outside brackets
	pre    byte // raw byte just before the word, 0 at the start
	upper  bool // every letter of the raw word is upper case (and it has one)
	drop   bool // removed by a title rule (gender tag, location suffix)
}

// segment is a run of tokens between strong separators.
type segment struct {
	first, last int // token indexes, inclusive
	cut         int // raw offset of the separator that opened the segment
}

// group is one top-level bracket pair.
type group struct {
	open, close int // raw offsets of the brackets; close is len(src) when unclosed
}

// lexer holds one lexed text.
type lexer struct {
	src                       string
	nbuf, nt, nseg, ngrp, nct int
	full                      bool // capacity reached; the rest of src is ignored
	buf                       [maxLexBytes]byte
	toks                      [maxLexTokens]token
	segs                      [maxLexSegs]segment
	grps                      [maxLexGroups]group
	cuts                      [maxLexCuts][2]int // raw ranges removed by title rules (CleanTitle)
}

// text0 is the folded text of all tokens, joined by single spaces.
func (l *lexer) text0() []byte { return l.buf[:l.nbuf] }

// put appends one folded byte.
func (l *lexer) put(c byte) {
	if l.nbuf < len(l.buf) {
		l.buf[l.nbuf] = c
		l.nbuf++
	} else {
		l.full = true
	}
}

func (l *lexer) putString(s string) {
	for i := 0; i < len(s); i++ {
		l.put(s[i])
	}
}

// addCut records a raw range removed by a title rule.
func (l *lexer) addCut(from, to int) {
	if l.nct < len(l.cuts) {
		l.cuts[l.nct] = [2]int{from, to}
		l.nct++
	}
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isASCIILetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isWordRune reports whether r is part of a word.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// lex splits s into folded words. It replaces whatever l held before.
func (l *lexer) lex(s string) {
	l.src = s
	l.nbuf, l.nt, l.nseg, l.ngrp, l.nct, l.full = 0, 0, 0, 0, 0, false
	depth := 0
	grp := 0
	cut := -1 // offset of a pending strong separator, -1 when none
	brk := func(i int) {
		if cut < 0 {
			cut = i
		}
	}
	for i := 0; i < len(s) && !l.full; {
		c := s[i]
		if c < utf8.RuneSelf {
			if isASCIIAlnum(c) {
				i = l.word(s, i, grp, &cut)
				continue
			}
			switch c {
			case ',', ';', '|':
				brk(i)
			case '(', '[', '{':
				brk(i)
				depth++
				if depth == 1 && l.ngrp < len(l.grps) {
					l.grps[l.ngrp] = group{open: i, close: len(s)}
					l.ngrp++
					grp = l.ngrp
				}
			case ')', ']', '}':
				if depth > 0 {
					depth--
					if depth == 0 && grp > 0 {
						l.grps[grp-1].close = i
						grp = 0
					}
				}
				brk(i + 1)
			case '-':
				if spaceBefore(s, i) || spaceAfter(s, i+1) {
					brk(i)
				}
			case '&':
				// An HTML entity left in by a feed: "&amp;" is "and", others separate.
				if n := entityLen(s[i:]); n > 0 {
					if n == len("&amp;") && equalFoldASCII(s[i:i+n], "&amp;") {
						l.addToken("and", i, i+n, grp, &cut, false)
					}
					i += n
					continue
				}
				l.addToken("and", i, i+1, grp, &cut, false)
			case '.':
				// ".NET" (not "ASP.NET", which lexes as "asp net").
				if (i == 0 || !isASCIIAlnum(s[i-1])) && i+4 <= len(s) && equalFoldASCII(s[i+1:i+4], "net") &&
					(i+4 == len(s) || !isASCIIAlnum(s[i+4])) {
					l.addToken("dotnet", i, i+4, grp, &cut, false)
					i += 4
					continue
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isWordRune(r) && !isApostrophe(r) {
			i = l.word(s, i, grp, &cut)
			continue
		}
		switch r {
		case '–', '—', '·', '•', '｜', '│':
			brk(i)
		}
		i += size
	}
}

// entityLen returns the length of the HTML entity ("&amp;", "&#39;") that s
// starts with, or 0.
func entityLen(s string) int {
	for i := 1; i < len(s) && i <= 8; i++ {
		c := s[i]
		if c == ';' {
			if i == 1 {
				return 0
			}
			return i + 1
		}
		if !isASCIIAlnum(c) && !(i == 1 && c == '#') {
			return 0
		}
	}
	return 0
}

// spaceBefore reports whether s[:i] ends with white space (a no-break space
// included).
func spaceBefore(s string, i int) bool {
	return i > 0 && isSpace(s[i-1]) || i > 1 && s[i-2] == 0xc2 && s[i-1] == 0xa0
}

// spaceAfter reports whether s[i:] starts with white space (a no-break space
// included).
func spaceAfter(s string, i int) bool {
	return i < len(s) && isSpace(s[i]) || i+1 < len(s) && s[i] == 0xc2 && s[i+1] == 0xa0
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// addToken appends a synthetic token with folded text w.
func (l *lexer) addToken(w string, ra, rb, grp int, cut *int, upper bool) {
	if l.nbuf > 0 {
		l.put(' ')
	}
	a := l.nbuf
	l.putString(w)
	l.push(a, ra, rb, grp, cut, upper)
}

// push records the token whose folded text is buf[a:nbuf].
func (l *lexer) push(a, ra, rb, grp int, cut *int, upper bool) {
	if l.full || l.nt == len(l.toks) {
		l.full = true
		l.nbuf = 0 // drop the partial word
		if l.nt > 0 {
			l.nbuf = l.toks[l.nt-1].b
		}
		return
	}
	var pre byte
	if ra > 0 {
		pre = l.src[ra-1]
	}
	idx := l.nt
	if l.nseg == 0 || *cut >= 0 && l.nseg < len(l.segs) {
		c := *cut
		if c < 0 {
			c = 0
		}
		l.segs[l.nseg] = segment{first: idx, last: idx, cut: c}
		l.nseg++
	} else {
		l.segs[l.nseg-1].last = idx
	}
	*cut = -1
	l.toks[idx] = token{a: a, b: l.nbuf, ra: ra, rb: rb, seg: l.nseg - 1, grp: grp, pre: pre, upper: upper}
	l.nt++
}

// word lexes the word starting at s[i] and returns the offset after it.
func (l *lexer) word(s string, i, grp int, cut *int) int {
	start := i
	if l.nbuf > 0 {
		l.put(' ')
	}
	a := l.nbuf
	upper, letter := true, false
	piece := 0 // letters since the word start or the last joined dot
loop:
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z':
				upper, letter = false, true
				l.put(c)
				i++
				piece++
				continue
			case 'A' <= c && c <= 'Z':
				letter = true
				l.put(c + ('a' - 'A'))
				i++
				piece++
				continue
			case '0' <= c && c <= '9':
				l.put(c)
				i++
				piece += 2 // digits never start a dotted acronym
				continue
			case c == '\'' || c == '`':
				if i+1 < len(s) && letter && startsWord(s[i+1:]) {
					i++
					continue
				}
			case c == '.':
				// Join dotted single-letter acronyms: "U.S.", "B.V.", "o.o.".
				if piece == 1 && loneLetter(s[i+1:]) {
					i++
					piece = 0
					continue
				}
			}
			break loop
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isApostrophe(r) {
			if i+size < len(s) && letter && startsWord(s[i+size:]) {
				i += size
				continue
			}
			break loop
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if unicode.IsLower(r) {
				upper = false
			}
			if unicode.IsLetter(r) {
				letter = true
			}
			l.putFolded(r)
			i += size
			piece++
			continue
		}
		if unicode.Is(unicode.Mn, r) { // combining mark of a decomposed letter
			i += size
			continue
		}
		break loop
	}
	if i == start { // not a word after all: skip the rune
		_, size := utf8.DecodeRuneInString(s[i:])
		l.nbuf = a
		if a > 0 {
			l.nbuf = a - 1
		}
		return i + size
	}
	if l.nbuf == a+1 && i < len(s) {
		switch w := l.buf[a]; {
		case w == 'c' && i+1 < len(s) && s[i] == '+' && s[i+1] == '+':
			l.putString("pp")
			i += 2
		case (w == 'c' || w == 'f') && s[i] == '#':
			l.putString("sharp")
			i++
		}
	}
	l.push(a, start, i, grp, cut, upper && letter)
	return i
}

// isApostrophe reports whether r is one of the apostrophes dropped inside
// words ("ʼ" is a letter to Unicode, but not a word of its own).
func isApostrophe(r rune) bool {
	return r == '’' || r == 'ʼ' || r == '‘'
}

// loneLetter reports whether s starts with one letter that is not followed by
// another letter or digit ("s." of "U.S.", "à r" of "S.à r.l.").
func loneLetter(s string) bool {
	if s == "" {
		return false
	}
	r, size := rune(s[0]), 1
	if r >= utf8.RuneSelf {
		r, size = utf8.DecodeRuneInString(s)
	}
	if !unicode.IsLetter(r) {
		return false
	}
	if size == len(s) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(s[size:])
	return !isWordRune(next)
}

// startsWord reports whether s starts with a letter.
func startsWord(s string) bool {
	if s == "" {
		return false
	}
	if s[0] < utf8.RuneSelf {
		return isASCIILetter(s[0])
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

// text returns the folded text of token i. It does not allocate; the result
// is only valid until the lexer is reused.
func (l *lexer) text(i int) []byte {
	t := &l.toks[i]
	return l.buf[t.a:t.b]
}

// is reports whether token i folds to w.
func (l *lexer) is(i int, w string) bool {
	return string(l.text(i)) == w
}

// span returns the folded text of tokens i..j (inclusive).
func (l *lexer) span(i, j int) []byte {
	return l.buf[l.toks[i].a:l.toks[j].b]
}

// foldKey returns the lookup key of s: its folded words joined by single
// spaces, without a leading "the". Table keys are built with it at start-up.
func foldKey(s string) string {
	var l lexer
	l.lex(s)
	return string(trimThe(l.text0()))
}

func trimThe(b []byte) []byte {
	if len(b) > 4 && string(b[:4]) == "the " {
		return b[4:]
	}
	return b
}

// putFolded appends the folded form of r: lower case without Latin
// diacritics.
func (l *lexer) putFolded(r rune) {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		l.put(byte(r))
		return
	}
	r = unicode.ToLower(r)
	if s, ok := latinFold[r]; ok {
		l.putString(s)
		return
	}
	var tmp [utf8.UTFMax]byte
	n := utf8.EncodeRune(tmp[:], r)
	for _, c := range tmp[:n] {
		l.put(c)
	}
}

// latinFold maps lower-case Latin letters with diacritics to ASCII.
var latinFold = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'ā': "a", 'ă': "a", 'ą': "a",
	'æ': "ae", 'ç': "c", 'ć': "c", 'č': "c", 'ĉ': "c", 'ċ': "c", 'ď': "d", 'đ': "d", 'ð': "d",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ē': "e", 'ė': "e", 'ę': "e", 'ě': "e",
	'ğ': "g", 'ģ': "g", 'ĥ': "h", 'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ī': "i", 'į': "i", 'ı': "i",
	'ķ': "k", 'ĺ': "l", 'ļ': "l", 'ľ': "l", 'ł': "l", 'ñ': "n", 'ń': "n", 'ņ': "n", 'ň': "n",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ō': "o", 'ő': "o", 'œ': "oe",
	'ŕ': "r", 'ř': "r", 'ś': "s", 'ş': "s", 'š': "s", 'ș': "s", 'ß': "ss",
	'ţ': "t", 'ť': "t", 'ț': "t", 'þ': "th", 'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ū': "u",
	'ů': "u", 'ű': "u", 'ų': "u", 'ý': "y", 'ÿ': "y", 'ź': "z", 'ż': "z", 'ž': "z",
}
