package sim

import "strconv"

// Pinpoint career site feed: GET https://{tenant}.pinpointhq.com/postings.json
// {"data":[{id (a string), title, url (https://{tenant}.pinpointhq.com/en/postings/{uuid}),
// path, description, key_responsibilities(_header), skills_knowledge_expertise(_header),
// benefits(_header), location{id, city, name, province, postal_code, street_address},
// workplace_type (onsite, hybrid, remote), workplace_type_text, employment_type,
// employment_type_text, compensation (text), compensation_visible, compensation_minimum,
// compensation_maximum, compensation_currency, compensation_frequency, deadline_at,
// job{id, requisition_id, department{id, name}, division}}]}. No country and no date: the
// location's name is the tenant's label for the place, its city in the HQ country and "City,
// Country" elsewhere ("Remote" and "Remote - Country" for remote jobs), so the crawl places a
// job by it, else in the HQ country. A job that hides its pay still carries the band, with
// compensation_visible false. No paging.

const pinpointJunk = `{"id":null,"title":"","url":null,"location":"n/a","workplace_type":7,"compensation_visible":"sometimes","job":[]}`

var pinpointEmployment = [numEmpTypes][2]string{{"full_time", "Full Time"}, {"part_time", "Part Time"}, {"contract", "Contract"}, {"internship", "Internship"}, {"temporary", "Temporary"}}
var pinpointFrequency = [...]string{"year", "month", "hour"}

func (w *World) renderPinpoint(b []byte, c *company, tick int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	tenant := c.tenant(vPinpoint)
	b = append(b, `{"data":[`...)
	n := 0
	for i := 0; i <= len(gens); i++ {
		if i == jp {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, pinpointJunk...)
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
		cd := &countries[g.country]
		b = append(b, `{"id":"`...)
		b = appendATSID(b, c, vPinpoint, g)
		b = append(b, `","title":`...)
		b = appendStr(b, t.name)
		b = append(b, `,"url":"https://`...)
		b = append(b, tenant...)
		b = append(b, `.pinpointhq.com/en/postings/`...)
		uuid := len(b)
		b = appendUUID(b, atsID32(c, vPinpoint, g), c.key+vPinpoint)
		uuidEnd := len(b)
		b = append(b, `","path":"/en/postings/`...)
		b = append(b, b[uuid:uuidEnd]...)
		d := w.descOf(c, g)
		b = append(b, `","description":`...)
		b = d.append(b, flPinpoint)
		d.release()
		b = append(b, `,"location":{"id":"`...)
		b = strconv.AppendUint(b, uint64(g.country)*64+uint64(g.city), 10)
		b = append(b, `","city":`...)
		if g.remote {
			b = append(b, `"","name":`...)
			if g.country == c.country {
				b = append(b, `"Remote"`...)
			} else {
				b = appendStr(b, "Remote - "+cd.name)
			}
		} else {
			b = appendStr(b, cd.cities[g.city])
			b = append(b, `,"name":`...)
			if g.country == c.country {
				b = appendStr(b, cd.cities[g.city])
			} else {
				b = appendStr(b, cd.cities[g.city]+", "+cd.name)
			}
		}
		b = append(b, `,"province":"","postal_code":"","street_address":""},"workplace_type":`...)
		switch workplaceOf(c, g) { // never unstated: Pinpoint's field is mandatory
		case wpRemote:
			b = append(b, `"remote","workplace_type_text":"Fully remote"`...)
		case wpHybrid:
			b = append(b, `"hybrid","workplace_type_text":"Hybrid"`...)
		default:
			b = append(b, `"onsite","workplace_type_text":"Onsite"`...)
		}
		b = append(b, `,"employment_type":"`...)
		b = append(b, pinpointEmployment[g.empType][0]...)
		b = append(b, `","employment_type_text":"`...)
		b = append(b, pinpointEmployment[g.empType][1]...)
		b = append(b, `",`...)
		hidden := !g.salary && h2(g.h, 98)%3 == 0 // an internal band the tenant does not publish
		if g.salary || hidden {
			s := w.salaryOf(g)
			b = append(b, `"compensation":`...)
			if hidden {
				b = append(b, `""`...)
			} else {
				b = w.appendBreezySalary(b, g)
			}
			b = append(b, `,"compensation_visible":`...)
			b = appendBool(b, !hidden)
			b = append(b, `,"compensation_minimum":`...)
			b = strconv.AppendFloat(b, s.min, 'f', 1, 64)
			b = append(b, `,"compensation_maximum":`...)
			b = strconv.AppendFloat(b, s.max, 'f', 1, 64)
			b = append(b, `,"compensation_currency":"`...)
			b = append(b, s.currency...)
			b = append(b, `","compensation_frequency":"`...)
			b = append(b, pinpointFrequency[s.period]...)
			b = append(b, `"`...)
		} else {
			b = append(b, `"compensation":"","compensation_visible":false,"compensation_minimum":null,"compensation_maximum":null,"compensation_currency":null,"compensation_frequency":null`...)
		}
		b = append(b, `,"deadline_at":null,"job":{"id":"`...)
		b = strconv.AppendUint(b, uint64(internalID32(c, g)), 10)
		b = append(b, `","requisition_id":`...)
		if hasReqID(c) {
			b = append(b, '"')
			b = w.appendReqID(b, g)
			b = append(b, '"')
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `,"department":{"id":"`...)
		b = strconv.AppendInt(b, 62800+int64(t.fn), 10)
		b = append(b, `","name":`...)
		b = appendStr(b, functionNames[t.fn])
		b = append(b, `},"division":null}}`...)
	}
	return append(b, "]}"...)
}

// pinpointSections writes description's value to benefits_header's (flPinpoint): the opening and
// closing as description, the duties, requirements (with the nice-to-haves) and benefits in
// their own fields, each with its heading beside it.
func pinpointSections(d *descDoc, b []byte) []byte {
	b = d.appendHTMLJSON(b, introParts|tailParts, 0)
	for _, s := range [...]struct {
		field string
		part  uint8
		mask  uint16
	}{{"key_responsibilities", pDuties, 1 << pDuties}, {"skills_knowledge_expertise", pReq, reqParts}, {"benefits", pBenefits, 1 << pBenefits}} {
		b = append(b, `,"`...)
		b = append(b, s.field...)
		b = append(b, `":`...)
		b = d.appendHTMLJSON(b, s.mask, 1<<s.part)
		b = append(b, `,"`...)
		b = append(b, s.field...)
		b = append(b, `_header":`...)
		b = d.appendHeadingJSON(b, s.part)
	}
	return b
}
