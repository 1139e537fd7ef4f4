package ats

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// teamtailor parses a Teamtailor career site's RSS feed, the public surface every Teamtailor
// board serves without a key (its REST API needs one):
// GET {tenant}.teamtailor.com/jobs.rss?per_page=200&offset=0
//
//	<rss version="2.0" xmlns:tt="https://teamtailor.com/locations"><channel>
//	  <title>Acme AB</title><link>https://acme.teamtailor.com/jobs</link>
//	  <item><title>Backend Engineer</title><description>&lt;p&gt;…&lt;/p&gt;</description>
//	    <pubDate>Fri, 27 Feb 2026 19:59:48 +0100</pubDate>
//	    <link>https://acme.teamtailor.com/jobs/7308188-backend-engineer</link>
//	    <remoteStatus>hybrid</remoteStatus><guid>679cc864-7629-4b8f-a5d4-6f9ebeccfaad</guid>
//	    <tt:locations><tt:location><tt:name>Stockholm HQ</tt:name><tt:city>Stockholm</tt:city>
//	      <tt:country>Sweden</tt:country></tt:location></tt:locations>
//	    <tt:department>Engineering</tt:department><tt:role>Backend</tt:role></item>
//	</channel></rss>
//
// The channel's title is the employer's name. A job's id is the number in its link
// (/jobs/{id}-{slug}, after an optional locale segment), else its guid. remoteStatus is the
// WorkplaceType: "fully" remote (Remote), "hybrid" hybrid; "none" (no remote option, carried by an
// on-site job and by one whose recruiter never set a workplace alike) and "temporary" (remote for
// the time being) state none, and the text says. Each tt:location is a place of the
// job (see appendPlaces): Location is "City, Country" (the location's name when it has neither),
// Country its country's name. Description is the item's description: HTML, entity-escaped (or
// CDATA) in the XML, so decoding the XML gives the HTML. The feed carries no pay. Paging is per_page/offset: the feed's
// default page is 100 items and larger per_page values are honoured; a page as long as per_page
// may be followed by another at offset+per_page, a shorter one is the last. A body whose root is
// not <rss> (an HTML page answered with 200) is not a feed.
type teamtailor struct{}

func (teamtailor) Vendor() string { return "teamtailor" }

// teamtailorDefaultPage is the feed's page size when the URL names none.
const teamtailorDefaultPage = 100

type teamtailorItem struct {
	Title        string `xml:"title"`
	Link         string `xml:"link"`
	GUID         string `xml:"guid"`
	PubDate      string `xml:"pubDate"`
	RemoteStatus string `xml:"remoteStatus"`
	Description  string `xml:"description"`
	Department   string `xml:"department"`
	Division     string `xml:"division"`
	Locations    struct {
		Location []struct {
			Name    string `xml:"name"`
			City    string `xml:"city"`
			Country string `xml:"country"`
		} `xml:"location"`
	} `xml:"locations"`
}

func (teamtailor) Parse(body []byte, pageURL string) (Page, error) {
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = false // descriptions carry stray '&' and HTML entities
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charsetReader
	var page Page
	var items []teamtailorItem
	company := ""
	depth, roots, n := 0, 0, 0
	inChannel := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Page{}, fmt.Errorf("teamtailor: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if roots > 1 {
					return Page{}, errors.New("teamtailor: more than one root element")
				}
				if !strings.EqualFold(t.Name.Local, "rss") {
					return Page{}, fmt.Errorf("teamtailor: root element <%s>, not an RSS feed", t.Name.Local)
				}
			}
			if depth == 1 && t.Name.Local == "channel" {
				inChannel = true
			}
			if inChannel && depth == 2 && t.Name.Local == "title" {
				var title string
				if err := d.DecodeElement(&title, &t); err != nil {
					return Page{}, fmt.Errorf("teamtailor: %w", err)
				}
				company = strings.TrimSpace(title)
				continue
			}
			if depth > 0 && t.Name.Local == "item" {
				var it teamtailorItem
				if err := d.DecodeElement(&it, &t); err != nil {
					return Page{}, fmt.Errorf("teamtailor: %w", err)
				}
				n++
				items = append(items, it)
				continue
			}
			depth++
		case xml.EndElement:
			depth--
			if depth == 1 && t.Name.Local == "channel" {
				inChannel = false
			}
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return Page{}, errors.New("teamtailor: text outside the root element")
			}
		}
	}
	if roots == 0 {
		return Page{}, errors.New("teamtailor: no root element")
	}
	if depth != 0 {
		return Page{}, errors.New("teamtailor: unexpected end of document")
	}
	page.Postings = make([]Posting, 0, len(items))
	for i := range items {
		it := &items[i]
		p, ok := it.posting(company)
		if !ok {
			page.Malformed++
			continue
		}
		var places []place
		for _, l := range it.Locations.Location {
			city, country := strings.TrimSpace(l.City), strings.TrimSpace(l.Country)
			pl := place{location: joinNonEmpty(", ", city, country), city: city, country: country}
			if pl.location == "" {
				pl.location = strings.TrimSpace(l.Name)
			}
			if pl != (place{}) {
				places = append(places, pl)
			}
		}
		page.Postings = appendPlaces(page.Postings, p, places)
	}
	page.NextURL = teamtailorNext(pageURL, n)
	return page, nil
}

func (it *teamtailorItem) posting(company string) (Posting, bool) {
	title := strings.TrimSpace(it.Title)
	link := strings.TrimSpace(it.Link)
	id := teamtailorJobID(link)
	if id == "" {
		id = strings.TrimSpace(it.GUID)
	}
	if id == "" || title == "" {
		return Posting{}, false
	}
	p := Posting{
		SourceID:    id,
		Title:       title,
		CompanyName: company,
		Remote:      strings.EqualFold(strings.TrimSpace(it.RemoteStatus), "fully"),
		Department:  firstNonEmpty(strings.TrimSpace(it.Department), strings.TrimSpace(it.Division)),
		PostedAt:    parseTime(it.PubDate),
		Description: boundDescription(it.Description),
	}
	p.setWorkplace(teamtailorWorkplace[strings.ToLower(strings.TrimSpace(it.RemoteStatus))])
	if u := parseAbs(link); u != nil {
		p.URL = finishURL(u)
	}
	return p, true
}

// teamtailorWorkplace maps remoteStatus to a workplace type. "none" (no remote option) does not
// tell an on-site job from one whose workplace was never set, and "temporary" (remote for the
// time being) is no lasting workplace: both state none.
var teamtailorWorkplace = map[string]string{"fully": normalize.Remote, "hybrid": normalize.Hybrid}

// teamtailorJobID returns the job number of a Teamtailor job link
// (https://acme.teamtailor.com/jobs/7308188-backend-engineer, …/fr-CA/jobs/7308188), or "".
func teamtailorJobID(link string) string {
	u := parseAbs(link)
	if u == nil {
		return ""
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i := 0; i+1 < len(segs); i++ {
		if segs[i] != "jobs" {
			continue
		}
		num, _, _ := strings.Cut(segs[i+1], "-")
		if allDigits(num) && len(num) <= 18 {
			return num
		}
	}
	return ""
}

// teamtailorNext returns the next per_page/offset page URL when n (the items on this page,
// usable or not) equals the page's per_page.
func teamtailorNext(pageURL string, n int) string {
	u := parseAbs(pageURL)
	if u == nil || n == 0 {
		return ""
	}
	per := queryInt(u, "per_page", teamtailorDefaultPage)
	if per == 0 {
		per = teamtailorDefaultPage
	}
	if n != per {
		return ""
	}
	offset := queryInt(u, "offset", 0)
	if offset > math.MaxInt32-per {
		return ""
	}
	next := withQuery(pageURL, "offset", strconv.Itoa(offset+per))
	if _, ok := queryValue(u.RawQuery, "per_page"); !ok && next != "" {
		next = withQuery(next, "per_page", strconv.Itoa(per))
	}
	return next
}
