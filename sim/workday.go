package sim

import (
	"strconv"
	"time"
)

// Workday career site list (the CXS API the site's own pages call):
// POST https://{company}.{wdN}.myworkdayjobs.com/wday/cxs/{company}/{site}/jobs with the JSON
// body {"appliedFacets":{},"limit":20,"offset":N,"searchText":""} (a limit above 20 is a 400,
// as on Workday; GET is a 405) answers
// {"total":N,"jobPostings":[{title, externalPath, locationsText, postedOn, bulletFields}],
// "facets":[…],"userAuthenticated":false}: total on the first page only (later pages say 0),
// externalPath "/job/{place}/{Title}_{req id}" ("-1" appended once the req was reposted),
// postedOn relative to the day served ("Posted Today", "Posted Yesterday", "Posted N Days Ago",
// "Posted 30+ Days Ago"), bulletFields the req id. The response's Date is the cycle's time, the
// clock the relative dates are read against.

const workdayJunk = `{"title":null,"externalPath":10151065,"locationsText":["?"],"postedOn":false,"bulletFields":"10151065"}`

// workdayMaxLimit is the largest page Workday serves.
const workdayMaxLimit = 20

var workdayDCs = [...]string{"wd1", "wd3", "wd5", "wd5", "wd12", "wd103"}

// workdayDC is the data centre of c's Workday host.
func workdayDC(c *company) string { return workdayDCs[h2(c.key, 0x3D)%uint64(len(workdayDCs))] }

// workdaySite is the name of c's Workday career site.
func workdaySite(c *company) string {
	switch h2(c.key, 0x3E) % 4 {
	case 0:
		return "External"
	case 1:
		return c.camel + "Careers"
	case 2:
		return c.camel + "_External_Careers"
	}
	return "Careers"
}

// appendWorkdayPath appends g's externalPath, the id the adapter gives its posting.
func (w *World) appendWorkdayPath(b []byte, g *gen) []byte {
	cd := &countries[g.country]
	b = append(b, "/job/"...)
	if g.remote {
		b = append(b, "Remote-"...)
	} else {
		b = appendPathSlug(b, cd.cities[g.city])
		b = append(b, '-')
	}
	b = appendPathSlug(b, cd.name)
	b = append(b, '/')
	b = appendPathSlug(b, w.titles[g.title].name)
	b = append(b, '_')
	b = w.appendReqID(b, g)
	if g.rep > 0 {
		b = append(b, "-1"...)
	}
	return b
}

// appendPathSlug appends s as Workday writes a path segment: letters and digits kept with their
// case, every other run of characters one '-'.
func appendPathSlug(b []byte, s string) []byte {
	dash := false
	start := len(b)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' {
			if dash && len(b) > start {
				b = append(b, '-')
			}
			b = append(b, ch)
			dash = false
			continue
		}
		dash = true
	}
	return b
}

// utcDay is 00:00 UTC of t's day.
func utcDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// appendWorkdayPostedOn appends postedOn for a posting published days before the day served.
func appendWorkdayPostedOn(b []byte, days int) []byte {
	switch {
	case days <= 0:
		return append(b, "Posted Today"...)
	case days == 1:
		return append(b, "Posted Yesterday"...)
	case days < 30:
		b = append(b, "Posted "...)
		b = strconv.AppendInt(b, int64(days), 10)
		return append(b, " Days Ago"...)
	}
	return append(b, "Posted 30+ Days Ago"...)
}

// renderWorkday renders the list page of c at tick from offset, at most limit postings.
func (w *World) renderWorkday(b []byte, c *company, tick, offset, limit int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	n := len(gens)
	if jp >= 0 {
		n++
	}
	total := 0
	if offset == 0 {
		total = n
	}
	served := utcDay(w.CycleTime(tick))
	b = append(b, `{"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	b = append(b, `,"jobPostings":[`...)
	wrote := 0
	for i, k := 0, 0; i < n && wrote < limit; i++ {
		if i == jp {
			if i >= offset {
				if wrote > 0 {
					b = append(b, ',')
				}
				b = append(b, workdayJunk...)
				wrote++
			}
			continue
		}
		g := &gens[k]
		k++
		if i < offset {
			continue
		}
		if wrote > 0 {
			b = append(b, ',')
		}
		wrote++
		cd := &countries[g.country]
		days := int(served.Sub(utcDay(w.postedAt(g, vWorkday))).Hours() / 24)
		b = append(b, `{"title":`...)
		b = appendStr(b, w.titles[g.title].name)
		b = append(b, `,"externalPath":"`...)
		b = w.appendWorkdayPath(b, g)
		b = append(b, `","locationsText":"`...)
		if g.remote {
			b = append(b, "Remote - "...)
		} else {
			b = appendEsc(b, cd.cities[g.city])
			b = append(b, ", "...)
		}
		b = appendEsc(b, cd.name)
		b = append(b, `","postedOn":"`...)
		b = appendWorkdayPostedOn(b, days)
		b = append(b, `","bulletFields":["`...)
		b = w.appendReqID(b, g)
		b = append(b, `"]}`...)
	}
	b = append(b, `],"facets":[{"facetParameter":"timeType","descriptor":"Time Type","values":[{"descriptor":"Full time","id":"5509c0b5959810ac0029943377d47364","count":`...)
	b = strconv.AppendInt(b, int64(len(gens)), 10)
	return append(b, `}]}],"userAuthenticated":false}`...)
}
