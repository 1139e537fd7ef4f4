package sim

import "strconv"

// Jobvite careers site search results, server-rendered HTML:
// GET https://jobs.jobvite.com/{company}/search/?p=N (the trailing slash is Jobvite's). Fifty jobs
// a page in a table (td.jv-job-list-name holding the link /{company}/job/{code},
// td.jv-job-list-location "City, Country" or "Remote, Country"); a board of more than a page
// says "1-50 of 73" in .jv-pagination-text and links the next page on every page but the last;
// p= past the last answers "No results found". The <title> is "{Company} Careers".

const jobvitePageSize = 50

// jobviteJunkCode is the code of a job link without a title: shorter than any real code.
const jobviteJunkCode = "ojunk"

func (w *World) renderJobvite(b []byte, c *company, tick, p int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	n := len(gens)
	if jp >= 0 {
		n++
	}
	co := c.tenant(vJobvite)
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"...)
	b = appendXML(b, atsCompanyName(c))
	b = append(b, ` Careers</title><link rel="stylesheet" href="https://d3igejkwe1ucjd.cloudfront.net/__assets__/careersite/public/css/jv.css"></head>
<body class="jv-page"><div class="jv-wrapper"><div class="jv-page-body">
<h2 class="jv-page-title">Search Results</h2>
`...)
	from := p * jobvitePageSize
	if from >= n {
		b = append(b, `<p class="jv-no-results">No results found.</p>`...)
		return append(b, "</div></div></body></html>\n"...)
	}
	b = append(b, "<table class=\"jv-job-list\"><tbody>\n"...)
	var code [16]byte
	for i, k := 0, 0; i < n && i < from+jobvitePageSize; i++ {
		if i == jp {
			if i >= from {
				b = append(b, `<tr><td class="jv-job-list-name"><a href="/`...)
				b = append(b, co...)
				b = append(b, "/job/"+jobviteJunkCode+`"></a></td><td class="jv-job-list-location"></td></tr>`+"\n"...)
			}
			continue
		}
		g := &gens[k]
		k++
		if i < from {
			continue
		}
		cd := &countries[g.country]
		b = append(b, `<tr><td class="jv-job-list-name"><a href="/`...)
		b = append(b, co...)
		b = append(b, "/job/"...)
		b = append(b, appendATSID(code[:0], c, vJobvite, g)...)
		b = append(b, `">`...)
		b = appendXML(b, w.titles[g.title].name)
		b = append(b, `</a></td><td class="jv-job-list-location">`...)
		if g.remote {
			b = append(b, "Remote"...)
		} else {
			b = appendXML(b, cd.cities[g.city])
		}
		b = append(b, ", "...)
		b = appendXML(b, cd.name)
		b = append(b, "</td></tr>\n"...)
	}
	b = append(b, "</tbody></table>\n"...)
	if n > jobvitePageSize {
		b = append(b, `<div class="jv-pagination"><div class="jv-pagination-text">`...)
		b = strconv.AppendInt(b, int64(from+1), 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(min(n, from+jobvitePageSize)), 10)
		b = append(b, " of "...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, "</div>"...)
		if from+jobvitePageSize < n {
			b = append(b, `<a class="jv-pagination-next" href="/`...)
			b = append(b, co...)
			b = append(b, "/search/?p="...)
			b = strconv.AppendInt(b, int64(p+1), 10)
			b = append(b, `">Next</a>`...)
		}
		b = append(b, "</div>\n"...)
	}
	return append(b, "</div></div><div class=\"jv-powered-by\">Powered by Jobvite</div></body></html>\n"...)
}
