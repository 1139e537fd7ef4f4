package ats

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
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
// {"@type":"Country","name":…}; jobLocationType TELECOMMUTE (string or array) → Remote, with
// applicantLocationRequirements giving the country of remote jobs; baseSalary value as a
// number, a numeric string or a QuantitativeValue {value|minValue|maxValue, unitText};
// HTML-escaped JSON and entity-escaped text; raw control characters inside strings.
//
// SourceID is identifier (PropertyValue value, or a plain string/number), else @id, else url.
// A block that is not valid JSON counts as one malformed record; a page with no ld+json
// block is an empty page; a page whose blocks are all invalid, a truncated page (unclosed
// tag, script or comment, or <html> without </html>) and a body that is not HTML are errors.
// NextURL is the first <link rel="next">, resolved against the page URL.
type jsonLD struct{}

func (jsonLD) Vendor() string { return "jsonld" }

// ldMaxDepth bounds @graph / array nesting.
const ldMaxDepth = 8

type ldNode struct {
	Type                          json.RawMessage `json:"@type"`
	AtID                          flexString      `json:"@id"`
	Graph                         json.RawMessage `json:"@graph"`
	Title                         string          `json:"title"`
	Name                          string          `json:"name"`
	Identifier                    json.RawMessage `json:"identifier"`
	URL                           flexString      `json:"url"`
	DatePosted                    flexTime        `json:"datePosted"`
	HiringOrganization            json.RawMessage `json:"hiringOrganization"`
	JobLocation                   json.RawMessage `json:"jobLocation"`
	JobLocationType               json.RawMessage `json:"jobLocationType"`
	ApplicantLocationRequirements json.RawMessage `json:"applicantLocationRequirements"`
	BaseSalary                    json.RawMessage `json:"baseSalary"`
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
		forEachRaw(b, func(r json.RawMessage) bool {
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
	bad := 0
	for _, blk := range hp.blocks {
		if !parseLDBlock(blk, &page) {
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

// parseLDBlock decodes one script block and appends its JobPostings. It returns false when
// the block is not JSON at all (even after undoing HTML escaping).
func parseLDBlock(blk []byte, page *Page) bool {
	blk = unwrapLD(blk)
	if len(blk) == 0 {
		return true // an empty block carries nothing
	}
	if ldValue(blk, page, 0) {
		return true
	}
	// Second chance: raw control characters inside strings (invalid JSON, common in the
	// wild), then HTML-escaped JSON (&quot;…).
	fixed := sanitizeControls(blk)
	if fixed != nil && ldValue(fixed, page, 0) {
		return true
	}
	if bytes.IndexByte(blk, '&') >= 0 {
		un := []byte(decodeEntities(string(blk)))
		if s := sanitizeControls(un); s != nil {
			un = s
		}
		if ldValue(bytes.TrimSpace(un), page, 0) {
			return true
		}
	}
	return false
}

// ldValue handles one JSON value: an object node or an array of them. It reports false only
// when the value is not syntactically valid JSON; records it could not use are counted.
func ldValue(v []byte, page *Page, depth int) bool {
	if len(v) == 0 {
		return false
	}
	switch v[0] {
	case '{':
		var n ldNode
		if !unmarshalTolerant(v, &n) {
			return false
		}
		ldHandleNode(&n, page, depth)
		return true
	case '[':
		var items []json.RawMessage
		if !unmarshalTolerant(v, &items) {
			return false
		}
		for _, it := range items {
			ldElement(it, page, depth+1)
		}
		return true
	}
	if !json.Valid(v) {
		return false
	}
	page.Malformed++ // a bare scalar where a node should be
	return true
}

// ldElement handles one element of an array or @graph (already known to be valid JSON).
func ldElement(raw json.RawMessage, page *Page, depth int) {
	raw = bytes.TrimSpace(raw)
	if depth > ldMaxDepth {
		return
	}
	switch {
	case len(raw) == 0:
	case raw[0] == '{' || raw[0] == '[':
		ldValue(raw, page, depth)
	default:
		page.Malformed++ // a scalar where a node should be
	}
}

func ldHandleNode(n *ldNode, page *Page, depth int) {
	if !isNull(n.Graph) && depth < ldMaxDepth {
		g := bytes.TrimSpace(n.Graph)
		if g[0] == '[' {
			var items []json.RawMessage
			if unmarshalTolerant(g, &items) {
				for _, it := range items {
					ldElement(it, page, depth+1)
				}
			}
		} else {
			ldElement(g, page, depth+1)
		}
	}
	if !ldIsJobPosting(n.Type) {
		return
	}
	if p, ok := n.posting(); ok {
		page.Postings = append(page.Postings, p)
	} else {
		page.Malformed++
	}
}

func (n *ldNode) posting() (Posting, bool) {
	title := n.Title
	if strings.TrimSpace(title) == "" {
		title = n.Name
	}
	title = decodeEntities(title)
	if strings.TrimSpace(title) == "" {
		return Posting{}, false
	}
	id := ldIdentifier(n.Identifier)
	if id == "" {
		id = clean(n.AtID)
	}
	if id == "" {
		id = clean(n.URL)
	}
	if id == "" {
		return Posting{}, false
	}
	p := Posting{
		SourceID: id,
		Title:    title,
		URL:      clean(n.URL),
		PostedAt: n.DatePosted.T,
		Remote:   ldHasTelecommute(n.JobLocationType),
	}
	p.CompanyName, p.CompanyDomain = ldOrganization(n.HiringOrganization)
	p.Location, p.City, p.Country = ldPlace(n.JobLocation)
	if p.Country == "" && !isNull(n.ApplicantLocationRequirements) {
		var c ldCountry
		_ = c.UnmarshalJSON(n.ApplicantLocationRequirements)
		p.Country = decodeEntities(string(c))
		if p.Location == "" && p.Remote && p.Country != "" {
			p.Location = "Remote, " + p.Country
		}
	}
	p.Salary = ldSalary(n.BaseSalary)
	return p, true
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
func ldIsJobPosting(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		s, _ := jsonStringValue(raw)
		return isJobPostingType(s)
	}
	found := false
	forEachRaw(raw, func(r json.RawMessage) bool {
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
func ldIdentifier(raw json.RawMessage) string {
	id := ""
	forEachRaw(raw, func(r json.RawMessage) bool {
		r = bytes.TrimSpace(r)
		if len(r) > 0 && r[0] == '{' {
			var pv struct {
				Value flexString `json:"value"`
				AtID  flexString `json:"@id"`
			}
			if unmarshalTolerant(r, &pv) {
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
// string, an Organization object with name/sameAs/url, or an array of those).
func ldOrganization(raw json.RawMessage) (name, domain string) {
	forEachRaw(raw, func(r json.RawMessage) bool {
		r = bytes.TrimSpace(r)
		if len(r) == 0 {
			return true
		}
		if r[0] != '{' {
			name = clean(decodeEntities(rawString(r)))
			return name == ""
		}
		var org struct {
			Name   flexString      `json:"name"`
			SameAs json.RawMessage `json:"sameAs"`
			URL    flexString      `json:"url"`
		}
		if !unmarshalTolerant(r, &org) {
			return true
		}
		name = clean(decodeEntities(string(org.Name)))
		forEachRaw(org.SameAs, func(s json.RawMessage) bool {
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
// well-known social and reference sites (sameAs often lists those beside the website).
func companyHost(ref string) string {
	h := hostOf(decodeEntities(ref))
	switch h {
	case "twitter.com", "x.com", "linkedin.com", "facebook.com", "instagram.com", "youtube.com",
		"github.com", "glassdoor.com", "crunchbase.com", "wikidata.org", "xing.com", "tiktok.com":
		return ""
	}
	if strings.HasSuffix(h, ".wikipedia.org") || strings.HasSuffix(h, ".linkedin.com") {
		return ""
	}
	return h
}

type ldAddress struct {
	AddressLocality flexString `json:"addressLocality"`
	AddressRegion   flexString `json:"addressRegion"`
	AddressCountry  ldCountry  `json:"addressCountry"`
}

// ldPlace returns the location text, city and country of the first usable jobLocation.
func ldPlace(raw json.RawMessage) (loc, city, country string) {
	forEachRaw(raw, func(r json.RawMessage) bool {
		r = bytes.TrimSpace(r)
		if len(r) == 0 || r[0] != '{' {
			loc = clean(decodeEntities(rawString(r)))
			return loc == ""
		}
		var place struct {
			Name    flexString      `json:"name"`
			Address json.RawMessage `json:"address"`
		}
		if !unmarshalTolerant(r, &place) {
			return true
		}
		addr := bytes.TrimSpace(firstRaw(place.Address))
		switch {
		case len(addr) > 0 && addr[0] == '{':
			var a ldAddress
			if unmarshalTolerant(addr, &a) {
				city = clean(decodeEntities(string(a.AddressLocality)))
				country = decodeEntities(string(a.AddressCountry))
				loc = joinNonEmpty(", ", city, clean(decodeEntities(string(a.AddressRegion))), country)
			}
		case len(addr) > 0:
			loc = clean(decodeEntities(rawString(addr)))
		}
		if loc == "" {
			loc = clean(decodeEntities(string(place.Name)))
		}
		return loc == "" && country == ""
	})
	return loc, city, country
}

func ldHasTelecommute(raw json.RawMessage) bool {
	found := false
	forEachRaw(raw, func(r json.RawMessage) bool {
		found = strings.EqualFold(clean(rawString(r)), "TELECOMMUTE")
		return !found
	})
	return found
}

// ldSalary reads baseSalary: a MonetaryAmount {currency, value, minValue, maxValue, unitText}
// whose value is a number, a numeric string or a QuantitativeValue {value|minValue|maxValue,
// unitText}. An array gives its first usable entry.
func ldSalary(raw json.RawMessage) *Salary {
	var out *Salary
	forEachRaw(raw, func(r json.RawMessage) bool {
		r = bytes.TrimSpace(r)
		if len(r) == 0 || r[0] != '{' {
			return true
		}
		var m struct {
			Currency flexString      `json:"currency"`
			Value    json.RawMessage `json:"value"`
			MinValue flexNum         `json:"minValue"`
			MaxValue flexNum         `json:"maxValue"`
			UnitText flexString      `json:"unitText"`
		}
		if !unmarshalTolerant(r, &m) {
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
			if unmarshalTolerant(v, &q) {
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
