package ats

import (
	"html"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// Posting is one job posting as published by a source (see docs/crawl-contract.md).
type Posting struct {
	SourceID      string // the posting's id in its source (unique within the source)
	RequisitionID string // employer requisition id when the format has one (greenhouse requisition_id, smartrecruiters refNumber, workable code, pinpoint job.requisition_id, workday bulletFields, icims Requisition ID); "" otherwise
	Title         string // raw title exactly as published
	CompanyName   string // employer name when the feed carries it (boards, aggregator, smartrecruiters, recruitee, workable, teamtailor, breezy, jobvite); "" otherwise
	CompanyDomain string // employer website host when the feed carries it (jsonld sameAs, aggregator domain); "" otherwise
	Location      string // free-text location as published
	City          string
	Country       string // as published: name, alpha-2 or alpha-3, any case; "" when absent
	Remote        bool   // the feed says the job is remote (a remote flag, a remote workplace type or remote wording in its location)
	Department    string
	// The terms the feed states in structured fields (never read from Description, which is
	// internal/jobtext's), each "" (nil) when the feed does not state it: EmploymentType is one of
	// normalize.EmploymentTypes, WorkplaceType one of normalize.WorkplaceTypes (remote ones also
	// set Remote), Seniority one of normalize.Seniorities (a vendor's experience level, not the
	// title's words), YearsExperienceMin the least years of experience the feed asks for.
	EmploymentType     string
	WorkplaceType      string
	Seniority          string
	YearsExperienceMin *int
	URL                string    // link to the real posting; "" when the format has none
	PostedAt           time.Time // zero when absent or unparsable
	Salary             *Salary   // nil when absent or blank
	// Description is the posting's description exactly as the feed publishes it (HTML or
	// text; a feed's sections concatenated in its order, each after its heading), not
	// cleaned: internal/jobtext turns it into text. "" when the format carries none (per
	// vendor in docs/crawl-contract.md). At most MaxDescription bytes, cut at a rune boundary.
	Description string
	// Keywords are the tags a feed states of the posting (Personio's <keywords>, "go,kubernetes"),
	// as published, at most MaxKeywords bytes: the crawl reads technologies from them
	// (internal/jobtext.Tags) beside the description's. "" when the feed has none.
	Keywords string
}

// MaxKeywords bounds Posting.Keywords in bytes.
const MaxKeywords = 1 << 10

// MaxDescription bounds Posting.Description in bytes, so a hostile feed cannot make a posting
// hold an unbounded text: a longer description is cut at the last rune boundary before it.
const MaxDescription = 64 << 10

// Salary is a published pay range.
type Salary struct {
	Min, Max float64 // either may be 0 when only one bound is published
	Currency string  // ISO 4217 as published (upper-cased)
	Period   string  // "year", "month", "week", "day", "hour" (normalised from the format's wording)
}

// Page is the result of parsing one fetched page of a source.
type Page struct {
	Postings  []Posting
	Malformed int    // records present but unusable (skipped, counted)
	NextURL   string // "" when this was the last page
}

// Adapter parses one vendor's public feed format.
type Adapter interface {
	Vendor() string
	// Parse parses one fetched page. pageURL is the URL the body came from (used to compute NextURL).
	// It returns an error only when the body as a whole cannot be parsed (the source then counts as failed
	// for this cycle); a bad record is counted in Malformed and skipped, never fatal.
	Parse(body []byte, pageURL string) (Page, error)
}

// Requester is implemented by an adapter whose pages are not plain GETs: Workday's list is a
// POST with a JSON body. Request gives the method, body and content type of the request for
// pageURL (the first page's URL or a NextURL), so a page's position stays in its URL and NextURL
// a pure function of the page URL and body. The fetcher sends conditional headers (If-None-Match,
// If-Modified-Since) with GET only.
type Requester interface {
	Request(pageURL string) (method string, body []byte, contentType string)
}

// ServedParser is implemented by an adapter whose format dates postings relative to when the
// page was served (Workday's "Posted 3 Days Ago"): ParseServed is Parse knowing that time (the
// fetcher gives the response's Date header, else when the page was read). Parse alone leaves
// such dates zero.
type ServedParser interface {
	ParseServed(body []byte, pageURL string, served time.Time) (Page, error)
}

// registry maps vendor names to their adapters. It is never written after initialisation.
var registry = map[string]Adapter{
	"greenhouse":      greenhouse{},
	"lever":           lever{},
	"ashby":           ashby{},
	"workable":        workable{},
	"smartrecruiters": smartRecruiters{},
	"recruitee":       recruitee{},
	"personio":        personio{},
	"teamtailor":      teamtailor{},
	"bamboohr":        bambooHR{},
	"breezy":          breezy{},
	"pinpoint":        pinpoint{},
	"join":            join{},
	"workday":         workday{},
	"icims":           icims{},
	"jobvite":         jobvite{},
	"jazzhr":          jazzHR{},
	"rippling":        rippling{},
	"jsonld":          jsonLD{},
	"aggregator":      aggregator{},
}

// For returns the adapter for a vendor name as used in the source directory.
func For(vendor string) (Adapter, bool) {
	a, ok := registry[vendor]
	return a, ok
}

// Vendors lists the vendor names For knows, sorted.
func Vendors() []string {
	out := make([]string, 0, len(registry))
	for v := range registry {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// place is one place a posting is published for, as the feed states it.
type place struct {
	location, city, country string
}

// appendPlaces appends p once per place (docs/crawl-contract.md, "Several places, one
// posting"): the first place keeps p.SourceID, the n-th further place (n counted from 1, in
// the order the feed lists its places) gets SourceID + "#" + n. A further place identical to
// an earlier one is skipped (its n is not reused). With no place, p is appended as it is.
func appendPlaces(out []Posting, p Posting, places []place) []Posting {
	if len(places) == 0 {
		return append(out, p)
	}
	id := p.SourceID
	for n, pl := range places {
		dup := false
		for _, prev := range places[:n] {
			if prev == pl {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		q := p
		q.Location, q.City, q.Country = pl.location, pl.city, pl.country
		if n > 0 {
			q.SourceID = id + "#" + strconv.Itoa(n)
		}
		out = append(out, q)
	}
	return out
}

// boundDescription returns s cut to at most MaxDescription bytes at a rune boundary, as a
// copy when cut (so the posting does not pin the larger text), and "" for a blank s.
func boundDescription(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	if len(s) <= MaxDescription {
		return s
	}
	cut := MaxDescription
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.Clone(s[:cut])
}

// section is one part of a description: an optional plain-text heading and its body as the
// feed publishes it.
type section struct {
	heading, body string
}

// htmlSections concatenates a feed's HTML sections in order, each non-blank body after its
// heading as <h3>heading</h3> (the heading HTML-escaped), and bounds the result
// (boundDescription). Blank bodies are skipped with their headings. Writing stops once the
// bound is passed, so a hostile feed's sections are never all copied.
func htmlSections(secs ...section) string {
	n := 0 // the sections' length, headings unescaped: the text's size, written once
	for _, s := range secs {
		n += len(s.heading) + len("<h3></h3>") + len(s.body)
	}
	var b strings.Builder
	b.Grow(min(n, 2*MaxDescription))
	for _, s := range secs {
		if strings.TrimSpace(s.body) == "" {
			continue
		}
		if h := strings.TrimSpace(s.heading); h != "" {
			b.WriteString("<h3>")
			b.WriteString(html.EscapeString(h))
			b.WriteString("</h3>")
		}
		b.WriteString(s.body)
		if b.Len() > MaxDescription {
			break
		}
	}
	return boundDescription(b.String())
}

// setTerms sets the terms a feed states in structured fields: employment type and workplace
// type, each the first of its values that states one (normalize.EmploymentTypeOf,
// normalize.WorkplaceTypeOf); a remote workplace type also sets Remote. A value already set is
// kept when no value given states one.
func (p *Posting) setTerms(employment []string, workplace []string) {
	for _, v := range employment {
		if t := normalize.EmploymentTypeOf(v); t != "" {
			p.EmploymentType = t
			break
		}
	}
	for _, v := range workplace {
		if w := normalize.WorkplaceTypeOf(v); w != "" {
			p.setWorkplace(w)
			break
		}
	}
}

// setWorkplace sets p's workplace type ("" keeps it) and Remote with a remote one.
func (p *Posting) setWorkplace(w string) {
	if w == "" {
		return
	}
	p.WorkplaceType = w
	if w == normalize.Remote {
		p.Remote = true
	}
}

// firstNonBlank returns the first s that is not blank, as it is.
func firstNonBlank(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// boundText is s cut to at most n bytes at a rune boundary.
func boundText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n])
}
