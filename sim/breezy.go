package sim

import (
	"math"
	"strconv"
)

// Breezy HR career site list: GET https://{tenant}.breezy.hr/json
// A bare JSON array of {id (12 hex digits), friendly_id ({id}-{slug}), name, url
// (https://{tenant}.breezy.hr/p/{friendly_id}), published_date (RFC 3339, milliseconds, UTC),
// type{id, name}, location{country{name, id}, city, is_remote, name}, locations (every place,
// the primary first), department (a string or null), salary (Breezy's rendering,
// "$170,000 – $300,000 / year", or ""), company{name, logo_url, friendly_id,
// isMultipleLocationsEnabled}}. A remote position's location names its country only. No paging.

const breezyJunk = `{"id":"","friendly_id":null,"name":null,"url":7,"published_date":"soon","location":"anywhere","salary":{"min":1}}`

var breezyType = [numEmpTypes][2]string{{"fullTime", "Full-Time"}, {"partTime", "Part-Time"}, {"contract", "Contract"}, {"internship", "Internship"}, {"temporary", "Temporary"}}

// breezySign is how Breezy writes a currency before an amount; other currencies are written
// as their code and a space ("CHF 90").
var breezySign = map[string]string{"USD": "$", "EUR": "€", "GBP": "£", "CAD": "CA$", "AUD": "A$", "NZD": "NZ$", "SGD": "S$",
	"MXN": "MX$", "BRL": "R$", "INR": "₹", "JPY": "¥", "KRW": "₩", "ILS": "₪", "NGN": "₦"}

func (w *World) renderBreezy(b []byte, c *company, tick int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	tenant := c.tenant(vBreezy)
	multi := multiOK(c)
	b = append(b, '[')
	n := 0
	for i := 0; i <= len(gens); i++ {
		if i == jp {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, breezyJunk...)
			n++
		}
		if i == len(gens) {
			break
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		g := &gens[i]
		t := &w.titles[g.title]
		b = append(b, `{"id":"`...)
		b = appendATSID(b, c, vBreezy, g)
		b = append(b, `","friendly_id":"`...)
		fid := len(b)
		b = appendATSID(b, c, vBreezy, g)
		b = append(b, '-')
		b = appendSlug(b, t.name)
		fidEnd := len(b)
		b = append(b, `","name":`...)
		b = appendStr(b, t.name)
		b = append(b, `,"url":"https://`...)
		b = append(b, tenant...)
		b = append(b, ".breezy.hr/p/"...)
		b = append(b, b[fid:fidEnd]...)
		b = append(b, `","published_date":`...)
		b = appendTime(b, w.postedAt(g, vBreezy).UTC(), "2006-01-02T15:04:05.000Z")
		b = append(b, `,"type":{"id":"`...)
		b = append(b, breezyType[g.empType][0]...)
		b = append(b, `","name":"`...)
		b = append(b, breezyType[g.empType][1]...)
		b = append(b, `"},"location":`...)
		b = appendBreezyPlace(b, g.country, g.city, g.remote)
		b = append(b, `,"locations":[`...)
		b = appendBreezyPlace(b, g.country, g.city, g.remote)
		if g.country2 != noCountry {
			b = append(b, ',')
			b = appendBreezyPlace(b, g.country2, g.city2, false)
		}
		b = append(b, `],"department":`...)
		if h2(g.h, 96)%6 == 0 {
			b = append(b, "null"...)
		} else {
			b = appendStr(b, functionNames[t.fn])
		}
		b = append(b, `,"salary":`...)
		if g.salary {
			b = w.appendBreezySalary(b, g)
		} else {
			b = append(b, `""`...)
		}
		b = append(b, `,"company":{"name":`...)
		b = appendStr(b, atsCompanyName(c))
		b = append(b, `,"logo_url":null,"friendly_id":"`...)
		b = append(b, tenant...)
		b = append(b, `","isMultipleLocationsEnabled":`...)
		b = appendBool(b, multi)
		b = append(b, "}}"...)
	}
	return append(b, ']')
}

// appendBreezyPlace appends one location object: a city with its country, or (remote) the
// country alone.
func appendBreezyPlace(b []byte, country, city uint8, remote bool) []byte {
	cd := &countries[country]
	b = append(b, `{"country":{"name":`...)
	b = appendStr(b, cd.name)
	b = append(b, `,"id":"`...)
	b = append(b, cd.a2...)
	b = append(b, `"},"city":`...)
	if remote {
		b = append(b, `null,"is_remote":true,"name":`...)
		b = appendStr(b, cd.name)
		return append(b, '}')
	}
	b = appendStr(b, cd.cities[city])
	b = append(b, `,"is_remote":false,"name":`...)
	b = appendStr(b, cd.cities[city]+", "+cd.name)
	return append(b, '}')
}

// appendBreezySalary appends g's pay as Breezy renders it: "$170,000 – $300,000 / year".
func (w *World) appendBreezySalary(b []byte, g *gen) []byte {
	s := w.salaryOf(g)
	b = append(b, '"')
	for i, v := range [2]float64{s.min, s.max} {
		if i > 0 {
			b = append(b, " – "...)
		}
		if sign, ok := breezySign[s.currency]; ok {
			b = append(b, sign...)
		} else {
			b = append(b, s.currency...)
			b = append(b, ' ')
		}
		b = appendGrouped(b, v)
	}
	b = append(b, " / "...)
	b = append(b, periodWord[s.period]...)
	return append(b, '"')
}

// appendGrouped appends v with comma thousands separators, and two decimals when it has cents.
func appendGrouped(b []byte, v float64) []byte {
	whole := math.Floor(v)
	digits := strconv.AppendInt(nil, int64(whole), 10)
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, d)
	}
	if cents := math.Round((v - whole) * 100); cents > 0 {
		b = append(b, '.')
		if cents < 10 {
			b = append(b, '0')
		}
		b = strconv.AppendInt(b, int64(cents), 10)
	}
	return b
}
