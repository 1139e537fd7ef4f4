package sim

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A description is written once per render into a descDoc: its text and its blocks (headings,
// paragraphs and list items), each in one part (about us, the role, duties, requirements, ...).
// The vendors' renderers then write the parts they carry in their fields and markup: the whole
// as HTML (Greenhouse, Ashby, Teamtailor, JSON-LD, the aggregator) or plain text (Ashby, Lever's
// plain fields), or split the way their feed splits it (Lever's lists, Personio's
// jobDescriptions, Pinpoint's and Workable's sections, Recruitee's requirements).

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
}

// descDoc is one written description.
type descDoc struct {
	text     []byte
	blocks   []dblock
	out      []byte // a rendering, for the callers that escape it further
	payBuf   []byte // the pay statement, the benefit amount: scratch of the writer
	amtBuf   []byte
	openPara int   // index of the paragraph block being written, -1 none
	style    uint8 // HTML markup style of the company
	bullet   uint8 // plain-text bullet of the company
}

// maxDescription bounds a description's text; the wordings stay well below it (TestDescriptions
// checks), so it is only a guard.
const maxDescription = 6 << 10

// describe writes the description of g (from the World's pool; release it after use).
func (w *World) describe(c *company, g *gen) *descDoc {
	d, _ := w.descs.Get().(*descDoc)
	if d == nil {
		d = &descDoc{text: make([]byte, 0, 4096), blocks: make([]dblock, 0, 48), out: make([]byte, 0, 8192)}
	}
	d.text, d.blocks, d.out, d.openPara = d.text[:0], d.blocks[:0], d.out[:0], -1
	f := w.facts(c, g)
	w.writeDesc(d, c, g, &f)
	return d
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

func (d *descDoc) expand(tpl string, v *descVars) {
	for len(tpl) > 0 {
		i := strings.IndexByte(tpl, '{')
		if i < 0 {
			d.text = append(d.text, tpl...)
			return
		}
		d.text = append(d.text, tpl[:i]...)
		j := strings.IndexByte(tpl[i:], '}')
		key := tpl[i+1 : i+j]
		tpl = tpl[i+j+1:]
		switch key {
		case "t":
			d.text = append(d.text, v.title...)
		case "a":
			if v.title != "" && strings.IndexByte("AEIOUaeiou", v.title[0]) >= 0 {
				d.text = append(d.text, "an "...)
			} else {
				d.text = append(d.text, "a "...)
			}
			d.text = append(d.text, v.title...)
		case "co":
			d.text = append(d.text, v.co...)
		case "team":
			d.text = append(d.text, v.team...)
		case "city":
			d.text = append(d.text, v.city...)
		case "hq":
			d.text = append(d.text, v.hq...)
		case "ind":
			d.text = append(d.text, v.ind...)
		case "area":
			d.text = append(d.text, v.area...)
		case "ctry":
			d.text = append(d.text, v.ctry...)
		case "ctrya":
			d.text = append(d.text, v.ctrya...)
		case "ctryg":
			d.text = append(d.text, v.ctryg...)
		case "lvl":
			d.text = append(d.text, v.lvl...)
		case "Lvl":
			d.text = append(d.text, capitalize(v.lvl)...)
		case "lvla":
			if v.lvl != "" && strings.IndexByte("aeiou", v.lvl[0]) >= 0 {
				d.text = append(d.text, "an "...)
			} else {
				d.text = append(d.text, "a "...)
			}
			d.text = append(d.text, v.lvl...)
		case "n":
			d.text = strconv.AppendInt(d.text, int64(v.n), 10)
		case "m":
			d.text = strconv.AppendInt(d.text, int64(v.m), 10)
		case "yr":
			d.text = strconv.AppendInt(d.text, int64(v.yr), 10)
		case "ppl":
			d.text = strconv.AppendInt(d.text, int64(v.ppl), 10)
		case "k":
			d.text = strconv.AppendInt(d.text, int64(v.k), 10)
		case "x":
			d.text = append(d.text, v.x...)
		case "pay":
			d.text = append(d.text, v.pay...)
		case "amt":
			d.text = append(d.text, v.amt...)
		}
	}
}

// heading adds the heading of part.
func (d *descDoc) heading(part uint8, s string, shown bool) {
	d.flush()
	lo := int32(len(d.text))
	d.text = append(d.text, s...)
	d.blocks = append(d.blocks, dblock{kind: dkHead, part: part, shown: shown, lo: lo, hi: int32(len(d.text))})
}

// sent adds a sentence to the paragraph being written in part (opening one), or, for a
// template starting with "|", a line of its own.
func (d *descDoc) sent(part uint8, tpl string, v *descVars) {
	if line, ok := strings.CutPrefix(tpl, "|"); ok {
		d.flush()
		lo := int32(len(d.text))
		d.expand(line, v)
		d.blocks = append(d.blocks, dblock{kind: dkPara, part: part, lo: lo, hi: int32(len(d.text))})
		return
	}
	if d.openPara >= 0 && d.blocks[d.openPara].part != part {
		d.flush()
	}
	if d.openPara < 0 {
		d.openPara = len(d.blocks)
		d.blocks = append(d.blocks, dblock{kind: dkPara, part: part, lo: int32(len(d.text))})
	} else {
		d.text = append(d.text, ' ')
	}
	d.expand(tpl, v)
	d.blocks[d.openPara].hi = int32(len(d.text))
}

// flush ends the paragraph being written.
func (d *descDoc) flush() { d.openPara = -1 }

// item adds a list item to part.
func (d *descDoc) item(part uint8, tpl string, v *descVars) {
	d.flush()
	lo := int32(len(d.text))
	d.expand(tpl, v)
	d.blocks = append(d.blocks, dblock{kind: dkItem, part: part, lo: lo, hi: int32(len(d.text))})
}

func pick(r *rng, list []string) string { return list[r.intn(len(list))] }

// writeDesc writes the description of g stating f.
func (w *World) writeDesc(d *descDoc, c *company, g *gen, f *descFacts) {
	L := &descTexts[f.lang]
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
	d.heading(pAbout, pick(&r, L.heads[pAbout]), aboutShown)
	v.yr, v.ppl, v.k = 1990+r.intn(33), 20+10*r.intn(200), 2+r.intn(9)
	v.m, v.n = 5+r.intn(90), 5+r.intn(25)
	d.sent(pAbout, pick(&r, L.aboutOpen), &v)
	d.sent(pAbout, pick(&r, L.aboutGrowth), &v)
	if r.chance(0.6) {
		d.sent(pAbout, pick(&r, L.aboutMore), &v)
	}

	// The role: who is hired, where, at what level, on what terms.
	// A role without its own heading after a shown "About us" would read as the company's.
	d.heading(pRole, pick(&r, L.heads[pRole]), aboutShown || r.chance(0.55))
	if f.work == wpRemote {
		d.sent(pRole, pick(&r, L.hireNoCity), &v)
	} else {
		d.sent(pRole, pick(&r, L.hire), &v)
	}
	if r.chance(0.7) {
		d.sent(pRole, pick(&r, L.roleMore), &v)
	}
	hybridDays := 2 + r.intn(2)
	hybridItem := false
	v.n = hybridDays
	switch f.work {
	case wpOnsite:
		d.sent(pRole, pick(&r, L.work[wsOnsite]), &v)
	case wpHybrid:
		if r.chance(0.3) {
			hybridItem = true
		} else {
			d.sent(pRole, pick(&r, L.work[wsHybrid]), &v)
		}
	case wpRemote:
		if f.remoteIn {
			d.sent(pRole, pick(&r, L.work[wsRemoteIn]), &v)
		} else {
			d.sent(pRole, pick(&r, L.work[wsRemoteAny]), &v)
		}
	}
	if f.senText {
		v.lvl = L.lvl[f.sen-rankJunior]
		if r.chance(0.5) {
			d.sent(pRole, pick(&r, L.senSentence), &v)
		} else {
			d.sent(pRole, pick(&r, L.senLabel), &v)
		}
	}
	hours, months := 20+r.intn(3)*5, 3*(1+r.intn(4))
	if f.emp == empInternship {
		months = 3 + r.intn(4)
	}
	empAt := r.intn(100) // where the employment type is stated: role, closing or benefits
	empTpl := pick(&r, L.emp[f.emp])
	sayEmp := func(part uint8) {
		v.n, v.m = hours, months
		d.sent(part, empTpl, &v)
	}
	if empAt < 40 {
		sayEmp(pRole)
	}
	d.flush()

	// Duties, naming required technologies only.
	d.heading(pDuties, pick(&r, L.heads[pDuties]), true)
	duties := L.duties[grp]
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
				d.item(pDuties, pick(&r, L.dutyTech[technical]), &v)
			}
		}
		d.item(pDuties, duties[(first+i*step)%len(duties)], &v)
	}

	// Requirements: years, the required technologies, the nice-to-haves inline or after.
	d.heading(pReq, pick(&r, L.heads[pReq]), true)
	if f.years >= 0 {
		v.n, v.m = int(f.years), int(f.yearsHi)
		if f.yearsHi > 0 {
			d.item(pReq, pick(&r, L.yearsRange), &v)
		} else {
			d.item(pReq, pick(&r, L.years), &v)
		}
	}
	for i := 0; i < int(f.nReq); {
		n := min(int(f.nReq)-i, 1+r.intn(3))
		v.x = f.appendTechs(d, i, i+n, L.and)
		d.item(pReq, pick(&r, L.techReq[technical]), &v)
		i += n
	}
	soft := L.soft[grp]
	ns := min(len(soft), 2+r.intn(2))
	s0 := r.intn(len(soft))
	for i := 0; i < ns; i++ {
		d.item(pReq, soft[(s0+i)%len(soft)], &v)
	}
	if f.lang != langEN || r.chance(0.15) {
		d.item(pReq, pick(&r, L.langSkill), &v)
	}
	if f.nTech > f.nReq {
		inline := r.chance(0.35)
		if !inline {
			d.heading(pNice, pick(&r, L.heads[pNice]), true)
		}
		for i := int(f.nReq); i < int(f.nTech); {
			n := min(int(f.nTech)-i, 1+r.intn(2))
			v.x = f.appendTechs(d, i, i+n, L.and)
			if inline {
				d.item(pReq, pick(&r, L.niceInline), &v)
			} else {
				d.item(pNice, pick(&r, L.techNice), &v)
			}
			i += n
		}
		if !inline && len(L.niceYears) > 0 && r.chance(0.25) {
			v.n = 2 + r.intn(9)
			d.item(pNice, pick(&r, L.niceYears), &v)
		}
	}

	// Benefits, with their figures that are no pay.
	d.heading(pBenefits, pick(&r, L.heads[pBenefits]), true)
	payAt := r.intn(3) // 0: a compensation section, 1: the closing, 2: a benefit
	if f.pay {
		d.payBuf = appendPayText(d.payBuf[:0], L, w.salaryOf(g), &r)
		v.pay = d.payBuf
	}
	if f.pay && payAt == 2 {
		d.item(pBenefits, pick(&r, L.payItem), &v)
	}
	if empAt >= 75 && len(L.empItem[f.emp]) > 0 {
		v.n = hours
		d.item(pBenefits, pick(&r, L.empItem[f.emp]), &v)
	} else if empAt >= 75 {
		empAt = 50 // no benefit wording for it: the closing states it
	}
	if hybridItem {
		v.n = hybridDays
		d.item(pBenefits, pick(&r, L.hybridItem), &v)
	}
	ben := L.benefits
	nb := min(len(ben), 4+r.intn(3))
	b0 := r.intn(len(ben))
	v.n = 25 + r.intn(6)
	for i := 0; i < nb; i++ {
		d.item(pBenefits, ben[(b0+i)%len(ben)], &v)
	}
	if cur := cd.currency; (cur == "EUR" || cur == "USD" || cur == "GBP") && r.chance(0.4) {
		d.amtBuf = appendAmount(d.amtBuf[:0], L, cur, float64(500*(2+r.intn(3))))
		v.amt = d.amtBuf
		d.item(pBenefits, pick(&r, L.budget), &v)
	}
	if f.pay && payAt == 0 {
		d.heading(pPay, pick(&r, L.heads[pPay]), true)
		d.sent(pPay, pick(&r, L.payPara), &v)
		d.flush()
	}

	// Closing: terms, pay, visa, how to apply.
	d.heading(pClosing, pick(&r, L.heads[pClosing]), false)
	if empAt >= 40 && empAt < 75 {
		sayEmp(pClosing)
	}
	if f.pay && payAt == 1 {
		d.sent(pClosing, pick(&r, L.payLine), &v)
	}
	switch f.visa {
	case 1:
		d.sent(pClosing, pick(&r, L.visaYes), &v)
	case 0:
		d.sent(pClosing, pick(&r, L.visaNo), &v)
	}
	if r.chance(0.6) || len(d.text) < 950 { // a short posting says more about how it hires
		d.sent(pClosing, pick(&r, L.process), &v)
	}
	d.sent(pClosing, pick(&r, L.apply), &v)
	d.flush()

	// Equal opportunity.
	d.heading(pEEO, pick(&r, L.heads[pEEO]), r.chance(0.5))
	d.sent(pEEO, pick(&r, L.eeo), &v)
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
