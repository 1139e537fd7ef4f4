package sim

import (
	"strconv"
)

// Lever Postings API: GET /v0/postings/{site}?mode=json&skip=N&limit=M
// A top-level JSON array of {id, text, categories{commitment, department, location, team,
// allLocations}, country (alpha-2 or null), workplaceType (on-site, remote, hybrid or
// unspecified), createdAt (epoch ms), hostedUrl, applyUrl, descriptionPlain, description (the
// description's opening: company and role), lists ([{text: a section's heading, content: its
// <li> items}]: duties, requirements, nice-to-haves, benefits), additional, additionalPlain (the
// closing: pay, terms, equal opportunity), salaryRange?}. A page shorter than limit is the last
// one.

const leverJunk = `{"id":404,"text":null,"categories":"n/a","country":7,"createdAt":"last week","hostedUrl":false,"lists":{}}`

var leverCommitment = [numEmpTypes]string{"Full-time", "Part-time", "Contract", "Internship", "Temporary"}
var leverInterval = [...]string{"per-year-salary", "per-month-salary", "per-hour-wage"}

// leverWorkplace is workplaceOf as Lever's workplaceType says it.
var leverWorkplace = [...]string{wpUnstated: "unspecified", wpOnsite: "on-site", wpHybrid: "hybrid", wpRemote: "remote"}

// renderLever renders entries [skip, skip+limit) of the tenant's list (limit <= 0: all).
func (w *World) renderLever(b []byte, c *company, tick int, skip, limit int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	total := len(gens)
	if jp >= 0 {
		total++
	}
	lo := min(max(skip, 0), total)
	hi := total
	if limit > 0 {
		hi = min(total, lo+limit)
	}
	site := c.tenant(vLever)
	var scratch [256]byte
	b = append(b, '[')
	for e := lo; e < hi; e++ {
		if e > lo {
			b = append(b, ',')
		}
		i := e
		if jp >= 0 {
			if e == jp {
				b = append(b, leverJunk...)
				continue
			}
			if e > jp {
				i = e - 1
			}
		}
		g := &gens[i]
		t := &w.titles[g.title]
		cd := &countries[g.country]
		loc := appendLocationText(scratch[:0], g, h2(g.h, vLever))
		d := w.descOf(c, g)
		b = append(b, `{"additionalPlain":`...)
		b = d.append(b, flLeverTail)
		b = append(b, `,"categories":{"commitment":`...)
		b = appendStr(b, leverCommitment[g.empType])
		b = append(b, `,"department":`...)
		b = appendStr(b, functionNames[t.fn])
		b = append(b, `,"location":`...)
		b = appendStrBytes(b, loc)
		b = append(b, `,"team":`...)
		b = appendStr(b, functionNames[t.fn])
		b = append(b, `,"allLocations":[`...)
		b = appendStrBytes(b, loc)
		b = append(b, `]},"createdAt":`...)
		b = strconv.AppendInt(b, w.postedAt(g, vLever).UnixMilli(), 10)
		b = append(b, `,"descriptionPlain":`...)
		b = d.append(b, flLeverIntro)
		b = append(b, `,"id":"`...)
		id := len(b)
		b = appendATSID(b, c, vLever, g)
		idEnd := len(b)
		b = append(b, `","lists":[`...)
		b = d.append(b, flLeverLists)
		d.release()
		b = append(b, `],"text":`...)
		b = appendStr(b, t.name)
		b = append(b, `,"country":`...)
		if h2(g.h, 77)%10 == 0 {
			b = append(b, "null"...)
		} else {
			b = appendStr(b, cd.a2)
		}
		b = append(b, `,"workplaceType":`...)
		b = appendStr(b, leverWorkplace[workplaceOf(c, g)])
		b = append(b, `,"hostedUrl":"https://jobs.lever.co/`...)
		b = append(b, site...)
		b = append(b, '/')
		b = append(b, b[id:idEnd]...)
		b = append(b, `","applyUrl":"https://jobs.lever.co/`...)
		b = append(b, site...)
		b = append(b, '/')
		b = append(b, b[id:idEnd]...)
		b = append(b, `/apply"`...)
		if g.salary {
			s := w.salaryOf(g)
			b = append(b, `,"salaryRange":{"currency":`...)
			b = appendStr(b, s.currency)
			b = append(b, `,"interval":`...)
			b = appendStr(b, leverInterval[s.period])
			b = append(b, `,"min":`...)
			b = appendNum(b, s.min)
			b = append(b, `,"max":`...)
			b = appendNum(b, s.max)
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// leverTail writes additionalPlain's value to additional's (flLeverTail): the closing (pay,
// terms, equal opportunity) as plain text and HTML.
func leverTail(d *descDoc, b []byte) []byte {
	b = d.appendPlainJSON(b, tailParts)
	b = append(b, `,"additional":`...)
	return d.appendHTMLJSON(b, tailParts, 0)
}

// leverIntro writes descriptionPlain's value to description's (flLeverIntro): the opening
// (company and role) as plain text and HTML.
func leverIntro(d *descDoc, b []byte) []byte {
	b = d.appendPlainJSON(b, introParts)
	b = append(b, `,"description":`...)
	return d.appendHTMLJSON(b, introParts, 0)
}

// leverLists writes the entries of lists (flLeverLists): each section with items, its heading
// as text and its <li> items as content.
func leverLists(d *descDoc, b []byte) []byte {
	nl := 0
	for _, part := range [...]uint8{pDuties, pReq, pNice, pBenefits} {
		if !d.hasItems(part) {
			continue
		}
		if nl > 0 {
			b = append(b, ',')
		}
		nl++
		b = append(b, `{"text":`...)
		b = d.appendHeadingJSON(b, part)
		b = append(b, `,"content":`...)
		b = d.appendItemsJSON(b, part)
		b = append(b, '}')
	}
	return b
}
