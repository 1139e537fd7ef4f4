package sim

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/planehq/hiringsignal/internal/jobtext"
	"github.com/planehq/hiringsignal/internal/normalize"
)

// Job descriptions and their truth.
//
// Every req has a description: what its text states (technologies, seniority, employment type,
// workplace, years of experience, visa sponsorship, pay) is drawn once per req from its own hash
// stream (h2(gen.h, saltDescText)), so the world's other streams, sizes and truth are what they
// were without it, and is written out in the req's language as real postings word it
// (descrender.go, data_desc.go). Both are functions of the req alone: the World keeps them, as
// the feeds wrote them and as the truth exports them, in a cache bounded by bytes
// (desccache.go), and writes them again whenever the cache does not hold them.

// DescriptionTruth is what a req's description states, the answer key for reading postings
// (jobtext.Derive over the description a feed carries, plus the feed's structured fields). Its
// Go fields follow jobtext.Derived's conventions, so the two compare field by field: a string
// is "" and a pointer or list nil when the description does not state the field. In JSON
// (/_sim/truth) every field not stated is null.
//
// A req's truth is one value, shared (read-only) by every Truth that lists the req while the
// World keeps it: never modify it.
//
// One truth per req (Truth.Reqs[i].Description, World.DescriptionTruth): every posting of the
// req, on its ATS and on the boards and the aggregator that copy it, carries the same text,
// rendered in each vendor's field and markup (HTML, entity-escaped HTML, plain text, split into
// the vendor's sections as docs/crawl-contract.md lists them). Feeds whose list has no
// description field (SmartRecruiters, BambooHR, Breezy, JOIN, Workday, Jobvite, JazzHR,
// Rippling; Workable without details=true) carry none, and an iCIMS card carries only the
// opening of the text (on about half the portals), so a posting read from them states less than
// its truth; the structured fields of those feeds still agree with it.
//
// A reader that derives a value for a field the truth leaves unstated is wrong. No structured
// field of a feed contradicts a stated value:
//
//   - EmploymentType: full_time, part_time, contract, temporary or internship; always stated
//     (every text states it). Every structured employment field agrees: Lever
//     categories.commitment, Ashby employmentType, Workable employment_type, SmartRecruiters
//     typeOfEmployment, Recruitee employment_type_code, Personio employmentType and schedule,
//     BambooHR employmentStatusLabel, Breezy type, Pinpoint employment_type, JOIN
//     employmentType, iCIMS and JazzHR position type, JSON-LD employmentType.
//   - WorkplaceType: onsite, hybrid or remote; "" when the text does not say. Structured fields
//     agree: Lever workplaceType ("unspecified" when unstated), Ashby workplaceType (null when
//     unstated), Recruitee remote/hybrid/on_site (all false when unstated), Teamtailor
//     remoteStatus (fully, hybrid, or "none", no remote option, for onsite and unstated alike),
//     the mandatory workplace fields of Pinpoint, JOIN, Rippling and BambooHR (their companies'
//     texts always state it), and every remote flag and "Remote" location.
//   - RemoteCountries: for a remote req whose text names where it is open to, its country as
//     normalize names it ("Germany", written "Deutschland" in a German text); nil otherwise.
//   - Seniority: one of normalize.Seniorities: the title's (normalize.TitleSeniority) when it
//     names one, else the level the text states ("This is a mid-level role", "Karrierestufe:
//     Berufseinsteiger", "Niveau : Confirmé", "Nivel: Semi Senior"), else "". The coarse
//     structured levels are the band it falls in (a title that names none: its pay's):
//     Personio seniority student / entry-level / experienced / executive, SmartRecruiters
//     experienceLevel and Workable experience internship / entry level / mid-senior / director /
//     executive, for intern / junior / mid to manager / director / vp and executive.
//   - YearsExperienceMin: the minimum years the requirements ask for ("5+ years", "3–5 years"
//     is 3, "mindestens 3 Jahre"); nil when none. Personio yearsOfExperience is its band (lt-1,
//     1-2, 2-5, 5-7, 7+) and is absent when nil.
//   - VisaSponsorship: true when the text offers it, false when it rules it out, nil otherwise.
//   - Pay: the pay range the text states (min, max, currency as ISO 4217, period year, month or
//     hour); nil when the text states none. A text states only the req's structured pay (the
//     salary a feed publishes; never pay a feed hides), so text and structured pay agree; a feed
//     that mislabels its period (Recruitee's, implausiblePay) does not change it.
//   - TechnologiesRequired and TechnologiesNice: vocabulary slugs (jobtext.Vocabulary), sorted,
//     empty (never nil) when none: required when the title names it or the requirements do,
//     nice when only a nice-to-have does ("is a plus", "von Vorteil", "un plus", "Se
//     valorará"). Duties name required ones only; company, benefits and equal-opportunity text
//     names none. A jobtext.Technology neither required nor nice-to-have has no place here.
//   - Language: en, de, fr or es, the language the text is written in (informational).
type DescriptionTruth struct {
	TechnologiesRequired []string
	TechnologiesNice     []string
	Seniority            string
	EmploymentType       string
	WorkplaceType        string
	RemoteCountries      []string
	YearsExperienceMin   *int
	VisaSponsorship      *bool
	Pay                  *PayTruth
	Language             string
}

// descriptionTruthJSON is DescriptionTruth on the wire: a field not stated is null.
type descriptionTruthJSON struct {
	TechnologiesRequired []string  `json:"technologies_required"`
	TechnologiesNice     []string  `json:"technologies_nice"`
	Seniority            *string   `json:"seniority"`
	EmploymentType       *string   `json:"employment_type"`
	WorkplaceType        *string   `json:"workplace_type"`
	RemoteCountries      []string  `json:"remote_countries"`
	YearsExperienceMin   *int      `json:"years_experience_min"`
	VisaSponsorship      *bool     `json:"visa_sponsorship"`
	Pay                  *PayTruth `json:"pay"`
	Language             string    `json:"language"`
}

func nullable(s *string) *string {
	if *s == "" {
		return nil
	}
	return s
}

// MarshalJSON writes d with null for every field it does not state.
func (d DescriptionTruth) MarshalJSON() ([]byte, error) {
	return json.Marshal(descriptionTruthJSON{
		TechnologiesRequired: d.TechnologiesRequired, TechnologiesNice: d.TechnologiesNice,
		Seniority: nullable(&d.Seniority), EmploymentType: nullable(&d.EmploymentType),
		WorkplaceType: nullable(&d.WorkplaceType), RemoteCountries: d.RemoteCountries,
		YearsExperienceMin: d.YearsExperienceMin, VisaSponsorship: d.VisaSponsorship, Pay: d.Pay,
		Language: d.Language,
	})
}

// UnmarshalJSON reads what MarshalJSON writes (null is "" or nil).
func (d *DescriptionTruth) UnmarshalJSON(b []byte) error {
	var j descriptionTruthJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	*d = DescriptionTruth{
		TechnologiesRequired: j.TechnologiesRequired, TechnologiesNice: j.TechnologiesNice,
		Seniority: deref(j.Seniority), EmploymentType: deref(j.EmploymentType),
		WorkplaceType: deref(j.WorkplaceType), RemoteCountries: j.RemoteCountries,
		YearsExperienceMin: j.YearsExperienceMin, VisaSponsorship: j.VisaSponsorship, Pay: j.Pay,
		Language: j.Language,
	}
	return nil
}

// PayTruth is pay as a description states it: the figures and currency as written, and the
// period it is quoted per (year, month or hour).
type PayTruth struct {
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
	Currency string  `json:"currency"`
	Period   string  `json:"period"`
}

// Employment types of a req (gen.empType), in the order the vendor tables list them.
const (
	empFullTime = iota
	empPartTime
	empContract
	empInternship
	empTemporary
	numEmpTypes
)

var empTypeNames = [numEmpTypes]string{"full_time", "part_time", "contract", "internship", "temporary"}

// temporaryShare is the share of contract reqs that are fixed-term employment instead.
const temporaryShare = 3 // one in three

// Workplace types of a req (workplaceOf).
const (
	wpUnstated = iota
	wpOnsite
	wpHybrid
	wpRemote
)

var workplaceNames = [...]string{"", "onsite", "hybrid", "remote"}

// workplaceOf is the workplace g's description states: remote for a remote req, else hybrid,
// on-site or (for companies whose ATS can leave it open) nothing. Every feed's structured
// workplace field follows it.
func workplaceOf(c *company, g *gen) uint8 {
	if g.remote {
		return wpRemote
	}
	x := h2(g.h, saltDescWork) % 100
	switch {
	case x < 25:
		return wpHybrid
	case x < 60 || !canOmitWorkplace(c.vendor) || !canOmitWorkplace(c.vendor2):
		return wpOnsite
	}
	return wpUnstated
}

// canOmitWorkplace reports whether vendor v's feed can leave a job's workplace unsaid (BambooHR's
// locationType, Pinpoint's workplace_type, JOIN's and Rippling's workplaceType are mandatory).
func canOmitWorkplace(v uint8) bool {
	switch v {
	case vBambooHR, vPinpoint, vJoin, vRippling:
		return false
	}
	return true
}

// Languages of a description.
const (
	langEN = iota
	langDE
	langFR
	langES
	numLangs
)

var langCodes = [numLangs]string{"en", "de", "fr", "es"}

// descLangOf is the language of g's description: the local one where the req's country speaks
// German, French or Spanish and its company writes its postings locally (a share of companies
// per country), else English.
func descLangOf(c *company, g *gen) uint8 {
	local, share := uint8(langEN), uint64(0)
	switch countries[g.country].a2 {
	case "DE", "AT", "CH":
		local, share = langDE, 60
	case "FR":
		local, share = langFR, 60
	case "BE":
		local, share = langFR, 35
	case "ES":
		local, share = langES, 55
	case "MX", "AR", "CO", "CL":
		local, share = langES, 45
	}
	if h3(c.key, saltDescText, 0)%100 < share {
		return local
	}
	return langEN
}

// descFacts is what g's description states (the truth before it is exported) and the seed of
// its wording.
type descFacts struct {
	lang     uint8
	work     uint8
	remoteIn bool // the remote statement names the req's country
	emp      uint8
	sen      int8 // rank in normalize.Seniorities, -1 unstated
	senText  bool // the text states sen (the title does not)
	years    int8 // -1 unstated
	yearsHi  int8 // upper end of a stated range ("3–5 years"), 0 when none
	visa     int8 // -1 unstated, 0 no, 1 yes
	pay      bool
	nReq     uint8 // techs[:nReq] are required, techs[nReq:nTech] nice
	nTech    uint8
	techs    [maxTechs]uint16
	seed     uint64 // the wording stream
}

// maxTechs bounds the technologies of a description.
const maxTechs = 8

// titleInfo is what a canonical title implies for its descriptions (computed once in New).
type titleInfo struct {
	stack uint8
	sen   int8     // normalize rank the title names, -1 none
	techs []uint16 // vocabulary rows the title names
}

// vocab is the technology vocabulary and slugIdx its rows by slug (read-only).
var (
	vocab   = jobtext.Vocabulary()
	slugIdx = func() map[string]uint16 {
		m := make(map[string]uint16, len(vocab))
		for i, t := range vocab {
			m[t.Slug] = uint16(i)
		}
		return m
	}()
)

// buildTitleInfo derives, per canonical title, its technology stack, its seniority and the
// technologies it names.
func buildTitleInfo(titles []titleDef) []titleInfo {
	out := make([]titleInfo, len(titles))
	for i, t := range titles {
		ti := &out[i]
		ti.stack = stackOf(t.name, int(t.fn))
		ti.sen = int8(normalize.SeniorityRank(normalize.TitleSeniority(t.name)))
		for _, tech := range jobtext.Derive(t.name, "").Technologies {
			ti.techs = append(ti.techs, slugIdx[tech.Slug])
		}
	}
	return out
}

// payRank is the level a title without a seniority word is at, by its pay.
func payRank(pay float64) int8 {
	switch {
	case pay < 0.9:
		return int8(normalize.SeniorityRank("junior"))
	case pay < 1.2:
		return int8(normalize.SeniorityRank("mid"))
	case pay < 1.7:
		return int8(normalize.SeniorityRank("senior"))
	}
	return int8(normalize.SeniorityRank("director"))
}

// Seniority ranks used by the wording.
var (
	rankIntern   = int8(normalize.SeniorityRank("intern"))
	rankJunior   = int8(normalize.SeniorityRank("junior"))
	rankSenior   = int8(normalize.SeniorityRank("senior"))
	rankDirector = int8(normalize.SeniorityRank("director"))
)

// facts draws what g's description states.
func (w *World) facts(c *company, g *gen) descFacts {
	t := &w.titles[g.title]
	ti := &w.tinfo[g.title]
	st := &stacks[ti.stack]
	f := descFacts{lang: descLangOf(c, g), work: workplaceOf(c, g), emp: g.empType, sen: ti.sen, years: -1, visa: -1}
	r := rng{h2(g.h, saltDescText)}
	f.seed = r.next()
	if f.sen < 0 && f.emp != empInternship {
		// The title names no level: the text sometimes does (never above senior: "director-level"
		// is for titles that say so).
		if pr := payRank(t.pay); pr <= rankSenior && r.chance(0.4) {
			f.sen, f.senText = pr, true
		}
	}
	if f.work == wpRemote {
		f.remoteIn = r.chance(0.75)
	}
	if f.emp != empInternship && r.chance(st.years) {
		f.years = yearsFor(t.pay, &r)
		if r.chance(0.25) {
			f.yearsHi = f.years + 2
		}
	}
	switch x := r.float(); {
	case f.work == wpRemote && x < 0.03, f.work != wpRemote && x < 0.12:
		f.visa = 1
	case f.work == wpRemote && x < 0.23, f.work != wpRemote && x < 0.22:
		f.visa = 0
	}
	f.pay = g.salary && r.chance(0.75)
	f.pickTechs(ti, st, &r)
	return f
}

// yearsFor draws the minimum years asked of a title paid pay (a multiple of its function's pay:
// junior titles 0.72, plain ones 1.0, senior 1.3, lead to principal 1.45-1.8, heads 1.9 and up).
func yearsFor(pay float64, r *rng) int8 {
	var lo, n int8
	switch {
	case pay < 0.9:
		lo, n = 1, 2
	case pay < 1.2:
		lo, n = 2, 3
	case pay < 1.4:
		lo, n = 4, 3
	case pay < 1.85:
		lo, n = 6, 3
	default:
		lo, n = 8, 3
	}
	return lo + int8(r.intn(int(n)))
}

// pickTechs draws the technologies: the title's first (required), then from each group of the
// title's stack; each drawn one is a nice-to-have with the stack's share.
func (f *descFacts) pickTechs(ti *titleInfo, st *stackDef, r *rng) {
	var all [maxTechs]uint16
	n := 0
	has := func(x uint16) bool { return slices.Contains(all[:n], x) }
	for _, x := range ti.techs {
		if n < maxTechs && !has(x) {
			all[n] = x
			n++
		}
	}
	titleN := n
	if !r.chance(st.none) {
		for gi := range st.groups {
			grp := &st.groups[gi]
			k := grp.min + r.intn(grp.max-grp.min+1)
			for j := 0; j < k && n < maxTechs; j++ {
				x := grp.techs[r.intn(len(grp.techs))]
				if !has(x) {
					all[n] = x
					n++
				}
			}
		}
	}
	// Required first (title's, then drawn in order), then the nice-to-haves.
	var nice [maxTechs]uint16
	nn := 0
	for i := 0; i < n; i++ {
		if i >= titleN && r.chance(st.nice) {
			nice[nn] = all[i]
			nn++
			continue
		}
		f.techs[f.nReq] = all[i]
		f.nReq++
	}
	copy(f.techs[f.nReq:], nice[:nn])
	f.nTech = f.nReq + uint8(nn)
}

// coarseLevel is the LinkedIn-style band of g's level for the vendors' structured fields:
// 0 internship, 1 entry, 2 experienced (mid to manager), 3 director, 4 executive (vp and up).
// A req whose text and title state none falls back to its title's pay. f is g's facts (nil:
// drawn when needed).
func (w *World) coarseLevel(c *company, g *gen, f *descFacts) int {
	sen := w.tinfo[g.title].sen
	if sen < 0 {
		if f == nil {
			x := w.facts(c, g)
			f = &x
		}
		sen = f.sen
	}
	if sen < 0 {
		sen = payRank(w.titles[g.title].pay)
	}
	switch {
	case sen == rankIntern:
		return 0
	case sen == rankJunior:
		return 1
	case sen < rankDirector:
		return 2
	case sen == rankDirector:
		return 3
	}
	return 4
}

// noTechs is the empty technology list of a truth that names none (never written to: empty).
var noTechs = []string{}

// Values truths share (read-only): the RemoteCountries naming each country, and the years and
// visa answers their pointers point to.
var (
	remoteIn = func() [][]string {
		out := make([][]string, len(countries))
		for i := range countries {
			name, _ := normalize.CountryName(countries[i].name)
			out[i] = []string{name}
		}
		return out
	}()
	yearsValues = func() (v [32]int) {
		for i := range v {
			v[i] = i
		}
		return v
	}()
	visaValues = [2]bool{false, true}
)

// descriptionTruth returns the truth of g's description (second: of its second country's req),
// shared by every truth that names the req once the cache keeps it (read-only).
func (w *World) descriptionTruth(c *company, g *gen, second bool) *DescriptionTruth {
	slot := w.slotOf(c, g.slot)
	e := w.dcache.lookup(slot, g.k)
	var f *descFacts
	if e != nil {
		f = &e.facts
	} else {
		x := w.facts(c, g)
		f = &x
	}
	// A second country's req states what the first does but where a remote text names the
	// first's country (never: a remote req has no second country).
	i := 0
	if second && f.work == wpRemote && f.remoteIn {
		i = 1
	}
	if e != nil {
		if d := e.truth[i].Load(); d != nil {
			e.hit()
			return d
		}
	}
	d, n := w.newDescriptionTruth(g, f, i == 1)
	if dc := w.dcache; dc != nil && dc.keepNow(slot, g.k, uint(seenTruth)+uint(i)) {
		if e == nil {
			e = dc.entry(slot, g.k, f)
		}
		if !e.truth[i].CompareAndSwap(nil, d) {
			return e.truth[i].Load()
		}
		dc.keep(e, n)
	}
	return d
}

// newDescriptionTruth exports the facts f of g (second: of its second country's req) and
// returns the bytes it took.
func (w *World) newDescriptionTruth(g *gen, f *descFacts, second bool) (*DescriptionTruth, int64) {
	d := &DescriptionTruth{
		TechnologiesRequired: noTechs, TechnologiesNice: noTechs,
		EmploymentType: empTypeNames[f.emp], WorkplaceType: workplaceNames[f.work], Language: langCodes[f.lang],
	}
	n := int64(unsafe.Sizeof(*d))
	if f.nTech > 0 {
		techs := make([]string, f.nTech)
		for i := range techs {
			techs[i] = vocab[f.techs[i]].Slug
		}
		d.TechnologiesRequired, d.TechnologiesNice = techs[:f.nReq:f.nReq], techs[f.nReq:]
		slices.Sort(d.TechnologiesRequired)
		slices.Sort(d.TechnologiesNice)
		n += int64(len(techs)) * int64(unsafe.Sizeof(""))
	}
	if f.sen >= 0 {
		d.Seniority = normalize.Seniorities[f.sen]
	}
	if f.work == wpRemote && f.remoteIn && !second {
		d.RemoteCountries = remoteIn[g.country]
	}
	if f.years >= 0 {
		d.YearsExperienceMin = &yearsValues[f.years]
	}
	if f.visa >= 0 {
		d.VisaSponsorship = &visaValues[f.visa]
	}
	if f.pay {
		s := w.salaryOf(g)
		d.Pay = &PayTruth{Min: s.min, Max: s.max, Currency: s.currency, Period: periodWord[s.period]}
		n += int64(unsafe.Sizeof(*d.Pay))
	}
	return d, n
}

// DescriptionTruth returns what the description of the req named truthID (a Truth.Reqs
// truth_id) states, whether or not the req is live; false when no req has that id.
func (w *World) DescriptionTruth(truthID string) (DescriptionTruth, bool) {
	c, g, second, ok := w.genOfTruthID(truthID)
	if !ok {
		return DescriptionTruth{}, false
	}
	return *w.descriptionTruth(c, &g, second), true
}

// genOfTruthID finds the company and generation a truth id names ("c12-s3-g40" or, for the
// req of its second country, "c12-s3-g40-x").
func (w *World) genOfTruthID(id string) (*company, gen, bool, bool) {
	rest, second := strings.CutSuffix(id, "-x")
	cs, rest, ok1 := strings.Cut(rest, "-s")
	ss, ks, ok2 := strings.Cut(rest, "-g")
	if !ok1 || !ok2 || !strings.HasPrefix(cs, "c") {
		return nil, gen{}, false, false
	}
	ci, err1 := strconv.Atoi(cs[1:])
	s, err2 := strconv.Atoi(ss)
	k, err3 := strconv.ParseInt(ks, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || ci < 0 || ci >= len(w.companies) {
		return nil, gen{}, false, false
	}
	c := &w.companies[ci]
	if c.vendor == vNone || s < 0 || s >= c.nSlots() {
		return nil, gen{}, false, false
	}
	var g gen
	if s >= int(c.nBase) {
		if k != 0 {
			return nil, gen{}, false, false
		}
		g = w.genAt(c, s, 0)
	} else {
		// Any tick of window k evaluates generation k.
		sh := h3(w.seed^saltSlot, uint64(c.idx), uint64(s))
		W := w.windowOf(c, s, sh)
		phi := int64((sh >> 8) % uint64(W))
		g = w.genAt(c, s, int(k*W-phi-tickBase))
	}
	if g.k != k || second && g.country2 == noCountry {
		return nil, gen{}, false, false
	}
	return c, g, second, true
}
