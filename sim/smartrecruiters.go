package sim

import (
	"strconv"
)

// SmartRecruiters posting API: GET /v1/companies/{id}/postings?limit=100&offset=N
// {"offset":N,"limit":L,"totalFound":T,"content":[{id, name, uuid, jobAdId, defaultJobAd,
// refNumber, company{identifier, name}, releasedDate, location{city, region, country (lower
// alpha-2), remote, fullLocation}, industry{id,label}, department{id,label}, function{id,label},
// typeOfEmployment{id,label}, experienceLevel{id,label}, visibility, ref, language{...}}]}.
// Pages until offset+len(content) >= totalFound. No public posting URL (ref is the API URL; the
// page is jobs.smartrecruiters.com/{company.identifier}/{id}). Remote postings say so as
// {"city":"<country>","region":"REMOTE","remote":true}; some postings send "department":{}.

const smartRecruitersJunk = `{"id":false,"name":null,"uuid":7,"refNumber":{},"company":"?","releasedDate":123,"location":[]}`

var srEmployment = [numEmpTypes][2]string{{"permanent", "Full-time"}, {"part_time", "Part-time"}, {"contract", "Contract"}, {"intern", "Internship"}, {"temporary", "Temporary"}}

// srExperience is the coarse level (coarseLevel) as SmartRecruiters names it.
var srExperience = [...][2]string{{"internship", "Internship"}, {"entry_level", "Entry Level"}, {"mid_senior_level", "Mid-Senior Level"}, {"director", "Director"}, {"executive", "Executive"}}

func (w *World) renderSmartRecruiters(b []byte, c *company, tick int, offset, limit int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	total := len(gens)
	if jp >= 0 {
		total++
	}
	lo := min(max(offset, 0), total)
	hi := min(total, lo+limit)
	ident := c.tenant(vSmartRecruiters)
	b = append(b, `{"offset":`...)
	b = strconv.AppendInt(b, int64(offset), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(limit), 10)
	b = append(b, `,"totalFound":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, `,"content":[`...)
	var scratch [128]byte
	for e := lo; e < hi; e++ {
		if e > lo {
			b = append(b, ',')
		}
		i := e
		if jp >= 0 {
			if e == jp {
				b = append(b, smartRecruitersJunk...)
				continue
			}
			if e > jp {
				i = e - 1
			}
		}
		g := &gens[i]
		t := &w.titles[g.title]
		cd := &countries[g.country]
		id := atsID32(c, vSmartRecruiters, g)
		b = append(b, `{"id":"`...)
		idStart := len(b)
		b = appendATSID(b, c, vSmartRecruiters, g)
		idEnd := len(b)
		b = append(b, `","name":`...)
		b = appendStr(b, t.name)
		b = append(b, `,"uuid":"`...)
		b = appendUUID(b, id, 0x5A)
		b = append(b, `","jobAdId":"`...)
		b = appendUUID(b, id, 0x5B)
		b = append(b, `","defaultJobAd":true,"refNumber":"`...)
		b = w.appendReqID(b, g)
		b = append(b, `","company":{"identifier":`...)
		b = appendStr(b, ident)
		b = append(b, `,"name":`...)
		b = appendStr(b, atsCompanyName(c))
		b = append(b, `},"releasedDate":`...)
		b = appendTime(b, w.postedAt(g, vSmartRecruiters).UTC(), "2006-01-02T15:04:05.000Z")
		b = append(b, `,"location":{"city":`...)
		if g.remote {
			// The real remote shape: the remote area in city, REMOTE in region, no fullLocation.
			b = appendStr(b, cd.name)
			b = append(b, `,"region":"REMOTE","country":"`...)
			b = appendLowerASCII(b, cd.a2)
			b = append(b, `","remote":true`...)
		} else {
			b = appendStr(b, cd.cities[g.city])
			b = append(b, `,"region":"","country":"`...)
			b = appendLowerASCII(b, cd.a2)
			b = append(b, `","remote":false,"fullLocation":`...)
			fl := append(scratch[:0], cd.cities[g.city]...)
			fl = append(fl, ", , "...)
			fl = append(fl, cd.name...)
			b = appendStrBytes(b, fl)
		}
		b = append(b, `},"industry":{"id":"`...)
		if c.industry >= 0 {
			b = appendSnake(b, industries[c.industry])
			b = append(b, `","label":`...)
			b = appendStr(b, industries[c.industry])
		} else {
			b = append(b, `other","label":"Other"`...)
		}
		if h2(g.h, 71)%6 == 0 {
			b = append(b, `},"department":{},"function":{"id":"`...) // no department: real feeds send {}
		} else {
			b = append(b, `},"department":{"id":"`...)
			b = strconv.AppendUint(b, h2(c.key, uint64(t.fn))%9000000+1000000, 10)
			b = append(b, `","label":`...)
			b = appendStr(b, functionNames[t.fn])
			b = append(b, `},"function":{"id":"`...)
		}
		b = appendSnake(b, functionNames[t.fn])
		b = append(b, `","label":`...)
		b = appendStr(b, functionNames[t.fn])
		et := srEmployment[g.empType]
		b = append(b, `},"typeOfEmployment":{"id":"`...)
		b = append(b, et[0]...)
		b = append(b, `","label":"`...)
		b = append(b, et[1]...)
		ex := srExperience[w.coarseLevel(c, g, nil)]
		b = append(b, `"},"experienceLevel":{"id":"`...)
		b = append(b, ex[0]...)
		b = append(b, `","label":"`...)
		b = append(b, ex[1]...)
		b = append(b, `"},"customField":[],"visibility":"PUBLIC","ref":"https://api.smartrecruiters.com/v1/companies/`...)
		b = append(b, ident...)
		b = append(b, "/postings/"...)
		b = append(b, b[idStart:idEnd]...)
		b = append(b, `","language":{"code":"en","label":"English","labelNative":"English (US)"}}`...)
	}
	return append(b, "]}"...)
}

// appendSnake appends s lower-cased with non-alphanumerics folded to '_'.
func appendSnake(b []byte, s string) []byte {
	us := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch >= 'A' && ch <= 'Z':
			b = append(b, ch+'a'-'A')
			us = false
		case (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'):
			b = append(b, ch)
			us = false
		default:
			if !us && len(b) > 0 && b[len(b)-1] != '"' {
				b = append(b, '_')
				us = true
			}
		}
	}
	if len(b) > 0 && b[len(b)-1] == '_' {
		b = b[:len(b)-1]
	}
	return b
}
