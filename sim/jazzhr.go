package sim

import "sort"

// JazzHR careers page, server-rendered HTML listing every open job on one page:
// GET https://{tenant}.applytojob.com/apply. Jobs are grouped under a department heading
// (div.department-heading h3, the req's function); each is a list-group item linking
// https://{tenant}.applytojob.com/apply/{id}/{Title-Slug}, with its place ("City, Country" or
// "Remote, Country") after a map-marker icon and its schedule after a clock icon.

// jazzJunkID is the id of a job link without a title: longer than any real id.
const jazzJunkID = "Junk00000000"

func (w *World) renderJazzHR(b []byte, c *company, tick int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	sort.SliceStable(gens, func(i, j int) bool { return w.titles[gens[i].title].fn < w.titles[gens[j].title].fn })
	tenant := c.tenant(vJazzHR)
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"...)
	b = appendXML(b, atsCompanyName(c))
	b = append(b, ` - Career Page</title></head>
<body><div id="resumator-wrapper" class="container"><div id="resumator-content">
<h2 id="resumator-job-list-title">Current Openings</h2>
<ul class="list-group">
`...)
	jp := junkAt(junk, len(gens))
	var id [16]byte
	dept := -1
	for i := 0; i <= len(gens); i++ {
		if i == jp {
			b = append(b, `<li class="list-group-item"><h3 class="list-group-item-heading"><a href="https://`...)
			b = append(b, tenant...)
			b = append(b, ".applytojob.com/apply/"+jazzJunkID+`/x"></a></h3></li>`+"\n"...)
		}
		if i == len(gens) {
			break
		}
		g := &gens[i]
		t := &w.titles[g.title]
		cd := &countries[g.country]
		if int(t.fn) != dept {
			dept = int(t.fn)
			b = append(b, `<li class="list-group-item"><div class="department-heading"><h3>`...)
			b = appendXML(b, functionNames[t.fn])
			b = append(b, "</h3></div></li>\n"...)
		}
		b = append(b, `<li class="list-group-item"><h3 class="list-group-item-heading"><a href="https://`...)
		b = append(b, tenant...)
		b = append(b, ".applytojob.com/apply/"...)
		b = append(b, appendATSID(id[:0], c, vJazzHR, g)...)
		b = append(b, '/')
		b = appendPathSlug(b, t.name)
		b = append(b, `">`...)
		b = appendXML(b, t.name)
		b = append(b, `</a></h3><ul class="list-inline list-group-item-text"><li><i class="fa fa-map-marker"></i>`...)
		if g.remote {
			b = append(b, "Remote"...)
		} else {
			b = appendXML(b, cd.cities[g.city])
		}
		b = append(b, ", "...)
		b = appendXML(b, cd.name)
		b = append(b, `</li><li><i class="fa fa-clock-o"></i>`...)
		b = append(b, empTypeLabel[g.empType]...)
		b = append(b, "</li></ul></li>\n"...)
	}
	return append(b, "</ul></div><div id=\"resumator-footer\">Powered by JazzHR</div></div></body></html>\n"...)
}
