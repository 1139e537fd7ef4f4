package ats

import (
	"html"
	"math"
	"strconv"
	"strings"
)

// lever parses the Lever Postings API: GET api.lever.co/v0/postings/{site}?mode=json&skip=0&limit=100
//
//	[{"id":"5ac2…","text":"Senior Backend Engineer","hostedUrl":"https://jobs.lever.co/acme/5ac2…",
//	  "applyUrl":"…/apply","createdAt":1718000000000,"country":"DE","workplaceType":"remote",
//	  "categories":{"location":"Berlin","allLocations":["Berlin","Munich"],"team":"Platform",
//	                "department":"Engineering","commitment":"Full-time"},
//	  "salaryRange":{"currency":"EUR","interval":"per-year-salary","min":70000,"max":90000}}]
//
// With mode=json each posting also carries its description ("description" HTML and
// "descriptionPlain"), "lists" ([{"text":"Requirements","content":"<li>…</li>"}]) and
// "additional"/"additionalPlain"; Description joins them (see description).
//
// The body is a bare array. Paging is skip/limit: a page as long as limit (from the page URL,
// default 100) may be followed by another at skip+limit; a shorter page is the last.
//
// categories.commitment ("Full-time", "Contract", "Intern") is the EmploymentType, workplaceType
// (on-site, hybrid, remote; unspecified is none) the WorkplaceType.
type lever struct{}

func (lever) Vendor() string { return "lever" }

const leverDefaultLimit = 100

type leverPosting struct {
	ID            flexString `json:"id"`
	Text          string     `json:"text"`
	HostedURL     flexString `json:"hostedUrl"`
	ApplyURL      flexString `json:"applyUrl"`
	CreatedAt     flexTime   `json:"createdAt"`
	Country       flexString `json:"country"`
	WorkplaceType flexString `json:"workplaceType"`
	Categories    struct {
		Location     flexString   `json:"location"`
		AllLocations []flexString `json:"allLocations"`
		Team         flexString   `json:"team"`
		Department   flexString   `json:"department"`
		Commitment   flexString   `json:"commitment"`
	} `json:"categories"`
	Description      flexString `json:"description"`
	DescriptionPlain flexString `json:"descriptionPlain"`
	Lists            []struct {
		Text    flexString `json:"text"`
		Content flexString `json:"content"`
	} `json:"lists"`
	Additional      flexString `json:"additional"`
	AdditionalPlain flexString `json:"additionalPlain"`
	SalaryRange     *struct {
		Currency flexString `json:"currency"`
		Interval flexString `json:"interval"`
		Min      flexNum    `json:"min"`
		Max      flexNum    `json:"max"`
	} `json:"salaryRange"`
}

func (l *leverPosting) idTitle() (string, string) { return clean(l.ID), clean(l.Text) }

func (lever) Parse(body []byte, pageURL string) (Page, error) {
	var list []leverPosting
	page, err := decodePage("lever", body, "", &list, func(l *[]leverPosting) *[]leverPosting { return l }, func(l *leverPosting, id string, ps []Posting) []Posting {
		p := Posting{
			SourceID:   id,
			Title:      l.Text,
			Location:   clean(l.Categories.Location),
			Country:    clean(l.Country),
			Remote:     strings.EqualFold(clean(l.WorkplaceType), "remote"),
			Department: clean(l.Categories.Department),
			URL:        clean(l.HostedURL),
			PostedAt:   l.CreatedAt.T,
		}
		p.setTerms([]string{string(l.Categories.Commitment)}, []string{string(l.WorkplaceType)})
		if p.Location == "" {
			for _, loc := range l.Categories.AllLocations {
				if s := clean(loc); s != "" {
					p.Location = s
					break
				}
			}
		}
		if p.Department == "" {
			p.Department = clean(l.Categories.Team)
		}
		if p.URL == "" {
			p.URL = clean(l.ApplyURL)
		}
		if sr := l.SalaryRange; sr != nil {
			p.Salary = makeSalary(sr.Min, sr.Max, string(sr.Currency), string(sr.Interval))
		}
		p.Description = l.description()
		return append(ps, p)
	})
	if err != nil {
		return Page{}, err
	}
	page.NextURL = leverNext(pageURL, len(list))
	return page, nil
}

// description is the posting's HTML as Lever's hosted page lays it out: description, then each
// of lists as <h3>text</h3><ul>content</ul> (content is HTML <li> items), then additional. A
// posting without the HTML description gives the plain one, its lists and additionalPlain, the
// plain texts HTML-escaped so the whole stays HTML.
func (l *leverPosting) description() string {
	secs := make([]section, 0, 2+len(l.Lists))
	plain := strings.TrimSpace(string(l.Description)) == ""
	if plain {
		secs = append(secs, section{body: html.EscapeString(string(l.DescriptionPlain))})
	} else {
		secs = append(secs, section{body: string(l.Description)})
	}
	for _, li := range l.Lists {
		if strings.TrimSpace(string(li.Content)) == "" {
			continue
		}
		secs = append(secs, section{heading: string(li.Text), body: "<ul>" + string(li.Content) + "</ul>"})
	}
	if plain || strings.TrimSpace(string(l.Additional)) == "" {
		secs = append(secs, section{body: html.EscapeString(string(l.AdditionalPlain))})
	} else {
		secs = append(secs, section{body: string(l.Additional)})
	}
	return htmlSections(secs...)
}

// leverNext returns the next skip/limit page URL when n (the records on this page, usable
// or not) equals the page's limit.
func leverNext(pageURL string, n int) string {
	u := parseAbs(pageURL)
	if u == nil || n == 0 {
		return ""
	}
	limit := queryInt(u, "limit", leverDefaultLimit)
	if limit == 0 {
		limit = leverDefaultLimit
	}
	if n != limit {
		return ""
	}
	skip := queryInt(u, "skip", 0)
	if skip > math.MaxInt32-limit {
		return ""
	}
	next := withQuery(pageURL, "skip", strconv.Itoa(skip+limit))
	if _, ok := queryValue(u.RawQuery, "limit"); !ok && next != "" {
		next = withQuery(next, "limit", strconv.Itoa(limit))
	}
	return next
}
