package ats

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// icims parses an iCIMS career portal's search results, the server-rendered HTML its portal
// frames (iCIMS has no public JSON list): GET https://{portal}.icims.com/jobs/search?ss=1&in_iframe=1
//
//	<h2 class="iCIMS_SubHeader iCIMS_SubHeader_Jobs">Search Results Page 1 of 3</h2>
//	<ul class="container-fluid iCIMS_JobsTable"><li class="iCIMS_JobCardItem"><div class="row">
//	  <div class="col-xs-6 header left"><span class="sr-only field-label">Job Locations</span><span>US-NY-New York | DE-BE-Berlin</span></div>
//	  <div class="col-xs-6 header right"><span class="sr-only field-label">Posted Date</span><span title="10/4/2026 10:33 AM">2 days ago</span></div>
//	  <div class="col-xs-12 title"><a href="https://careers-acme.icims.com/jobs/15550/data-analyst/job?in_iframe=1" class="iCIMS_Anchor">
//	    <span class="sr-only field-label">Title</span><h3>Data Analyst</h3></a></div>
//	  <div class="col-xs-12 additionalFields"><dl class="iCIMS_JobHeaderGroup">
//	    <div class="iCIMS_JobHeaderTag"><dt class="iCIMS_JobHeaderField">Requisition ID</dt><dd class="iCIMS_JobHeaderData"><span>2026-15550</span></dd></div>
//	    <div class="iCIMS_JobHeaderTag"><dt class="iCIMS_JobHeaderField">Category</dt><dd class="iCIMS_JobHeaderData"><span>Finance</span></dd></div>
//	  </dl></div></div></li></ul>
//
// A card is a link to /jobs/{id}/… that holds an <h3> or sits in the card's title block; its
// fields are label/value pairs, an sr-only label beside a value span in the card's header, or a
// dt/dd pair. Labels vary by tenant: "Job Locations", "Location", "Job Location" give the
// places; "Requisition ID", "Job ID", "ID" the RequisitionID; a label with "Posted" the date
// (month first, 10/4/2026, from the value's title attribute when it has one: its text may read
// "2 days ago"); one starting with "Category" or "Department" the Department; one starting with
// "Position Type", "Employment Type" or "Job Type" the EmploymentType, when its value names one
// ("Regular Full-Time", "Part-Time"; a tenant's "Experienced Professional" names none). A place is an
// iCIMS code, country alpha-2, region and city ("US-NY-New York", "IN-Bangalore", "US-Remote":
// Country US, City the last part, a city "Remote" is Remote); several are joined by " | " and give
// one Posting each (appendPlaces). URL is the link without its in_iframe parameter; SourceID the
// job id. A card without a title is malformed. A card's "description" block, where the tenant
// shows one, is the opening of the job's description as iCIMS cuts it for the list: it is the
// Description (text); the job's page has the whole, which the crawl does not fetch.
//
// Paging: 20 or 50 cards a page as the tenant set it; pr= is the zero-based page and the heading
// says "Page N of M". The next page is the page URL with pr+1 while N is the page asked for and
// N < M. A page without iCIMS markup (a bot challenge) or cut short is an error; a portal with no
// openings answers its page without cards.
type icims struct{}

func (icims) Vendor() string { return "icims" }

var (
	icimsJobPath  = regexp.MustCompile(`^/jobs/(\d{1,12})(?:/|$)`)
	icimsPageOf   = regexp.MustCompile(`(?i)\bpage\s+(\d{1,6})\s+of\s+(\d{1,6})\b`)
	icimsLocation = regexp.MustCompile(`(?i)^(job\s+)?locations?$`)
	icimsIDLabel  = regexp.MustCompile(`(?i)^((requisition|req|job)\s*)?(id|#|number)$|^requisition$`)
	icimsCode     = regexp.MustCompile(`^[A-Z]{2}$`)
)

func (icims) Parse(body []byte, pageURL string) (Page, error) {
	doc, err := parseHTMLPage("icims", body)
	if err != nil {
		return Page{}, err
	}
	if !bytes.Contains(body, []byte("iCIMS_")) {
		return Page{}, fmt.Errorf("icims: %w", errNotVendorPage)
	}
	var page Page
	seen := map[string]bool{}
	cards := 0
	walk(doc, func(n *html.Node) bool {
		if !isElem(n, "a") {
			return true
		}
		href := resolveRef(pageURL, attrOf(n, "href"))
		u := parseAbs(href)
		if u == nil {
			return false
		}
		m := icimsJobPath.FindStringSubmatch(u.Path)
		h3 := find(n, func(x *html.Node) bool { return isElem(x, "h3") })
		if m == nil || (h3 == nil && closest(n, func(x *html.Node) bool { return hasClass(x, "title") }) == nil) {
			return false
		}
		id := m[1]
		if seen[id] {
			return false
		}
		seen[id] = true
		cards++
		title := ""
		if h3 != nil {
			title = textOf(h3, srOnly)
		} else {
			title = textOf(n, srOnly)
		}
		if title == "" {
			page.Malformed++
			return false
		}
		q := u.Query()
		q.Del("in_iframe")
		u.RawQuery = q.Encode()
		p := Posting{SourceID: id, Title: title, URL: finishURL(u)}
		card := closest(n, func(x *html.Node) bool {
			return hasClass(x, "row") || hasClass(x, "iCIMS_JobCardItem") || isElem(x, "li")
		})
		var places []place
		if card != nil {
			places = icimsFields(card, &p)
			if d := findClass(card, "description"); d != nil {
				p.Description = boundDescription(textOf(d, srOnly))
			}
		}
		if len(places) > 0 {
			p.Location, p.City, p.Country = places[0].location, places[0].city, places[0].country
			p.Remote = icimsRemote(places)
		}
		page.Postings = appendPlaces(page.Postings, p, places)
		return false
	})
	if cards > 0 {
		page.NextURL = icimsNext(doc, pageURL)
	}
	return page, nil
}

// icimsFields reads a card's label/value pairs into p and returns its places.
func icimsFields(card *html.Node, p *Posting) []place {
	var places []place
	set := func(label string, value *html.Node) {
		label = strings.TrimSuffix(strings.TrimSpace(label), ":")
		text := textOf(value, srOnly)
		switch l := strings.ToLower(label); {
		case icimsLocation.MatchString(label):
			if places == nil {
				for _, part := range strings.Split(text, "|") {
					if part = strings.TrimSpace(part); part != "" {
						places = append(places, icimsPlace(part))
					}
				}
			}
		case icimsIDLabel.MatchString(label):
			if p.RequisitionID == "" {
				p.RequisitionID = text
			}
		case strings.Contains(l, "posted"):
			if p.PostedAt.IsZero() {
				p.PostedAt = icimsDate(firstNonEmpty(attrOf(value, "title"), attrOfFirst(value, "title")), text)
			}
		case strings.HasPrefix(l, "category"), strings.HasPrefix(l, "department"):
			if p.Department == "" {
				p.Department = text
			}
		case strings.HasPrefix(l, "position type"), strings.HasPrefix(l, "employment type"), strings.HasPrefix(l, "job type"):
			if p.EmploymentType == "" {
				p.EmploymentType = normalize.EmploymentTypeOf(text)
			}
		}
	}
	walk(card, func(x *html.Node) bool {
		switch {
		case hasClass(x, "field-label") && closest(x, func(y *html.Node) bool { return hasClass(y, "header") }) != nil:
			// <span class="sr-only field-label">Label</span><span>Value</span>
			for v := x.NextSibling; v != nil; v = v.NextSibling {
				if isElem(v, "") {
					set(textOf(x, nil), v)
					break
				}
			}
			return false
		case isElem(x, "dt"):
			for v := x.NextSibling; v != nil; v = v.NextSibling {
				if isElem(v, "dd") {
					set(textOf(x, nil), v)
					break
				}
			}
			return false
		}
		return true
	})
	return places
}

// attrOfFirst is attribute name of the first element below n that has it.
func attrOfFirst(n *html.Node, name string) string {
	if x := find(n, func(x *html.Node) bool { return isElem(x, "") && attrOf(x, name) != "" }); x != nil {
		return attrOf(x, name)
	}
	return ""
}

// icimsPlace reads one place: an iCIMS code "US-NY-New York" (country, region, city; the city
// may itself have hyphens), "IN-Bangalore" (country, city), or free text kept as Location.
func icimsPlace(s string) place {
	parts := strings.SplitN(s, "-", 3)
	if len(parts) < 2 || !icimsCode.MatchString(strings.TrimSpace(parts[0])) {
		return place{location: s}
	}
	city := strings.TrimSpace(parts[len(parts)-1])
	if isRemoteWord(city) {
		city = ""
	}
	return place{location: s, city: city, country: strings.TrimSpace(parts[0])}
}

// icimsRemote reports whether every place of a card is a remote one ("US-Remote").
func icimsRemote(places []place) bool {
	for _, pl := range places {
		parts := strings.Split(pl.location, "-")
		if !isRemoteWord(parts[len(parts)-1]) {
			return false
		}
	}
	return true
}

// icimsDateLayouts are the portals' dates, month first as every US tenant writes them.
var icimsDateLayouts = [...]string{"1/2/2006 3:04 PM", "1/2/2006 3:04:05 PM", "1/2/2006 15:04", "1/2/2006"}

// icimsDate reads a posted date from the value's title attribute, else its text.
func icimsDate(title, text string) time.Time {
	for _, s := range []string{title, text} {
		s = strings.Join(strings.Fields(s), " ")
		if s == "" {
			continue
		}
		for _, layout := range icimsDateLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UTC()
			}
		}
		if t := parseTime(s); !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// icimsNext is the page URL with pr+1 when the page's "Page N of M" says a later page exists
// and N is the page asked for (a portal that ignored pr= would otherwise page for ever).
func icimsNext(doc *html.Node, pageURL string) string {
	u := parseAbs(pageURL)
	if u == nil {
		return ""
	}
	pr := queryInt(u, "pr", 0)
	m := icimsPageOf.FindStringSubmatch(textOf(doc, nil))
	if m == nil {
		return ""
	}
	n, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	if n != pr+1 || n >= total {
		return ""
	}
	return withQuery(pageURL, "pr", strconv.Itoa(pr+1))
}
