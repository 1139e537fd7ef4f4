package sim

// Personio XML feed: GET https://{tenant}.jobs.personio.de/xml?language=en
// <workzag-jobs><position><id/><subcompany/><office/><department/><recruitingCategory/>
// <name/><jobDescriptions/><employmentType/><seniority/><schedule/><yearsOfExperience/>
// <occupation/><occupationCategory/><createdAt/></position>...</workzag-jobs>. jobDescriptions
// holds one <jobDescription> per section of the description: its heading as <name>, its HTML
// as <value> (CDATA). yearsOfExperience is absent when the description asks for none.
// No country, salary or URL: <office> is a city (or "Remote") and the country is the company's
// HQ country (which is why every req of a Personio company is in its HQ country), except for
// <additionalOffices>: further cities of the HQ country, and the first city of a req's second
// country (gen.country2), which the crawl places by its city.

const personioJunk = `<position><id>n/a</id><office></office><department/><employmentType>sometimes</employmentType><createdAt>sometime</createdAt></position>`

var personioEmployment = [numEmpTypes]string{"permanent", "permanent", "freelance", "intern", "temporary"}
var personioSchedule = [numEmpTypes]string{"full-time", "part-time", "full-time", "full-time", "full-time"}

// personioSeniority is the coarse level (coarseLevel) as Personio names it.
var personioSeniority = [...]string{"student", "entry-level", "experienced", "executive", "executive"}

// personioYears is the band of a minimum of years of experience.
func personioYears(years int8) string {
	switch {
	case years < 1:
		return "lt-1"
	case years < 2:
		return "1-2"
	case years < 5:
		return "2-5"
	case years < 7:
		return "5-7"
	}
	return "7+"
}

func (w *World) renderPersonio(b []byte, c *company, tick int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	var scratch [256]byte
	b = append(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<workzag-jobs>\n"...)
	for i := 0; i <= len(gens); i++ {
		if i == jp {
			b = append(b, "  "...)
			b = append(b, personioJunk...)
			b = append(b, '\n')
		}
		if i == len(gens) {
			break
		}
		g := &gens[i]
		t := &w.titles[g.title]
		cd := &countries[g.country]
		d := w.descOf(c, g)
		f := d.facts()
		b = append(b, "  <position>\n    <id>"...)
		b = appendATSID(b, c, vPersonio, g)
		b = append(b, "</id>\n    <subcompany>"...)
		b = appendXML(b, c.name)
		b = append(b, "</subcompany>\n    <office>"...)
		if g.remote {
			b = append(b, "Remote"...)
		} else {
			b = appendXML(b, cd.cities[g.city])
		}
		b = append(b, "</office>\n"...)
		same, hasSame := personioSameOffice(g)
		if hasSame || g.country2 != noCountry {
			b = append(b, "    <additionalOffices>\n"...)
			if hasSame {
				b = append(b, "      <office>"...)
				b = appendXML(b, cd.cities[same])
				b = append(b, "</office>\n"...)
			}
			if g.country2 != noCountry {
				b = append(b, "      <office>"...)
				b = appendXML(b, countries[g.country2].cities[g.city2])
				b = append(b, "</office>\n"...)
			}
			b = append(b, "    </additionalOffices>\n"...)
		}
		b = append(b, "    <department>"...)
		b = appendXML(b, functionNames[t.fn])
		b = append(b, "</department>\n    <recruitingCategory>"...)
		b = appendXML(b, functionNames[t.fn])
		b = append(b, "</recruitingCategory>\n    <name>"...)
		b = appendXML(b, t.name)
		b = append(b, "</name>\n    <jobDescriptions>\n"...)
		b = d.append(b, flPersonio)
		d.release()
		b = append(b, "    </jobDescriptions>\n    <employmentType>"...)
		b = append(b, personioEmployment[g.empType]...)
		b = append(b, "</employmentType>\n    <seniority>"...)
		b = append(b, personioSeniority[w.coarseLevel(c, g, f)]...)
		b = append(b, "</seniority>\n    <schedule>"...)
		b = append(b, personioSchedule[g.empType]...)
		b = append(b, "</schedule>\n"...)
		if f.years >= 0 {
			b = append(b, "    <yearsOfExperience>"...)
			b = append(b, personioYears(f.years)...)
			b = append(b, "</yearsOfExperience>\n"...)
		}
		b = append(b, "    <keywords>"...)
		b = appendXML(b, string(appendLowerASCII(scratch[:0], functionNames[t.fn])))
		b = append(b, "</keywords>\n    <occupation>"...)
		b = appendSnake(b, functionNames[t.fn])
		b = append(b, "</occupation>\n    <occupationCategory>"...)
		b = appendSnake(b, functionNames[t.fn])
		b = append(b, "</occupationCategory>\n    <createdAt>"...)
		b = w.postedAt(g, vPersonio).In(w.zone(c.country)).AppendFormat(b, "2006-01-02T15:04:05-07:00")
		b = append(b, "</createdAt>\n  </position>\n"...)
	}
	return append(b, "</workzag-jobs>\n"...)
}

// personioDescriptions writes a position's jobDescription elements (flPersonio): one per section
// of the description, its heading as name and its HTML (without the heading) as value.
func personioDescriptions(d *descDoc, b []byte) []byte {
	for part := uint8(0); part < numParts; part++ {
		if !d.has(part) {
			continue
		}
		b = append(b, "      <jobDescription>\n        <name>"...)
		b = d.appendHeadingXML(b, part)
		b = append(b, "</name>\n        <value><![CDATA["...)
		b = d.appendMarkup(b, 1<<part, 1<<part, mkRaw)
		b = append(b, "]]></value>\n      </jobDescription>\n"...)
	}
	return b
}
