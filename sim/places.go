package sim

import "strconv"

// Several places, one posting (docs/crawl-contract.md): an ATS that can list several places
// publishes a gen's second country (gen.country2) as a further place of the same posting, and
// Personio and Workable also list further cities in the req's own country. The adapters give
// the first place the posting's id and the n-th further place id#n (Workable: every entry is
// shortcode/country/city); the truth names each place's posting by that id.

// place is one (country, city) a posting is published for.
type place struct{ country, city uint8 }

// personioSameOffice reports whether g's Personio position lists a second office in its own
// country, and which city.
func personioSameOffice(g *gen) (uint8, bool) {
	cd := &countries[g.country]
	if g.remote || len(cd.cities) < 2 || h2(g.h, 83)%8 != 0 {
		return 0, false
	}
	return uint8((int(g.city) + 1 + int(h2(g.h, 84)%uint64(len(cd.cities)-1))) % len(cd.cities)), true
}

// workablePlaces lists the entries of g on Workable: its city, sometimes a second city in the
// same country, and its second country.
func workablePlaces(g *gen) []place {
	cd := &countries[g.country]
	out := []place{{g.country, g.city}}
	if len(cd.cities) > 1 && h2(g.h, 81)%10 == 0 {
		out = append(out, place{g.country, uint8((int(g.city) + 1 + int(h2(g.h, 82)%uint64(len(cd.cities)-1))) % len(cd.cities))})
	}
	if g.country2 != noCountry {
		out = append(out, place{g.country2, g.city2})
	}
	return out
}

// appendWorkableID appends the adapter's id of a Workable entry: shortcode/country/city.
func appendWorkableID(b []byte, c *company, g *gen, p place) []byte {
	b = appendATSID(b, c, vWorkable, g)
	b = append(b, '/')
	b = append(b, countries[p.country].name...)
	b = append(b, '/')
	return append(b, countries[p.country].cities[p.city]...)
}

// atsPostingIDs appends to out the ids of the postings that carry g's req on vendor v: those of
// its own country, or (second) those of its second country.
func (w *World) atsPostingIDs(out []string, buf []byte, c *company, v uint8, g *gen, second bool) []string {
	if second && g.country2 == noCountry {
		return out
	}
	switch v {
	case vWorkday:
		return append(out, string(w.appendWorkdayPath(buf[:0], g)))
	case vICIMS:
		if second {
			return append(out, string(appendATSID(buf[:0], c, v, g))+"#1")
		}
	case vWorkable:
		for _, p := range workablePlaces(g) {
			if (p.country == g.country2 && g.country2 != noCountry) == second {
				out = append(out, string(appendWorkableID(buf[:0], c, g, p)))
			}
		}
		return out
	case vPersonio:
		_, same := personioSameOffice(g)
		if !second {
			out = append(out, string(appendATSID(buf[:0], c, v, g)))
			if same {
				out = append(out, string(appendATSID(buf[:0], c, v, g))+"#1")
			}
			return out
		}
		n := 1
		if same {
			n = 2
		}
		return append(out, string(appendATSID(buf[:0], c, v, g))+"#"+strconv.Itoa(n))
	case vAshby, vTeamtailor, vBreezy:
		// The second country is the first further place: Ashby's secondaryLocations, Teamtailor's
		// second tt:location, Breezy's second entry of locations.
		if second {
			return append(out, string(appendATSID(buf[:0], c, v, g))+"#1")
		}
	}
	return append(out, string(appendATSID(buf[:0], c, v, g)))
}

// truthID2 is the truth id of g's second-country req.
func truthID2(b []byte, c *company, g *gen) []byte {
	return append(truthID(b, c, g), "-x"...)
}
