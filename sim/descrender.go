package sim

import (
	"bytes"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// A description is written into a descDoc: its text and its blocks (headings, paragraphs and
// list items), each in one part (about us, the role, duties, requirements, ...), and each
// block's text XML-escaped once (esc). The vendors' renderers then write the parts they carry in
// their fields and markup (desccache.go keeps what they wrote): the whole as HTML (Greenhouse,
// Ashby, Teamtailor, JSON-LD, the aggregator) or plain text (Ashby, Lever's plain fields), or
// split the way their feed splits it (Lever's lists, Personio's jobDescriptions, Pinpoint's and
// Workable's sections, Recruitee's requirements).
//
// Markup is written from the escaped blocks and tags escaped ahead for each feed's escaping
// (markup), so no byte of a description is scanned per feed: when the text holds nothing a JSON
// string escapes (clean, the rule; quoteFree for plain text), HTML in a JSON string is the HTML
// itself, and the entities' "&" is all that HTML-safe JSON, Greenhouse's entities and XML
// escape again. A text that is not clean takes the reference writers (appendHTML, appendPlain,
// appendItems, then the JSON escape), which the fast ones equal byte for byte
// (TestMarkupMatchesTheReference).

// Parts of a description, in the order the text has them.
const (
	pAbout = iota
	pRole
	pDuties
	pReq
	pNice
	pBenefits
	pPay
	pClosing
	pEEO
	numParts
)

// Masks of parts.
const (
	allParts   = 1<<numParts - 1
	introParts = 1<<pAbout | 1<<pRole
	tailParts  = 1<<pPay | 1<<pClosing | 1<<pEEO
	reqParts   = 1<<pReq | 1<<pNice
)

// Block kinds.
const (
	dkHead = iota
	dkPara
	dkItem
)

type dblock struct {
	kind, part uint8
	shown      bool // a heading the text shows (every part has one, for the feeds that name sections)
	lo, hi     int32
	elo, ehi   int32 // the text XML-escaped: esc[elo:ehi]
}

// descDoc is one written description.
type descDoc struct {
	text     []byte
	blocks   []dblock
	esc      []byte // the blocks' text XML-escaped (appendXML), block after block
	out      []byte // a rendering, for the callers that escape it further
	payBuf   []byte // the pay statement, the benefit amount: scratch of the writer
	amtBuf   []byte
	openPara int   // index of the paragraph block being written, -1 none
	style    uint8 // HTML markup style of the company
	bullet   uint8 // plain-text bullet of the company
	// clean: the text holds no byte a JSON string escapes but quotes (no control, backslash,
	// invalid UTF-8, U+2028 or U+2029); quoteFree: and no quote.
	clean, quoteFree bool
}

// maxDescription bounds a description's text; the wordings stay well below it (TestDescriptions
// checks), so it is only a guard.
const maxDescription = 6 << 10

// describe writes the description of g (from the World's pool; release it after use).
func (w *World) describe(c *company, g *gen) *descDoc {
	f := w.facts(c, g)
	return w.writeDoc(c, g, &f)
}

// writeDoc writes the description of g stating f (from the World's pool; release it after use).
func (w *World) writeDoc(c *company, g *gen, f *descFacts) *descDoc {
	d, _ := w.descs.Get().(*descDoc)
	if d == nil {
		d = &descDoc{text: make([]byte, 0, 4096), blocks: make([]dblock, 0, 48), esc: make([]byte, 0, 4608), out: make([]byte, 0, 8192)}
	}
	d.text, d.blocks, d.esc, d.out, d.openPara = d.text[:0], d.blocks[:0], d.esc[:0], d.out[:0], -1
	d.clean, d.quoteFree = true, true
	w.writeDesc(d, c, g, f)
	return d
}

// jsonClean reports whether a JSON string carries s as it is but for its quotes (appendEsc
// changes nothing else in it).
func jsonClean(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return false
		}
	}
	return utf8.Valid(s) && !bytes.Contains(s, []byte("\u2028")) && !bytes.Contains(s, []byte("\u2029"))
}

func (w *World) release(d *descDoc) { w.descs.Put(d) }

// descVars are the values a template names (data_desc.go).
type descVars struct {
	lang                           uint8
	title, co, team, city, hq, ind string
	area, ctry, ctrya, ctryg, lvl  string
	n, m, yr, ppl, k               int
	x, pay, amt                    []byte
}

// Variables of a template (tplPiece.v).
const (
	tvLit  = iota // no variable: the piece's literal text
	tvNone        // a name no variable has: nothing
	tvTitle
	tvTitleA
	tvCo
	tvTeam
	tvCity
	tvHQ
	tvInd
	tvArea
	tvCtry
	tvCtryA
	tvCtryG
	tvLvl
	tvLvlCap
	tvLvlA
	tvN
	tvM
	tvYr
	tvPpl
	tvK
	tvX
	tvPay
	tvAmt
)

var tplVarNames = map[string]uint8{
	"t": tvTitle, "a": tvTitleA, "co": tvCo, "team": tvTeam, "city": tvCity, "hq": tvHQ, "ind": tvInd,
	"area": tvArea, "ctry": tvCtry, "ctrya": tvCtryA, "ctryg": tvCtryG, "lvl": tvLvl, "Lvl": tvLvlCap,
	"lvla": tvLvlA, "n": tvN, "m": tvM, "yr": tvYr, "ppl": tvPpl, "k": tvK, "x": tvX, "pay": tvPay, "amt": tvAmt,
}

// tplPiece is a piece of a template: literal text and its XML escape, or a variable.
type tplPiece struct {
	lit, esc string
	v        uint8
}

// tpl is a template split into its pieces, with what its literal text holds.
type tpl struct {
	line             bool // a line of its own: the template started with "|" (not in pieces)
	pieces           []tplPiece
	clean, quoteFree bool // of its literal text (descDoc.clean, quoteFree)
}

// compileTpl splits a template ("{co} is hiring {a}.") into its pieces.
func compileTpl(s string) *tpl {
	t := &tpl{}
	s, t.line = strings.CutPrefix(s, "|")
	lit := func(l string) {
		if l != "" {
			t.pieces = append(t.pieces, tplPiece{lit: l, esc: string(appendXML(nil, l))})
		}
	}
	for len(s) > 0 {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			lit(s)
			break
		}
		lit(s[:i])
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			panic("sim: a template without its closing brace: " + s)
		}
		v, ok := tplVarNames[s[i+1:i+j]]
		if !ok {
			v = tvNone
		}
		t.pieces = append(t.pieces, tplPiece{v: v})
		s = s[i+j+1:]
	}
	var all []byte
	for _, p := range t.pieces {
		all = append(all, p.lit...)
	}
	t.clean = jsonClean(all)
	t.quoteFree = t.clean && bytes.IndexByte(all, '"') < 0
	return t
}

// langTpls are the templates of a language's wording tables (langText), compiled: the same
// fields, each template a *tpl (headings literal text, never expanded).
type langTpls struct {
	heads                                                         [numParts][]*tpl
	aboutOpen, aboutGrowth, aboutMore, hire, hireNoCity, roleMore []*tpl
	work                                                          [numWS][]*tpl
	hybridItem, senSentence, senLabel                             []*tpl
	emp, empItem                                                  [numEmpTypes][]*tpl
	duties, soft                                                  [numGroups][]*tpl
	dutyTech, techReq                                             [2][]*tpl
	years, yearsRange, techNice, niceYears, niceInline, langSkill []*tpl
	benefits, budget, payLine, payItem, payPara                   []*tpl
	visaYes, visaNo, apply, process, eeo                          []*tpl
}

// descTpls are descTexts' templates, compiled once: each field of langTpls from langText's
// field of the same name.
var descTpls = func() (out [numLangs]langTpls) {
	var conv func(dst, src reflect.Value, lit bool)
	conv = func(dst, src reflect.Value, lit bool) {
		switch src.Kind() {
		case reflect.Array, reflect.Slice:
			if dst.Kind() == reflect.Slice {
				dst.Set(reflect.MakeSlice(dst.Type(), src.Len(), src.Len()))
			}
			for i := range src.Len() {
				conv(dst.Index(i), src.Index(i), lit)
			}
		case reflect.String:
			t := compileTpl(src.String())
			if lit {
				t = compileLit(src.String())
			}
			reflect.NewAt(dst.Type(), unsafe.Pointer(dst.UnsafeAddr())).Elem().Set(reflect.ValueOf(t))
		default:
			panic("sim: no template in a " + src.Kind().String())
		}
	}
	for l := range descTexts {
		src, dst := reflect.ValueOf(&descTexts[l]).Elem(), reflect.ValueOf(&out[l]).Elem()
		for i := range dst.NumField() {
			name := dst.Type().Field(i).Name
			f := src.FieldByName(name)
			if !f.IsValid() {
				panic("sim: langText has no " + name)
			}
			d := reflect.NewAt(dst.Field(i).Type(), unsafe.Pointer(dst.Field(i).UnsafeAddr())).Elem()
			conv(d, f, name == "heads")
		}
	}
	return out
}()

// compileLit is s as a template of literal text only (a heading: braces are text).
func compileLit(s string) *tpl {
	t := &tpl{}
	if s != "" {
		t.pieces = []tplPiece{{lit: s, esc: string(appendXML(nil, s))}}
	}
	t.clean = jsonClean([]byte(s))
	t.quoteFree = t.clean && !strings.Contains(s, `"`)
	return t
}

func pickT(r *rng, list []*tpl) *tpl { return list[r.intn(len(list))] }

// expand appends template t with the values of v to the text, and its escape to esc.
func (d *descDoc) expand(t *tpl, v *descVars) {
	d.clean = d.clean && t.clean
	d.quoteFree = d.quoteFree && t.quoteFree
	for i := range t.pieces {
		p := &t.pieces[i]
		if p.v == tvLit {
			d.text = append(d.text, p.lit...)
			d.esc = append(d.esc, p.esc...)
			continue
		}
		start := len(d.text)
		switch p.v {
		case tvTitle:
			d.text = append(d.text, v.title...)
		case tvTitleA:
			if v.title != "" && strings.IndexByte("AEIOUaeiou", v.title[0]) >= 0 {
				d.text = append(d.text, "an "...)
			} else {
				d.text = append(d.text, "a "...)
			}
			d.text = append(d.text, v.title...)
		case tvCo:
			d.text = append(d.text, v.co...)
		case tvTeam:
			d.text = append(d.text, v.team...)
		case tvCity:
			d.text = append(d.text, v.city...)
		case tvHQ:
			d.text = append(d.text, v.hq...)
		case tvInd:
			d.text = append(d.text, v.ind...)
		case tvArea:
			d.text = append(d.text, v.area...)
		case tvCtry:
			d.text = append(d.text, v.ctry...)
		case tvCtryA:
			d.text = append(d.text, v.ctrya...)
		case tvCtryG:
			d.text = append(d.text, v.ctryg...)
		case tvLvl:
			d.text = append(d.text, v.lvl...)
		case tvLvlCap:
			d.text = append(d.text, capitalize(v.lvl)...)
		case tvLvlA:
			if v.lvl != "" && strings.IndexByte("aeiou", v.lvl[0]) >= 0 {
				d.text = append(d.text, "an "...)
			} else {
				d.text = append(d.text, "a "...)
			}
			d.text = append(d.text, v.lvl...)
		case tvN:
			d.text = strconv.AppendInt(d.text, int64(v.n), 10)
		case tvM:
			d.text = strconv.AppendInt(d.text, int64(v.m), 10)
		case tvYr:
			d.text = strconv.AppendInt(d.text, int64(v.yr), 10)
		case tvPpl:
			d.text = strconv.AppendInt(d.text, int64(v.ppl), 10)
		case tvK:
			d.text = strconv.AppendInt(d.text, int64(v.k), 10)
		case tvX:
			d.text = append(d.text, v.x...)
		case tvPay:
			d.text = append(d.text, v.pay...)
		case tvAmt:
			d.text = append(d.text, v.amt...)
		}
		d.escapeFrom(start)
	}
}

// textClass marks the bytes of a text by what they ask of its escapes: XML escapes them (xml),
// JSON escapes them (json: controls and the backslash; quote: the quote), or UTF-8 continues
// them (high).
var textClass = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = tcJSON
	}
	t['\\'] = tcJSON
	t['"'] = tcXML | tcQuote
	t['<'], t['>'], t['&'], t['\''] = tcXML, tcXML, tcXML, tcXML
	for c := 0x80; c < 0x100; c++ {
		t[c] = tcHigh
	}
	return t
}()

const (
	tcXML = 1 << iota
	tcJSON
	tcQuote
	tcHigh
)

// escapeFrom appends the text written from start (a variable's value) to esc, XML-escaped, and
// tells whether it leaves the text clean.
func (d *descDoc) escapeFrom(start int) {
	s := d.text[start:]
	var seen uint8
	for _, c := range s {
		seen |= textClass[c]
	}
	if seen&tcXML != 0 {
		d.esc = appendXML(d.esc, s)
	} else {
		d.esc = append(d.esc, s...)
	}
	if seen&tcJSON != 0 || seen&tcHigh != 0 && !jsonClean(s) {
		d.clean = false
	}
	if seen&(tcJSON|tcQuote) != 0 || !d.clean {
		d.quoteFree = false
	}
}

// open starts a block of kind in part at the text's end.
func (d *descDoc) open(kind, part uint8, shown bool) {
	d.blocks = append(d.blocks, dblock{kind: kind, part: part, shown: shown, lo: int32(len(d.text)), elo: int32(len(d.esc))})
}

// close ends block i at the text's end.
func (d *descDoc) close(i int) {
	d.blocks[i].hi, d.blocks[i].ehi = int32(len(d.text)), int32(len(d.esc))
}

// heading adds the heading of part (literal text).
func (d *descDoc) heading(part uint8, t *tpl, shown bool) {
	d.flush()
	d.open(dkHead, part, shown)
	d.expand(t, nil)
	d.close(len(d.blocks) - 1)
}

// sent adds a sentence to the paragraph being written in part (opening one), or, for a
// template starting with "|", a line of its own.
func (d *descDoc) sent(part uint8, t *tpl, v *descVars) {
	if t.line {
		d.flush()
		d.open(dkPara, part, false)
		d.expand(t, v)
		d.close(len(d.blocks) - 1)
		return
	}
	if d.openPara >= 0 && d.blocks[d.openPara].part != part {
		d.flush()
	}
	if d.openPara < 0 {
		d.openPara = len(d.blocks)
		d.open(dkPara, part, false)
	} else {
		d.text = append(d.text, ' ')
		d.esc = append(d.esc, ' ')
	}
	d.expand(t, v)
	d.close(d.openPara)
}

// flush ends the paragraph being written.
func (d *descDoc) flush() { d.openPara = -1 }

// item adds a list item to part.
func (d *descDoc) item(part uint8, t *tpl, v *descVars) {
	d.flush()
	d.open(dkItem, part, false)
	if t.line {
		// An item is never a line of its own: its "|" is text.
		d.text = append(d.text, '|')
		d.esc = append(d.esc, '|')
	}
	d.expand(t, v)
	d.close(len(d.blocks) - 1)
}

func pick(r *rng, list []string) string { return list[r.intn(len(list))] }

// writeDesc writes the description of g stating f.
func (w *World) writeDesc(d *descDoc, c *company, g *gen, f *descFacts) {
	L, T := &descTexts[f.lang], &descTpls[f.lang]
	t := &w.titles[g.title]
	cd := &countries[g.country]
	hqc := &countries[c.country]
	r := rng{f.seed}
	sty := h3(c.key, saltDescText, 1)
	d.style, d.bullet = uint8(sty%4), uint8((sty>>8)%3)
	v := descVars{
		lang: f.lang, title: t.name, co: c.core, team: functionNames[t.fn], city: cd.cities[g.city],
		hq: hqc.cities[int(h3(c.key, saltDescText, 2)%uint64(len(hqc.cities)))], area: L.areas[t.fn],
		ctry: cd.name, ctrya: cd.name, ctryg: cd.name, ind: "Software",
	}
	if c.industry >= 0 {
		v.ind = industries[c.industry]
	}
	if lc, ok := localCountries[cd.a2]; ok && f.lang != langEN {
		v.ctry, v.ctrya, v.ctryg = lc.name, lc.name, lc.name
		if lc.withArticle != "" {
			v.ctrya = lc.withArticle
		}
		if lc.genitive != "" {
			v.ctryg = lc.genitive
		}
	}
	grp := fnGroup[t.fn]
	technical := 1
	if grp == grpEng || grp == grpIT || grp == grpData {
		technical = 0
	}

	// About us.
	aboutShown := r.chance(0.75)
	d.heading(pAbout, pickT(&r, T.heads[pAbout]), aboutShown)
	v.yr, v.ppl, v.k = 1990+r.intn(33), 20+10*r.intn(200), 2+r.intn(9)
	v.m, v.n = 5+r.intn(90), 5+r.intn(25)
	d.sent(pAbout, pickT(&r, T.aboutOpen), &v)
	d.sent(pAbout, pickT(&r, T.aboutGrowth), &v)
	if r.chance(0.6) {
		d.sent(pAbout, pickT(&r, T.aboutMore), &v)
	}

	// The role: who is hired, where, at what level, on what terms.
	// A role without its own heading after a shown "About us" would read as the company's.
	d.heading(pRole, pickT(&r, T.heads[pRole]), aboutShown || r.chance(0.55))
	if f.work == wpRemote {
		d.sent(pRole, pickT(&r, T.hireNoCity), &v)
	} else {
		d.sent(pRole, pickT(&r, T.hire), &v)
	}
	if r.chance(0.7) {
		d.sent(pRole, pickT(&r, T.roleMore), &v)
	}
	hybridDays := 2 + r.intn(2)
	hybridItem := false
	v.n = hybridDays
	switch f.work {
	case wpOnsite:
		d.sent(pRole, pickT(&r, T.work[wsOnsite]), &v)
	case wpHybrid:
		if r.chance(0.3) {
			hybridItem = true
		} else {
			d.sent(pRole, pickT(&r, T.work[wsHybrid]), &v)
		}
	case wpRemote:
		if f.remoteIn {
			d.sent(pRole, pickT(&r, T.work[wsRemoteIn]), &v)
		} else {
			d.sent(pRole, pickT(&r, T.work[wsRemoteAny]), &v)
		}
	}
	if f.senText {
		v.lvl = L.lvl[f.sen-rankJunior]
		if r.chance(0.5) {
			d.sent(pRole, pickT(&r, T.senSentence), &v)
		} else {
			d.sent(pRole, pickT(&r, T.senLabel), &v)
		}
	}
	hours, months := 20+r.intn(3)*5, 3*(1+r.intn(4))
	if f.emp == empInternship {
		months = 3 + r.intn(4)
	}
	empAt := r.intn(100) // where the employment type is stated: role, closing or benefits
	empTpl := pickT(&r, T.emp[f.emp])
	sayEmp := func(part uint8) {
		v.n, v.m = hours, months
		d.sent(part, empTpl, &v)
	}
	if empAt < 40 {
		sayEmp(pRole)
	}
	d.flush()

	// Duties, naming required technologies only.
	d.heading(pDuties, pickT(&r, T.heads[pDuties]), true)
	duties := T.duties[grp]
	nd := min(len(duties), 5+r.intn(2))
	first := r.intn(len(duties))
	step := 1 + r.intn(len(duties)-1)
	for gcd(step, len(duties)) != 1 {
		step++
	}
	techAt := -1
	if f.nReq > 0 && r.chance(0.6) {
		techAt = 1 + r.intn(2)
	}
	for i := 0; i < nd; i++ {
		if i == techAt {
			if x, ok := f.techList(d, &r, 0, int(f.nReq), min(3, int(f.nReq)), L.and); ok {
				v.x = x
				d.item(pDuties, pickT(&r, T.dutyTech[technical]), &v)
			}
		}
		d.item(pDuties, duties[(first+i*step)%len(duties)], &v)
	}

	// Requirements: years, the required technologies, the nice-to-haves inline or after.
	d.heading(pReq, pickT(&r, T.heads[pReq]), true)
	if f.years >= 0 {
		v.n, v.m = int(f.years), int(f.yearsHi)
		if f.yearsHi > 0 {
			d.item(pReq, pickT(&r, T.yearsRange), &v)
		} else {
			d.item(pReq, pickT(&r, T.years), &v)
		}
	}
	for i := 0; i < int(f.nReq); {
		n := min(int(f.nReq)-i, 1+r.intn(3))
		v.x = f.appendTechs(d, i, i+n, L.and)
		d.item(pReq, pickT(&r, T.techReq[technical]), &v)
		i += n
	}
	soft := T.soft[grp]
	ns := min(len(soft), 2+r.intn(2))
	s0 := r.intn(len(soft))
	for i := 0; i < ns; i++ {
		d.item(pReq, soft[(s0+i)%len(soft)], &v)
	}
	if f.lang != langEN || r.chance(0.15) {
		d.item(pReq, pickT(&r, T.langSkill), &v)
	}
	if f.nTech > f.nReq {
		inline := r.chance(0.35)
		if !inline {
			d.heading(pNice, pickT(&r, T.heads[pNice]), true)
		}
		for i := int(f.nReq); i < int(f.nTech); {
			n := min(int(f.nTech)-i, 1+r.intn(2))
			v.x = f.appendTechs(d, i, i+n, L.and)
			if inline {
				d.item(pReq, pickT(&r, T.niceInline), &v)
			} else {
				d.item(pNice, pickT(&r, T.techNice), &v)
			}
			i += n
		}
		if !inline && len(T.niceYears) > 0 && r.chance(0.25) {
			v.n = 2 + r.intn(9)
			d.item(pNice, pickT(&r, T.niceYears), &v)
		}
	}

	// Benefits, with their figures that are no pay.
	d.heading(pBenefits, pickT(&r, T.heads[pBenefits]), true)
	payAt := r.intn(3) // 0: a compensation section, 1: the closing, 2: a benefit
	if f.pay {
		d.payBuf = appendPayText(d.payBuf[:0], L, w.salaryOf(g), &r)
		v.pay = d.payBuf
	}
	if f.pay && payAt == 2 {
		d.item(pBenefits, pickT(&r, T.payItem), &v)
	}
	if empAt >= 75 && len(T.empItem[f.emp]) > 0 {
		v.n = hours
		d.item(pBenefits, pickT(&r, T.empItem[f.emp]), &v)
	} else if empAt >= 75 {
		empAt = 50 // no benefit wording for it: the closing states it
	}
	if hybridItem {
		v.n = hybridDays
		d.item(pBenefits, pickT(&r, T.hybridItem), &v)
	}
	ben := T.benefits
	nb := min(len(ben), 4+r.intn(3))
	b0 := r.intn(len(ben))
	v.n = 25 + r.intn(6)
	for i := 0; i < nb; i++ {
		d.item(pBenefits, ben[(b0+i)%len(ben)], &v)
	}
	if cur := cd.currency; (cur == "EUR" || cur == "USD" || cur == "GBP") && r.chance(0.4) {
		d.amtBuf = appendAmount(d.amtBuf[:0], L, cur, float64(500*(2+r.intn(3))))
		v.amt = d.amtBuf
		d.item(pBenefits, pickT(&r, T.budget), &v)
	}
	if f.pay && payAt == 0 {
		d.heading(pPay, pickT(&r, T.heads[pPay]), true)
		d.sent(pPay, pickT(&r, T.payPara), &v)
		d.flush()
	}

	// Closing: terms, pay, visa, how to apply.
	d.heading(pClosing, pickT(&r, T.heads[pClosing]), false)
	if empAt >= 40 && empAt < 75 {
		sayEmp(pClosing)
	}
	if f.pay && payAt == 1 {
		d.sent(pClosing, pickT(&r, T.payLine), &v)
	}
	switch f.visa {
	case 1:
		d.sent(pClosing, pickT(&r, T.visaYes), &v)
	case 0:
		d.sent(pClosing, pickT(&r, T.visaNo), &v)
	}
	if r.chance(0.6) || len(d.text) < 950 { // a short posting says more about how it hires
		d.sent(pClosing, pickT(&r, T.process), &v)
	}
	d.sent(pClosing, pickT(&r, T.apply), &v)
	d.flush()

	// Equal opportunity.
	d.heading(pEEO, pickT(&r, T.heads[pEEO]), r.chance(0.5))
	d.sent(pEEO, pickT(&r, T.eeo), &v)
	d.flush()
	if len(d.text) > maxDescription {
		panic("sim: a description outgrew maxDescription")
	}
}

// techList draws up to n of the technologies techs[lo:hi] as a list for a duty; false when the
// only one is a single letter (no duty wording gives "R" or "C" the context that makes it a
// language).
func (f *descFacts) techList(d *descDoc, r *rng, lo, hi, n int, and string) ([]byte, bool) {
	k := 1 + r.intn(n)
	start := lo + r.intn(hi-lo-k+1)
	if k == 1 && utf8.RuneCountInString(vocab[f.techs[start]].Name) == 1 {
		return nil, false
	}
	return f.appendTechs(d, start, start+k, and), true
}

// appendTechs writes techs[lo:hi] as a list ("Go, PostgreSQL and AWS") into d.out's scratch
// and returns it.
func (f *descFacts) appendTechs(d *descDoc, lo, hi int, and string) []byte {
	b := d.out[:0]
	for i := lo; i < hi; i++ {
		switch i {
		case lo:
		case hi - 1:
			b = append(b, ' ')
			b = append(b, and...)
			b = append(b, ' ')
		default:
			b = append(b, ", "...)
		}
		b = append(b, vocab[f.techs[i]].Name...)
	}
	d.out = b
	return b
}

// appendPayText writes s as the text states it: "$120,000 – $150,000 per year", "60.000 –
// 75.000 € brutto pro Jahr", "45 000 € - 55 000 € bruts annuels", "CHF 110,000 - 130,000 a
// year".
func appendPayText(b []byte, L *langText, s salary, r *rng) []byte {
	sym, hasSym := currencySymbol[s.currency]
	dash := [...]string{" – ", " - ", "–"}[r.intn(3)]
	kform := !L.symAfter && s.period == periodYear && math.Mod(s.min, 1000) == 0 && math.Mod(s.max, 1000) == 0 && r.chance(0.2)
	num := func(b []byte, x float64) []byte {
		if kform {
			b = strconv.AppendInt(b, int64(x/1000), 10)
			return append(b, 'k')
		}
		return appendFigure(b, x, L.thousands, L.decimal)
	}
	switch {
	case !L.symAfter && hasSym:
		b = append(b, sym...)
		b = num(b, s.min)
		b = append(b, dash...)
		if r.chance(0.7) {
			b = append(b, sym...)
		}
		b = num(b, s.max)
	case L.symAfter && s.currency == "EUR":
		b = num(b, s.min)
		if r.chance(0.4) {
			b = append(b, " €"...)
		}
		b = append(b, dash...)
		b = num(b, s.max)
		b = append(b, " €"...)
	default:
		b = append(b, s.currency...)
		b = append(b, ' ')
		b = num(b, s.min)
		b = append(b, dash...)
		b = num(b, s.max)
	}
	b = append(b, ' ')
	switch s.period {
	case periodMonth:
		return append(b, pick(r, L.perMonth)...)
	case periodHour:
		return append(b, pick(r, L.perHour)...)
	}
	return append(b, pick(r, L.perYear)...)
}

// appendAmount writes an amount of cur the way the language writes pay ("€1,500", "1.500 €").
func appendAmount(b []byte, L *langText, cur string, x float64) []byte {
	sym := currencySymbol[cur]
	if L.symAfter {
		b = appendFigure(b, x, L.thousands, L.decimal)
		b = append(b, ' ')
		return append(b, sym...)
	}
	b = append(b, sym...)
	return appendFigure(b, x, L.thousands, L.decimal)
}

// appendFigure writes x with thousands separated by sep and, when it has cents, two decimals
// after dec.
func appendFigure(b []byte, x float64, sep, dec string) []byte {
	whole := int64(x)
	cents := int64(math.Round((x - float64(whole)) * 100))
	var tmp [24]byte
	digits := strconv.AppendInt(tmp[:0], whole, 10)
	for i, ch := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b = append(b, sep...)
		}
		b = append(b, ch)
	}
	if cents > 0 {
		b = append(b, dec...)
		if cents < 10 {
			b = append(b, '0')
		}
		b = strconv.AppendInt(b, cents, 10)
	}
	return b
}

// HTML markup of the companies' styles: heading, paragraph and list item open and close tags.
var htmlStyles = [4]struct{ h, hEnd, p, pEnd, li, liEnd string }{
	{"<h3>", "</h3>", "<p>", "</p>", "<li>", "</li>"},
	{"<p><strong>", "</strong></p>", "<p>", "</p>", "<li>", "</li>"},
	{"<h2>", "</h2>", "<p>", "</p>", "<li><p>", "</p></li>"},
	{"<div><b>", "</b></div>", "<div>", "</div>", "<li>", "</li>"},
}

// appendHTML writes the parts of mask as HTML (raw, unescaped for any feed), leaving out the
// headings of the parts in noHead (a feed that gives that part its own heading).
func (d *descDoc) appendHTML(b []byte, mask, noHead uint16) []byte {
	st := &htmlStyles[d.style]
	inList, wrote := false, false
	for i := range d.blocks {
		bl := &d.blocks[i]
		if mask&(1<<bl.part) == 0 || bl.kind == dkHead && (!bl.shown || noHead&(1<<bl.part) != 0) {
			continue
		}
		if inList && bl.kind != dkItem {
			b = append(b, "</ul>"...)
			inList = false
		}
		txt := d.text[bl.lo:bl.hi]
		switch bl.kind {
		case dkHead:
			if d.style == 3 && wrote {
				b = append(b, "<div><br></div>"...)
			}
			b = append(b, st.h...)
			b = appendXML(b, txt)
			b = append(b, st.hEnd...)
		case dkPara:
			b = append(b, st.p...)
			b = appendXML(b, txt)
			b = append(b, st.pEnd...)
		case dkItem:
			if !inList {
				b = append(b, "<ul>"...)
				inList = true
			}
			b = append(b, st.li...)
			b = appendXML(b, txt)
			b = append(b, st.liEnd...)
		}
		wrote = true
	}
	if inList {
		b = append(b, "</ul>"...)
	}
	return b
}

// appendItems writes the list items of part as "<li>…</li>" (Lever's lists[].content).
func (d *descDoc) appendItems(b []byte, part uint8) []byte {
	for i := range d.blocks {
		bl := &d.blocks[i]
		if bl.part == part && bl.kind == dkItem {
			b = append(b, "<li>"...)
			b = appendXML(b, d.text[bl.lo:bl.hi])
			b = append(b, "</li>"...)
		}
	}
	return b
}

// hasItems reports whether part has list items.
func (d *descDoc) hasItems(part uint8) bool {
	for i := range d.blocks {
		if d.blocks[i].part == part && d.blocks[i].kind == dkItem {
			return true
		}
	}
	return false
}

// has reports whether part has any text besides its heading.
func (d *descDoc) has(part uint8) bool {
	for i := range d.blocks {
		if d.blocks[i].part == part && d.blocks[i].kind != dkHead {
			return true
		}
	}
	return false
}

// headingOf is the heading of part.
func (d *descDoc) headingOf(part uint8) []byte {
	for i := range d.blocks {
		if bl := &d.blocks[i]; bl.part == part && bl.kind == dkHead {
			return d.text[bl.lo:bl.hi]
		}
	}
	return nil
}

var plainBullets = [3]string{"• ", "- ", "* "}

// appendPlain writes the parts of mask as plain text: headings and paragraphs on lines of their
// own, a blank line before each heading and paragraph, list items after a bullet.
func (d *descDoc) appendPlain(b []byte, mask uint16) []byte {
	start := len(b)
	prev := -1 // kind of the block written last
	for i := range d.blocks {
		bl := &d.blocks[i]
		if mask&(1<<bl.part) == 0 || bl.kind == dkHead && !bl.shown {
			continue
		}
		if prev >= 0 && bl.kind != dkItem && prev != dkHead {
			b = append(b, '\n')
		}
		if bl.kind == dkItem {
			b = append(b, plainBullets[d.bullet]...)
		}
		b = append(b, d.text[bl.lo:bl.hi]...)
		b = append(b, '\n')
		prev = int(bl.kind)
	}
	for len(b) > start && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	return b
}

// appendOpening writes the opening of the plain text, cut at a word before n bytes with an
// ellipsis, as a list card shows it (iCIMS).
func (d *descDoc) appendOpening(b []byte, n int) []byte {
	start := len(b)
	b = d.appendPlain(b, introParts)
	if len(b)-start <= n {
		return b
	}
	cut := start + n
	for cut > start && b[cut] != ' ' && b[cut] != '\n' {
		cut--
	}
	b = b[:cut]
	for i := start; i < len(b); i++ {
		if b[i] == '\n' {
			b[i] = ' '
		}
	}
	return append(b, "…"...)
}

// markup is the HTML of descriptions as one feed's escaping writes it: every style's tags, the
// list and spacer tags, and the "&" that starts each entity of the escaped text.
type markup struct {
	styles            [len(htmlStyles)][6]string // h, hEnd, p, pEnd, li, liEnd
	ul, ulEnd, br     string
	liItem, liItemEnd string // appendItems' tags
	amp               string
}

// newMarkup escapes the tags with esc.
func newMarkup(esc func(b []byte, s string) []byte) *markup {
	e := func(s string) string { return string(esc(nil, s)) }
	m := &markup{ul: e("<ul>"), ulEnd: e("</ul>"), br: e("<div><br></div>"), liItem: e("<li>"), liItemEnd: e("</li>"), amp: e("&")}
	for i, st := range htmlStyles {
		m.styles[i] = [6]string{e(st.h), e(st.hEnd), e(st.p), e(st.pEnd), e(st.li), e(st.liEnd)}
	}
	return m
}

// The feeds' escapings of HTML: none (raw HTML, and HTML in a plain JSON string when the text
// is clean), HTML-safe JSON (appendEscH), Greenhouse's entities (appendEntityJSON) and XML
// (appendXML).
var (
	mkRaw    = newMarkup(func(b []byte, s string) []byte { return append(b, s...) })
	mkJSONH  = newMarkup(func(b []byte, s string) []byte { return appendEscH(b, s) })
	mkEntity = newMarkup(func(b []byte, s string) []byte { return appendEntityJSON(b, []byte(s)) })
	mkXML    = newMarkup(func(b []byte, s string) []byte { return appendXML(b, s) })
)

// appendEscaped appends esc, the XML-escaped text of a block, as mk escapes it: only the "&" of
// its entities changes (it holds no other byte HTML-safe JSON, entities or XML escape; the
// JSON escapes need a clean text).
func appendEscaped(b, esc []byte, mk *markup) []byte {
	if mk.amp == "&" {
		return append(b, esc...)
	}
	for {
		i := bytes.IndexByte(esc, '&')
		if i < 0 {
			return append(b, esc...)
		}
		b = append(b, esc[:i]...)
		b = append(b, mk.amp...)
		esc = esc[i+1:]
	}
}

// appendMarkup is appendHTML escaped as mk escapes (mkRaw: appendHTML itself; the JSON
// escapings need a clean text).
func (d *descDoc) appendMarkup(b []byte, mask, noHead uint16, mk *markup) []byte {
	st := &mk.styles[d.style]
	inList, wrote := false, false
	for i := range d.blocks {
		bl := &d.blocks[i]
		if mask&(1<<bl.part) == 0 || bl.kind == dkHead && (!bl.shown || noHead&(1<<bl.part) != 0) {
			continue
		}
		if inList && bl.kind != dkItem {
			b = append(b, mk.ulEnd...)
			inList = false
		}
		txt := d.esc[bl.elo:bl.ehi]
		switch bl.kind {
		case dkHead:
			if d.style == 3 && wrote {
				b = append(b, mk.br...)
			}
			b = append(b, st[0]...)
			b = appendEscaped(b, txt, mk)
			b = append(b, st[1]...)
		case dkPara:
			b = append(b, st[2]...)
			b = appendEscaped(b, txt, mk)
			b = append(b, st[3]...)
		case dkItem:
			if !inList {
				b = append(b, mk.ul...)
				inList = true
			}
			b = append(b, st[4]...)
			b = appendEscaped(b, txt, mk)
			b = append(b, st[5]...)
		}
		wrote = true
	}
	if inList {
		b = append(b, mk.ulEnd...)
	}
	return b
}

// appendHTMLJSON appends the parts of mask as HTML in a JSON string (appendStrBytes of
// appendHTML).
func (d *descDoc) appendHTMLJSON(b []byte, mask, noHead uint16) []byte {
	if !d.clean {
		d.out = d.appendHTML(d.out[:0], mask, noHead)
		return appendStrBytes(b, d.out)
	}
	b = append(b, '"')
	b = d.appendMarkup(b, mask, noHead, mkRaw)
	return append(b, '"')
}

// appendHTMLJSONH appends the parts of mask as HTML in an HTML-safe JSON string (appendStrH of
// appendHTML).
func (d *descDoc) appendHTMLJSONH(b []byte, mask, noHead uint16) []byte {
	if !d.clean {
		d.out = d.appendHTML(d.out[:0], mask, noHead)
		return appendStrH(b, d.out)
	}
	b = append(b, '"')
	b = d.appendMarkup(b, mask, noHead, mkJSONH)
	return append(b, '"')
}

// appendHTMLEntity appends the parts of mask as HTML entity-escaped in a JSON string, without
// the quotes (appendEntityJSON of appendHTML).
func (d *descDoc) appendHTMLEntity(b []byte, mask, noHead uint16) []byte {
	if !d.clean {
		d.out = d.appendHTML(d.out[:0], mask, noHead)
		return appendEntityJSON(b, d.out)
	}
	return d.appendMarkup(b, mask, noHead, mkEntity)
}

// appendHTMLXML appends the parts of mask as HTML XML-escaped (appendXML of appendHTML).
func (d *descDoc) appendHTMLXML(b []byte, mask, noHead uint16) []byte {
	return d.appendMarkup(b, mask, noHead, mkXML)
}

// appendPlainJSON appends the parts of mask as plain text in a JSON string (appendStrBytes of
// appendPlain).
func (d *descDoc) appendPlainJSON(b []byte, mask uint16) []byte {
	d.out = d.appendPlain(d.out[:0], mask)
	if !d.quoteFree {
		return appendStrBytes(b, d.out)
	}
	// The line breaks between the blocks are all a JSON string escapes in it.
	b = append(b, '"')
	for s := d.out; ; {
		i := bytes.IndexByte(s, '\n')
		if i < 0 {
			b = append(b, s...)
			break
		}
		b = append(b, s[:i]...)
		b = append(b, '\\', 'n')
		s = s[i+1:]
	}
	return append(b, '"')
}

// appendItemsJSON appends the list items of part in a JSON string (appendStrBytes of
// appendItems).
func (d *descDoc) appendItemsJSON(b []byte, part uint8) []byte {
	if !d.clean {
		d.out = d.appendItems(d.out[:0], part)
		return appendStrBytes(b, d.out)
	}
	b = append(b, '"')
	for i := range d.blocks {
		bl := &d.blocks[i]
		if bl.part == part && bl.kind == dkItem {
			b = append(b, mkRaw.liItem...)
			b = append(b, d.esc[bl.elo:bl.ehi]...)
			b = append(b, mkRaw.liItemEnd...)
		}
	}
	return append(b, '"')
}

// appendHeadingJSON appends the heading of part as a JSON string (appendStrBytes of
// headingOf).
func (d *descDoc) appendHeadingJSON(b []byte, part uint8) []byte {
	h := d.headingOf(part)
	if !d.quoteFree {
		return appendStrBytes(b, h)
	}
	b = append(b, '"')
	b = append(b, h...)
	return append(b, '"')
}

// appendHeadingXML appends the heading of part XML-escaped (appendXML of headingOf).
func (d *descDoc) appendHeadingXML(b []byte, part uint8) []byte {
	for i := range d.blocks {
		if bl := &d.blocks[i]; bl.part == part && bl.kind == dkHead {
			return append(b, d.esc[bl.elo:bl.ehi]...)
		}
	}
	return b
}
