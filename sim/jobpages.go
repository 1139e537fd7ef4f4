package sim

import (
	"strconv"
	"time"
)

// Job-page boards: GET https://{host}/jobs?page=1 (the simulator's own path:
// /boards/{board}/jobs?page=1) is an index page with no posting and a <link rel="next"> to the
// first job page; GET https://{host}/job/{id} (/boards/{board}/job/{id}) is one posting's page,
// linking the next one. As on real boards' job pages, the JobPosting carries no identifier,
// @id or url: the page is the posting, named by its <link rel="canonical"> (most pages) or else
// by its own URL. hiringOrganization.sameAs, when present, is the board's own company-profile
// page (never the employer's website), and jobLocation lists every place of the posting (a req
// published for two countries has two places). A small share of reqs is carried (jobPaged).

const (
	jobPageShare      = 0.03 // of reqs
	jobPageShareMulti = 0.35 // of reqs with a second country
)

// jobPaged reports whether g is on its region's job-page board (fixed for the req's life).
func jobPaged(g *gen) bool {
	r := rng{h2(g.h, saltJobPage)}
	if g.country2 != noCountry {
		return r.chance(jobPageShareMulti)
	}
	return r.chance(jobPageShare)
}

// hasCanonical reports whether g's job page carries a canonical link.
func hasCanonical(g *gen) bool { return h2(g.h, saltJobPage+1)%5 != 0 }

// appendJobPageID appends the identity of g's job page on board bi: its canonical URL, or the
// page URL (absolute on BaseURL, or on the board's host in host mode) when the page has no
// canonical link.
func (w *World) appendJobPageID(b []byte, bi int, c *company, g *gen) []byte {
	bd := &boardDefs[bi]
	if hasCanonical(g) {
		b = append(b, "https://"...)
		b = append(b, bd.host...)
		b = append(b, "/viewjob?jk="...)
		return w.appendBoardID(b, bi, c, g)
	}
	return w.appendJobPageURL(b, w.cfg.BaseURL, bi, c, g)
}

// appendJobPageURL appends the URL of g's job page on board bi under base (on the board's host in
// host mode).
func (w *World) appendJobPageURL(b []byte, base string, bi int, c *company, g *gen) []byte {
	b = w.appendBoardRoot(b, base, bi, false)
	b = append(b, "/job/"...)
	return w.appendBoardID(b, bi, c, g)
}

// appendJobPageTruth appends the job-page posting of g's req (second: of its second country).
func (w *World) appendJobPageTruth(out []TruthPosting, c *company, g *gen, second bool) []TruthPosting {
	if !jobPaged(g) {
		return out
	}
	bi := w.pageBoard[c.region]
	id := string(w.appendJobPageID(nil, bi, c, g))
	if second {
		id += "#1"
	}
	return append(out, TruthPosting{SourceKey: w.boardKey(bi), SourceID: id})
}

// renderJobPagesIndex renders the index page of job-page board bi.
func (w *World) renderJobPagesIndex(b []byte, bi, tick int, base string, junk bool) []byte {
	bd := &boardDefs[bi]
	refs := w.snapshot(tick).boards[bi]
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"...)
	b = append(b, bd.display...)
	b = append(b, " – Jobs</title>\n"...)
	if len(refs) > 0 {
		c := &w.companies[refs[0].comp]
		g := w.genAt(c, int(refs[0].slot), tick)
		b = append(b, "<link rel=\"next\" href=\""...)
		b = w.appendJobPageURL(b, base, bi, c, &g)
		b = append(b, "\">\n"...)
	}
	b = append(b, "</head>\n<body>\n<h1>"...)
	b = append(b, bd.display...)
	b = append(b, "</h1>\n<p>"...)
	b = strconv.AppendInt(b, int64(len(refs)), 10)
	b = append(b, " jobs</p>\n"...)
	if junk {
		b = append(b, jsonldJunk...)
	}
	return append(b, "</body>\n</html>\n"...)
}

// renderJobPage renders the job page of posting id on board bi, or nil when there is none.
func (w *World) renderJobPage(b []byte, bi, tick int, id, base string) []byte {
	snap := w.snapshot(tick)
	i, ok := snap.pageIdx[bi][id]
	if !ok {
		return nil
	}
	bd := &boardDefs[bi]
	refs := snap.boards[bi]
	c := &w.companies[refs[i].comp]
	g := w.genAt(c, int(refs[i].slot), tick)
	var scratch [512]byte
	title := w.titles[g.title].name
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"...)
	b = appendXML(b, title)
	b = append(b, " – "...)
	b = append(b, bd.display...)
	b = append(b, "</title>\n"...)
	if hasCanonical(&g) {
		b = append(b, "<link rel=\"canonical\" href=\""...)
		b = w.appendJobPageID(b, bi, c, &g)
		b = append(b, "\">\n"...)
	}
	if i+1 < len(refs) {
		nc := &w.companies[refs[i+1].comp]
		ng := w.genAt(nc, int(refs[i+1].slot), tick)
		b = append(b, "<link rel=\"next\" href=\""...)
		b = w.appendJobPageURL(b, base, bi, nc, &ng)
		b = append(b, "\">\n"...)
	}
	b = append(b, "</head>\n<body>\n<h1>"...)
	b = appendXML(b, title)
	b = append(b, "</h1>\n<script type=\"application/ld+json\">"...)
	b = w.appendJobPagePosting(b, scratch[:0], bi, c, &g)
	return append(b, "</script>\n</body>\n</html>\n"...)
}

// appendJobPagePosting appends g's JobPosting as a job page publishes it.
func (w *World) appendJobPagePosting(b, scratch []byte, bi int, c *company, g *gen) []byte {
	bd := &boardDefs[bi]
	r := rng{h3(g.h, saltJobPage+2, uint64(bi))}
	b = append(b, `{"@context":"https://schema.org/","@type":"JobPosting","title":`...)
	if g.country2 != noCountry {
		b = appendStrH(b, w.titles[g.title].name) // a place in the title would name one place only
	} else {
		b = appendStrH(b, w.appendTitleVariant(scratch[:0], g, h3(g.h, saltVariant, uint64(bi))))
	}
	b = append(b, `,"description":`...)
	d := w.descOf(c, g)
	b = d.append(b, flHTMLJSONH)
	d.release()
	b = append(b, `,"datePosted":`...)
	b = appendTime(b, w.postedAt(g, saltVariant+uint64(bi)).UTC(), "2006-01-02")
	b = append(b, `,"validThrough":`...)
	b = appendTime(b, w.CycleTime(g.close).Add(30*24*time.Hour), time.RFC3339)
	b = append(b, `,"employmentType":"`...)
	b = append(b, jsonldEmployment[g.empType]...)
	b = append(b, `","hiringOrganization":{"@type":"Organization","name":`...)
	b = appendStrH(b, appendCompanyVariant(scratch[:0], c, h3(g.h, saltVariant+1, uint64(bi))))
	if r.chance(0.7) {
		// The board's own company-profile page, as real boards publish it.
		b = append(b, `,"sameAs":"https://`...)
		b = append(b, bd.host...)
		b = append(b, "/cmp/"...)
		b = append(b, c.slug...)
		b = append(b, '"')
	}
	b = append(b, `},"jobLocation":`...)
	multi := g.country2 != noCountry
	if multi {
		b = append(b, '[')
	}
	b = appendJobPagePlace(b, g.country, g.city, g.remote)
	if multi {
		b = append(b, ',')
		b = appendJobPagePlace(b, g.country2, g.city2, false)
		b = append(b, ']')
	}
	if g.remote {
		b = append(b, `,"jobLocationType":"TELECOMMUTE","applicantLocationRequirements":{"@type":"Country","name":`...)
		b = appendStrH(b, countries[g.country].name)
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
	return append(b, '}')
}

func appendJobPagePlace(b []byte, country, city uint8, remote bool) []byte {
	cd := &countries[country]
	b = append(b, `{"@type":"Place","address":{"@type":"PostalAddress",`...)
	if !remote {
		b = append(b, `"addressLocality":`...)
		b = appendStrH(b, cd.cities[city])
		b = append(b, ',')
	}
	b = append(b, `"addressCountry":`...)
	b = appendStrH(b, cd.a2)
	return append(b, "}}"...)
}
