package sim

import (
	"strconv"
)

// Lever Postings API: GET /v0/postings/{site}?mode=json&skip=N&limit=M
// A top-level JSON array of {id, text, categories{commitment, department, location, team,
// allLocations}, country (alpha-2 or null), workplaceType, createdAt (epoch ms), hostedUrl,
// applyUrl, descriptionPlain, description, lists, additional, additionalPlain, salaryRange?}.
// A page shorter than limit is the last one.

const leverJunk = `{"id":404,"text":null,"categories":"n/a","country":7,"createdAt":"last week","hostedUrl":false,"lists":{}}`

var leverCommitment = [...]string{"Full-time", "Part-time", "Contract", "Internship"}
var leverInterval = [...]string{"per-year-salary", "per-month-salary", "per-hour-wage"}

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
		b = append(b, `{"additionalPlain":"","additional":"","categories":{"commitment":`...)
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
		b = appendStrBytes(b, w.appendDescriptionPlain(scratch[:0], c, g))
		b = append(b, `,"description":`...)
		b = appendStrBytes(b, w.appendDescription(scratch[:0], c, g))
		b = append(b, `,"id":"`...)
		id := len(b)
		b = appendATSID(b, c, vLever, g)
		idEnd := len(b)
		b = append(b, `","lists":[],"text":`...)
		b = appendStr(b, t.name)
		b = append(b, `,"country":`...)
		if h2(g.h, 77)%10 == 0 {
			b = append(b, "null"...)
		} else {
			b = appendStr(b, cd.a2)
		}
		b = append(b, `,"workplaceType":`...)
		if g.remote {
			b = append(b, `"remote"`...)
		} else if h2(g.h, 78)%5 == 0 {
			b = append(b, `"hybrid"`...)
		} else {
			b = append(b, `"on-site"`...)
		}
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
