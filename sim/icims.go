package sim

import (
	"strconv"
	"time"
)

// iCIMS career portal search results, the server-rendered HTML the portal frames:
// GET https://{portal}.icims.com/jobs/search?ss=1&in_iframe=1[&pr=N]. Twenty cards a page, pr=
// zero-based, the heading "Search Results Page N of M"; pr= past the last answers a page
// without cards. A card (li.iCIMS_JobCardItem) holds its places in the header ("Job Locations":
// "DE-Berlin", "DE-Remote", a second country after " | "), its posted date ("Posted Date", the
// exact time in the value's title, "N days ago" as its text), its title link
// https://{portal}.icims.com/jobs/{id}/{slug}/job?in_iframe=1, on about half the portals a
// "description" block with the opening of the job's description (cut with an ellipsis) and, as
// dt/dd pairs, its "Requisition ID" ({year}-{id}), "Category" and "Position Type".

const icimsPageSize = 20

// icimsJunkID is the id of a card whose title is empty: longer than any real posting's.
const icimsJunkID = "99999999999"

// icimsOpening is how much of a description a card shows, in bytes (cut at a word).
const icimsOpening = 240

// icimsShowsDescription reports whether c's portal shows the opening of each description on its
// cards (a tenant setting: about half do).
func icimsShowsDescription(c *company) bool { return h3(c.key, saltDescText, 3)%2 == 0 }

// icimsPages is how many pages n cards fill (one at least).
func icimsPages(n int) int { return max(1, (n+icimsPageSize-1)/icimsPageSize) }

func (w *World) renderICIMS(b []byte, c *company, tick, pr int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	n := len(gens)
	if jp >= 0 {
		n++
	}
	portal := c.tenant(vICIMS)
	pages := icimsPages(n)
	b = append(b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Job Listings at `...)
	b = appendXML(b, atsCompanyName(c))
	b = append(b, `</title></head>
<body class="iCIMS_MainWrapper"><div class="container-fluid iCIMS_JobsTable">
`...)
	from := pr * icimsPageSize
	if from >= n {
		b = append(b, `<div class="iCIMS_InfoMsg iCIMS_InfoMsg_NoJobs">Sorry, no jobs were found that match your search criteria.</div>`...)
		return append(b, "</div></body></html>\n"...)
	}
	b = append(b, `<div class="row"><div class="col-xs-12"><h2 class="iCIMS_SubHeader iCIMS_SubHeader_Jobs">Search Results Page `...)
	b = strconv.AppendInt(b, int64(pr+1), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(pages), 10)
	b = append(b, "</h2></div></div>\n<ul class=\"container-fluid iCIMS_JobsTable\">\n"...)
	served := w.CycleTime(tick)
	for i, k := 0, 0; i < n && i < from+icimsPageSize; i++ {
		if i == jp {
			if i >= from {
				b = append(b, `<li class="iCIMS_JobCardItem"><div class="row"><div class="col-xs-12 title"><a href="https://`...)
				b = append(b, portal...)
				b = append(b, ".icims.com/jobs/"+icimsJunkID+`/x/job?in_iframe=1" class="iCIMS_Anchor"><span class="sr-only field-label">Job Posting Title</span><h3></h3></a></div></div></li>`+"\n"...)
			}
			continue
		}
		g := &gens[k]
		k++
		if i < from {
			continue
		}
		b = w.appendICIMSCard(b, c, g, portal, served)
	}
	b = append(b, "</ul>\n"...)
	if pr+1 < pages {
		b = append(b, `<div class="iCIMS_Paging text-center"><a class="glyphicons chevron-right" href="https://`...)
		b = append(b, portal...)
		b = append(b, `.icims.com/jobs/search?pr=`...)
		b = strconv.AppendInt(b, int64(pr+1), 10)
		b = append(b, `&amp;in_iframe=1" title="Next page of results"><span class="sr-only">Next page of results</span></a></div>`...)
	}
	return append(b, "</div></body></html>\n"...)
}

// appendICIMSPlace appends a place as an iCIMS code: "DE-Berlin", or "DE-Remote".
func appendICIMSPlace(b []byte, country, city uint8, remote bool) []byte {
	cd := &countries[country]
	b = append(b, cd.a2...)
	b = append(b, '-')
	if remote {
		return append(b, "Remote"...)
	}
	return appendXML(b, cd.cities[city])
}

func (w *World) appendICIMSCard(b []byte, c *company, g *gen, portal string, served time.Time) []byte {
	t := &w.titles[g.title]
	var idb [16]byte
	id := appendATSID(idb[:0], c, vICIMS, g)
	posted := w.postedAt(g, vICIMS).UTC()
	b = append(b, `<li class="iCIMS_JobCardItem"><div class="row">
<div class="col-xs-6 header left"><span class="sr-only field-label">Job Locations</span><span>`...)
	b = appendICIMSPlace(b, g.country, g.city, g.remote)
	if g.country2 != noCountry {
		b = append(b, " | "...)
		b = appendICIMSPlace(b, g.country2, g.city2, false)
	}
	b = append(b, `</span></div>
<div class="col-xs-6 header right"><span class="sr-only field-label">Posted Date</span><span title="`...)
	b = posted.AppendFormat(b, "1/2/2006 3:04 PM")
	b = append(b, `">`...)
	days := int(served.Sub(posted).Hours() / 24)
	switch {
	case days < 1:
		b = append(b, "today"...)
	case days == 1:
		b = append(b, "1 day ago"...)
	default:
		b = strconv.AppendInt(b, int64(days), 10)
		b = append(b, " days ago"...)
	}
	b = append(b, `</span></div>
<div class="col-xs-12 title"><a href="https://`...)
	b = append(b, portal...)
	b = append(b, ".icims.com/jobs/"...)
	b = append(b, id...)
	b = append(b, '/')
	b = appendSlug(b, t.name)
	b = append(b, `/job?in_iframe=1" class="iCIMS_Anchor" title="`...)
	b = append(b, id...)
	b = append(b, " - "...)
	b = appendXML(b, t.name)
	b = append(b, `"><span class="sr-only field-label">Job Posting Title</span><h3>`...)
	b = appendXML(b, t.name)
	b = append(b, `</h3></a></div>
`...)
	if icimsShowsDescription(c) {
		d := w.descOf(c, g)
		b = append(b, `<div class="col-xs-12 description">`...)
		b = d.append(b, flICIMS)
		b = append(b, "</div>\n"...)
		d.release()
	}
	b = append(b, `<div class="col-xs-12 additionalFields"><dl class="iCIMS_JobHeaderGroup">
<div class="iCIMS_JobHeaderTag"><dt class="iCIMS_JobHeaderField">Requisition ID</dt><dd class="iCIMS_JobHeaderData"><span>`...)
	b = strconv.AppendInt(b, int64(posted.Year()), 10)
	b = append(b, '-')
	b = append(b, id...)
	b = append(b, `</span></dd></div>
<div class="iCIMS_JobHeaderTag"><dt class="iCIMS_JobHeaderField">Category</dt><dd class="iCIMS_JobHeaderData"><span>`...)
	b = appendXML(b, functionNames[t.fn])
	b = append(b, `</span></dd></div>
<div class="iCIMS_JobHeaderTag"><dt class="iCIMS_JobHeaderField">Position Type</dt><dd class="iCIMS_JobHeaderData"><span>`...)
	b = append(b, empTypeLabel[g.empType]...)
	return append(b, "</span></dd></div>\n</dl></div></div></li>\n"...)
}

// icimsOpeningText writes a card's description (flICIMS): the opening of the plain text, cut at
// a word with an ellipsis, XML-escaped.
func icimsOpeningText(d *descDoc, b []byte) []byte {
	d.out = d.appendOpening(d.out[:0], icimsOpening)
	return appendXML(b, d.out)
}
