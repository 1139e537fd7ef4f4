package ats

import (
	"strconv"
)

// Numbered is implemented by an adapter whose pages are addressed by a number or an offset in
// their URL, so that a page further on can be asked before the page before it is read: the
// schema.org board pages (?page=N, the simulator's list boards and most real boards' rel=next),
// Lever (skip=), SmartRecruiters and Teamtailor (offset=), Rippling and JOIN (page=), iCIMS
// (pr=), Jobvite (p=) and Workday (offset= in the fragment its POST body is built from). A
// cursor-chained format (the aggregator's next_cursor) is not: its next page is known only once
// the page before is read. A job-page board (each job page links the next job's page) uses the
// JSON-LD adapter but its links carry no number, so PageAhead finds no step in them.
type Numbered interface {
	NumberedPages()
}

func (jsonLD) NumberedPages()          {}
func (lever) NumberedPages()           {}
func (smartRecruiters) NumberedPages() {}
func (teamtailor) NumberedPages()      {}
func (rippling) NumberedPages()        {}
func (join) NumberedPages()            {}
func (icims) NumberedPages()           {}
func (jobvite) NumberedPages()         {}
func (workday) NumberedPages()         {}

// PagesNumbered reports whether ad's pages are addressed by number (Numbered).
func PagesNumbered(ad Adapter) bool {
	_, ok := ad.(Numbered)
	return ok
}

// PageAhead is the URL of the page k steps after next, when next is the page after page: the
// two URLs must differ in exactly one decimal number (a page number or an offset, anywhere in
// the URL), next's larger by a step d; the page k steps on has that number grown by k·d. It is
// "" when the two differ otherwise (a cursor, a job id in a path, a second parameter that
// appears only from the second page on) or k < 1. It is a guess: a reader of a chain asks it
// ahead, and takes what it read only when the page before, once read, links exactly this URL.
func PageAhead(page, next string, k int) string {
	if k < 1 {
		return ""
	}
	p := 0
	for p < len(page) && p < len(next) && page[p] == next[p] {
		p++
	}
	s := 0
	for s < len(page)-p && s < len(next)-p && page[len(page)-1-s] == next[len(next)-1-s] {
		s++
	}
	for p > 0 && isDigit(page[p-1]) { // the number starts before the first difference
		p--
	}
	for s > 0 && isDigit(page[len(page)-s]) { // and ends after the last
		s--
	}
	a, b := page[p:len(page)-s], next[p:len(next)-s]
	va, ok := decimal(a)
	if !ok {
		return ""
	}
	vb, ok := decimal(b)
	if !ok || vb <= va {
		return ""
	}
	d := vb - va
	if d*int64(k) > 1<<31-1-vb { // k is at most a chain's depth: no overflow here
		return ""
	}
	return next[:p] + strconv.FormatInt(vb+d*int64(k), 10) + next[len(next)-s:]
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// decimal reads s as a non-negative decimal number without leading zeros (a page number or an
// offset as URLs write them).
func decimal(s string) (int64, bool) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	var v int64
	for i := range len(s) {
		if !isDigit(s[i]) {
			return 0, false
		}
		v = v*10 + int64(s[i]-'0')
	}
	return v, true
}
