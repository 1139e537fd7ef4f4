package sim

import (
	"strconv"
	"time"
)

// Recruitee careers API: GET https://{tenant}.recruitee.com/api/offers/
// {"offers":[{id, slug, title, status, company_name, department, location, city, country,
// country_code, remote, hybrid, on_site, created_at, published_at ("2026-08-19 09:02:14 UTC"),
// updated_at, close_at, careers_url, careers_apply_url, employment_type_code,
// salary{min, max, period, currency} (strings; a blank salary has all four null or ""),
// description, requirements}]}. Offers that are not "published" (drafts about to open, offers
// closed recently) are listed too; they are not live reqs.

const recruiteeJunk = `{"id":"x","slug":null,"title":null,"status":"published","published_at":12,"careers_url":null,"remote":"maybe","salary":"competitive"}`

const recruiteeTime = "2006-01-02 15:04:05 UTC"

var recruiteeEmployment = [numEmpTypes]string{"fulltime", "parttime", "contract", "internship", "temporary"}

// implausiblePay reports whether g's Recruitee offer publishes its pay with the wrong period.
func implausiblePay(g *gen) bool { return h2(g.h, 64)%8 == 0 }

func (w *World) renderRecruitee(b []byte, c *company, tick int, junk bool) []byte {
	type entry struct {
		g      gen
		status string
	}
	entries := make([]entry, 0, int(c.nBase))
	for s := 0; s < c.nSlots(); s++ {
		g := w.genAt(c, s, tick)
		switch {
		case g.live:
			entries = append(entries, entry{g, "published"})
		case tick < g.open && g.open-tick <= 24 && h2(g.h, 61)%3 == 0:
			entries = append(entries, entry{g, "draft"})
		case tick >= g.close && tick-g.close < 40 && h2(g.h, 62)%3 == 0:
			entries = append(entries, entry{g, "closed"})
		}
	}
	jp := junkAt(junk, len(entries))
	tenant := c.tenant(vRecruitee)
	var scratch [256]byte
	b = append(b, `{"offers":[`...)
	n := 0
	for i := 0; i <= len(entries); i++ {
		if i == jp {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, recruiteeJunk...)
			n++
		}
		if i == len(entries) {
			break
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		e := &entries[i]
		g := &e.g
		t := &w.titles[g.title]
		cd := &countries[g.country]
		posted := w.postedAt(g, vRecruitee).UTC()
		b = append(b, `{"id":`...)
		b = appendATSID(b, c, vRecruitee, g)
		b = append(b, `,"slug":"`...)
		slugStart := len(b)
		b = appendSlug(b, t.name)
		if g.rep > 0 {
			b = append(b, "-2"...)
		}
		slugEnd := len(b)
		b = append(b, `","title":`...)
		b = appendStr(b, t.name)
		b = append(b, `,"status":"`...)
		b = append(b, e.status...)
		b = append(b, `","company_name":`...)
		b = appendStr(b, atsCompanyName(c))
		b = append(b, `,"department":`...)
		b = appendStr(b, functionNames[t.fn])
		b = append(b, `,"location":`...)
		b = appendStrBytes(b, appendLocationText(scratch[:0], g, h2(g.h, vRecruitee)))
		b = append(b, `,"city":`...)
		if g.remote {
			b = append(b, `""`...)
		} else {
			b = appendStr(b, cd.cities[g.city])
		}
		b = append(b, `,"country":`...)
		b = appendStr(b, cd.name)
		b = append(b, `,"country_code":"`...)
		b = append(b, cd.a2...)
		b = append(b, `","remote":`...)
		b = appendBool(b, g.remote)
		wp := workplaceOf(c, g)
		b = append(b, `,"hybrid":`...)
		b = appendBool(b, wp == wpHybrid)
		b = append(b, `,"on_site":`...)
		b = appendBool(b, wp == wpOnsite)
		b = append(b, `,"created_at":`...)
		b = appendTime(b, posted.Add(-5*time.Hour), recruiteeTime)
		b = append(b, `,"published_at":`...)
		if e.status == "draft" {
			b = append(b, "null"...)
		} else {
			b = appendTime(b, posted, recruiteeTime)
		}
		b = append(b, `,"updated_at":`...)
		b = appendTime(b, posted.Add(3*time.Minute), recruiteeTime)
		b = append(b, `,"close_at":null,"careers_url":"https://`...)
		b = append(b, tenant...)
		b = append(b, ".recruitee.com/o/"...)
		b = append(b, b[slugStart:slugEnd]...)
		b = append(b, `","careers_apply_url":"https://`...)
		b = append(b, tenant...)
		b = append(b, ".recruitee.com/o/"...)
		b = append(b, b[slugStart:slugEnd]...)
		b = append(b, `/c/new","employment_type_code":"`...)
		b = append(b, recruiteeEmployment[g.empType]...)
		b = append(b, `","salary":`...)
		if g.salary && implausiblePay(g) {
			// A real Recruitee record: hourly figures labelled yearly ({"min":"75.00","max":"95.00",
			// "period":"year","currency":"USD"} for an office manager). Not pay a crawl may serve.
			s := w.salaryOf(g)
			if s.period != periodHour {
				s.min, s.max = s.min/2080, s.max/2080
				if s.period == periodMonth {
					s.min, s.max = s.min*12, s.max*12
				}
			}
			b = append(b, `{"min":"`...)
			b = strconv.AppendFloat(b, roundNice(s.min), 'f', 2, 64)
			b = append(b, `","max":"`...)
			b = strconv.AppendFloat(b, roundNice(s.max), 'f', 2, 64)
			b = append(b, `","period":"year","currency":"`...)
			b = append(b, s.currency...)
			b = append(b, `"}`...)
		} else if g.salary {
			s := w.salaryOf(g)
			b = append(b, `{"min":"`...)
			b = appendNum(b, s.min)
			b = append(b, `","max":"`...)
			b = appendNum(b, s.max)
			b = append(b, `","period":"`...)
			b = append(b, periodWord[s.period]...)
			b = append(b, `","currency":"`...)
			b = append(b, s.currency...)
			b = append(b, `"}`...)
		} else if h2(g.h, 63)%5 == 0 {
			b = append(b, `{"min":"","max":"","period":"","currency":""}`...)
		} else {
			b = append(b, `{"min":null,"max":null,"period":null,"currency":null}`...)
		}
		d := w.descOf(c, g)
		b = d.append(b, flRecruitee)
		d.release()
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// recruiteeDescription writes an offer's description and requirements (flRecruitee): the
// requirements and nice-to-haves in their own field, under their own heading.
func recruiteeDescription(d *descDoc, b []byte) []byte {
	b = append(b, `,"description":`...)
	b = d.appendHTMLJSON(b, allParts&^reqParts, 0)
	b = append(b, `,"requirements":`...)
	return d.appendHTMLJSON(b, reqParts, 1<<pReq)
}

// appendSlug appends a URL slug of s ("Senior Backend Engineer" → "senior-backend-engineer").
func appendSlug(b []byte, s string) []byte {
	dash := true
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch >= 'A' && ch <= 'Z':
			b = append(b, ch+'a'-'A')
			dash = false
		case (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'):
			b = append(b, ch)
			dash = false
		default:
			if !dash {
				b = append(b, '-')
				dash = true
			}
		}
	}
	if dash && len(b) > 0 && b[len(b)-1] == '-' {
		b = b[:len(b)-1]
	}
	return b
}
