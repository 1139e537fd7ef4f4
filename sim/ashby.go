package sim

// Ashby posting API: GET /posting-api/job-board/{name}?includeCompensation=true
// {"apiVersion":"1","jobs":[{id, title, department, team, employmentType, location,
// secondaryLocations, publishedAt, isListed, isRemote, workplaceType (OnSite, Hybrid, Remote or
// null), address{postalAddress{addressLocality, addressRegion, addressCountry (name or
// alpha-3)}}, jobUrl, applyUrl, descriptionHtml, descriptionPlain, shouldDisplayCompensationOnJobPostings,
// compensation{compensationTierSummary, scrapeableCompensationSalarySummary,
// compensationTiers[{id, tierSummary, title, components[{id, summary, compensationType,
// interval:"1 YEAR", currencyCode, minValue, maxValue}]}], summaryComponents[]}}]}.
// Unlisted jobs (isListed false) appear beside the listed ones; they are not live reqs.

const ashbyJunk = `{"id":null,"title":12345,"department":[],"isListed":"yes","isRemote":"no","publishedAt":false,"jobUrl":null,"address":"somewhere"}`

var ashbyEmpType = [numEmpTypes]string{"FullTime", "PartTime", "Contract", "Intern", "Temporary"}
var ashbyInterval = [...]string{"1 YEAR", "1 MONTH", "1 HOUR"}

// ashbyWorkplace is workplaceOf as Ashby's workplaceType says it (JSON).
var ashbyWorkplace = [...]string{wpUnstated: "null", wpOnsite: `"OnSite"`, wpHybrid: `"Hybrid"`, wpRemote: `"Remote"`}

func (w *World) renderAshby(b []byte, c *company, tick int, comp, junk bool) []byte {
	type entry struct {
		g      gen
		listed bool
	}
	entries := make([]entry, 0, int(c.nBase))
	for s := 0; s < c.nSlots(); s++ {
		g := w.genAt(c, s, tick)
		switch {
		case g.live:
			entries = append(entries, entry{g, true})
		case tick < g.open && g.open-tick <= 16 && h2(g.h, 91)%4 == 0:
			// An upcoming job the recruiter has created but not listed yet.
			entries = append(entries, entry{g, false})
		}
	}
	jp := junkAt(junk, len(entries))
	name := c.tenant(vAshby)
	var scratch [256]byte
	b = append(b, `{"apiVersion":"1","jobs":[`...)
	n := 0
	for i := 0; i <= len(entries); i++ {
		if i == jp {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, ashbyJunk...)
			n++
		}
		if i == len(entries) {
			break
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		g := &entries[i].g
		t := &w.titles[g.title]
		cd := &countries[g.country]
		b = append(b, `{"id":"`...)
		id := len(b)
		b = appendATSID(b, c, vAshby, g)
		idEnd := len(b)
		b = append(b, `","title":`...)
		b = appendStr(b, t.name)
		b = append(b, `,"department":`...)
		b = appendStr(b, functionNames[t.fn])
		b = append(b, `,"team":`...)
		b = appendStr(b, functionNames[t.fn])
		b = append(b, `,"employmentType":`...)
		b = appendStr(b, ashbyEmpType[g.empType])
		b = append(b, `,"location":`...)
		if g.remote {
			b = append(b, `"Remote"`...)
		} else {
			b = appendStr(b, cd.cities[g.city])
		}
		b = append(b, `,"secondaryLocations":[`...)
		if g.country2 != noCountry {
			cd2 := &countries[g.country2]
			b = append(b, `{"location":`...)
			b = appendStr(b, cd2.cities[g.city2])
			b = append(b, `,"address":{"postalAddress":{"addressLocality":`...)
			b = appendStr(b, cd2.cities[g.city2])
			b = append(b, `,"addressRegion":"","addressCountry":`...)
			b = appendStr(b, cd2.name)
			b = append(b, `}}}`...)
		}
		b = append(b, `],"publishedAt":`...)
		b = appendTime(b, w.postedAt(g, vAshby).UTC(), "2006-01-02T15:04:05.000-07:00")
		b = append(b, `,"isListed":`...)
		b = appendBool(b, entries[i].listed)
		b = append(b, `,"isRemote":`...)
		b = appendBool(b, g.remote)
		b = append(b, `,"workplaceType":`...)
		b = append(b, ashbyWorkplace[workplaceOf(c, g)]...)
		b = append(b, `,"address":{"postalAddress":{"addressLocality":`...)
		if g.remote {
			b = append(b, `""`...)
		} else {
			b = appendStr(b, cd.cities[g.city])
		}
		b = append(b, `,"addressRegion":"","addressCountry":`...)
		if h2(g.h, 92)%10 < 3 {
			b = appendStr(b, cd.a3)
		} else {
			b = appendStr(b, cd.name)
		}
		b = append(b, `}},"jobUrl":"https://jobs.ashbyhq.com/`...)
		b = append(b, name...)
		b = append(b, '/')
		b = append(b, b[id:idEnd]...)
		b = append(b, `","applyUrl":"https://jobs.ashbyhq.com/`...)
		b = append(b, name...)
		b = append(b, '/')
		b = append(b, b[id:idEnd]...)
		b = append(b, `/application","descriptionHtml":`...)
		d := w.descOf(c, g)
		b = d.append(b, flAshby)
		d.release()
		b = append(b, `,"shouldDisplayCompensationOnJobPostings":`...)
		b = appendBool(b, g.salary)
		if comp {
			if g.salary {
				s := w.salaryOf(g)
				sum := appendSalarySummary(scratch[:0], s)
				b = append(b, `,"compensation":{"compensationTierSummary":`...)
				b = appendStrBytes(b, sum)
				b = append(b, `,"scrapeableCompensationSalarySummary":`...)
				b = appendStrBytes(b, sum)
				b = append(b, `,"compensationTiers":[{"id":"`...)
				b = appendUUID(b, atsID32(c, vAshby, g), 0xC0)
				b = append(b, `","tierSummary":`...)
				b = appendStrBytes(b, sum)
				b = append(b, `,"title":"Base","additionalInformation":null,"components":[`...)
				b = appendAshbyComponent(b, c, g, s, sum)
				b = append(b, `]}],"summaryComponents":[`...)
				b = appendAshbyComponent(b, c, g, s, sum)
				b = append(b, `]}`...)
			} else {
				b = append(b, `,"compensation":{"compensationTierSummary":null,"scrapeableCompensationSalarySummary":null,"compensationTiers":[],"summaryComponents":[]}`...)
			}
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func appendAshbyComponent(b []byte, c *company, g *gen, s salary, sum []byte) []byte {
	b = append(b, `{"id":"`...)
	b = appendUUID(b, atsID32(c, vAshby, g), 0xC1)
	b = append(b, `","summary":`...)
	b = appendStrBytes(b, sum)
	b = append(b, `,"compensationType":"Salary","interval":`...)
	b = appendStr(b, ashbyInterval[s.period])
	b = append(b, `,"currencyCode":`...)
	b = appendStr(b, s.currency)
	b = append(b, `,"minValue":`...)
	b = appendNum(b, s.min)
	b = append(b, `,"maxValue":`...)
	b = appendNum(b, s.max)
	return append(b, '}')
}

var periodWord = [...]string{"year", "month", "hour"}

// appendSalarySummary appends e.g. "EUR 60000 – 80000 per year".
func appendSalarySummary(b []byte, s salary) []byte {
	b = append(b, s.currency...)
	b = append(b, ' ')
	b = appendNum(b, s.min)
	b = append(b, " – "...)
	b = appendNum(b, s.max)
	b = append(b, " per "...)
	return append(b, periodWord[s.period]...)
}

// ashbyDescription writes descriptionHtml's value to descriptionPlain's (flAshby).
func ashbyDescription(d *descDoc, b []byte) []byte {
	b = d.appendHTMLJSON(b, allParts, 0)
	b = append(b, `,"descriptionPlain":`...)
	return d.appendPlainJSON(b, allParts)
}
