package jobtext

import (
	"strings"
	"sync"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// Derived is what a posting says about itself, read from its title and text. Every field is
// nil or empty when the posting does not say it; nothing is filled in from a default, a
// neighbouring field or the company.
type Derived struct {
	// Technologies named by the title and text, in the order first named; nil when none.
	Technologies []Technology
	// Seniority is one of normalize.Seniorities: the title's when it names one, else the text's
	// explicit wording ("entry-level role", "Seniority: Senior", "we are looking for a junior …");
	// "" when neither says, or the text's wordings disagree.
	Seniority string
	// EmploymentType is full_time, part_time, contract, temporary or internship; "" when the
	// posting does not say or says two that exclude each other ("full- or part-time").
	EmploymentType string
	// WorkplaceType is onsite, hybrid or remote; "" when not said or said both ways.
	WorkplaceType string
	// RemoteCountries are the countries a remote role is open to when the posting names them
	// ("remote (US only)", "remote within the EU"), as normalize's canonical names, sorted; nil
	// otherwise. RemoteRegions are the wider areas it names: worldwide, europe, emea, americas,
	// north_america, latam, apac.
	RemoteCountries []string
	RemoteRegions   []string
	// YearsExperienceMin is the highest minimum of years of experience the posting asks for
	// ("5+ years", "at least 3 years", "3–5 years" is 3), outside nice-to-haves; nil when none.
	YearsExperienceMin *int
	// VisaSponsorship is true when the posting offers visa sponsorship, false when it rules it out,
	// nil when it does not say or says both.
	VisaSponsorship *bool
	// Pay is the first pay range the text states; nil when none.
	Pay *Pay
}

// Technology is one technology of a posting.
type Technology struct {
	Slug string // a row of the vocabulary (Lookup)
	// Required: named by the title, or in a requirements section or sentence ("Requirements",
	// "must have", "Anforderungen", "requis", "imprescindible"). NiceToHave: named only as a
	// nice-to-have ("bonus", "von Vorteil", "un plus", "deseable"). Neither: named elsewhere
	// (the duties, the stack, the company), or in a posting that does not separate them.
	Required   bool
	NiceToHave bool
}

// Pay is pay stated in the text of a posting (never the feed's structured salary, never
// converted): the figures, currency and period as written.
type Pay struct {
	Min, Max float64 // a single figure is both; "up to X" has no Min, "from X" no Max (0)
	Currency string  // ISO 4217
	// DollarSign: the currency was a bare "$", read as USD; a caller that knows the posting is
	// Canadian, Australian, … should read it as that country's dollar.
	DollarSign bool
	Period     string // year, month, week, day or hour; "" when the text states none
	Stated     string // the words the figures were read from
	Source     string // always PaySourceText
}

// PaySourceText labels pay read from the text.
const PaySourceText = "text"

// Employment types (normalize.EmploymentTypes).
const (
	FullTime   = normalize.FullTime
	PartTime   = normalize.PartTime
	Contract   = normalize.Contract
	Temporary  = normalize.Temporary
	Internship = normalize.Internship
)

// Workplace types (normalize.WorkplaceTypes).
const (
	Onsite = normalize.Onsite
	Hybrid = normalize.Hybrid
	Remote = normalize.Remote
)

// phrases is the dictionary of every table; built on first use, read-only afterwards.
var phrases = buildPhrases()

func buildPhrases() *dict {
	t := newDict()
	for i := range vocabulary {
		t.addAll(kTech, int32(i), vocabulary[i].aliases)
	}
	for _, h := range headings {
		t.addAll(kHead, h.sec, h.phrases)
	}
	t.addAll(kCueReq, 0, cueReq)
	t.addAll(kCueNice, 0, cueNice)
	for _, e := range employment {
		t.addAll(kEmp, e.val, e.phrases)
	}
	t.addAll(kRemote, 0, remoteStrong)
	t.addAll(kRemoteW, 0, remoteWord)
	t.addAll(kHybrid, 0, hybridStrong)
	t.addAll(kHybridW, 0, hybridWord)
	t.addAll(kHybridS, 0, hybridSoft)
	t.addAll(kOnsite, 0, onsiteStrong)
	t.addAll(kOnsiteW, 0, onsiteWord)
	t.addAll(kNoRemote, 0, noRemote)
	t.addAll(kVisaYes, 0, visaYes)
	t.addAll(kVisaNo, 0, visaNo)
	for _, s := range seniorityPhrases {
		t.addAll(kSen, int32(normalize.SeniorityRank(s.sen)), s.phrases)
	}
	t.addAll(kSenLabel, 0, seniorityLabels)
	t.addAll(kHire, 0, hirePhrases)
	for _, p := range periods {
		t.addAll(kPeriod, p.val, p.phrases)
	}
	for _, p := range periodsBefore {
		t.addAll(kPeriodPre, p.val, p.phrases)
	}
	t.addAll(kPayWord, 0, payWords)
	t.addAll(kPayVeto, 0, payVetoes)
	for i, r := range regionsTable {
		t.addAll(kRegion, int32(i), r.phrases)
	}
	return t.finish(wordClasses)
}

// Sentence contexts.
const (
	ctxNeutral = iota
	ctxRequired
	ctxNice
	ctxIgnore // equal-opportunity and privacy text: nothing is read from it
)

// analysis is one posting being read.
type analysis struct {
	d      *doc
	doc    doc // what d points to: its slices are reused by the next posting's analysis
	hits   []hit
	first  []int32    // hits starting at word i are hits[first[i]:first[i+1]]
	ctx    []uint8    // per sentence
	flags  []uint8    // per sentence, sfDone once computed
	cls    []uint8    // per word: its classes (clYear, …)
	toks   []payTok   // a line's pay tokens (pay)
	cands  []techCand // technology aliases found (technologies)
	techAt []int32    // per word: the accepted alias covering it (technologies)
	said   []uint8    // per sentence: the cue and visa phrases starting in it (saidReq, …)
	lang   uint8
}

// Sentence flags, computed once per sentence (so that reading many figures or year words of one
// long sentence stays linear).
const (
	sfDone = 1 << iota
	sfPay  // a pay word
	sfOurs // the company speaks ("we", "our", "wir", "nous")
	sfAsks // the sentence asks for something ("expect", "you", "suchen")
)

// sentFlags returns the flags of sentence si.
func (a *analysis) sentFlags(si int32) uint8 {
	if a.flags[si]&sfDone != 0 {
		return a.flags[si]
	}
	d := a.d
	f := uint8(sfDone)
	s := d.sents[si]
	for k := int(s.first); k < int(s.end); k++ {
		w := d.fw(k)
		if companyWords[w] {
			f |= sfOurs
		}
		if askWords[w] {
			f |= sfAsks
		}
		if _, ok := a.hitAt(k, kPayWord); ok {
			f |= sfPay
		}
	}
	a.flags[si] = f
	return f
}

// Derive reads what a posting says from its title and its text (Clean's output, or any plain
// text). It never fails: what it cannot read is left empty.
func Derive(title, text string) Derived {
	a := analyze(title, text)
	defer a.release()
	var out Derived
	out.Technologies = a.technologies()
	out.Seniority = normalize.TitleSeniority(title)
	if out.Seniority == "" {
		out.Seniority = a.textSeniority()
	}
	out.EmploymentType = a.employment()
	out.WorkplaceType, out.RemoteCountries, out.RemoteRegions = a.workplace()
	out.YearsExperienceMin = a.yearsMin()
	out.VisaSponsorship = a.visa()
	out.Pay = a.pay()
	return out
}

// analyses holds finished analyses: their slices (words, lines, sentences, hits, a few KB for a
// posting) are the next posting's, so a crawl reading thousands of postings does not allocate
// them anew for each.
var analyses = sync.Pool{New: func() any { return new(analysis) }}

// release gives a back to the pool, keeping its slices and dropping its text. Nothing Derive
// returns points into the slices or into the doc's text and folded words, which live in the
// doc's buffers (a Pay's Stated is a copy).
func (a *analysis) release() {
	a.doc.src, a.doc.low = "", ""
	analyses.Put(a)
}

// analyze lexes and scans a posting and finds its sections and sentence contexts, into an
// analysis of the pool (Derive releases it).
func analyze(title, text string) *analysis {
	a := analyses.Get().(*analysis)
	a.d = &a.doc
	a.d.tab = phrases.tab
	a.d.lex(title, text)
	a.cls = a.d.cls
	a.hits = phrases.scan(a.d, a.hits[:0])
	a.first = resize(a.first, len(a.d.words)+1)
	h := 0
	for i := range a.d.words {
		a.first[i] = int32(h)
		for h < len(a.hits) && int(a.hits[h].i) == i {
			h++
		}
	}
	a.first[len(a.d.words)] = int32(h)
	a.lang = a.guessLang()
	a.sections()
	a.contexts()
	return a
}

// at returns the hits starting at word i.
func (a *analysis) at(i int) []hit {
	if i < 0 || i >= len(a.d.words) {
		return nil
	}
	return a.hits[a.first[i]:a.first[i+1]]
}

// hitAt returns the longest hit of kind starting at word i.
func (a *analysis) hitAt(i int, kind uint8) (hit, bool) {
	var best hit
	ok := false
	for _, h := range a.at(i) {
		if h.e.kind == kind && (!ok || h.n > best.n) {
			best, ok = h, true
		}
	}
	return best, ok
}

// Word classes: one lookup per word answers what the loops over every word ask.
const (
	clLang = 7      // the language of a stop word (langEN, …)
	clYear = 1 << 3 // a year word ("years", "Jahre", "ans", "años")
	clDay  = 1 << 4 // a day word ("days", "Tage", "jours", "días")
	clFill = 1 << 5 // a heading filler (headFillers)
	clNode = 1 << 6 // a key of the phrase dictionary (set by newWordTab)
)

// wordClasses maps a folded word to its classes.
var wordClasses = func() map[string]uint8 {
	m := map[string]uint8{}
	for w, l := range stopWords {
		m[w] |= l
	}
	for w := range yearWords {
		m[w] |= clYear
	}
	for w := range dayWords {
		m[w] |= clDay
	}
	for w := range headFillers {
		m[w] |= clFill
	}
	return m
}()

// guessLang returns the language most stop words belong to.
func (a *analysis) guessLang() uint8 {
	var n [5]int
	for i := range a.d.words {
		n[a.cls[i]&clLang]++
	}
	best := uint8(langUnknown)
	for l := langEN; l <= langES; l++ {
		if n[l] > n[best] || best == langUnknown && n[l] > 0 {
			best = uint8(l)
		}
	}
	return best
}

// sections finds the heading lines and gives every line the section it is in: from its heading
// to the next heading, or to the end of its list when its content is a list.
func (a *analysis) sections() {
	sec := uint8(secNone)
	items := false // the section has had list items
	for li := range a.d.lines {
		ln := &a.d.lines[li]
		if ln.title {
			ln.sec = secTitle
			continue
		}
		if s, ok := a.heading(ln); ok {
			sec = s
			items = false
		} else if ln.item {
			items = true
		} else if items {
			// A section whose content was a list ends with the list: the paragraph after it is
			// the posting's general text again (pay, employment, equal opportunity).
			sec, items = secNone, false
		}
		ln.sec = sec
	}
}

// heading reports whether a line is a section heading and which: a line made of heading phrases
// and fillers only ("Your profile", "Requirements & Qualifications"), a heading phrase followed by
// a colon ("Requirements: Go, SQL", "What you'll bring to the team:"), or a short line ending in a
// colon (a heading not in the tables: secOther). A list item is a heading only when it is nothing
// else.
func (a *analysis) heading(ln *line) (uint8, bool) {
	d := a.d
	first, end := int(ln.first), int(ln.end)
	n := end - first
	text := strings.TrimSpace(d.src[ln.lo:ln.hi])
	colonEnd := strings.HasSuffix(text, ":")
	sec := uint8(secNone)
	i := first
	for i < end {
		h, ok := a.hitAt(i, kHead)
		if ok && d.words[i].sent == d.words[first].sent {
			if sec == secNone {
				sec = uint8(h.e.val)
			}
			i += int(h.n)
			continue
		}
		if a.cls[i]&clFill != 0 { // headFillers
			i++
			continue
		}
		break
	}
	switch {
	case sec != secNone && i == end && n <= 10:
		return sec, true
	case ln.item:
		return 0, false
	case sec != secNone && i < end && strings.Contains(d.gapText(i), ":") && i-first <= 8:
		return sec, true
	case sec != secNone && colonEnd && n <= 10:
		return sec, true
	case sec == secNone && colonEnd && n <= 6:
		return secOther, true
	}
	return 0, false
}

// Phrases a sentence says (analysis.said), from the hits starting in it.
const (
	saidReq = 1 << iota // a requirement cue
	saidNice
	saidVisaYes
	saidVisaNo
)

// contexts gives every sentence its context: the title is required; a nice-to-have cue in the
// sentence makes it nice, else a requirement cue makes it required, else the section decides.
func (a *analysis) contexts() {
	d := a.d
	a.ctx = resize(a.ctx, len(d.sents))
	a.flags = resize(a.flags, len(d.sents))
	a.said = resize(a.said, len(d.sents))
	for _, h := range a.hits {
		var bit uint8
		switch h.e.kind {
		case kCueReq:
			bit = saidReq
		case kCueNice:
			bit = saidNice
		case kVisaYes:
			bit = saidVisaYes
		case kVisaNo:
			bit = saidVisaNo
		default:
			continue
		}
		a.said[d.words[h.i].sent] |= bit
	}
	for si, s := range d.sents {
		sec := d.lines[s.line].sec
		switch sec {
		case secTitle:
			a.ctx[si] = ctxRequired
			continue
		case secLegal:
			a.ctx[si] = ctxIgnore
			continue
		}
		req, nice := a.said[si]&saidReq != 0, a.said[si]&saidNice != 0
		switch {
		case nice:
			a.ctx[si] = ctxNice
		case req:
			a.ctx[si] = ctxRequired
		case sec == secRequired:
			a.ctx[si] = ctxRequired
		case sec == secNice:
			a.ctx[si] = ctxNice
		default:
			a.ctx[si] = ctxNeutral
		}
	}
}

// sec is the section of word i.
func (a *analysis) sec(i int) uint8 { return a.d.lines[a.d.words[i].line].sec }

// ctxOf is the context of word i's sentence.
func (a *analysis) ctxOf(i int) uint8 { return a.ctx[a.d.words[i].sent] }

// inTitle reports whether word i is a word of the title.
func (a *analysis) inTitle(i int) bool { return a.d.lines[a.d.words[i].line].title }

// Lookup returns the vocabulary row of a slug.
func Lookup(slug string) (Tech, bool) {
	i, ok := slugIndex[slug]
	if !ok {
		return Tech{}, false
	}
	return vocabulary[i], true
}

// Vocabulary returns every row of the technology vocabulary, in table order. The slice is the
// caller's.
func Vocabulary() []Tech { return append([]Tech(nil), vocabulary...) }

// slugIndex maps a slug to its row.
var slugIndex = func() map[string]int {
	m := make(map[string]int, len(vocabulary))
	for i, t := range vocabulary {
		m[t.Slug] = i
	}
	return m
}()
