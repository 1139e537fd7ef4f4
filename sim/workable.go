package sim

import "time"

// Workable widget API: GET /api/v1/widget/accounts/{subdomain}
// {"name":..., "description":..., "jobs":[{title, shortcode, code, employment_type,
// telecommuting, department, url, shortlink, application_url, published_on (date),
// created_at (date), country (name), city, state, education, experience, function, industry,
// locations[{country, countryCode, city, region, hidden}]}]}. A job with several locations is
// listed once per location, every entry sharing the shortcode. With details=true each job also
// carries its description (HTML), requirements and benefits (HTML, each without its heading).

const workableJunk = `{"title":null,"shortcode":12345,"code":[],"employment_type":false,"url":null,"published_on":"31/02/2026","country":{"name":"?"},"locations":"everywhere"}`

// workableExperience is the coarse level (coarseLevel) as Workable names it.
var workableExperience = [...]string{"Internship", "Entry level", "Mid-Senior level", "Director", "Executive"}

func (w *World) renderWorkable(b []byte, c *company, tick int, details, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	b = append(b, `{"name":`...)
	b = appendStr(b, atsCompanyName(c))
	b = append(b, `,"description":null,"jobs":[`...)
	n := 0
	var code [32]byte
	for i := 0; i <= len(gens); i++ {
		if i == jp {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, workableJunk...)
			n++
		}
		if i == len(gens) {
			break
		}
		g := &gens[i]
		sc := appendATSID(code[:0], c, vWorkable, g)
		// Multi-location job: a second city in the same country and/or a second country, each
		// listed as its own entry sharing the shortcode (workablePlaces).
		var d *descRef
		if details {
			r := w.descOf(c, g)
			d = &r
		}
		for _, pl := range workablePlaces(g) {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = w.appendWorkableJob(b, c, g, sc, pl, d)
		}
		if d != nil {
			d.release()
		}
	}
	return append(b, "]}"...)
}

// appendWorkableJob appends g's entry at place pl, with its description when d is not nil.
func (w *World) appendWorkableJob(b []byte, c *company, g *gen, shortcode []byte, pl place, d *descRef) []byte {
	t := &w.titles[g.title]
	cd := &countries[pl.country]
	city := pl.city
	posted := w.postedAt(g, vWorkable).In(w.zone(g.country))
	b = append(b, `{"title":`...)
	b = appendStr(b, t.name)
	b = append(b, `,"shortcode":"`...)
	b = append(b, shortcode...)
	b = append(b, `","code":"`...)
	if c.key&0x30 != 0 { // ~75% of Workable accounts fill in the requisition code
		b = w.appendReqID(b, g)
	}
	b = append(b, `","employment_type":`...)
	b = appendStr(b, empTypeLabel[g.empType])
	b = append(b, `,"telecommuting":`...)
	b = appendBool(b, g.remote)
	b = append(b, `,"department":`...)
	b = appendStr(b, functionNames[t.fn])
	b = append(b, `,"url":"https://apply.workable.com/j/`...)
	b = append(b, shortcode...)
	b = append(b, `","shortlink":"https://apply.workable.com/j/`...)
	b = append(b, shortcode...)
	b = append(b, `","application_url":"https://apply.workable.com/j/`...)
	b = append(b, shortcode...)
	b = append(b, `/apply","published_on":`...)
	b = appendTime(b, posted, "2006-01-02")
	b = append(b, `,"created_at":`...)
	b = appendTime(b, posted.Add(-26*time.Hour), "2006-01-02")
	b = append(b, `,"country":`...)
	b = appendStr(b, cd.name)
	b = append(b, `,"city":`...)
	b = appendStr(b, cd.cities[city])
	b = append(b, `,"state":"","education":"","experience":`...)
	var f *descFacts
	if d != nil {
		f = d.facts()
	}
	b = appendStr(b, workableExperience[w.coarseLevel(c, g, f)])
	b = append(b, `,"function":`...)
	b = appendStr(b, functionNames[t.fn])
	b = append(b, `,"industry":`...)
	if c.industry >= 0 {
		b = appendStr(b, industries[c.industry])
	} else {
		b = append(b, `""`...)
	}
	b = append(b, `,"locations":[{"country":`...)
	b = appendStr(b, cd.name)
	b = append(b, `,"countryCode":`...)
	b = appendStr(b, cd.a2)
	b = append(b, `,"city":`...)
	b = appendStr(b, cd.cities[city])
	b = append(b, `,"region":"","hidden":false}]`...)
	if d != nil {
		b = d.append(b, flWorkable)
	}
	return append(b, '}')
}

// workableDetails writes what details=true adds to a job (flWorkable): its description,
// requirements and benefits (HTML, each without its heading).
func workableDetails(d *descDoc, b []byte) []byte {
	b = append(b, `,"description":`...)
	b = d.appendHTMLJSON(b, allParts&^(reqParts|1<<pBenefits), 0)
	b = append(b, `,"requirements":`...)
	b = d.appendHTMLJSON(b, reqParts, 1<<pReq)
	b = append(b, `,"benefits":`...)
	return d.appendHTMLJSON(b, 1<<pBenefits, 1<<pBenefits)
}
