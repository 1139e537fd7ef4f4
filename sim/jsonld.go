package sim

import (
	"strconv"
	"time"
)

// JSON-LD job boards: GET https://{host}/jobs?page=N (the simulator's own path:
// GET /boards/{board}/jobs?page=N)
// An HTML page of up to 50 schema.org JobPosting objects, each in a
// <script type="application/ld+json"> block (a single object, an array of a few, or an
// @graph), with <link rel="next" href="..."> in the head until the last page. Quirks that real
// pages have: hiringOrganization is sometimes a plain string; addressCountry is alpha-2, a
// name, or an object {"@type":"Country","name":...}; jobLocation is a single Place or an array.

const boardPageSize = 50

const jsonldJunk = `<script type="application/ld+json">{"@context":"https://schema.org/","@type":"JobPosting","title":null,"datePosted":"soon","hiringOrganization":42,"jobLocation":"??","identifier":{"value":[]}}</script>` + "\n"

var jsonldEmployment = [numEmpTypes]string{"FULL_TIME", "PART_TIME", "CONTRACTOR", "INTERN", "TEMPORARY"}
var jsonldUnit = [...]string{"YEAR", "MONTH", "HOUR"}

// appendBoardRoot appends the root of board bi's pages: https://{host} in host mode, else
// base/boards/{board} (base XML-escaped when escape is set). Pages are root+"/jobs?page=N" and
// root+"/job/{id}".
func (w *World) appendBoardRoot(b []byte, base string, bi int, escape bool) []byte {
	if w.cfg.HostMode {
		b = append(b, "https://"...)
		return append(b, boardDefs[bi].host...)
	}
	if escape {
		b = appendXML(b, base)
	} else {
		b = append(b, base...)
	}
	b = append(b, "/boards/"...)
	return append(b, boardDefs[bi].name...)
}

// boardPages is the number of pages of a board list of n postings (at least 1).
func boardPages(n int) int { return max(1, (n+boardPageSize-1)/boardPageSize) }

// renderJSONLD renders page p (1-based) of board bi; base is the absolute base URL for links
// (unused in host mode, whose links are on the board's host).
func (w *World) renderJSONLD(b []byte, bi int, tick, page int, base string, junk bool) []byte {
	bd := &boardDefs[bi]
	refs := w.snapshot(tick).boards[bi]
	pages := boardPages(len(refs))
	lo := min((page-1)*boardPageSize, len(refs))
	hi := min(lo+boardPageSize, len(refs))
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"...)
	b = append(b, bd.display...)
	b = append(b, " – Jobs – Page "...)
	b = strconv.AppendInt(b, int64(page), 10)
	b = append(b, "</title>\n"...)
	if page > 1 {
		b = w.appendBoardLink(b, "prev", base, bi, page-1)
	}
	if page < pages {
		b = w.appendBoardLink(b, "next", base, bi, page+1)
	}
	b = append(b, "</head>\n<body>\n<h1>"...)
	b = append(b, bd.display...)
	b = append(b, " jobs</h1>\n<p>Showing "...)
	b = strconv.AppendInt(b, int64(min(lo+1, hi)), 10)
	b = append(b, "–"...)
	b = strconv.AppendInt(b, int64(hi), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(len(refs)), 10)
	b = append(b, " jobs</p>\n"...)
	var scratch [512]byte
	for i := lo; i < hi; {
		ref := refs[i]
		r := rng{h3(w.seed^saltBlock, uint64(bi), uint64(ref.comp)<<16|uint64(ref.slot))}
		style, size := 0, 1
		switch x := r.float(); {
		case x < 0.15:
			style, size = 1, 2+r.intn(2)
		case x < 0.25:
			style, size = 2, 2+r.intn(2)
		}
		size = min(size, hi-i)
		b = append(b, "<script type=\"application/ld+json\">"...)
		switch style {
		case 1:
			b = append(b, '[')
		case 2:
			b = append(b, `{"@context":"https://schema.org","@graph":[`...)
		}
		for j := 0; j < size; j++ {
			if j > 0 {
				b = append(b, ',')
			}
			rf := refs[i+j]
			c := &w.companies[rf.comp]
			g := w.genAt(c, int(rf.slot), tick)
			b = w.appendJobPosting(b, scratch[:0], bi, c, &g, style != 2)
		}
		switch style {
		case 1:
			b = append(b, ']')
		case 2:
			b = append(b, "]}"...)
		}
		b = append(b, "</script>\n"...)
		if junk && i == lo {
			b = append(b, jsonldJunk...)
		}
		i += size
	}
	if junk && lo == hi {
		b = append(b, jsonldJunk...)
	}
	return append(b, "</body>\n</html>\n"...)
}

func (w *World) appendBoardLink(b []byte, rel, base string, bi, page int) []byte {
	b = append(b, "<link rel=\""...)
	b = append(b, rel...)
	b = append(b, "\" href=\""...)
	b = w.appendBoardRoot(b, base, bi, true)
	b = append(b, "/jobs?page="...)
	b = strconv.AppendInt(b, int64(page), 10)
	return append(b, "\">\n"...)
}

func (w *World) appendJobPosting(b, scratch []byte, bi int, c *company, g *gen, withContext bool) []byte {
	bd := &boardDefs[bi]
	cd := &countries[g.country]
	r := rng{h3(g.h, saltVariant+7, uint64(bi))}
	b = append(b, '{')
	if withContext {
		b = append(b, `"@context":"https://schema.org/",`...)
	}
	b = append(b, `"@type":"JobPosting","title":`...)
	b = appendStrH(b, w.appendTitleVariant(scratch[:0], g, h3(g.h, saltVariant, uint64(bi))))
	b = append(b, `,"description":`...)
	d := w.descOf(c, g)
	b = d.append(b, flHTMLJSONH)
	d.release()
	b = append(b, `,"identifier":{"@type":"PropertyValue","name":`...)
	b = appendStrH(b, bd.display)
	b = append(b, `,"value":"`...)
	idStart := len(b)
	b = w.appendBoardID(b, bi, c, g)
	idEnd := len(b)
	b = append(b, `"},"datePosted":`...)
	posted := w.postedAt(g, saltVariant+uint64(bi)).UTC()
	if r.chance(0.6) {
		b = appendTime(b, posted, "2006-01-02")
	} else {
		b = appendTime(b, posted, time.RFC3339)
	}
	b = append(b, `,"validThrough":`...)
	b = appendTime(b, w.CycleTime(g.close).Add(30*24*time.Hour), time.RFC3339)
	b = append(b, `,"employmentType":"`...)
	b = append(b, jsonldEmployment[g.empType]...)
	b = append(b, `","hiringOrganization":`...)
	name := appendCompanyVariant(scratch[:0], c, h3(g.h, saltVariant+1, uint64(bi)))
	if r.chance(0.03) {
		b = appendStrH(b, name)
	} else {
		b = append(b, `{"@type":"Organization","name":`...)
		b = appendStrH(b, name)
		if r.chance(0.7) {
			b = append(b, `,"sameAs":"https://`...)
			b = append(b, c.domain...)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, `,"jobLocation":`...)
	asArray := r.chance(0.25)
	if asArray {
		b = append(b, '[')
	}
	b = append(b, `{"@type":"Place","address":{"@type":"PostalAddress",`...)
	if !g.remote {
		b = append(b, `"addressLocality":`...)
		b = appendStrH(b, cd.cities[g.city])
		b = append(b, ',')
	}
	b = append(b, `"addressCountry":`...)
	switch x := r.float(); {
	case x < 0.45:
		b = appendStrH(b, cd.a2)
	case x < 0.8:
		b = appendStrH(b, cd.name)
	default:
		b = append(b, `{"@type":"Country","name":`...)
		b = appendStrH(b, cd.name)
		b = append(b, '}')
	}
	b = append(b, "}}"...)
	if asArray {
		b = append(b, ']')
	}
	if g.remote {
		b = append(b, `,"jobLocationType":"TELECOMMUTE","applicantLocationRequirements":{"@type":"Country","name":`...)
		b = appendStrH(b, cd.name)
		b = append(b, '}')
	}
	if g.salary {
		s := w.salaryOf(g)
		b = append(b, `,"baseSalary":{"@type":"MonetaryAmount","currency":"`...)
		b = append(b, s.currency...)
		b = append(b, `","value":{"@type":"QuantitativeValue","minValue":`...)
		b = appendNum(b, s.min)
		b = append(b, `,"maxValue":`...)
		b = appendNum(b, s.max)
		b = append(b, `,"unitText":"`...)
		b = append(b, jsonldUnit[s.period]...)
		b = append(b, `"}}`...)
	}
	b = append(b, `,"url":"https://`...)
	b = append(b, bd.host...)
	b = append(b, "/jobs/"...)
	b = append(b, b[idStart:idEnd]...)
	return append(b, `"}`...)
}
