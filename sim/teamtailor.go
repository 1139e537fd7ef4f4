package sim

import "time"

// Teamtailor career-site RSS: GET https://{tenant}.teamtailor.com/jobs.rss?per_page=N&offset=M
// <rss version="2.0" xmlns:tt="https://teamtailor.com/locations"><channel><title/> (the
// employer) <description/><link/> and per job an <item> of title, description (entity-escaped
// HTML), pubDate (RFC 1123 with a numeric zone, local time), link (/jobs/{number}-{slug}),
// remoteStatus (fully, hybrid, none), guid (a UUID), tt:locations (tt:location: tt:name,
// tt:city, tt:country), tt:department and tt:role. No pay. A remote job's location names its
// country only. A job published for a second country lists it as a second tt:location. The feed
// serves per_page items from offset (per_page 100 when absent).

const teamtailorJunk = `<item><title></title><description>n/a</description><pubDate>sometime</pubDate><link>https://example.invalid/jobs/</link><remoteStatus>maybe</remoteStatus></item>`

const teamtailorTime = time.RFC1123Z

// renderTeamtailor renders items [offset, offset+perPage) of the tenant's feed.
func (w *World) renderTeamtailor(b []byte, c *company, tick int, offset, perPage int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	total := len(gens)
	if jp >= 0 {
		total++
	}
	lo := min(max(offset, 0), total)
	hi := min(total, lo+perPage)
	tenant := c.tenant(vTeamtailor)
	b = append(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" xmlns:tt=\"https://teamtailor.com/locations\">\n  <channel>\n    <title>"...)
	b = appendXML(b, atsCompanyName(c))
	b = append(b, "</title>\n    <description>Current Job Openings</description>\n    <link>https://"...)
	b = append(b, tenant...)
	b = append(b, ".teamtailor.com/jobs</link>\n"...)
	for e := lo; e < hi; e++ {
		i := e
		if jp >= 0 {
			if e == jp {
				b = append(b, "    "...)
				b = append(b, teamtailorJunk...)
				b = append(b, '\n')
				continue
			}
			if e > jp {
				i = e - 1
			}
		}
		g := &gens[i]
		t := &w.titles[g.title]
		cd := &countries[g.country]
		b = append(b, "    <item>\n      <title>"...)
		b = appendXML(b, t.name)
		b = append(b, "</title>\n      <description>"...)
		d := w.descOf(c, g)
		b = d.append(b, flTeamtailor)
		d.release()
		b = append(b, "</description>\n      <pubDate>"...)
		b = w.postedAt(g, vTeamtailor).In(w.zone(c.country)).AppendFormat(b, teamtailorTime)
		b = append(b, "</pubDate>\n      <link>https://"...)
		b = append(b, tenant...)
		b = append(b, ".teamtailor.com/jobs/"...)
		b = appendATSID(b, c, vTeamtailor, g)
		b = append(b, '-')
		b = appendSlug(b, t.name)
		b = append(b, "</link>\n      <remoteStatus>"...)
		switch workplaceOf(c, g) {
		case wpRemote:
			b = append(b, "fully"...)
		case wpHybrid:
			b = append(b, "hybrid"...)
		default:
			b = append(b, "none"...) // no remote option: on-site, or not said
		}
		b = append(b, "</remoteStatus>\n      <guid>"...)
		b = appendUUID(b, atsID32(c, vTeamtailor, g), c.key+vTeamtailor)
		b = append(b, "</guid>\n      <tt:locations>\n"...)
		if g.remote {
			b = append(b, "        <tt:location><tt:name>Remote - "...)
			b = appendXML(b, cd.name)
			b = append(b, "</tt:name><tt:country>"...)
			b = appendXML(b, cd.name)
			b = append(b, "</tt:country></tt:location>\n"...)
		} else {
			b = appendTeamtailorPlace(b, cd, cd.cities[g.city], h2(g.h, 92)%2 == 0)
			if g.country2 != noCountry {
				cd2 := &countries[g.country2]
				b = appendTeamtailorPlace(b, cd2, cd2.cities[g.city2], true)
			}
		}
		b = append(b, "      </tt:locations>\n      <tt:department>"...)
		b = appendXML(b, functionNames[t.fn])
		b = append(b, "</tt:department>\n      <tt:role>"...)
		b = appendXML(b, t.name)
		b = append(b, "</tt:role>\n    </item>\n"...)
	}
	return append(b, "  </channel>\n</rss>\n"...)
}

// appendTeamtailorPlace appends one tt:location: an office named after its city ("Oslo Office")
// or by its city alone, with its city and country.
func appendTeamtailorPlace(b []byte, cd *countryDef, city string, office bool) []byte {
	b = append(b, "        <tt:location><tt:name>"...)
	b = appendXML(b, city)
	if office {
		b = append(b, " Office"...)
	}
	b = append(b, "</tt:name><tt:city>"...)
	b = appendXML(b, city)
	b = append(b, "</tt:city><tt:country>"...)
	b = appendXML(b, cd.name)
	return append(b, "</tt:country></tt:location>\n"...)
}
