package jobtext

import (
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// textSeniority is the seniority the text states in so many words: a level phrase ("entry-level
// role", "mid-level", "semi senior"), a label ("Seniority: Senior", "Level: Junior"), or a
// seniority word right after a hiring phrase ("we are looking for a senior …", "wir suchen einen
// Junior …"). Company, benefits and equal-opportunity text is not read; two different answers
// are none.
func (a *analysis) textSeniority() string {
	d := a.d
	found, conflict := -1, false
	note := func(rank int) {
		switch {
		case rank < 0:
		case found < 0:
			found = rank
		case found != rank:
			conflict = true
		}
	}
	for _, h := range a.hits { // in word order, as at(i) for each word i
		i := int(h.i)
		if a.inTitle(i) || a.ctxOf(i) == ctxIgnore {
			continue
		}
		switch a.sec(i) {
		case secCompany, secBenefits, secLegal:
			continue
		}
		switch h.e.kind {
		case kSen:
			note(int(h.e.val))
		case kSenLabel:
			k := i + int(h.n)
			if d.sameSent(i, k) && strings.Contains(d.gapText(k), ":") {
				note(a.seniorityAt(k))
			}
		case kHire:
			for k := i + int(h.n); k < i+int(h.n)+5 && d.sameSent(i, k); k++ {
				if _, ok := a.hitAt(k, kSen); ok {
					break // a level phrase, noted where it starts ("un perfil semi senior")
				}
				if s, ok := textSeniorityWords[d.fw(k)]; ok {
					note(normalize.SeniorityRank(s))
					break
				}
			}
		}
	}
	if found < 0 || conflict {
		return ""
	}
	return normalize.Seniorities[found]
}

// seniorityAt is the seniority rank word k names (a level phrase or a title word), or -1; a
// hyphenated pair of two ("Mid-Senior") names none.
func (a *analysis) seniorityAt(k int) int {
	d := a.d
	if h, ok := a.hitAt(k, kSen); ok {
		return int(h.e.val)
	}
	s := normalize.SeniorityOfWord(d.fw(k))
	if d.sameSent(k, k+1) && d.words[k+1].gap == gapGlue {
		if o := normalize.SeniorityOfWord(d.fw(k + 1)); o != "" && o != s {
			return -1
		}
	}
	return normalize.SeniorityRank(s)
}

// textSeniorityWords are the seniority words read after a hiring phrase: levels only, not roles
// ("manager", "director" name the job, which the title says).
var textSeniorityWords = map[string]string{
	"intern": "intern", "trainee": "intern", "werkstudent": "intern", "werkstudentin": "intern",
	"praktikant": "intern", "praktikantin": "intern", "stagiaire": "intern", "becario": "intern",
	"junior": "junior", "jr": "junior", "mid": "mid", "intermediate": "mid", "senior": "senior",
	"sr": "senior", "principal": "principal", "practicas": "intern", "becaria": "intern",
	"stage": "intern", "apprenti": "intern", "apprentie": "intern", "alternant": "intern", "alternante": "intern",
}

// employment is the employment type the posting states. Terms in requirements, nice-to-haves and
// company or equal-opportunity text are not read ("completed internship", "for all full-time
// employees"); the title is.
func (a *analysis) employment() string {
	d := a.d
	var bits int32
	for _, h := range a.hits {
		if h.e.kind != kEmp {
			continue
		}
		i := int(h.i)
		switch a.sec(i) {
		case secRequired, secNice, secCompany, secLegal:
			continue
		}
		if a.ctxOf(i) == ctxIgnore {
			continue
		}
		bits |= h.e.val
		// "Voll- oder Teilzeit": the full-time word before a part-time one.
		if h.e.val == empPartHours {
			for k := i - 3; k < i; k++ {
				if d.sameSent(i, k) && d.fw(k) == "voll" {
					bits |= empFullHours
				}
			}
		}
	}
	for i := range d.words {
		if !a.inTitle(i) {
			break
		}
		bits |= titleEmployment[d.fw(i)]
	}
	switch {
	case bits == 0:
		return ""
	case bits&empIntern != 0:
		return Internship
	case bits&empContract != 0:
		return Contract
	case bits&empTemporary != 0:
		if bits&empPermanent != 0 {
			return "" // "CDD ou CDI"
		}
		return Temporary
	case bits&empPartHours != 0:
		if bits&empFullHours != 0 {
			return "" // full- or part-time
		}
		return PartTime
	}
	return FullTime
}

// titleEmployment are words that state the employment type in a title only ("Stage - …",
// "Intern, Data"); in a text they are too often something else.
var titleEmployment = map[string]int32{
	"stage": empIntern, "intern": empIntern, "interns": empIntern, "contractor": empContract,
	"freelance": empContract, "freelancer": empContract, "temp": empTemporary,
}

// yearsMin is the highest minimum of years of experience asked for, outside nice-to-haves and
// outside company, benefits and equal-opportunity text.
func (a *analysis) yearsMin() *int {
	d := a.d
	best := -1
	for i := range d.words {
		if a.cls[i]&clYear == 0 || a.inTitle(i) {
			continue
		}
		switch a.ctxOf(i) {
		case ctxNice, ctxIgnore:
			continue
		}
		switch a.sec(i) {
		case secCompany, secBenefits, secLegal:
			continue
		}
		n, from := a.yearsNumber(i)
		if n < 0 || n > 30 {
			continue
		}
		if !a.aboutExperience(from, i) {
			continue
		}
		best = max(best, n)
	}
	if best < 0 {
		return nil
	}
	return &best
}

// yearsNumber reads the number before the year word i: "5 years", "5+ years", "5 or more years",
// "3-5 years" and "3 to 5 years" (3), "five years". It returns the number and its first word, or
// -1.
func (a *analysis) yearsNumber(i int) (n, from int) {
	d := a.d
	j := i - 1
	if !d.sameSent(i, j) {
		return -1, 0
	}
	if w := d.fw(j); (w == "more" || w == "plus" || w == "mehr") && d.sameSent(i, j-2) && (d.fw(j-1) == "or" || d.fw(j-1) == "oder") {
		j -= 2 // "5 or more years"
	}
	n = a.numberWord(j)
	if n < 0 {
		return -1, 0
	}
	from = j
	// A range: its lower figure.
	k := j - 1
	if d.sameSent(i, k) && rangeWords[d.fw(k)] {
		k--
	} else if !strings.ContainsAny(d.gapText(j), "-–—") {
		k = -1
	}
	if k >= 0 && d.sameSent(i, k) {
		if lo := a.numberWord(k); lo >= 0 && lo <= n {
			return lo, k
		}
	}
	return n, from
}

// numberWord is the value of word k when it is a small number in digits or words, else -1.
func (a *analysis) numberWord(k int) int {
	if n := a.d.num(k); n >= 0 {
		return n
	}
	if k < 0 || k >= len(a.d.words) {
		return -1
	}
	if n, ok := numberWords[a.d.fw(k)]; ok {
		return n
	}
	return -1
}

// aboutExperience reports whether the years of words [from, i] are years of experience: an
// experience word near them, or a requirement context; never years of the company ("founded 10
// years ago", "we have 20 years of experience").
func (a *analysis) aboutExperience(from, i int) bool {
	d := a.d
	if d.sameSent(i, i+1) && (d.fw(i+1) == "ago" || d.fw(i+1) == "old") {
		return false
	}
	for k := from - 6; k < from; k++ {
		if d.sameSent(i, k) && sinceWords[d.fw(k)] {
			return false
		}
	}
	// "With over 20 years of experience, we are …": the company speaking of itself, unless the
	// sentence asks for something or sits in the requirements.
	if a.ctxOf(i) != ctxRequired {
		if f := a.sentFlags(d.words[i].sent); f&sfOurs != 0 && f&sfAsks == 0 {
			return false
		}
	}
	for k := from - 6; k <= i+6; k++ {
		if d.sameSent(i, k) && experienceWords[d.fw(k)] {
			return true
		}
	}
	return a.ctxOf(i) == ctxRequired
}

var yearWords = map[string]bool{
	"years": true, "year": true, "yrs": true, "yr": true, "jahre": true, "jahren": true, "jahr": true,
	"ans": true, "annees": true, "anos": true, "ano": true,
}

var rangeWords = map[string]bool{"to": true, "bis": true, "a": true, "and": true, "und": true, "y": true, "et": true, "or": true, "oder": true, "ou": true, "o": true}

var numberWords = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
	"twelve": 12, "fifteen": 15, "ein": 1, "einem": 1, "einen": 1, "zwei": 2, "drei": 3, "vier": 4,
	"funf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "un": 1, "deux": 2, "trois": 3,
	"quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9, "dix": 10, "uno": 1, "dos": 2, "tres": 3,
	"cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10,
}

var experienceWords = map[string]bool{
	"experience": true, "experienced": true, "exp": true, "erfahrung": true, "berufserfahrung": true,
	"praxiserfahrung": true, "berufspraxis": true, "experiencia": true, "background": true,
	"track": true, "working": true, "professional": true, "industry": true, "relevant": true,
	"hands": true, "erfahrungen": true, "projekterfahrung": true, "fuhrungserfahrung": true,
}

var companyWords = map[string]bool{
	"we": true, "our": true, "wir": true, "unser": true, "unsere": true, "nous": true, "notre": true,
	"nos": true, "nosotros": true, "nuestra": true, "nuestro": true, "nuestros": true, "us": true,
}

var askWords = map[string]bool{
	"expect": true, "looking": true, "seek": true, "seeking": true, "need": true, "require": true,
	"requires": true, "want": true, "erwarten": true, "suchen": true, "recherchons": true,
	"attendons": true, "buscamos": true, "requerimos": true, "ideally": true, "you": true,
	"du": true, "vous": true, "tu": true, "candidate": true, "candidates": true, "love": true,
	"like": true, "prefer": true, "bring": true,
}

var sinceWords = map[string]bool{
	"founded": true, "since": true, "gegrundet": true, "seit": true, "depuis": true, "desde": true,
	"fondee": true, "fonde": true, "fundada": true, "established": true,
}

// visa is whether the posting offers visa sponsorship: true when it says so, false when it rules
// it out ("we cannot sponsor", "without sponsorship"), nil when it does not say or says both.
// Questions ("Will you require sponsorship?") and equal-opportunity text are not read.
func (a *analysis) visa() *bool {
	d := a.d
	yes, no := false, false
	for si, s := range d.sents {
		sy, sn := a.said[si]&saidVisaYes != 0, a.said[si]&saidVisaNo != 0
		if !sy && !sn || a.ctx[si] == ctxIgnore || s.end == s.first || a.isQuestion(si) {
			continue
		}
		switch {
		case sn:
			no = true
		case sy && a.negated(int(s.first), int(s.end)):
			no = true
		case sy:
			yes = true
		}
	}
	switch {
	case yes == no:
		return nil
	case yes:
		t := true
		return &t
	}
	f := false
	return &f
}

// isQuestion reports whether sentence si ends with a question mark.
func (a *analysis) isQuestion(si int) bool {
	d := a.d
	s := d.sents[si]
	last := d.words[s.end-1]
	end := d.lines[s.line].hi
	if int(s.end) < len(d.words) && d.words[s.end].line == s.line {
		end = d.words[s.end].lo
	}
	return strings.Contains(d.src[last.hi:end], "?")
}

// negated reports whether words [from, to) hold a negation.
func (a *analysis) negated(from, to int) bool {
	for k := from; k < to; k++ {
		if a.isNeg(k) {
			return true
		}
	}
	return false
}

// isNeg reports whether word k negates: "not", "no", "kein", "pas", "sin", "can't" (the "t").
func (a *analysis) isNeg(k int) bool {
	w := a.d.fw(k)
	if w == "t" {
		return a.d.words[k].gap == gapGlue
	}
	return negWords[w]
}

var negWords = map[string]bool{
	"not": true, "no": true, "cannot": true, "unable": true, "without": true, "never": true, "nor": true,
	"kein": true, "keine": true, "keinen": true, "keiner": true, "nicht": true, "ohne": true,
	"pas": true, "aucun": true, "aucune": true, "sans": true, "sin": true, "ni": true, "nunca": true,
}
