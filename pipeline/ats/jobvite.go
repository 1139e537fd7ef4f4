package ats

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// jobvite parses a Jobvite careers site's search results, server-rendered HTML (Jobvite's JSON
// feeds need a customer's API key): GET https://jobs.jobvite.com/{company}/search/?p={N}
//
//	<title>Acme Careers</title>
//	<table class="jv-job-list"><tbody><tr>
//	  <td class="jv-job-list-name"><a href="/acme/job/oD2jAfwi">Backend Engineer</a></td>
//	  <td class="jv-job-list-location">Berlin, Germany</td></tr></tbody></table>
//	<div class="jv-pagination-text">1-50 of 73</div> <a class="jv-pagination-next" href="/acme/search/?p=1">
//
// Other layouts of the same classes are read too: the name and location as divs inside the
// job's link (<a href="/acme/job/…"><div class="jv-job-list-name">…</div><div
// class="jv-job-list-location">…</div></a>), and the category pages (/{company}/jobs), whose
// lists each follow an <h3> naming the category: the Department. SourceID is the job code of
// the link (/{company}/job/{code}, or /careers/{company}/job/{code}); URL the public posting
// https://jobs.jobvite.com/{company}/job/{code}. Location is the location cell as published
// ("City, State", "City, Country"), City its first part; a count ("2 Locations") is no place and
// gives no Location; a "Remote" in it is Remote. CompanyName is the <title>'s "{Name} Careers".
// The list has no date, salary, requisition id or description (Description stays ""). A job link without a title is malformed.
//
// Paging: 50 jobs a page, p= zero-based and the trailing slash of /search/ kept (without it
// Jobvite answers the first page whatever p says). "A-B of N" in .jv-pagination-text (only on
// boards of more than a page) gives the next page, the page URL with p+1, while B < N and A is
// where the page asked for begins. A page without Jobvite's markup, or cut short, is an error.
type jobvite struct{}

func (jobvite) Vendor() string { return "jobvite" }

var (
	jobviteJobPath  = regexp.MustCompile(`^/(?:careers/)?([A-Za-z0-9][A-Za-z0-9._-]{0,99})/job/([A-Za-z0-9]{1,32})/?$`)
	jobviteRange    = regexp.MustCompile(`(\d{1,7})\s*[-–]\s*(\d{1,7})\s+of\s+(\d{1,7})`)
	jobviteCount    = regexp.MustCompile(`(?i)^\d+\s+locations?$`)
	jobviteCareers  = regexp.MustCompile(`(?i)^(.+?)\s+careers$`)
	jobviteNameCell = []string{"jv-job-list-name", "jv-featured-job-title"}
	jobviteLocCell  = []string{"jv-job-list-location", "jv-featured-job-location"}
)

func (jobvite) Parse(body []byte, pageURL string) (Page, error) {
	doc, err := parseHTMLPage("jobvite", body)
	if err != nil {
		return Page{}, err
	}
	if !bytes.Contains(body, []byte("jv-")) {
		return Page{}, fmt.Errorf("jobvite: %w", errNotVendorPage)
	}
	company := ""
	if m := jobviteCareers.FindStringSubmatch(pageTitle(doc)); m != nil {
		company = strings.TrimSpace(m[1])
	}
	var page Page
	seen := map[string]bool{}
	links := 0
	walk(doc, func(n *html.Node) bool {
		if !isElem(n, "a") {
			return true
		}
		u, err := url.Parse(strings.TrimSpace(attrOf(n, "href")))
		if err != nil {
			return false
		}
		m := jobviteJobPath.FindStringSubmatch(u.Path)
		if m == nil {
			return false
		}
		nameCell := jobviteCell(n, jobviteNameCell)
		if nameCell == nil {
			return false // a link to a job outside the list (a featured banner)
		}
		co, code := m[1], m[2]
		if seen[code] {
			return false
		}
		seen[code] = true
		links++
		title := ""
		if inner := findAnyClass(n, jobviteNameCell); inner != nil {
			title = textOf(inner, srOnly)
		} else if inner := findClass(n, "title"); inner != nil {
			title = textOf(inner, srOnly)
		} else {
			title = textOf(n, srOnly)
		}
		if title == "" {
			page.Malformed++
			return false
		}
		p := Posting{
			SourceID:    code,
			Title:       title,
			CompanyName: company,
			URL:         "https://jobs.jobvite.com/" + url.PathEscape(co) + "/job/" + url.PathEscape(code),
			Department:  jobviteCategory(n),
		}
		loc := ""
		if cell := findAnyClass(n, jobviteLocCell); cell != nil {
			loc = textOf(cell, srOnly)
		} else if row := closest(n, func(x *html.Node) bool { return isElem(x, "tr") || isElem(x, "li") }); row != nil {
			if cell := findAnyClass(row, jobviteLocCell); cell != nil {
				loc = textOf(cell, srOnly)
			}
		}
		if !jobviteCount.MatchString(loc) {
			p.Location = loc
			p.Remote = hasWord(loc, "remote")
			if first, _, found := strings.Cut(loc, ","); found && !isRemoteWord(first) {
				p.City = strings.TrimSpace(first)
			}
		}
		page.Postings = append(page.Postings, p)
		return false
	})
	if links > 0 {
		page.NextURL = jobviteNext(doc, pageURL)
	}
	return page, nil
}

// jobviteCell returns the list cell a job link belongs to: the name cell around it, or one
// inside it (the nested layout); nil for a link outside the list.
func jobviteCell(a *html.Node, classes []string) *html.Node {
	if c := closest(a, func(x *html.Node) bool { return hasAnyClass(x, classes) }); c != nil {
		return c
	}
	return findAnyClass(a, classes)
}

func hasAnyClass(n *html.Node, classes []string) bool {
	for _, c := range classes {
		if hasClass(n, c) {
			return true
		}
	}
	return false
}

func findAnyClass(n *html.Node, classes []string) *html.Node {
	return find(n, func(x *html.Node) bool { return hasAnyClass(x, classes) })
}

// jobviteCategory is the heading a category page puts before the list that holds a: the
// text of the nearest <h3> among the siblings before the list (or before its wrapper), stopping
// at another list, whose heading is not this one's.
func jobviteCategory(a *html.Node) string {
	list := closest(a, func(x *html.Node) bool { return isElem(x, "table") || isElem(x, "ul") })
	for n, depth := list, 0; n != nil && depth < 2 && !isElem(n, "body"); n, depth = n.Parent, depth+1 {
		for s := n.PrevSibling; s != nil; s = s.PrevSibling {
			if isElem(s, "h3") {
				return textOf(s, srOnly)
			}
			if isElem(s, "table") || isElem(s, "ul") || findAnyClass(s, jobviteNameCell) != nil {
				return ""
			}
		}
	}
	return ""
}

// jobviteNext is the page URL with p+1 when the pagination text says a later page exists and
// the page begins where the page asked for does.
func jobviteNext(doc *html.Node, pageURL string) string {
	u := parseAbs(pageURL)
	if u == nil {
		return ""
	}
	el := findClass(doc, "jv-pagination-text")
	if el == nil {
		return ""
	}
	m := jobviteRange.FindStringSubmatch(textOf(el, nil))
	if m == nil {
		return ""
	}
	from, _ := strconv.Atoi(m[1])
	to, _ := strconv.Atoi(m[2])
	total, _ := strconv.Atoi(m[3])
	p := queryInt(u, "p", 0)
	size := to - from + 1
	if size <= 0 || to >= total || from != p*size+1 {
		return ""
	}
	return withQuery(pageURL, "p", strconv.Itoa(p+1))
}
