package jobtext

import (
	"slices"
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// workplace reads where the work is done and, for a remote role, which countries and regions it
// is open to. Statements: explicit phrases ("fully remote", "work from home", "hybrid model",
// "office-based", "Homeoffice", "télétravail", "100% presencial"), the words remote, hybrid and
// on-site where they describe the job ("remote role", "Remote (US)", "Location: Hybrid",
// "this role is on-site"; not "remote control", "hybrid cloud", "onsite interviews"), office or
// home days ("3 days a week in the office", "2 Tage Homeoffice"), and remote work ruled out ("no
// remote", "kein Homeoffice", which is on-site). Hybrid wins over remote, remote over "some
// home office", and remote against on-site without hybrid is no answer.
func (a *analysis) workplace() (kind string, countries, regions []string) {
	d := a.d
	var remote, hybrid, soft, onsite bool
	var remoteAt []hit
	for _, h := range a.hits {
		i := int(h.i)
		if a.ctxOf(i) == ctxIgnore {
			continue
		}
		switch a.sec(i) {
		case secCompany, secRequired, secNice:
			// "experience working in remote teams", "our hybrid cloud": only the job's statements
			// count, and requirements and the company say little of the job's place.
			if h.e.kind != kRemote && h.e.kind != kHybrid && h.e.kind != kOnsite && h.e.kind != kNoRemote {
				continue
			}
		}
		j := i + int(h.n)
		switch h.e.kind {
		case kRemote, kRemoteW:
			if h.e.kind == kRemoteW && !a.placeWord(i, j) {
				continue
			}
			if a.coveredBy(h, kNoRemote) {
				continue
			}
			if a.negatedAround(i, j) {
				onsite = true
				continue
			}
			remote = true
			remoteAt = append(remoteAt, h)
		case kHybrid, kHybridW:
			if h.e.kind == kHybridW && !a.placeWord(i, j) {
				continue
			}
			if !a.negatedAround(i, j) {
				hybrid = true
			}
		case kHybridS:
			if d.fw(i) == "home" && a.lang != langDE {
				continue // an English "home office" is a room (a stipend for it), not a work model
			}
			if a.negatedAround(i, j) {
				onsite = true
			} else if d.num(i-1) == 100 || d.sameSent(i, i-1) && fullWords[d.fw(i-1)] {
				remote = true // "100% Homeoffice", "vollständig im Homeoffice"
				remoteAt = append(remoteAt, h)
			} else {
				soft = true
			}
		case kOnsite, kOnsiteW:
			if h.e.kind == kOnsiteW && !a.placeWord(i, j) {
				continue
			}
			if !a.negatedAround(i, j) {
				onsite = true
			}
		case kNoRemote:
			onsite = true
		}
	}
	if o, r := a.officeDays(); o > 0 || r > 0 {
		switch {
		case o >= 5:
			onsite = true
		case r >= 5:
			remote = true
		default:
			hybrid = true
		}
	}
	switch {
	case hybrid:
		kind = Hybrid
	case remote && onsite:
		return "", nil, nil
	case remote:
		kind = Remote
	case soft:
		kind = Hybrid
	case onsite:
		kind = Onsite
	default:
		return "", nil, nil
	}
	if kind == Remote || kind == Hybrid && remote {
		countries, regions = a.remoteScope(remoteAt)
	}
	return kind, countries, regions
}

// fullWords before a soft statement make it fully remote.
var fullWords = map[string]bool{
	"vollstandig": true, "komplett": true, "ausschliesslich": true, "full": true, "fully": true,
	"total": true, "completo": true, "100": true,
}

// coveredBy reports whether hit h lies inside a hit of kind (a "no remote" around "remote").
func (a *analysis) coveredBy(h hit, kind uint8) bool {
	for k := int(h.i) - 3; k <= int(h.i); k++ {
		for _, o := range a.at(k) {
			if o.e.kind == kind && k+int(o.n) >= int(h.i+h.n) {
				return true
			}
		}
	}
	return false
}

// placeWord reports whether the word remote, hybrid or on-site at words [i, j) describes the
// job: a job noun or a place after it ("remote role", "remote within", "onsite in Berlin"), the
// end of its sentence or punctuation after it ("Remote (US)", "Hybrid, Berlin", "Location:
// Remote"), or a copula or "fully" before it ("the role is remote", "fully hybrid"); never before
// a word that makes it something else ("remote control", "hybrid cloud", "onsite interviews").
func (a *analysis) placeWord(i, j int) bool {
	d := a.d
	if d.sameSent(i, j) {
		next := d.fw(j)
		if placeVetoNext[next] {
			return false
		}
		if placeNext[next] {
			return true
		}
		if g := d.gapText(j); d.words[j].gap == gapHard && !strings.ContainsAny(g, "&") {
			return true
		}
		if d.words[j].gap == gapGlue && d.gapText(j) == "/" {
			return true // "remote/hybrid"
		}
	} else {
		return true
	}
	if d.sameSent(i, i-1) {
		if placePrev[d.fw(i-1)] || d.words[i].gap == gapHard && strings.Contains(d.gapText(i), ":") {
			return true
		}
	}
	return d.words[i].gap == gapStart && d.lines[d.words[i].line].title
}

var placeNext = map[string]bool{
	"role": true, "position": true, "job": true, "work": true, "working": true, "opportunity": true,
	"option": true, "possible": true, "possibility": true, "only": true, "ok": true, "eligible": true,
	"first": true, "friendly": true, "based": true, "setup": true, "environment": true, "company": true,
	"contract": true, "basis": true, "within": true, "from": true, "in": true, "across": true, "anywhere": true,
	"stelle": true, "arbeit": true, "arbeiten": true, "moglich": true, "poste": true, "trabajo": true,
	"posicion": true, "puesto": true, "posible": true, "model": true, "schedule": true, "policy": true,
	"arrangement": true, "employee": true, "employment": true, "us": true, "usa": true, "uk": true,
	"eu": true, "emea": true, "europe": true, "worldwide": true, "global": true, "desde": true,
	"depuis": true, "aus": true, "innerhalb": true, "en": true, "dans": true, "at": true, "with": true,
	"is": true, "ist": true, "es": true, "est": true, "oder": true, "or": true, "ou": true, "o": true,
}

var placePrev = map[string]bool{
	"fully": true, "full": true, "100": true, "is": true, "be": true, "are": true, "partially": true,
	"partly": true, "or": true, "location": true, "standort": true, "ort": true, "arbeitsort": true,
	"arbeitsmodell": true, "workplace": true, "lieu": true, "ubicacion": true, "modalidad": true,
	"ist": true, "est": true, "es": true, "sind": true, "completely": true, "entirely": true,
	"totally": true, "oder": true, "ou": true, "o": true,
}

var placeVetoNext = map[string]bool{
	"control": true, "controls": true, "controlled": true, "sensing": true, "monitoring": true,
	"access": true, "desktop": true, "server": true, "servers": true, "support": true, "management": true,
	"patient": true, "patients": true, "diagnostics": true, "debugging": true, "procedure": true,
	"call": true, "calls": true, "api": true, "repository": true, "repo": true, "branch": true,
	"sites": true, "locations": true, "teams": true, "team": true, "colleagues": true, "workers": true,
	"employees": true, "learning": true, "cloud": true, "app": true, "apps": true, "mobile": true,
	"vehicle": true, "vehicles": true, "car": true, "cars": true, "engine": true, "engines": true,
	"infrastructure": true, "architecture": true, "architectures": true, "solution": true,
	"solutions": true, "search": true, "systems": true, "system": true, "event": true, "events": true,
	"interview": true, "interviews": true, "visits": true, "visit": true, "meetings": true,
	"training": true, "trainings": true, "installation": true, "installations": true, "service": true,
	"services": true, "customer": true, "customers": true, "kunden": true, "clients": true,
	"client": true, "inspections": true, "audits": true, "offsites": true, "gym": true, "canteen": true,
	"cafeteria": true, "parking": true, "childcare": true, "approach": true, "models": true,
	"integration": true, "deployments": true, "deployment": true, "storage": true, "networks": true,
}

// negatedAround reports whether the statement at words [i, j) is negated: a negation among the
// three words before it or the three after it, with no punctuation between ("no remote work",
// "remote work is not possible"; not "remote, no relocation").
func (a *analysis) negatedAround(i, j int) bool {
	d := a.d
	for k := i - 1; k >= i-3 && d.sameSent(i, k); k-- {
		if a.isNeg(k) {
			return true
		}
		if d.words[k+1].gap == gapHard {
			break
		}
	}
	for k := j; k < j+3 && d.sameSent(i, k); k++ {
		if d.words[k].gap == gapHard {
			break
		}
		if a.isNeg(k) {
			return true
		}
	}
	return false
}

// officeDays reads "N days a week in the office" (office days) and "N Tage Homeoffice", "N jours
// de télétravail", "N days remote" (home days); the highest of each, 0 when none.
func (a *analysis) officeDays() (office, home int) {
	d := a.d
	for i := range d.words {
		if a.cls[i]&clDay == 0 {
			continue
		}
		n := a.numberWord(i - 1)
		if n < 1 || n > 5 || !d.sameSent(i, i-1) {
			continue
		}
		if a.ctxOf(i) == ctxIgnore {
			continue
		}
		for k := i + 1; k < i+7 && d.sameSent(i, k); k++ {
			w := d.fw(k)
			if officeWords[w] {
				office = max(office, n)
				break
			}
			if homeWords[w] {
				home = max(home, n)
				break
			}
		}
	}
	return office, home
}

var dayWords = map[string]bool{"days": true, "day": true, "tage": true, "tag": true, "tagen": true, "jours": true, "jour": true, "dias": true, "dia": true, "j": true}
var officeWords = map[string]bool{
	"office": true, "offices": true, "onsite": true, "buro": true, "office.": true, "standort": true,
	"bureau": true, "bureaux": true, "oficina": true, "oficinas": true, "presencial": true, "presentiel": true, "site": true,
}
var homeWords = map[string]bool{
	"home": true, "remote": true, "remotely": true, "homeoffice": true, "mobil": true, "mobiles": true,
	"mobile": true, "teletravail": true, "teletrabajo": true, "remoto": true, "wfh": true, "distance": true,
}

// remoteScope reads the countries and regions named around the remote statements: in the
// sentence after each (up to 12 words: "remote (US only)", "remote within the EU", "remote from
// anywhere in Spain") and just before it ("US-based remote", "EU remote"). Countries are
// normalize's canonical names; a code counts only in capitals and from a short list ("US", "UK",
// "DE"); a place before "time", "time zone" or "hours" is a time zone, not a country.
func (a *analysis) remoteScope(at []hit) (countries, regions []string) {
	d := a.d
	seenC := map[string]bool{}
	seenR := map[string]bool{}
	addCountry := func(name string) {
		if name != "" && !seenC[name] {
			seenC[name] = true
			countries = append(countries, name)
		}
	}
	for _, h := range at {
		i, j := int(h.i), int(h.i+h.n)
		for k := i - 3; k < j+12; k++ {
			if !d.sameSent(i, k) {
				continue
			}
			if a.timeZoneAfter(k) {
				continue
			}
			if r, ok := a.hitAt(k, kRegion); ok {
				if a.timeZoneAfter(k + int(r.n) - 1) {
					continue
				}
				row := regionsTable[r.e.val]
				if row.name == "worldwide" && a.placeWithin(k+int(r.n), 4) {
					continue // "anywhere in Spain", "desde cualquier lugar de España"
				}
				if row.name != "" && !seenR[row.name] {
					seenR[row.name] = true
					regions = append(regions, row.name)
				}
				for _, c := range strings.Fields(row.countries) {
					n, _ := normalize.CountryName(c)
					addCountry(n)
				}
				continue
			}
			if n, words := a.countryAt(k); words > 0 {
				if !a.timeZoneAfter(k + words - 1) {
					addCountry(n)
				}
			}
		}
	}
	slices.Sort(countries)
	slices.Sort(regions)
	return countries, regions
}

// placeWithin reports whether a country or region is named in the n words from k, in k's
// sentence.
func (a *analysis) placeWithin(k, n int) bool {
	for m := k; m < k+n && m < len(a.d.words) && a.d.sameSent(k, m); m++ {
		if _, words := a.countryAt(m); words > 0 {
			return true
		}
		if _, ok := a.hitAt(m, kRegion); ok {
			return true
		}
	}
	return false
}

// countryAt resolves the country named from word k: a capitalised name of up to three words
// ("United States", "Germany", "Deutschland", "España") or a code from remoteCodes in capitals.
// It returns the canonical name and the words read, or 0 words. A word inside a longer name
// ("Jersey" in "New Jersey") names nothing.
func (a *analysis) countryAt(k int) (string, int) {
	d := a.d
	w := d.words[k]
	if w.flags&wCap == 0 {
		return "", 0
	}
	if d.sameSent(k, k-1) && d.words[k-1].flags&wCap != 0 && d.words[k].gap == gapSpace && !d.lines[w.line].title {
		return "", 0
	}
	if w.flags&wUpper != 0 && w.hi-w.lo <= 3 {
		code := d.text(k)
		if !remoteCodes[code] {
			return "", 0
		}
		n, ok := normalize.CountryName(code)
		if !ok {
			return "", 0
		}
		return n, 1
	}
	for n := 3; n >= 1; n-- {
		e := k + n - 1
		if !d.sameSent(k, e) {
			continue
		}
		ok := true
		for m := k + 1; m <= e; m++ {
			if d.words[m].gap != gapSpace || d.words[m].flags&wCap == 0 && !countryJoin[d.fw(m)] {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		span := d.src[w.lo:d.words[e].hi]
		if len(span) <= 3 {
			continue // a code not in capitals ("Sr." in "Sr. Engineer - Remote" is no Suriname)
		}
		if name, found := normalize.CountryName(span); found {
			return name, n
		}
		// German genitive: "innerhalb Deutschlands", "Österreichs".
		if n == 1 && strings.HasSuffix(span, "s") {
			if name, found := normalize.CountryName(span[:len(span)-1]); found {
				return name, n
			}
		}
	}
	return "", 0
}

// countryJoin may stand inside a country's name ("Bosnia and Herzegovina", "Trinidad and Tobago").
var countryJoin = map[string]bool{"and": true, "of": true, "the": true, "y": true, "et": true, "und": true}

// remoteCodes are the country codes read in a remote statement: those written for a country
// there; "IT", "IN", "NO", "AT", "BE", "PT", "AR", "ES" are also words or time zones.
var remoteCodes = map[string]bool{
	"US": true, "USA": true, "UK": true, "GB": true, "CA": true, "DE": true, "FR": true, "NL": true,
	"PL": true, "IE": true, "CH": true, "SE": true, "DK": true, "FI": true, "BR": true, "MX": true,
	"CO": true, "AU": true, "NZ": true, "SG": true, "JP": true, "UAE": true, "ZA": true, "IL": true,
	"RO": true, "CZ": true, "GR": true, "HU": true, "UA": true, "PH": true, "ESP": true, "DEU": true,
	"AUT": true, "CAN": true, "GBR": true, "FRA": true, "POL": true, "PRT": true, "NLD": true,
}

// timeZoneAfter reports whether word k is followed by a time-zone word ("US time zones",
// "CET hours", "EU working hours").
func (a *analysis) timeZoneAfter(k int) bool {
	d := a.d
	for m := k + 1; m <= k+2; m++ {
		if !d.sameSent(k, m) {
			return false
		}
		switch d.fw(m) {
		case "time", "timezone", "timezones", "hours", "zeitzone", "zeitzonen", "overlap", "fuseau", "horario", "zona":
			return true
		case "business", "working", "zone", "zones":
			continue
		}
		return false
	}
	return false
}
