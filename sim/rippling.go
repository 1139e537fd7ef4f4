package sim

import "strconv"

// Rippling job board API: GET https://ats.rippling.com/api/v2/board/{board}/jobs?page=N&pageSize=M
// (page zero-based, pageSize 1-100, 20 when absent) answers {"items":[{id, name, url,
// department{name}, locations[{name, city, state, country, countryCode, workplaceType (ON_SITE,
// HYBRID or REMOTE)}]}],
// "page","pageSize","totalItems","totalPages"}; a page past the last has no items. url is the
// posting on the board, https://ats.rippling.com/{board}/jobs/{id}. The list has no date or pay.

const ripplingJunk = `{"id":"junk","name":null,"url":7,"department":[],"locations":{"name":"?"}}`

func (w *World) renderRippling(b []byte, c *company, tick, page, size int, junk bool) []byte {
	gens := w.liveGens(c, tick)
	jp := junkAt(junk, len(gens))
	n := len(gens)
	if jp >= 0 {
		n++
	}
	board := c.tenant(vRippling)
	from := page * size
	b = append(b, `{"items":[`...)
	wrote := 0
	var id [40]byte
	for i, k := 0, 0; i < n && i < from+size; i++ {
		if i == jp {
			if i >= from {
				if wrote > 0 {
					b = append(b, ',')
				}
				b = append(b, ripplingJunk...)
				wrote++
			}
			continue
		}
		g := &gens[k]
		k++
		if i < from {
			continue
		}
		if wrote > 0 {
			b = append(b, ',')
		}
		wrote++
		t := &w.titles[g.title]
		cd := &countries[g.country]
		uid := appendATSID(id[:0], c, vRippling, g)
		b = append(b, `{"id":"`...)
		b = append(b, uid...)
		b = append(b, `","name":`...)
		b = appendStr(b, t.name)
		b = append(b, `,"url":"https://ats.rippling.com/`...)
		b = append(b, board...)
		b = append(b, "/jobs/"...)
		b = append(b, uid...)
		b = append(b, `","department":{"name":`...)
		b = appendStr(b, functionNames[t.fn])
		b = append(b, `},"locations":[{"name":"`...)
		if g.remote {
			b = append(b, "Remote ("...)
			b = appendEsc(b, cd.name)
			b = append(b, `)","city":null,"state":null`...)
		} else {
			b = appendEsc(b, cd.cities[g.city])
			b = append(b, ", "...)
			b = append(b, cd.a2...)
			b = append(b, `","city":`...)
			b = appendStr(b, cd.cities[g.city])
			b = append(b, `,"state":null`...)
		}
		b = append(b, `,"country":`...)
		b = appendStr(b, cd.name)
		b = append(b, `,"countryCode":"`...)
		b = append(b, cd.a2...)
		b = append(b, `","workplaceType":"`...)
		switch workplaceOf(c, g) { // never unstated: Rippling's field is mandatory
		case wpRemote:
			b = append(b, "REMOTE"...)
		case wpHybrid:
			b = append(b, "HYBRID"...)
		default:
			b = append(b, "ON_SITE"...)
		}
		b = append(b, `"}]}`...)
	}
	b = append(b, `],"page":`...)
	b = strconv.AppendInt(b, int64(page), 10)
	b = append(b, `,"pageSize":`...)
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, `,"totalItems":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `,"totalPages":`...)
	b = strconv.AppendInt(b, int64((n+size-1)/size), 10)
	return append(b, '}')
}
