package jobtext

import "unicode/utf8"

// techCand is one technology alias found in the text.
type techCand struct {
	i, n int32
	tech int32
	ok   bool // accepted
	amb  bool // ambiguous: accepted only in context
}

// technologies finds the technologies of a posting: the longest alias from each word, aliases
// inside a longer one skipped, ambiguous ones kept only in context (vocab.go), nothing from
// equal-opportunity text.
func (a *analysis) technologies() []Technology {
	d := a.d
	cands := a.cands[:0]
	defer func() { a.cands = cands[:0] }()
	covered := -1
	hs := a.hits
	for k := 0; k < len(hs); { // the hits starting at each word i, in word order
		i := int(hs[k].i)
		var best hit
		found := false
		for ; k < len(hs) && int(hs[k].i) == i; k++ {
			if h := hs[k]; h.e.kind == kTech && (!found || h.n > best.n) {
				best, found = h, true
			}
		}
		if !found || i <= covered || a.ctxOf(i) == ctxIgnore {
			continue
		}
		covered = i + int(best.n) - 1
		amb := best.e.mode == modeAmbig
		cands = append(cands, techCand{i: int32(i), n: best.n, tech: best.e.val, ok: !amb, amb: amb})
	}
	if len(cands) == 0 {
		return nil
	}
	// techAt[w] is the candidate covering word w once accepted, else -1.
	techAt := resize(a.techAt, len(d.words))
	a.techAt = techAt
	for i := range techAt {
		techAt[i] = -1
	}
	mark := func(c int) {
		for w := cands[c].i; w < cands[c].i+cands[c].n; w++ {
			techAt[w] = int32(c)
		}
	}
	for c := range cands {
		if cands[c].ok {
			mark(c)
		}
	}
	// Ambiguous aliases: twice, so a list of them ("Go, Rust") is accepted from one plain name.
	for range 2 {
		for c := range cands {
			if cands[c].amb && !cands[c].ok && a.ambiguousOK(&cands[c], techAt) {
				cands[c].ok = true
				mark(c)
			}
		}
	}
	// Each technology once, in the order first named, with the contexts it is named in (a
	// posting names a few dozen at most: a linear search).
	type agg struct {
		tech             int32
		req, nice, other bool
	}
	var buf [32]agg
	order := buf[:0]
	for _, c := range cands {
		if !c.ok {
			continue
		}
		var g *agg
		for k := range order {
			if order[k].tech == c.tech {
				g = &order[k]
				break
			}
		}
		if g == nil {
			order = append(order, agg{tech: c.tech})
			g = &order[len(order)-1]
		}
		switch a.ctxOf(int(c.i)) {
		case ctxRequired:
			g.req = true
		case ctxNice:
			g.nice = true
		default:
			g.other = true
		}
	}
	if len(order) == 0 {
		return nil
	}
	out := make([]Technology, 0, len(order))
	for _, g := range order {
		out = append(out, Technology{Slug: vocabulary[g.tech].Slug, Required: g.req, NiceToHave: !g.req && g.nice && !g.other})
	}
	return out
}

// ambiguousOK reports whether an ambiguous alias (its case already matched) is a technology here.
func (a *analysis) ambiguousOK(c *techCand, techAt []int32) bool {
	d := a.d
	i, j := int(c.i), int(c.i+c.n) // words [i, j)
	single := c.n == 1 && utf8.RuneCountInString(d.text(i)) == 1
	hasPrev, hasNext := d.sameSent(i, i-1), d.sameSent(i, j)
	prev, next := "", ""
	if hasPrev {
		prev = d.fw(i - 1)
		if d.words[i].gap == gapGlue && d.gapText(i) == "-" {
			return false // "self-Go"
		}
	}
	if hasNext {
		next = d.fw(j)
		if d.words[j].gap == gapGlue && d.gapText(j) == "-" && techAt[j] < 0 {
			return false // "Go-to-market", "C-level", "Spring-loaded"
		}
		if d.words[j].flags&wNum != 0 && d.words[j].gap != gapGlue {
			return false // "Spring 2026", "Series C 2021"
		}
		if techVetoNext[next] {
			return false
		}
	}
	if hasPrev && techVetoPrev[prev] {
		return false
	}
	if a.listNeighbour(i, -1, techAt) || a.listNeighbour(j-1, +1, techAt) || a.listLine(i, j, techAt) {
		return true
	}
	cues := techCues
	window := 3
	if single {
		// "R programming", "C developer"; "experience in R", "coding in C".
		if hasNext && singleCueAfter[next] {
			return true
		}
		return hasPrev && techPreps[prev] && d.sameSent(i, i-2) && techCues[d.fw(i-2)]
	}
	if a.inTitle(i) {
		return hasNext && cues[next] || hasPrev && cues[prev] // "Go Engineer", "Engineer, Go"
	}
	if !hasPrev || d.words[i].gap == gapStart {
		// "Go developers", not "Go beyond"; a name written in lower case where a sentence starts
		// ("dbt is a plus") is no common word.
		return hasNext && cues[next] || d.words[i].flags&wCap == 0
	}
	for k := i - window; k < j+window; k++ {
		if k >= i && k < j {
			continue
		}
		if d.sameSent(i, k) && cues[d.fw(k)] {
			return true
		}
	}
	return false
}

// listNeighbour reports whether the word next to w in direction dir (skipping one "and"/"or") is
// an accepted technology separated from it like items of a list ("Python, Go", "Go/Rust",
// "Python or R", "C and C++").
func (a *analysis) listNeighbour(w, dir int, techAt []int32) bool {
	d := a.d
	m := w + dir
	if !d.sameSent(w, m) {
		return false
	}
	later := max(w, m)
	sep := isListGap(d.gapText(later))
	if listConj[d.fw(m)] {
		m += dir
		if !d.sameSent(w, m) {
			return false
		}
		sep = true
	}
	return sep && techAt[m] >= 0
}

// listLine reports whether words [i, j) are a whole list item next to another whose first words
// are an accepted technology ("- Go" under "- Kubernetes").
func (a *analysis) listLine(i, j int, techAt []int32) bool {
	d := a.d
	ln := d.words[i].line
	l := d.lines[ln]
	if !l.item || int(l.first) != i || int(l.end) != j {
		return false
	}
	for _, o := range []int32{ln - 1, ln + 1} {
		if o < 0 || int(o) >= len(d.lines) {
			continue
		}
		if ol := d.lines[o]; ol.item && techAt[ol.first] >= 0 {
			return true
		}
	}
	return false
}

// isListGap reports whether the text between two words separates list items.
func isListGap(g string) bool {
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case ',', '/', '(', ')', '&', '+', '|', ';':
			return true
		}
	}
	return false
}

// listConj are the words that join list items.
var listConj = map[string]bool{
	"and": true, "or": true, "und": true, "oder": true, "et": true, "ou": true, "y": true, "o": true,
	"&": true, "sowie": true, "plus": true, "as": true,
}

// techCues are words that make a nearby ambiguous alias a technology.
var techCues = map[string]bool{
	"programming": true, "programmer": true, "programmers": true, "language": true, "languages": true,
	"developer": true, "developers": true, "development": true, "developing": true, "engineer": true,
	"engineers": true, "engineering": true, "code": true, "coding": true, "codebase": true, "stack": true,
	"backend": true, "frontend": true, "fullstack": true, "services": true, "microservices": true,
	"framework": true, "frameworks": true, "library": true, "libraries": true, "sdk": true, "api": true,
	"apis": true, "experience": true, "proficiency": true, "proficient": true, "knowledge": true,
	"skills": true, "expertise": true, "fluency": true, "fluent": true, "familiarity": true, "familiar": true,
	"written": true, "built": true, "apps": true, "applications": true, "application": true, "tooling": true,
	"ecosystem": true, "runtime": true, "certified": true, "certification": true, "expert": true,
	"scripting": true, "scripts": true, "modules": true, "packages": true, "components": true, "server": true,
	"kenntnisse": true, "erfahrung": true, "erfahrungen": true, "programmiersprache": true,
	"programmiersprachen": true, "entwickler": true, "entwicklerin": true, "entwicklung": true,
	"maitrise": true, "connaissance": true, "connaissances": true, "developpeur": true, "developpeuse": true,
	"developpement": true, "langage": true, "langages": true, "experiencia": true, "conocimientos": true,
	"conocimiento": true, "lenguaje": true, "lenguajes": true, "desarrollador": true, "desarrolladora": true,
	"desarrollo": true, "programacion": true, "dominio": true, "manejo": true, "dashboards": true,
	"reports": true, "reporting": true, "pipelines": true, "models": true, "charts": true, "cluster": true,
	"clusters": true, "database": true, "databases": true, "queries": true, "admin": true, "administration": true,
	"integration": true, "integrations": true, "platform": true, "tools": true, "tool": true, "crm": true,
	"workflows": true, "automation": true, "instance": true, "configuration": true, "designs": true,
	"prototypes": true, "mockups": true, "wireframes": true, "templates": true, "sequences": true,
	"cadences": true, "use": true, "using": true, "uses": true, "used": true, "nutzen": true,
	"utilisons": true, "usamos": true, "utilizamos": true,
}

// singleCueAfter may follow a single-letter language ("R programming", "C developer").
var singleCueAfter = map[string]bool{
	"programming": true, "programmer": true, "developer": true, "developers": true, "code": true,
	"coding": true, "language": true, "scripts": true, "scripting": true, "packages": true, "package": true,
	"libraries": true, "library": true, "shiny": true, "engineer": true, "engineers": true,
	"entwickler": true, "entwicklung": true, "programmierung": true, "developpeur": true,
	"desarrollador": true, "compiler": true, "compilers": true, "firmware": true,
}

// techPreps may stand between a cue and a single letter ("experience in R").
var techPreps = map[string]bool{
	"in": true, "with": true, "using": true, "of": true, "mit": true, "en": true, "avec": true, "con": true, "de": true,
}

// techVetoNext never follow an ambiguous alias that is a technology.
var techVetoNext = map[string]bool{
	"to": true, "live": true, "ahead": true, "beyond": true, "above": true, "further": true, "out": true,
	"back": true, "through": true, "away": true, "along": true, "forward": true, "level": true, "suite": true,
	"corp": true, "inc": true, "ltd": true, "gmbh": true, "season": true, "semester": true, "term": true,
	"break": true, "festival": true, "sale": true, "collection": true, "cleaning": true, "intake": true,
	"cohort": true, "fair": true, "round": true, "funding": true, "investors": true, "quickly": true,
	"fast": true, "get": true, "for": true, "the": true, "your": true, "our": true,
}

// techVetoPrev never precede an ambiguous alias that is a technology.
var techVetoPrev = map[string]bool{
	"series": true, "vitamin": true, "plan": true, "grade": true, "class": true, "type": true, "tier": true,
	"level": true, "category": true, "section": true, "phase": true, "round": true, "part": true, "step": true,
	"unit": true, "block": true, "building": true, "floor": true, "wing": true, "room": true, "zone": true,
	"rating": true, "score": true, "mark": true, "note": true, "this": true, "next": true, "last": true,
	"early": true, "late": true, "will": true, "let": true, "lets": true, "s": true, "can": true, "we": true,
	"you": true, "i": true,
}
