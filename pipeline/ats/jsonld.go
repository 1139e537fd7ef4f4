package ats

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// jsonLD parses a job board HTML page carrying schema.org JobPosting structured data, as
// described by Google's job posting guidance:
//
//	<script type="application/ld+json">
//	{"@context":"https://schema.org/","@type":"JobPosting","title":"Senior Backend Engineer",
//	 "identifier":{"@type":"PropertyValue","name":"Jobs North","value":"jn-88123"},
//	 "url":"https://jobsnorth.example/jobs/jn-88123","datePosted":"2026-01-05",
//	 "hiringOrganization":{"@type":"Organization","name":"Acme Inc.","sameAs":"https://www.acme.com"},
//	 "jobLocation":{"@type":"Place","address":{"@type":"PostalAddress","addressLocality":"Berlin",
//	   "addressCountry":"DE"}},
//	 "baseSalary":{"@type":"MonetaryAmount","currency":"EUR",
//	   "value":{"@type":"QuantitativeValue","minValue":70000,"maxValue":90000,"unitText":"YEAR"}}}
//	</script>
//	<link rel="next" href="/boards/jobsnorth/jobs?page=2">
//
// A page holds any number of ld+json blocks; each is a JobPosting, an array of nodes or an
// object with @graph. Other node types (Organization, BreadcrumbList, …) are ignored. The
// quirks accepted: @type as string or array; hiringOrganization as string or object (sameAs
// string or array, giving CompanyDomain); jobLocation as object or array (the first place
// gives City/Country/Location, address may be a plain string); addressCountry as string or
// {"@type":"Country","name":…}; jobLocationType TELECOMMUTE (string or array) → Remote (its
// WorkplaceType), with
// applicantLocationRequirements giving the country of remote jobs; baseSalary value as a
// number, a numeric string or a QuantitativeValue {value|minValue|maxValue, unitText};
// HTML-escaped JSON and entity-escaped text; raw control characters inside strings.
// employmentType (a string or an array of FULL_TIME, PART_TIME, CONTRACTOR, TEMPORARY, INTERN) is
// the EmploymentType, experienceRequirements.monthsOfExperience the YearsExperienceMin.
//
// SourceID is identifier (PropertyValue value, or a plain string/number), else @id, else url,
// else the page itself: its <link rel="canonical"> (resolved against the page URL), else the
// page URL — real job pages (one posting per page) publish JobPostings with none of the
// three. A second posting without identity on the same page gets that identity + "#job2", and
// so on. URL is url, else that page identity. A jobLocation array of several places gives one
// Posting per place (see appendPlaces). hiringOrganization.sameAs (or url) gives CompanyDomain
// unless its host is the page's own site (the page or canonical host, a subdomain of either or
// the reverse: a board links its own company-profile pages) or a well-known job board or
// social site: a job board's host never becomes the employer's domain.
// A block that is not valid JSON counts as one malformed record; a page with no ld+json
// block is an empty page; a page whose blocks are all invalid, a truncated page (unclosed
// tag, script or comment, or <html> without </html>) and a body that is not HTML are errors.
// NextURL is the first <link rel="next">, resolved against the page URL. A JobPosting's
// description (HTML or text, as the block states it) is its Description.
type jsonLD struct{}

func (jsonLD) Vendor() string { return "jsonld" }

// ldMaxDepth bounds @graph / array nesting.
const ldMaxDepth = 8

type ldNode struct {
	Type                          rawJSON    `json:"@type"`
	AtID                          flexString `json:"@id"`
	Graph                         rawJSON    `json:"@graph"`
	Title                         string     `json:"title"`
	Name                          string     `json:"name"`
	Identifier                    rawJSON    `json:"identifier"`
	URL                           flexString `json:"url"`
	DatePosted                    flexTime   `json:"datePosted"`
	HiringOrganization            rawJSON    `json:"hiringOrganization"`
	JobLocation                   rawJSON    `json:"jobLocation"`
	JobLocationType               rawJSON    `json:"jobLocationType"`
	ApplicantLocationRequirements rawJSON    `json:"applicantLocationRequirements"`
	BaseSalary                    rawJSON    `json:"baseSalary"`
	Description                   flexString `json:"description"`
	EmploymentType                rawJSON    `json:"employmentType"`
	ExperienceRequirements        rawJSON    `json:"experienceRequirements"`
}

// member decodes one member of a node object (see decodeMembers).
func (n *ldNode) member(k []byte, v rawJSON) {
	switch {
	case keyIs(k, "@type"):
		n.Type = v
	case keyIs(k, "@id"):
		_ = n.AtID.UnmarshalJSON(v)
	case keyIs(k, "@graph"):
		n.Graph = v
	case keyIs(k, "title"):
		setString(&n.Title, v)
	case keyIs(k, "name"):
		setString(&n.Name, v)
	case keyIs(k, "identifier"):
		n.Identifier = v
	case keyIs(k, "url"):
		_ = n.URL.UnmarshalJSON(v)
	case keyIs(k, "datePosted"):
		_ = n.DatePosted.UnmarshalJSON(v)
	case keyIs(k, "hiringOrganization"):
		n.HiringOrganization = v
	case keyIs(k, "jobLocation"):
		n.JobLocation = v
	case keyIs(k, "jobLocationType"):
		n.JobLocationType = v
	case keyIs(k, "applicantLocationRequirements"):
		n.ApplicantLocationRequirements = v
	case keyIs(k, "baseSalary"):
		n.BaseSalary = v
	case keyIs(k, "description"):
		_ = n.Description.UnmarshalJSON(v)
	case keyIs(k, "employmentType"):
		n.EmploymentType = v
	case keyIs(k, "experienceRequirements"):
		n.ExperienceRequirements = v
	}
}

// ldCountry is a country given as a string or as an object {"@type":"Country","name":…}
// (an array gives its first usable entry). Its value is trimmed.
type ldCountry string

func (c *ldCountry) UnmarshalJSON(b []byte) error {
	*c = ""
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		s, _ := jsonStringValue(b)
		*c = ldCountry(strings.TrimSpace(s))
	case '{':
		var o struct {
			Name          flexString `json:"name"`
			AlternateName flexString `json:"alternateName"`
			Identifier    flexString `json:"identifier"`
		}
		if json.Unmarshal(b, &o) == nil || o.Name != "" {
			*c = ldCountry(firstNonEmpty(clean(o.Name), clean(o.AlternateName), clean(o.Identifier)))
		}
	case '[':
		forEachRaw(b, func(r rawJSON) bool {
			var v ldCountry
			_ = v.UnmarshalJSON(r)
			*c = v
			return v == ""
		})
	}
	return nil
}

func (jsonLD) Parse(body []byte, pageURL string) (Page, error) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(body)) == 0 {
		return Page{}, errors.New("jsonld: empty body")
	}
	if bytes.IndexByte(body, '<') < 0 {
		return Page{}, errors.New("jsonld: body is not HTML")
	}
	hp, err := scanHTML(body)
	if err != nil {
		return Page{}, err
	}
	if hp.openHTML && !hp.endHTML {
		return Page{}, errTruncated
	}
	var page Page
	lp := &ldParse{page: &page, identity: resolveRef(pageURL, hp.canonical)}
	if lp.identity == "" && parseAbs(pageURL) != nil {
		lp.identity = strings.TrimSpace(pageURL)
	}
	lp.siteHosts = []string{hostOf(pageURL), hostOf(lp.identity)}
	bad := 0
	for _, blk := range hp.blocks {
		if !lp.block(blk) {
			bad++
			page.Malformed++
		}
	}
	if len(hp.blocks) > 0 && bad == len(hp.blocks) {
		return Page{}, errors.New("jsonld: no ld+json block is valid JSON")
	}
	if hp.nextHref != "" {
		if next := resolveRef(pageURL, hp.nextHref); next != "" && next != pageURL {
			page.NextURL = next
		}
	}
	return page, nil
}

// ldParse is the state of one page's parse: where postings go, the page's identity (canonical
// link, else page URL) and the hosts of the page's own site.
type ldParse struct {
	page      *Page
	identity  string
	siteHosts []string
	idless    int // postings so far that took the page identity
}

// block decodes one script block and appends its JobPostings. It returns false when the block
// is not JSON at all (even after undoing HTML escaping).
func (lp *ldParse) block(blk []byte) bool {
	blk = unwrapLD(blk)
	if len(blk) == 0 {
		return true // an empty block carries nothing
	}
	if lp.value(blk, 0) {
		return true
	}
	// Second chance: raw control characters inside strings (invalid JSON, common in the
	// wild), then HTML-escaped JSON (&quot;…).
	fixed := sanitizeControls(blk)
	if fixed != nil && lp.value(fixed, 0) {
		return true
	}
	if bytes.IndexByte(blk, '&') >= 0 {
		un := []byte(decodeEntities(string(blk)))
		if s := sanitizeControls(un); s != nil {
			un = s
		}
		if lp.value(bytes.TrimSpace(un), 0) {
			return true
		}
	}
	return false
}

// value handles one JSON value: an object node or an array of them. It reports false only
// when the value is not syntactically valid JSON; records it could not use are counted.
func (lp *ldParse) value(v []byte, depth int) bool {
	// One validating scan, then the members and elements read off the valid text
	// (decodeMembers, eachElement): what encoding/json would decode into an ldNode, whose fields
	// all accept any value. What is read off it is valid JSON and not scanned again.
	if len(v) == 0 || !json.Valid(v) {
		return false
	}
	if v[0] != '{' && v[0] != '[' {
		lp.page.Malformed++ // a bare scalar where a node should be
		return true
	}
	lp.validValue(v, depth)
	return true
}

// validValue handles one object node or array of them, known to be valid JSON.
func (lp *ldParse) validValue(v []byte, depth int) {
	if v[0] == '{' {
		var n ldNode
		decodeMembers(v, n.member, func() bool { return unmarshalInto(v, &n) })
		lp.node(&n, depth)
		return
	}
	eachElement(v, func(it rawJSON) bool {
		lp.element(it, depth+1)
		return true
	})
}

// element handles one element of an array or @graph (already known to be valid JSON).
func (lp *ldParse) element(raw rawJSON, depth int) {
	raw = bytes.TrimSpace(raw)
	if depth > ldMaxDepth {
		return
	}
	switch {
	case len(raw) == 0:
	case raw[0] == '{' || raw[0] == '[':
		lp.validValue(raw, depth)
	default:
		lp.page.Malformed++ // a scalar where a node should be
	}
}

func (lp *ldParse) node(n *ldNode, depth int) {
	page := lp.page
	if !isNull(n.Graph) && depth < ldMaxDepth {
		g := bytes.TrimSpace(n.Graph)
		if g[0] == '[' {
			eachElement(g, func(it rawJSON) bool { // valid JSON: a value of the decoded node
				lp.element(it, depth+1)
				return true
			})
		} else {
			lp.element(g, depth+1)
		}
	}
	if !ldIsJobPosting(n.Type) {
		return
	}
	if p, places, ok := lp.posting(n); ok {
		page.Postings = appendPlaces(page.Postings, p, places)
	} else {
		page.Malformed++
	}
}

// posting maps a JobPosting node onto a Posting and its places.
func (lp *ldParse) posting(n *ldNode) (Posting, []place, bool) {
	title := n.Title
	if strings.TrimSpace(title) == "" {
		title = n.Name
	}
	title = decodeEntities(title)
	if strings.TrimSpace(title) == "" {
		return Posting{}, nil, false
	}
	id := ldIdentifier(n.Identifier)
	if id == "" {
		id = clean(n.AtID)
	}
	if id == "" {
		id = clean(n.URL)
	}
	if id == "" && lp.identity != "" {
		lp.idless++
		id = lp.identity
		if lp.idless > 1 {
			id += "#job" + strconv.Itoa(lp.idless)
		}
	}
	if id == "" {
		return Posting{}, nil, false
	}
	p := Posting{
		SourceID: id,
		Title:    title,
		URL:      firstNonEmpty(clean(n.URL), lp.identity),
		PostedAt: n.DatePosted.T,
		Remote:   ldHasTelecommute(n.JobLocationType),
		// description as the block states it (HTML, as schema.org JobPosting asks, or text)
		Description: boundDescription(string(n.Description)),
	}
	if p.Remote {
		p.setWorkplace(normalize.Remote)
	}
	p.EmploymentType = ldEmployment(n.EmploymentType)
	p.YearsExperienceMin = ldExperienceYears(n.ExperienceRequirements)
	p.CompanyName, p.CompanyDomain = ldOrganization(n.HiringOrganization, lp.siteHosts)
	places := ldPlaces(n.JobLocation)
	if len(places) == 0 {
		places = append(places, place{})
	}
	if first := &places[0]; first.country == "" && !isNull(n.ApplicantLocationRequirements) {
		var c ldCountry
		_ = c.UnmarshalJSON(n.ApplicantLocationRequirements)
		first.country = decodeEntities(string(c))
		if first.location == "" && p.Remote && first.country != "" {
			first.location = "Remote, " + first.country
		}
	}
	p.Location, p.City, p.Country = places[0].location, places[0].city, places[0].country
	if len(places) == 1 {
		places = nil
	}
	p.Salary = ldSalary(n.BaseSalary)
	return p, places, true
}

// unmarshalTolerant decodes v, accepting type mismatches inside (the mismatched fields stay
// zero). It reports false on a syntax error.
func unmarshalTolerant(b []byte, v any) bool {
	err := json.Unmarshal(b, v)
	if err == nil {
		return true
	}
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// ldIsJobPosting reports whether @type (a string or an array of strings) names JobPosting,
// bare or as a full IRI ("http://schema.org/JobPosting", "schema:JobPosting").
func ldIsJobPosting(raw rawJSON) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		s, _ := jsonStringValue(raw)
		return isJobPostingType(s)
	}
	found := false
	forEachRaw(raw, func(r rawJSON) bool {
		found = isJobPostingType(rawString(r))
		return !found
	})
	return found
}

func isJobPostingType(s string) bool {
	s = strings.TrimSpace(s)
	const t = "JobPosting"
	if !strings.HasSuffix(s, t) {
		return false
	}
	if len(s) == len(t) {
		return true
	}
	switch s[len(s)-len(t)-1] {
	case '/', ':', '#':
		return true
	}
	return false
}

// ldIdentifier returns the posting id from identifier: a string or number, a PropertyValue
// {"value":…} (or its @id/name when value is missing), or the first usable of an array.
func ldIdentifier(raw rawJSON) string {
	id := ""
	forEachRaw(raw, func(r rawJSON) bool {
		r = bytes.TrimSpace(r)
		if len(r) > 0 && r[0] == '{' {
			var pv struct {
				Value flexString `json:"value"`
				AtID  flexString `json:"@id"`
			}
			if decodeMembers(r, func(k []byte, v rawJSON) {
				switch {
				case keyIs(k, "value"):
					_ = pv.Value.UnmarshalJSON(v)
				case keyIs(k, "@id"):
					_ = pv.AtID.UnmarshalJSON(v)
				}
			}, func() bool { return unmarshalInto(r, &pv) }) {
				id = firstNonEmpty(clean(pv.Value), clean(pv.AtID))
			}
		} else {
			id = clean(rawString(r))
		}
		return id == ""
	})
	return id
}

// ldOrganization returns the employer name and website host from hiringOrganization (a
// string, an Organization object with name/sameAs/url, or an array of those). A host of the
// page's own site (siteHosts) is never the employer's website.
func ldOrganization(raw rawJSON, siteHosts []string) (name, domain string) {
	companyHost := func(ref string) string {
		h := companyHost(ref)
		for _, s := range siteHosts {
			if sameSite(h, s) {
				return ""
			}
		}
		return h
	}
	forEachRaw(raw, func(r rawJSON) bool {
		r = bytes.TrimSpace(r)
		if len(r) == 0 {
			return true
		}
		if r[0] != '{' {
			name = clean(decodeEntities(rawString(r)))
			return name == ""
		}
		var org struct {
			Name   flexString `json:"name"`
			SameAs rawJSON    `json:"sameAs"`
			URL    flexString `json:"url"`
		}
		if !decodeMembers(r, func(k []byte, v rawJSON) {
			switch {
			case keyIs(k, "name"):
				_ = org.Name.UnmarshalJSON(v)
			case keyIs(k, "sameAs"):
				org.SameAs = v
			case keyIs(k, "url"):
				_ = org.URL.UnmarshalJSON(v)
			}
		}, func() bool { return unmarshalInto(r, &org) }) {
			return true
		}
		name = clean(decodeEntities(string(org.Name)))
		forEachRaw(org.SameAs, func(s rawJSON) bool {
			domain = companyHost(rawString(s))
			return domain == ""
		})
		if domain == "" {
			domain = companyHost(string(org.URL))
		}
		return name == "" && domain == ""
	})
	return name, domain
}

// companyHost returns the website host of a sameAs/url reference, skipping profile pages on
// well-known social, reference and job-board sites (sameAs often lists those beside the
// website, and boards point it at their own company-profile pages).
func companyHost(ref string) string {
	h := hostOf(decodeEntities(ref))
	for _, site := range notEmployerSites {
		if sameSite(h, site) {
			return ""
		}
	}
	return h
}

// notEmployerSites are hosts whose pages are profiles of an employer, never its website.
var notEmployerSites = [...]string{
	"twitter.com", "x.com", "linkedin.com", "facebook.com", "instagram.com", "youtube.com",
	"github.com", "glassdoor.com", "crunchbase.com", "wikidata.org", "wikipedia.org", "xing.com", "tiktok.com",
	// job boards and aggregators
	"indeed.com", "indeed.co.uk", "indeed.de", "monster.com", "ziprecruiter.com", "simplyhired.com",
	"careerbuilder.com", "stepstone.de", "reed.co.uk", "totaljobs.com", "seek.com.au", "naukri.com",
	"jooble.org", "adzuna.com", "talent.com", "welcometothejungle.com", "jobs.ch", "dice.com",
}

// sameSite reports whether two hosts are the same site: equal, or one a subdomain of the other
// ("de.indeed.com" and "indeed.com"). "" is no site.
func sameSite(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return a == b || strings.HasSuffix(a, "."+b) || strings.HasSuffix(b, "."+a)
}

type ldAddress struct {
	AddressLocality flexString `json:"addressLocality"`
	AddressRegion   flexString `json:"addressRegion"`
	AddressCountry  ldCountry  `json:"addressCountry"`
}

// member decodes one member of an address object (see decodeMembers).
func (a *ldAddress) member(k []byte, v rawJSON) {
	switch {
	case keyIs(k, "addressLocality"):
		_ = a.AddressLocality.UnmarshalJSON(v)
	case keyIs(k, "addressRegion"):
		_ = a.AddressRegion.UnmarshalJSON(v)
	case keyIs(k, "addressCountry"):
		_ = a.AddressCountry.UnmarshalJSON(v)
	}
}

// ldPlaces returns every usable jobLocation (location text, city, country), in order.
func ldPlaces(raw rawJSON) []place {
	var out []place
	forEachRaw(raw, func(r rawJSON) bool {
		var loc, city, country string
		defer func() {
			if loc != "" || country != "" {
				out = append(out, place{location: loc, city: city, country: country})
			}
		}()
		r = bytes.TrimSpace(r)
		if len(r) == 0 || r[0] != '{' {
			loc = clean(decodeEntities(rawString(r)))
			return true
		}
		var pl struct {
			Name    flexString `json:"name"`
			Address rawJSON    `json:"address"`
		}
		if !decodeMembers(r, func(k []byte, v rawJSON) {
			switch {
			case keyIs(k, "name"):
				_ = pl.Name.UnmarshalJSON(v)
			case keyIs(k, "address"):
				pl.Address = v
			}
		}, func() bool { return unmarshalInto(r, &pl) }) {
			return true
		}
		addr := bytes.TrimSpace(firstRaw(pl.Address))
		switch {
		case len(addr) > 0 && addr[0] == '{':
			var a ldAddress
			if decodeMembers(addr, a.member, func() bool { return unmarshalInto(addr, &a) }) {
				city = clean(decodeEntities(string(a.AddressLocality)))
				country = decodeEntities(string(a.AddressCountry))
				loc = joinNonEmpty(", ", city, clean(decodeEntities(string(a.AddressRegion))), country)
			}
		case len(addr) > 0:
			loc = clean(decodeEntities(rawString(addr)))
		}
		if loc == "" {
			loc = clean(decodeEntities(string(pl.Name)))
		}
		return true
	})
	return out
}

func ldHasTelecommute(raw rawJSON) bool {
	found := false
	forEachRaw(raw, func(r rawJSON) bool {
		found = strings.EqualFold(clean(rawString(r)), "TELECOMMUTE")
		return !found
	})
	return found
}

// ldEmployment is the employment type of employmentType (FULL_TIME, PART_TIME, CONTRACTOR,
// TEMPORARY, INTERN; a string or an array): the one its values state, "" when none states one or
// two state different ones (["FULL_TIME","PART_TIME"]).
func ldEmployment(raw rawJSON) string {
	out := ""
	forEachRaw(raw, func(r rawJSON) bool {
		t := normalize.EmploymentTypeOf(clean(rawString(r)))
		switch {
		case t == "":
		case out == "":
			out = t
		case out != t:
			out = ""
			return false
		}
		return true
	})
	return out
}

// ldExperienceYears is the years of an experienceRequirements object's monthsOfExperience
// ({"@type":"OccupationalExperienceRequirements","monthsOfExperience":36} is 3; whole years
// only), nil when there is none (a text requirement is the description's to read).
func ldExperienceYears(raw rawJSON) *int {
	var out *int
	forEachRaw(raw, func(r rawJSON) bool {
		r = bytes.TrimSpace(r)
		if len(r) == 0 || r[0] != '{' {
			return true
		}
		var m struct {
			Months flexNum `json:"monthsOfExperience"`
		}
		if !unmarshalTolerant(r, &m) || !m.Months.OK || m.Months.V < 0 || m.Months.V > 600 {
			return true
		}
		y := int(m.Months.V) / 12
		out = &y
		return false
	})
	return out
}

// ldSalary reads baseSalary: a MonetaryAmount {currency, value, minValue, maxValue, unitText}
// whose value is a number, a numeric string or a QuantitativeValue {value|minValue|maxValue,
// unitText}. An array gives its first usable entry.
func ldSalary(raw rawJSON) *Salary {
	var out *Salary
	forEachRaw(raw, func(r rawJSON) bool {
		r = bytes.TrimSpace(r)
		if len(r) == 0 || r[0] != '{' {
			return true
		}
		var m struct {
			Currency flexString `json:"currency"`
			Value    rawJSON    `json:"value"`
			MinValue flexNum    `json:"minValue"`
			MaxValue flexNum    `json:"maxValue"`
			UnitText flexString `json:"unitText"`
		}
		if !decodeMembers(r, func(k []byte, v rawJSON) {
			switch {
			case keyIs(k, "currency"):
				_ = m.Currency.UnmarshalJSON(v)
			case keyIs(k, "value"):
				m.Value = v
			case keyIs(k, "minValue"):
				_ = m.MinValue.UnmarshalJSON(v)
			case keyIs(k, "maxValue"):
				_ = m.MaxValue.UnmarshalJSON(v)
			case keyIs(k, "unitText"):
				_ = m.UnitText.UnmarshalJSON(v)
			}
		}, func() bool { return unmarshalInto(r, &m) }) {
			return true
		}
		min, max, unit := m.MinValue, m.MaxValue, string(m.UnitText)
		v := bytes.TrimSpace(firstRaw(m.Value))
		if len(v) > 0 && v[0] == '{' {
			var q struct {
				Value    flexNum    `json:"value"`
				MinValue flexNum    `json:"minValue"`
				MaxValue flexNum    `json:"maxValue"`
				UnitText flexString `json:"unitText"`
			}
			if decodeMembers(v, func(k []byte, val rawJSON) {
				switch {
				case keyIs(k, "value"):
					_ = q.Value.UnmarshalJSON(val)
				case keyIs(k, "minValue"):
					_ = q.MinValue.UnmarshalJSON(val)
				case keyIs(k, "maxValue"):
					_ = q.MaxValue.UnmarshalJSON(val)
				case keyIs(k, "unitText"):
					_ = q.UnitText.UnmarshalJSON(val)
				}
			}, func() bool { return unmarshalInto(v, &q) }) {
				if q.MinValue.OK || q.MaxValue.OK {
					min, max = q.MinValue, q.MaxValue
				} else if q.Value.OK {
					min, max = q.Value, q.Value
				}
				if clean(q.UnitText) != "" {
					unit = string(q.UnitText)
				}
			}
		} else if len(v) > 0 {
			var f flexNum
			_ = f.UnmarshalJSON(v)
			if f.OK && !min.OK && !max.OK {
				min, max = f, f
			}
		}
		out = makeSalary(min, max, string(m.Currency), unit)
		return out == nil
	})
	return out
}

// unwrapLD trims a script block and strips HTML comment and CDATA wrappers.
func unwrapLD(b []byte) []byte {
	b = bytes.TrimSpace(b)
	for _, w := range [...][2]string{{"<!--", "-->"}, {"//<![CDATA[", "//]]>"}, {"<![CDATA[", "]]>"}} {
		if bytes.HasPrefix(b, []byte(w[0])) {
			b = bytes.TrimPrefix(b, []byte(w[0]))
			b = bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(b), []byte(w[1])))
		}
	}
	return b
}

// sanitizeControls returns a copy of b with ASCII control characters replaced by spaces
// (outside strings they are whitespace anyway), or nil when b has none.
func sanitizeControls(b []byte) []byte {
	var out []byte
	for i, c := range b {
		if c < 0x20 && c != ' ' {
			if out == nil {
				out = append([]byte(nil), b...)
			}
			out[i] = ' '
		}
	}
	return out
}
