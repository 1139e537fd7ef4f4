package ats

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// jazzHR parses a JazzHR careers page, server-rendered HTML listing every open job (JazzHR's
// JSON API needs a customer's key): GET https://{tenant}.applytojob.com/apply
//
//	<div class="department-heading"><h3>Engineering</h3></div>
//	<ul class="list-group">
//	  <li class="list-group-item">
//	    <h3 class="list-group-item-heading"><a href="https://acme.applytojob.com/apply/RHnK3IiNee/Backend-Engineer">Backend Engineer</a></h3>
//	    <ul class="list-inline list-group-item-text">
//	      <li><i class="fa fa-map-marker"></i>Austin, TX</li><li><i class="fa fa-sitemap"></i>Engineering</li>
//	    </ul></li></ul>
//
// A job is a list-group item linking to /apply/{id}[/{slug}]; SourceID is the id, URL the link.
// The list has no description (Description stays ""; the job's /apply/{id} page has it).
// Location is the item's map-marker entry (in a list without icons, its first entry) as published, City its first
// comma part, a "Remote" in it is Remote; Department its sitemap entry, else the nearest
// department heading before it; the clock entry ("Full Time") the EmploymentType. The page has no date, salary, country or requisition id, and
// no paging. An item linking a job without a title is malformed; a page cut short is an error.
type jazzHR struct{}

func (jazzHR) Vendor() string { return "jazzhr" }

var jazzJobPath = regexp.MustCompile(`^/apply/([A-Za-z0-9]{6,16})(?:/[^/]*)?/?$`)

func (jazzHR) Parse(body []byte, pageURL string) (Page, error) {
	doc, err := parseHTMLPage("jazzhr", body)
	if err != nil {
		return Page{}, err
	}
	var page Page
	seen := map[string]bool{}
	dept := ""
	walk(doc, func(n *html.Node) bool {
		if hasClass(n, "department-heading") {
			if h := find(n, func(x *html.Node) bool { return isElem(x, "h3") || isElem(x, "h4") || isElem(x, "h2") }); h != nil {
				dept = textOf(h, srOnly)
			} else {
				dept = textOf(n, srOnly)
			}
			return false
		}
		if !isElem(n, "a") {
			return true
		}
		href := resolveRef(pageURL, attrOf(n, "href"))
		u := parseAbs(href)
		if u == nil {
			return false
		}
		m := jazzJobPath.FindStringSubmatch(u.Path)
		if m == nil || m[1] == "jobs" {
			return false
		}
		item := closest(n, func(x *html.Node) bool { return hasClass(x, "list-group-item") })
		if item == nil {
			return false // a link outside the list of jobs
		}
		id := m[1]
		if seen[id] {
			return false
		}
		seen[id] = true
		title := textOf(n, srOnly)
		if title == "" {
			page.Malformed++
			return false
		}
		u.RawQuery, u.Fragment = "", ""
		p := Posting{SourceID: id, Title: title, URL: finishURL(u), Department: dept}
		loc, itemDept, hours := jazzDetails(item)
		if itemDept != "" {
			p.Department = itemDept
		}
		p.EmploymentType = normalize.EmploymentTypeOf(hours)
		p.Location = loc
		p.Remote = hasWord(loc, "remote")
		if first, _, found := strings.Cut(loc, ","); found && !isRemoteWord(first) {
			p.City = strings.TrimSpace(first)
		}
		page.Postings = append(page.Postings, p)
		return false
	})
	return page, nil
}

// jazzDetails reads an item's detail entries: the location (the map-marker entry, else the
// first one), the department (the sitemap entry) and the employment type (the clock entry).
func jazzDetails(item *html.Node) (loc, dept, hours string) {
	list := find(item, func(x *html.Node) bool { return hasClass(x, "list-group-item-text") || hasClass(x, "list-inline") })
	if list == nil {
		return "", "", ""
	}
	first, icons := "", false
	for li := list.FirstChild; li != nil; li = li.NextSibling {
		if !isElem(li, "li") {
			continue
		}
		text := textOf(li, nil)
		if text == "" {
			continue
		}
		if first == "" {
			first = text
		}
		icon := find(li, func(x *html.Node) bool { return isElem(x, "i") })
		icons = icons || icon != nil
		switch {
		case icon != nil && hasClass(icon, "fa-map-marker") && loc == "":
			loc = text
		case icon != nil && hasClass(icon, "fa-sitemap") && dept == "":
			dept = text
		case icon != nil && hasClass(icon, "fa-clock-o") && hours == "":
			hours = text
		}
	}
	if loc == "" && !icons {
		loc = first // an unmarked list: its first entry is the place
	}
	return loc, dept, hours
}
