package jobtext

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// Pay in the text. A figure is an amount with a currency beside it ("$120,000", "€60k",
// "60.000 €", "45 000 EUR", "CA$95k", "£45,000"), alone or as a range ("$120,000 - $150,000",
// "€60k–75k", "60.000 - 75.000 €", "between $50 and $60"). It is pay when the text says so: a
// range, a period ("per year", "/Jahr", "brutto/Jahr", "par an", "al año", "pa", "/h", "annual
// salary of"), a pay word in the sentence ("salary", "Gehalt", "salaire", "salario") or a pay
// section; and never when it is something else (a budget, a stipend, funding, revenue, millions)
// or when, read in its period (or as a year or an hour when none is stated), it is no plausible
// pay (normalize.YearlyUSD). The first such figure is served, as written.

// pay returns the first pay figure of the text.
func (a *analysis) pay() *Pay {
	d := a.d
	toks := a.toks[:0]
	defer func() { a.toks = toks[:0] }()
	for li := range d.lines {
		ln := &d.lines[li]
		if ln.sec == secLegal {
			continue
		}
		if !a.lineHasDigit(ln) {
			continue
		}
		s := d.src[ln.lo:ln.hi]
		if !mayNameCurrency(s) {
			continue
		}
		toks = lexPay(toks[:0], s, int(ln.lo))
		for p := range toks {
			if toks[p].kind != ptNum {
				continue
			}
			if p > 0 && toks[p-1].kind == ptNum {
				continue
			}
			if pay := a.payAt(toks, p); pay != nil {
				return pay
			}
		}
	}
	return nil
}

// mayNameCurrency reports whether line s may hold a currency token of lexPay ("$", a symbol, a
// code or name, a "TEUR" suffix): without one no figure of the line is pay (payAt asks for a
// currency beside one figure of it at least), so the line is not lexed. It answers yes at
// least wherever lexPay would make a currency token: at "$", at a currency symbol, at a
// maximal run of ASCII letters that is a currency word or "teur" (lexPay's ASCII words and
// number suffixes are such runs), and at a word with a non-ASCII letter (lexPay's word: a run
// of word runes but ASCII digits) that folds to a currency word.
func mayNameCurrency(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '$':
			return true
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if _, ok := currencySymbols[r]; ok {
				return true
			}
			if !isWordRune(r) {
				i += size
				continue
			}
			lo, hi := i, i+size // the word around it
			for lo > 0 {
				r, n := utf8.DecodeLastRuneInString(s[:lo])
				if !isWordRune(r) || r >= '0' && r <= '9' {
					break
				}
				lo -= n
			}
			for hi < len(s) {
				r, n := utf8.DecodeRuneInString(s[hi:])
				if !isWordRune(r) || r >= '0' && r <= '9' {
					break
				}
				hi += n
			}
			if w := s[lo:hi]; len(w) <= 12 {
				var buf [24]byte
				lw := buf[:0]
				for _, r := range w {
					lw = appendFold(lw, r)
				}
				if _, ok := currencyWords[string(lw)]; ok {
					return true
				}
			}
			i = hi
			continue
		case isASCIILetter(c):
			j := i + 1
			for j < len(s) && isASCIILetter(s[j]) {
				j++
			}
			if n := j - i; n >= 2 && n <= 8 && currencyStarts[(s[i]|0x20-'a')*26+(s[i+1]|0x20-'a')] {
				var buf [8]byte
				for k := 0; k < n; k++ {
					buf[k] = s[i+k] | 0x20
				}
				if _, ok := currencyWords[string(buf[:n])]; ok || string(buf[:n]) == "teur" {
					return true
				}
			}
			i = j
			continue
		}
		i++
	}
	return false
}

// currencyStarts marks the first two letters (a–z each) of the currency words and "teur".
var currencyStarts = func() (m [26 * 26]bool) {
	for w := range currencyWords {
		m[(w[0]-'a')*26+(w[1]-'a')] = true
	}
	m[('t'-'a')*26+('e'-'a')] = true
	return m
}()

// lineHasDigit reports whether a line has an ASCII digit: every digit is in a word.
func (a *analysis) lineHasDigit(ln *line) bool {
	for _, w := range a.d.words[ln.first:ln.end] {
		if w.flags&wDigit != 0 {
			return true
		}
	}
	return false
}

// Pay token kinds.
const (
	ptNum = iota + 1
	ptCur
	ptDash
	ptWord
	ptOther
)

// payTok is one token of a line read for pay.
type payTok struct {
	kind   uint8
	lo, hi int // span in doc.src
	val    float64
	mult   float64 // 1, 1e3 ("60k", "60 TEUR"), 1e6 or more (a figure in millions: never pay)
	cur    string
	dollar bool   // a bare "$"
	word   string // folded, for words
}

// lexPay appends to out the tokens of s (at offset base in the doc): numbers, currencies,
// dashes and words.
func lexPay(out []payTok, s string, base int) []payTok {
	var buf [24]byte
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			t, n := lexNumber(s[i:])
			t.lo, t.hi = base+i, base+i+n
			out = append(out, t)
			i += n
			continue
		case c == '$':
			out = append(out, payTok{kind: ptCur, lo: base + i, hi: base + i + 1, cur: "USD", dollar: true})
			i++
			continue
		case c == '-' || c == '~':
			out = append(out, payTok{kind: ptDash, lo: base + i, hi: base + i + 1})
			i++
			continue
		case c == ' ' || c == '\t':
			i++
			continue
		case isASCIILetter(c) || c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if cur, ok := currencySymbols[r]; ok {
				out = append(out, payTok{kind: ptCur, lo: base + i, hi: base + i + size, cur: cur})
				i += size
				continue
			}
			switch r {
			case '–', '—':
				out = append(out, payTok{kind: ptDash, lo: base + i, hi: base + i + size})
				i += size
				continue
			case 0xa0, 0x202f, 0x2009:
				i += size
				continue
			}
			if !isWordRune(r) {
				out = append(out, payTok{kind: ptOther, lo: base + i, hi: base + i + size})
				i += size
				continue
			}
			j := i
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if !isWordRune(r) || r >= '0' && r <= '9' {
					break
				}
				j += size
			}
			w := s[i:j]
			t := payTok{kind: ptWord, lo: base + i, hi: base + j}
			if len(w) <= 12 { // longer words are none of the words read here
				lw := buf[:0]
				for _, r := range w {
					lw = appendFold(lw, r)
				}
				t.word = payWordNames[string(lw)]
				if j < len(s) && s[j] == '$' {
					if cur, ok := dollarPrefixes[string(lw)]; ok {
						t = payTok{kind: ptCur, lo: base + i, hi: base + j + 1, cur: cur}
						j++
					}
				} else if cur, ok := currencyWords[string(lw)]; ok && (len(w) != 3 || isUpperASCII(w)) {
					t.kind, t.cur = ptCur, cur
				}
			}
			out = append(out, t)
			i = j
			continue
		}
		out = append(out, payTok{kind: ptOther, lo: base + i, hi: base + i + 1})
		i++
	}
	return out
}

// lexNumber reads a number at the start of s: digits with thousands groups ("120,000",
// "60.000", "45 000", "1'500"), an optional decimal part of one or two digits, and a thousands
// or millions suffix ("60k", "1.2M", "2bn"). It returns the token and the bytes read.
func lexNumber(s string) (payTok, int) {
	t := payTok{kind: ptNum, mult: 1}
	i := 0
	var whole float64
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		whole = whole*10 + float64(s[i]-'0')
		i++
		digits++
	}
	// Thousands groups: a separator and exactly three digits, as many as follow a short first
	// group ("8,500,000", "10.000.000", "1 200 000").
	lead := digits
	for lead <= 3 || digits%3 == 0 {
		sep := 0
		switch {
		case i < len(s) && (s[i] == ',' || s[i] == '.' || s[i] == '\'' || s[i] == ' '):
			sep = 1
		case strings.HasPrefix(s[i:], "\u00a0"), strings.HasPrefix(s[i:], "\u2009"):
			sep = 2
		case strings.HasPrefix(s[i:], "\u202f"):
			sep = 3
		}
		if sep == 0 || !threeDigits(s[i+sep:]) {
			break
		}
		i += sep
		for k := 0; k < 3; k++ {
			whole = whole*10 + float64(s[i]-'0')
			i++
		}
		digits += 3
	}
	// Decimals: one or two digits after a point or comma.
	if i+1 < len(s) && (s[i] == '.' || s[i] == ',') && s[i+1] >= '0' && s[i+1] <= '9' {
		n := 1
		if i+2 < len(s) && s[i+2] >= '0' && s[i+2] <= '9' {
			n = 2
		}
		if i+1+n >= len(s) || s[i+1+n] < '0' || s[i+1+n] > '9' {
			frac := 0.0
			scale := 1.0
			for k := 0; k < n; k++ {
				frac = frac*10 + float64(s[i+1+k]-'0')
				scale *= 10
			}
			whole += frac / scale
			i += 1 + n
		}
	}
	t.val = whole
	// Suffix, glued or after one space: "60k", "60 k", "1.2M", "2bn", "60 TEUR".
	j := i
	if j < len(s) && s[j] == ' ' {
		j++
	}
	k := j
	for k < len(s) && isASCIILetter(s[k]) {
		k++
	}
	if k > j && (k == len(s) || !isWordByteAt(s, k)) {
		switch suf := strings.ToLower(s[j:k]); suf {
		case "k", "tsd", "tausend", "mil":
			t.mult, i = 1e3, k
		case "teur":
			t.mult, t.cur, i = 1e3, "EUR", k
		case "m", "mm", "mn", "mio", "b", "bn", "mrd":
			t.mult, i = 1e6, k
		}
	}
	return t, i
}

// threeDigits reports whether s starts with exactly three digits.
func threeDigits(s string) bool {
	if len(s) < 3 {
		return false
	}
	for k := 0; k < 3; k++ {
		if s[k] < '0' || s[k] > '9' {
			return false
		}
	}
	return len(s) == 3 || s[3] < '0' || s[3] > '9'
}

// isWordByteAt reports whether s[k] starts a word rune.
func isWordByteAt(s string, k int) bool {
	r, _ := utf8.DecodeRuneInString(s[k:])
	return isWordRune(r)
}

var currencySymbols = map[rune]string{'€': "EUR", '£': "GBP", '¥': "JPY", '₹': "INR", '₩': "KRW", '₪': "ILS", '₺': "TRY"}

// dollarPrefixes are the letters before a "$" that name another dollar ("CA$", "A$", "R$"),
// folded.
var dollarPrefixes = map[string]string{
	"us": "USD", "usd": "USD", "ca": "CAD", "c": "CAD", "cad": "CAD", "a": "AUD", "au": "AUD", "aud": "AUD",
	"nz": "NZD", "nzd": "NZD", "s": "SGD", "sg": "SGD", "sgd": "SGD", "hk": "HKD", "hkd": "HKD", "r": "BRL",
	"mx": "MXN", "mxn": "MXN",
}

// payWordNames are the words payAt and readAmount ask about, each mapped to itself.
var payWordNames = func() map[string]string {
	m := map[string]string{}
	for w := range rangeJoin {
		m[w] = w
	}
	for w := range millionWords {
		m[w] = w
	}
	return m
}()

// isUpperASCII reports whether every byte of s is an upper-case ASCII letter.
func isUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// currencyWords are ISO codes (matched in capitals) and currency names.
var currencyWords = map[string]string{
	"usd": "USD", "eur": "EUR", "gbp": "GBP", "chf": "CHF", "cad": "CAD", "aud": "AUD", "nzd": "NZD",
	"jpy": "JPY", "cny": "CNY", "inr": "INR", "sgd": "SGD", "hkd": "HKD", "krw": "KRW", "brl": "BRL",
	"mxn": "MXN", "zar": "ZAR", "aed": "AED", "sar": "SAR", "ils": "ILS", "pln": "PLN", "czk": "CZK",
	"huf": "HUF", "sek": "SEK", "nok": "NOK", "dkk": "DKK", "ron": "RON", "try": "TRY", "ars": "ARS",
	"clp": "CLP", "cop": "COP", "pen": "PEN", "php": "PHP", "thb": "THB", "myr": "MYR", "idr": "IDR",
	"vnd": "VND", "pkr": "PKR", "ngn": "NGN", "kes": "KES", "egp": "EGP", "uah": "UAH", "bgn": "BGN",
	"euro": "EUR", "euros": "EUR", "dollars": "USD", "dollar": "USD", "zl": "PLN", "zloty": "PLN",
	"pesos": "MXN", "libras": "GBP", "sterling": "GBP",
}

// amount is one figure with its currency.
type amount struct {
	val      float64
	mult     float64
	cur      string
	dollar   bool
	lo, hi   int // byte span in doc.src
	next     int // the token after it
	hasCur   bool
	kSuffix  bool
	millions bool
	plus     bool // "+" right after it: a lower bound
}

// readAmount reads the figure at number token p with a currency just before or just after it.
func readAmount(src string, toks []payTok, p int) amount {
	t := toks[p]
	am := amount{val: t.val * t.mult, mult: t.mult, lo: t.lo, hi: t.hi, next: p + 1, kSuffix: t.mult == 1e3, millions: t.mult >= 1e6}
	if t.cur != "" {
		am.cur, am.hasCur = t.cur, true
	}
	if p > 0 && toks[p-1].kind == ptCur && toks[p-1].hi+1 >= t.lo {
		am.cur, am.dollar, am.hasCur, am.lo = toks[p-1].cur, toks[p-1].dollar, true, toks[p-1].lo
	}
	if n := p + 1; n < len(toks) && toks[n].kind == ptCur && (!am.hasCur || am.dollar && !toks[n].dollar) {
		// A currency after the figure, or a code after a bare "$" ("$180,000 USD", "$95k CAD").
		am.cur, am.dollar, am.hasCur, am.hi, am.next = toks[n].cur, toks[n].dollar, true, toks[n].hi, n+1
	}
	if am.hi < len(src) && src[am.hi] == '+' {
		am.plus = true // "$100k+"
	}
	if n := am.next; n < len(toks) && toks[n].kind == ptWord && millionWords[toks[n].word] {
		am.millions = true
	}
	return am
}

var millionWords = map[string]bool{
	"million": true, "millions": true, "billion": true, "billions": true, "mio": true, "mrd": true,
	"millionen": true, "milliarden": true, "millones": true, "milliards": true, "bn": true, "mn": true,
}

// rangeJoin are words between the two figures of a range.
var rangeJoin = map[string]bool{"to": true, "bis": true, "a": true, "and": true, "und": true, "et": true, "y": true, "hasta": true}

// payAt reads the pay figure or range starting at number token p, or nil.
func (a *analysis) payAt(toks []payTok, p int) *Pay {
	lo := readAmount(a.d.src, toks, p)
	if lo.millions {
		return nil
	}
	hi := amount{}
	isRange := false
	if n := lo.next; n+1 < len(toks) && (toks[n].kind == ptDash || toks[n].kind == ptWord && rangeJoin[toks[n].word]) {
		q := n + 1
		if toks[q].kind == ptCur && q+1 < len(toks) && toks[q+1].kind == ptNum {
			q++
		}
		if toks[q].kind == ptNum {
			hi = readAmount(a.d.src, toks, q)
			isRange = !hi.millions
		}
	}
	if isRange {
		if !lo.hasCur && !hi.hasCur || lo.hasCur && hi.hasCur && lo.cur != hi.cur {
			return nil
		}
		if !lo.hasCur || lo.dollar && !hi.dollar && hi.cur != "" {
			lo.cur, lo.dollar = hi.cur, hi.dollar // "$150,000 — $180,000 USD"
		}
		// "€60k–75k", "60–75k €": the thousands of one figure are the other's.
		switch {
		case hi.kSuffix && !lo.kSuffix && lo.val < 1000:
			lo.val *= 1e3
		case lo.kSuffix && !hi.kSuffix && hi.val < 1000:
			hi.val *= 1e3
		}
		if hi.val < lo.val {
			return nil
		}
	} else if !lo.hasCur {
		return nil
	}
	end := lo.hi
	if isRange {
		end = hi.hi
	}
	first, last, anchor := a.wordsAround(lo.lo, end)
	if anchor < 0 {
		return nil
	}
	if a.ctxOf(anchor) == ctxIgnore || a.payVetoed(first, last) {
		return nil
	}
	period, periodEnd := a.periodAfter(last, end)
	if period == 0 {
		period = a.periodBefore(first)
	}
	if !isRange && period == 0 && !a.payWordNear(anchor) {
		return nil
	}
	pay := &Pay{Currency: lo.cur, DollarSign: lo.dollar, Source: PaySourceText}
	if period != 0 {
		pay.Period = periodNames[period]
	}
	if isRange {
		pay.Min, pay.Max = lo.val, hi.val
	} else {
		pay.Min, pay.Max = lo.val, lo.val
		switch bound := a.boundBefore(first); {
		case bound == "max":
			pay.Min = 0
		case bound == "min" || lo.plus:
			pay.Max = 0
		}
	}
	if !plausible(pay) {
		return nil
	}
	pay.Stated = strings.Clone(strings.TrimSpace(a.d.src[lo.lo:max(end, periodEnd)])) // src is the pool's
	return pay
}

// plausible reports whether the figures are pay in their period, or, with none stated, as a
// year's or an hour's pay.
func plausible(p *Pay) bool {
	if p.Period != "" {
		_, _, ok := normalize.YearlyUSD(p.Min, p.Max, p.Currency, p.Period)
		return ok
	}
	_, _, y := normalize.YearlyUSD(p.Min, p.Max, p.Currency, "year")
	_, _, h := normalize.YearlyUSD(p.Min, p.Max, p.Currency, "hour")
	return y || h
}

// wordsAround returns, for the figure at bytes [lo, hi) of one line, the last word ending before
// it and the first word starting after it on that line (-1 for none), and the first word of the
// figure itself (its digits), which places it in a sentence.
func (a *analysis) wordsAround(lo, hi int) (before, after, at int) {
	ws := a.d.words
	k := sort.Search(len(ws), func(i int) bool { return int(ws[i].hi) > lo })
	if k == len(ws) || int(ws[k].lo) >= hi {
		return -1, -1, -1
	}
	at, before, after = k, k-1, -1
	m := sort.Search(len(ws), func(i int) bool { return int(ws[i].lo) >= hi })
	if m < len(ws) {
		after = m
	}
	line := ws[k].line
	if before >= 0 && ws[before].line != line {
		before = -1
	}
	if after >= 0 && ws[after].line != line {
		after = -1
	}
	return before, after, at
}

// payVetoed reports whether a word that makes the figure something other than pay stands within
// three words before it (from word first) or two after it (from word last).
func (a *analysis) payVetoed(first, last int) bool {
	d := a.d
	check := func(k, anchor int) bool {
		if k < 0 || anchor < 0 || !d.sameSent(anchor, k) {
			return false
		}
		_, ok := a.hitAt(k, kPayVeto)
		return ok
	}
	for k := first - 2; k <= first; k++ {
		if check(k, first) {
			return true
		}
	}
	for k := last; k < last+2; k++ {
		if check(k, last) {
			return true
		}
	}
	return false
}

// periodAfter reads a period stated right after the figure (from word w, skipping words such as
// "brutto" or "base"): its value and the byte where it ends.
func (a *analysis) periodAfter(w, figureEnd int) (int32, int) {
	d := a.d
	if w < 0 {
		return 0, 0
	}
	for k := w; k < w+4 && k < len(d.words) && d.words[k].line == d.words[w].line; k++ {
		if k == w && int(d.words[k].lo)-figureEnd > 3 {
			return 0, 0
		}
		if h, ok := a.hitAt(k, kPeriod); ok {
			return h.e.val, int(d.words[k+int(h.n)-1].hi)
		}
		if !periodFillers[d.fw(k)] {
			return 0, 0
		}
	}
	return 0, 0
}

var periodFillers = map[string]bool{
	"brutto": true, "gross": true, "brut": true, "bruts": true, "bruto": true, "brutos": true, "base": true,
	"salary": true, "gehalt": true, "plus": true, "eur": true, "euro": true, "euros": true, "usd": true,
	"gbp": true, "chf": true, "per": true, "pro": true, "par": true, "por": true, "pre": true, "tax": true,
	"before": true, "fixe": true, "fijo": true, "fix": true, "ote": true, "net": true, "netto": true,
	"neto": true, "netos": true, "nets": true,
}

// periodBefore reads a period said before the figure ("annual salary of", "Stundenlohn:"): up to
// six words back in the sentence.
func (a *analysis) periodBefore(first int) int32 {
	d := a.d
	if first < 0 {
		return 0
	}
	for k := first; k >= first-6 && d.sameSent(first, k); k-- {
		for _, h := range a.at(k) {
			if h.e.kind == kPeriodPre {
				return h.e.val
			}
		}
	}
	return 0
}

// payWordNear reports whether the figure's sentence or section is about pay.
func (a *analysis) payWordNear(w int) bool {
	return a.sec(w) == secPay || a.sentFlags(a.d.words[w].sent)&sfPay != 0
}

// boundBefore reads "up to" (max) or "from" (min) just before a single figure.
func (a *analysis) boundBefore(first int) string {
	d := a.d
	if first < 0 {
		return ""
	}
	w := d.fw(first)
	prev := ""
	if d.sameSent(first, first-1) {
		prev = d.fw(first - 1)
	}
	switch {
	case w == "to" && prev == "up", w == "zu" && prev == "bis", w == "hasta", w == "jusqu", w == "max",
		w == "maximum", w == "a" && prev == "jusqu":
		return "max"
	case w == "from", w == "ab", w == "desde", w == "min", w == "minimum", w == "least" && prev == "at",
		w == "at" && prev == "starting", w == "de" && prev == "partir", w == "mindestens":
		return "min"
	}
	return ""
}
