package normalize

import "strings"

// Titles.
//
// TitleKey is the dedup key of a job title: variants of one title published
// by different boards collapse to one key, different roles stay apart. The
// variants handled are: case; abbreviations ("Sr."→senior, "Mgr"→manager,
// "Eng."→engineer, "VP"→vice president, ...); gender tags ("(m/w/d)",
// "(f/m/x)", "(all genders)", "(h/f)", "m/f/d" without brackets,
// "Entwickler*in"); a trailing location suffix (" - Berlin", " – Remote",
// ", London", " (Remote)", " | Hybrid", ", Berlin, DE", " in Berlin"); "&"
// versus "and"; hyphenation of a few compounds ("Front-End"/"Frontend");
// punctuation and whitespace. Seniority words, roman numerals and every other
// word are kept, so "Engineer II" and "Engineer III" stay apart.
//
// A trailing part is a location suffix when every word of it is a place: a
// country name or alias, a major city, a US state or Canadian province, a
// region ("EMEA", "Europe") or a workplace word ("Remote", "Hybrid",
// "Onsite"). Short codes count only when written in capitals; "US", "USA",
// "UK", "GB" and "UAE" count alone, any other code ("DE", "TX") only after
// another place ("Berlin, DE"), so "Engineer - AI", "Manager, HR" and
// "Engineer - IT" keep their last word. The first part of a title is never a
// suffix.

// abbreviations expands title abbreviations. Values may be several words.
var abbreviations = map[string]string{
	"sr": "senior", "snr": "senior", "jr": "junior", "jnr": "junior",
	"mgr": "manager", "mngr": "manager", "mgmt": "management",
	"eng": "engineer", "engr": "engineer", "dev": "developer", "devs": "developers",
	"assoc": "associate", "dir": "director", "asst": "assistant", "coord": "coordinator",
	"vp": "vice president", "svp": "senior vice president", "evp": "executive vice president",
	"avp": "assistant vice president", "exec": "executive", "mktg": "marketing",
	"rep": "representative", "reps": "representatives", "ops": "operations",
	"sw": "software", "hw": "hardware", "intl": "international",
	"nodejs": "node", "reactjs": "react", "vuejs": "vue",
}

// compounds joins two-word spellings of one term ("front end", from
// "Front-End" or "Front End") into the one-word spelling.
var compounds = map[string]string{
	"front end": "frontend", "back end": "backend", "full stack": "fullstack",
	"dev ops": "devops", "e commerce": "ecommerce", "co founder": "cofounder",
	"node js": "node", "react js": "react", "vue js": "vue", "pre sales": "presales",
	"cyber security": "cybersecurity", "help desk": "helpdesk", "on site": "onsite",
	"sys admin": "sysadmin", "data base": "database", "web site": "website",
	"dot net": "dotnet", "ml ops": "mlops", "dev sec ops": "devsecops",
}

// genderWords are the words a bracketed gender tag may consist of.
var genderWords = map[string]bool{
	"m": true, "w": true, "f": true, "d": true, "x": true, "h": true,
	"div": true, "divers": true, "diverse": true, "all": true, "alle": true,
	"genders": true, "gender": true, "geschlechter": true,
	"gn": true, "mwd": true, "mfd": true, "fmd": true, "wmd": true, "mfx": true, "fmx": true,
	"mwx": true, "wmx": true, "dfm": true, "hf": true, "fh": true, "mw": true, "wm": true,
	"mf": true, "fm": true,
}

// markGender drops gender tags and records their raw ranges in l.cuts.
func (l *lexer) markGender() {
	// Whole bracket groups: "(m/w/d)", "(all genders)", "(gn)".
	for i := 0; i < l.nt; {
		g := l.toks[i].grp
		j := i
		for j+1 < l.nt && l.toks[j+1].grp == g {
			j++
		}
		if g != 0 && l.isGenderGroup(i, j) {
			for k := i; k <= j; k++ {
				l.toks[k].drop = true
			}
			gr := l.grps[g-1]
			end := gr.close + 1
			if end > len(l.src) {
				end = len(l.src)
			}
			l.addCut(gr.open, end)
		}
		i = j + 1
	}
	// Slash-joined letters anywhere: "m/f/d", "w|m|d"; German "-*in" suffixes.
	for i := 0; i < l.nt; i++ {
		if l.toks[i].drop {
			continue
		}
		if l.isGenderSuffix(i) {
			l.toks[i].drop = true
			l.addCut(l.toks[i].ra-1, l.toks[i].rb)
			continue
		}
		if !isGenderLetter(l.text(i)) {
			continue
		}
		j := i
		for j+1 < l.nt && !l.toks[j+1].drop && isGenderLetter(l.text(j+1)) && l.slashJoined(j+1) {
			j++
		}
		if j > i && l.hasBothGenders(i, j) {
			for k := i; k <= j; k++ {
				l.toks[k].drop = true
			}
			l.addCut(l.toks[i].ra, l.toks[j].rb)
			i = j
		}
	}
}

func isGenderLetter(w []byte) bool {
	if len(w) == 1 {
		switch w[0] {
		case 'm', 'w', 'f', 'd', 'x', 'h':
			return true
		}
		return false
	}
	switch string(w) {
	case "div", "divers", "diverse":
		return true
	}
	return false
}

// slashJoined reports whether token i directly follows the previous token
// across a single '/' or '|'.
func (l *lexer) slashJoined(i int) bool {
	t := l.toks[i]
	return (t.pre == '/' || t.pre == '|') && t.ra-1 == l.toks[i-1].rb
}

// hasBothGenders reports whether tokens i..j name a male and a female form
// of one language: m with w or f ("m/w/d", "m/f/d"), or French h with f
// ("h/f"). "H/W" (hardware) is not a gender tag.
func (l *lexer) hasBothGenders(i, j int) bool {
	var m, w, f, h bool
	for k := i; k <= j; k++ {
		switch string(l.text(k)) {
		case "m":
			m = true
		case "w":
			w = true
		case "f":
			f = true
		case "h":
			h = true
		}
	}
	return m && (w || f) || h && f
}

// isGenderGroup reports whether tokens i..j (one bracket group) are a gender tag.
func (l *lexer) isGenderGroup(i, j int) bool {
	for k := i; k <= j; k++ {
		if !genderWords[string(l.text(k))] {
			return false
		}
	}
	if l.hasBothGenders(i, j) {
		return true
	}
	for k := i; k <= j; k++ {
		switch w := l.text(k); string(w) {
		case "genders", "gender", "geschlechter":
			return true
		case "all", "alle":
		default:
			if len(w) >= 2 && !isGenderLetter(w) {
				return true // compact "mwd", "gn", "hf"
			}
		}
	}
	return false
}

// isGenderSuffix reports whether token i is the German inclusive suffix of
// "Entwickler*in", "Entwickler:in", "Entwickler_innen", "Designer/in".
func (l *lexer) isGenderSuffix(i int) bool {
	if i == 0 {
		return false
	}
	t := l.toks[i]
	switch t.pre {
	case '*', ':', '_', '/':
	default:
		return false
	}
	switch string(l.text(i)) {
	case "in", "innen":
		return t.ra-1 == l.toks[i-1].rb && !l.toks[i-1].drop
	}
	return false
}

// stripLocation drops a trailing location suffix and records its raw range.
func (l *lexer) stripLocation() {
	firstKept := -1
	for i := 0; i < l.nt; i++ {
		if !l.toks[i].drop {
			firstKept = i
			break
		}
	}
	if firstKept < 0 {
		return
	}
	firstSeg := l.toks[firstKept].seg
	// Trailing segments that are all places; the suffix starts at the first
	// strong one of that run.
	from := -1
	for k := l.nseg - 1; k > firstSeg; k-- {
		s := l.segs[k]
		if l.segDropped(k) {
			continue
		}
		switch l.classifyLoc(s.first, s.last) {
		case strongLoc:
			from = k
			continue
		case weakLoc:
			continue
		}
		break
	}
	cut := -1
	if from >= 0 {
		for k := from; k < l.nseg; k++ {
			for i := l.segs[k].first; i <= l.segs[k].last; i++ {
				l.toks[i].drop = true
			}
		}
		cut = l.segs[from].cut
	}
	// "... in Berlin" at the end of the last remaining segment.
	last := -1
	for k := l.nseg - 1; k >= firstSeg; k-- {
		if !l.segDropped(k) {
			last = k
			break
		}
	}
	if last >= 0 {
		s := l.segs[last]
		for j := s.first; j < s.last; j++ {
			if j > firstKept && !l.toks[j].drop && l.is(j, "in") && l.classifyLoc(j+1, s.last) == strongLoc {
				for i := j; i <= s.last; i++ {
					l.toks[i].drop = true
				}
				cut = l.toks[j].ra
				break
			}
		}
	}
	if cut >= 0 {
		l.addCut(cut, len(l.src))
	}
}

// segDropped reports whether every token of segment k is dropped.
func (l *lexer) segDropped(k int) bool {
	s := l.segs[k]
	for i := s.first; i <= s.last; i++ {
		if !l.toks[i].drop {
			return false
		}
	}
	return true
}

// lexTitle lexes a title and applies the gender and location rules.
func (l *lexer) lexTitle(raw string) {
	l.lex(raw)
	l.markGender()
	l.stripLocation()
}

// wordBuf holds normalised words, joined by single spaces in buf. Like the
// lexer it uses fixed arrays so that it stays on the stack; words beyond its
// capacity are ignored.
type wordBuf struct {
	nbuf, nw int
	lost     bool // a word was dropped for want of room
	buf      [maxLexBytes + 128]byte
	w        [maxLexTokens + 16][2]int // word i is buf[w[i][0]:w[i][1]]
}

// text is every word, joined by single spaces.
func (wb *wordBuf) text() []byte { return wb.buf[:wb.nbuf] }

// add appends one or more space-separated words.
func (wb *wordBuf) add(s string) {
	for s != "" {
		w, rest, _ := strings.Cut(s, " ")
		wb.addWord(w)
		s = rest
	}
}

// addWord appends one word (a string or a byte slice).
func (wb *wordBuf) addWord(w string) {
	sep := 0
	if wb.nbuf > 0 {
		sep = 1
	}
	if wb.nw == len(wb.w) || wb.nbuf+sep+len(w) > len(wb.buf) {
		wb.lost = true
		return
	}
	if sep == 1 {
		wb.buf[wb.nbuf] = ' '
		wb.nbuf++
	}
	a := wb.nbuf
	wb.nbuf += copy(wb.buf[a:], w)
	wb.w[wb.nw] = [2]int{a, wb.nbuf}
	wb.nw++
}

func (wb *wordBuf) word(i int) []byte {
	return wb.buf[wb.w[i][0]:wb.w[i][1]]
}

func (wb *wordBuf) lastIs(s ...string) bool {
	if wb.nw == 0 {
		return false
	}
	last := wb.word(wb.nw - 1)
	for _, x := range s {
		if string(last) == x {
			return true
		}
	}
	return false
}

// words writes the kept tokens of l to wb, joining compounds and expanding
// abbreviations.
func (l *lexer) words(wb *wordBuf) {
	wb.nbuf, wb.nw = 0, 0
	for i := 0; i < l.nt; i++ {
		if l.toks[i].drop {
			continue
		}
		if i+1 < l.nt && !l.toks[i+1].drop {
			if c, ok := compounds[string(l.span(i, i+1))]; ok {
				wb.add(c)
				i++
				continue
			}
		}
		w := l.text(i)
		exp, ok := abbreviations[string(w)]
		if !ok {
			wb.addWord(string(w))
			continue
		}
		switch exp {
		case "developer": // "Business Dev Manager"
			if wb.lastIs("business") {
				exp = "development"
			}
		case "engineer": // "VP Eng", "Director of Eng.", "Eng Manager"
			if wb.lastIs("of", "president", "director", "head") || l.nextIs(i, "manager", "mgr", "lead", "director") {
				exp = "engineering"
			}
		}
		wb.add(exp)
	}
}

// nextIs reports whether the kept token after i is one of s.
func (l *lexer) nextIs(i int, s ...string) bool {
	if i+1 >= l.nt || l.toks[i+1].drop {
		return false
	}
	w := l.text(i + 1)
	for _, x := range s {
		if string(w) == x {
			return true
		}
	}
	return false
}

// TitleKey returns the dedup key of a raw job title: lower-case normalised
// words joined by single spaces, without gender tag or location suffix.
// "Sr. Software Eng. (m/w/d) - Berlin" and "Senior Software Engineer" share
// the key "senior software engineer". It returns "" when nothing is left.
func TitleKey(raw string) string {
	var l lexer
	l.lexTitle(raw)
	var wb wordBuf
	l.words(&wb)
	return string(wb.text())
}

// entityReplacer decodes the HTML entities feeds leave in titles. Read-only
// (a strings.Replacer is safe for concurrent use).
var entityReplacer = strings.NewReplacer("&amp;", "&", "&nbsp;", " ", "&#39;", "'", "&apos;", "'",
	"&quot;", "\"", "&#38;", "&", "&ndash;", "–", "&mdash;", "—")

// titleJunk is trimmed from both ends of a clean title.
const titleJunk = " \t\r\n\u00a0-–—|,;:/·•"

// CleanTitle returns a display title: the raw title without gender tag and
// location suffix, whitespace collapsed and trimmed, original casing and
// abbreviations kept, common HTML entities decoded ("&amp;" → "&"). It
// returns "" when nothing is left.
func CleanTitle(raw string) string {
	var l lexer
	l.lexTitle(raw)
	cuts := l.cuts[:l.nct]
	// Sort the few cuts by start (insertion sort; at most a handful).
	for i := 1; i < len(cuts); i++ {
		for j := i; j > 0 && cuts[j][0] < cuts[j-1][0]; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	var buf [128]byte // most titles: no allocation but the result's
	out := buf[:0]
	if len(raw) > len(buf) {
		out = make([]byte, 0, len(raw))
	}
	space := false
	c := 0
	for i := 0; i < len(raw); {
		for c < len(cuts) && cuts[c][1] <= i {
			c++
		}
		if c < len(cuts) && cuts[c][0] <= i {
			i = cuts[c][1]
			space = true // a removed tag separates its neighbours
			continue
		}
		b := raw[i]
		if isSpace(b) {
			space = true
			i++
			continue
		}
		if b == 0xc2 && i+1 < len(raw) && raw[i+1] == 0xa0 { // no-break space
			space = true
			i += 2
			continue
		}
		if space && len(out) > 0 {
			out = append(out, ' ')
		}
		space = false
		out = append(out, b)
		i++
	}
	s := raw // the common case: nothing to clean, and no copy
	if string(out) != raw {
		s = string(out)
	}
	if strings.IndexByte(s, '&') >= 0 {
		s = entityReplacer.Replace(s)
	}
	for {
		t := strings.Trim(s, titleJunk)
		t = strings.TrimRight(t, "([{")
		t = strings.TrimLeft(t, ")]}")
		if t == s {
			break
		}
		s = t
	}
	if s == raw {
		return raw
	}
	return s
}
