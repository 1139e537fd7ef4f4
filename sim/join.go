package sim

import (
	"math"
	"strconv"
)

// JOIN public jobs API: GET https://join.com/api/public/companies/{companyId}/jobs?page=P&pageSize=S
// {"items":[{id (a number), idParam ({id}-{slug}), title, createdAt, lastActivatedAt (RFC 3339,
// milliseconds, UTC), workplaceType (ONSITE, HYBRID, REMOTE), city{cityName, regionName,
// countryName, countryCode}, category{id, name}, employmentType{id, name}, salaryAmountFrom and
// salaryAmountTo ({amount in minor units, currency} or null), salaryFrequency (PER_YEAR,
// PER_MONTH, PER_HOUR or null)}], "pagination":{page, pageSize, pageCount, rowCount}}.
// pageSize is 1-5: anything else answers 422 [{"param":"pageSize","msg":"Invalid value"}], as
// the real API does. A remote job's city names its country only.

const joinJunk = `{"id":null,"idParam":null,"title":null,"createdAt":"yesterday","workplaceType":7,"city":"Berlin","salaryAmountFrom":{"amount":"lots"}}`

// joinMaxPageSize is the largest pageSize JOIN's public API accepts.
const joinMaxPageSize = 5

var joinEmployment = [numEmpTypes]string{"Employee", "Part-time", "Freelancer", "Internship", "Temporary"}
var joinFrequency = [...]string{"PER_YEAR", "PER_MONTH", "PER_HOUR"}

// renderJoin renders page (from 1) of the tenant's jobs, size a page.
func (w *World) renderJoin(b []byte, c *company, tick int, page, size int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	total := len(gens)
	if jp >= 0 {
		total++
	}
	lo := min((page-1)*size, total)
	hi := min(total, lo+size)
	b = append(b, `{"items":[`...)
	for e := lo; e < hi; e++ {
		if e > lo {
			b = append(b, ',')
		}
		i := e
		if jp >= 0 {
			if e == jp {
				b = append(b, joinJunk...)
				continue
			}
			if e > jp {
				i = e - 1
			}
		}
		g := &gens[i]
		t := &w.titles[g.title]
		cd := &countries[g.country]
		posted := w.postedAt(g, vJoin).UTC()
		b = append(b, `{"id":`...)
		b = appendATSID(b, c, vJoin, g)
		b = append(b, `,"idParam":"`...)
		b = appendATSID(b, c, vJoin, g)
		b = append(b, '-')
		b = appendSlug(b, t.name)
		b = append(b, `","title":`...)
		b = appendStr(b, t.name)
		b = append(b, `,"createdAt":`...)
		b = appendTime(b, posted, "2006-01-02T15:04:05.000Z")
		b = append(b, `,"lastActivatedAt":`...)
		b = appendTime(b, posted.Add(7*60e9), "2006-01-02T15:04:05.000Z")
		b = append(b, `,"workplaceType":"`...)
		switch workplaceOf(c, g) { // never unstated: JOIN's field is mandatory
		case wpRemote:
			b = append(b, "REMOTE"...)
		case wpHybrid:
			b = append(b, "HYBRID"...)
		default:
			b = append(b, "ONSITE"...)
		}
		b = append(b, `","city":{"cityName":`...)
		if g.remote {
			b = append(b, `null,"regionName":null`...)
		} else {
			b = appendStr(b, cd.cities[g.city])
			b = append(b, `,"regionName":`...)
			b = appendStr(b, cd.cities[g.city])
		}
		b = append(b, `,"countryName":`...)
		b = appendStr(b, cd.name)
		b = append(b, `,"countryCode":"`...)
		b = append(b, cd.a2...)
		b = append(b, `"},"category":{"id":`...)
		b = strconv.AppendInt(b, int64(t.fn)+1, 10)
		b = append(b, `,"name":`...)
		b = appendStr(b, functionNames[t.fn])
		b = append(b, `},"employmentType":{"id":`...)
		b = strconv.AppendInt(b, int64(g.empType)+1, 10)
		b = append(b, `,"name":"`...)
		b = append(b, joinEmployment[g.empType]...)
		b = append(b, `"},`...)
		if g.salary {
			s := w.salaryOf(g)
			b = append(b, `"salaryAmountFrom":{"amount":`...)
			b = strconv.AppendInt(b, int64(math.Round(s.min*100)), 10)
			b = append(b, `,"currency":"`...)
			b = append(b, s.currency...)
			b = append(b, `"},"salaryAmountTo":{"amount":`...)
			b = strconv.AppendInt(b, int64(math.Round(s.max*100)), 10)
			b = append(b, `,"currency":"`...)
			b = append(b, s.currency...)
			b = append(b, `"},"salaryFrequency":"`...)
			b = append(b, joinFrequency[s.period]...)
			b = append(b, `"}`...)
		} else {
			b = append(b, `"salaryAmountFrom":null,"salaryAmountTo":null,"salaryFrequency":null}`...)
		}
	}
	b = append(b, `],"pagination":{"page":`...)
	b = strconv.AppendInt(b, int64(page), 10)
	b = append(b, `,"pageSize":`...)
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, `,"pageCount":`...)
	b = strconv.AppendInt(b, int64((total+size-1)/size), 10)
	b = append(b, `,"rowCount":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	return append(b, "}}"...)
}
