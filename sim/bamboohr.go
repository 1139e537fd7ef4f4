package sim

import "strconv"

// BambooHR careers list: GET https://{tenant}.bamboohr.com/careers/list
// {"meta":{"totalCount":N},"result":[{id (a string), jobOpeningName, departmentId,
// departmentLabel, employmentStatusLabel, location{city, state} (the office: no country),
// atsLocation{country, state, province, city} (a place typed in for the job), isRemote,
// locationType ("0" on site, "1" remote, "2" hybrid)}]}. No date, no pay, no link. An office job
// in the HQ country mostly leaves atsLocation all null (the crawl places it in the HQ country);
// one elsewhere names its country there; a remote job has no office and names its country.

const bambooJunk = `{"id":null,"jobOpeningName":null,"departmentLabel":7,"location":"somewhere","atsLocation":[],"isRemote":"maybe","locationType":9}`

var bambooEmployment = [numEmpTypes]string{"Full-Time", "Part-Time", "Contractor", "Intern", "Temporary"}

func (w *World) renderBambooHR(b []byte, c *company, tick int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	total := len(gens)
	if jp >= 0 {
		total++
	}
	b = append(b, `{"meta":{"totalCount":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, `},"result":[`...)
	n := 0
	for i := 0; i <= len(gens); i++ {
		if i == jp {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, bambooJunk...)
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
		b = appendATSID(b, c, vBambooHR, g)
		b = append(b, `","jobOpeningName":`...)
		b = appendStr(b, t.name)
		b = append(b, `,"departmentId":"`...)
		b = strconv.AppendInt(b, 19000+int64(t.fn), 10)
		b = append(b, `","departmentLabel":`...)
		b = appendStr(b, functionNames[t.fn])
		b = append(b, `,"employmentStatusLabel":`...)
		b = appendStr(b, bambooEmployment[g.empType])
		if g.remote {
			b = append(b, `,"location":{"city":null,"state":null},"atsLocation":{"country":`...)
			b = appendStr(b, cd.name)
			b = append(b, `,"state":null,"province":null,"city":null}`...)
			if h2(g.h, 93)%2 == 0 {
				b = append(b, `,"isRemote":true,"locationType":"1"}`...)
			} else {
				b = append(b, `,"isRemote":null,"locationType":"1"}`...)
			}
			continue
		}
		b = append(b, `,"location":{"city":`...)
		b = appendStr(b, cd.cities[g.city])
		b = append(b, `,"state":null},"atsLocation":`...)
		if g.country != c.country || h2(g.h, 94)%4 == 0 {
			b = append(b, `{"country":`...)
			b = appendStr(b, cd.name)
			b = append(b, `,"state":null,"province":null,"city":`...)
			b = appendStr(b, cd.cities[g.city])
			b = append(b, '}')
		} else {
			b = append(b, `{"country":null,"state":null,"province":null,"city":null}`...)
		}
		b = append(b, `,"isRemote":null,"locationType":"`...)
		if workplaceOf(c, g) == wpHybrid { // never unstated: BambooHR's field is mandatory
			b = append(b, '2')
		} else {
			b = append(b, '0')
		}
		b = append(b, `"}`...)
	}
	return append(b, "]}"...)
}
