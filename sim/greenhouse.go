package sim

import (
	"strconv"
	"time"
)

// Greenhouse Job Board API: GET /v1/boards/{token}/jobs?content=true
// {"jobs":[{absolute_url, internal_job_id, location{name}, metadata, id, updated_at,
// requisition_id, title, company_name, first_published, content?, departments[], offices[]}],
// "meta":{"total":N}}. No paging, no country (location.name is free text, sometimes a bare
// city), no salary on the list; offices[].location is the office's place with its country.

const greenhouseJunk = `{"absolute_url":17,"internal_job_id":null,"location":"Remote","metadata":null,"id":"n/a","updated_at":"yesterday","requisition_id":null,"title":null,"departments":{},"offices":null}`

func (w *World) renderGreenhouse(b []byte, c *company, tick int, content, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	token := c.tenant(vGreenhouse)
	// Greenhouse's current job boards are on job-boards.greenhouse.io (older ones on
	// boards.greenhouse.io, which the simulator's own paths keep, so their bodies do not change).
	jobHost := "boards.greenhouse.io"
	if w.cfg.HostMode {
		jobHost = "job-boards.greenhouse.io"
	}
	zone := w.zone(c.country)
	var scratch [512]byte
	b = append(b, `{"jobs":[`...)
	n := 0
	for i := 0; i <= len(gens); i++ {
		if i == jp {
			if n > 0 {
				b = append(b, ',')
			}
			b = append(b, greenhouseJunk...)
			n++
		}
		if i == len(gens) {
			break
		}
		g := &gens[i]
		if n > 0 {
			b = append(b, ',')
		}
		n++
		t := &w.titles[g.title]
		b = append(b, `{"absolute_url":"https://`...)
		b = append(b, jobHost...)
		b = append(b, '/')
		b = append(b, token...)
		b = append(b, "/jobs/"...)
		b = appendATSID(b, c, vGreenhouse, g)
		b = append(b, `","internal_job_id":`...)
		b = strconv.AppendInt(b, 2000000000+int64(internalID32(c, g)), 10)
		b = append(b, `,"location":{"name":`...)
		if !g.remote && h2(g.h, 72)%3 == 0 {
			// Free text without a country ("London", "Cambridge"): only the office says where.
			b = appendStr(b, countries[g.country].cities[g.city])
		} else {
			b = appendStrBytes(b, appendLocationText(scratch[:0], g, h2(g.h, vGreenhouse)))
		}
		b = append(b, `},"metadata":null,"id":`...)
		b = appendATSID(b, c, vGreenhouse, g)
		posted := w.postedAt(g, vGreenhouse).In(zone)
		b = append(b, `,"updated_at":`...)
		b = appendTime(b, posted.Add(17*time.Minute), "2006-01-02T15:04:05-07:00")
		b = append(b, `,"requisition_id":`...)
		if hasReqID(c) {
			b = append(b, '"')
			b = w.appendReqID(b, g)
			b = append(b, '"')
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `,"title":`...)
		b = appendStr(b, t.name)
		b = append(b, `,"company_name":`...)
		b = appendStr(b, atsCompanyName(c))
		b = append(b, `,"first_published":`...)
		b = appendTime(b, posted, "2006-01-02T15:04:05-07:00")
		if content {
			// Greenhouse serves content HTML-entity-escaped: the company's intro and the closing
			// (equal opportunity) in the board's own divs around the job's text.
			d := w.descOf(c, g)
			b = append(b, `,"content":"`...)
			b = d.append(b, flGreenhouse)
			b = append(b, '"')
			d.release()
		}
		dept := int64(h2(c.key, uint64(t.fn))%9000000 + 1000000)
		b = append(b, `,"departments":[{"id":`...)
		b = strconv.AppendInt(b, dept, 10)
		b = append(b, `,"name":`...)
		b = appendStr(b, functionNames[t.fn])
		b = append(b, `,"child_ids":[],"parent_id":null}],"offices":[{"id":`...)
		b = strconv.AppendInt(b, int64(h3(c.key, uint64(g.country), uint64(g.city))%9000000+1000000), 10)
		b = append(b, `,"name":`...)
		cd := &countries[g.country]
		if g.remote {
			b = appendStr(b, "Remote")
		} else {
			b = appendStr(b, cd.cities[g.city])
		}
		b = append(b, `,"location":"`...)
		if !g.remote {
			b = appendEsc(b, cd.cities[g.city])
			b = append(b, ", "...)
		}
		b = appendEsc(b, cd.name)
		b = append(b, `","child_ids":[],"parent_id":null}]}`...)
	}
	b = append(b, `],"meta":{"total":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, "}}"...)
}

// Greenhouse's board divs around a job's text, entity-escaped as its content is.
var (
	greenhouseIntro      = string(appendEntityJSON(nil, []byte(`<div class="content-intro">`)))
	greenhouseConclusion = string(appendEntityJSON(nil, []byte(`<div class="content-conclusion">`)))
	greenhouseDivEnd     = string(appendEntityJSON(nil, []byte(`</div>`)))
)

// greenhouseContent writes content (flGreenhouse): the company's intro and the closing (equal
// opportunity) in the board's own divs around the job's text, HTML entity-escaped, in a JSON
// string without its quotes.
func greenhouseContent(d *descDoc, b []byte) []byte {
	b = append(b, greenhouseIntro...)
	b = d.appendHTMLEntity(b, 1<<pAbout, 0)
	b = append(b, greenhouseDivEnd...)
	b = d.appendHTMLEntity(b, allParts&^(1<<pAbout|1<<pEEO), 0)
	b = append(b, greenhouseConclusion...)
	b = d.appendHTMLEntity(b, 1<<pEEO, 0)
	return append(b, greenhouseDivEnd...)
}
