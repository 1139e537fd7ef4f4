package sim

import (
	"strings"
	"time"
)

// Shared pieces of the format renderers.

// liveGens returns the live reqs of c at tick in slot order.
func (w *World) liveGens(c *company, tick int) []gen {
	out := make([]gen, 0, int(c.nBase)*3/4+4)
	for s := 0; s < c.nSlots(); s++ {
		g := w.genAt(c, s, tick)
		if g.live {
			out = append(out, g)
		}
	}
	return out
}

// postedAt is when g's current posting was published on a source: a few minutes to hours
// before the cycle at which it first became visible.
func (w *World) postedAt(g *gen, salt uint64) time.Time {
	r := h3(g.h, salt, uint64(g.rep))
	t := w.CycleTime(g.postedTick())
	return t.Add(-time.Duration(5+r%170)*time.Minute - time.Duration((r>>16)%60)*time.Second)
}

// zone is the local time zone of country ci.
func (w *World) zone(ci uint8) *time.Location { return w.zones[ci] }

func buildZones() []*time.Location {
	z := make([]*time.Location, len(countries))
	for i, c := range countries {
		if c.tzMin == 0 {
			z[i] = time.UTC
			continue
		}
		z[i] = time.FixedZone("", c.tzMin*60)
	}
	return z
}

// appendDescription appends a short HTML job description (raw, unescaped).
func (w *World) appendDescription(b []byte, c *company, g *gen) []byte {
	t := &w.titles[g.title]
	b = append(b, "<p>"...)
	b = append(b, c.core...)
	b = appendArticle(b, t.name)
	b = append(b, t.name...)
	b = append(b, " to join the "...)
	b = append(b, functionNames[t.fn]...)
	if g.remote {
		b = append(b, " team, working remotely from "...)
		b = append(b, countries[g.country].name...)
	} else {
		b = append(b, " team in "...)
		b = append(b, countries[g.country].cities[g.city]...)
	}
	b = append(b, ".</p><ul><li>"...)
	b = append(b, empTypeLabel[g.empType]...)
	b = append(b, "</li></ul>"...)
	return b
}

// appendDescriptionPlain appends the plain-text version of the description.
func (w *World) appendDescriptionPlain(b []byte, c *company, g *gen) []byte {
	t := &w.titles[g.title]
	b = append(b, c.core...)
	b = appendArticle(b, t.name)
	b = append(b, t.name...)
	b = append(b, " to join the "...)
	b = append(b, functionNames[t.fn]...)
	if g.remote {
		b = append(b, " team, working remotely from "...)
		b = append(b, countries[g.country].name...)
	} else {
		b = append(b, " team in "...)
		b = append(b, countries[g.country].cities[g.city]...)
	}
	b = append(b, ". "...)
	return append(b, empTypeLabel[g.empType]...)
}

var empTypeLabel = [...]string{"Full-time", "Part-time", "Contract", "Internship"}

// junkAt returns where a junk record goes in a list of n real entries (-1 when none).
func junkAt(junk bool, n int) int {
	if !junk {
		return -1
	}
	return n / 2
}

// seniorityOf returns a rough experience level for a title index.
func (w *World) seniorityOf(ti int) int {
	p := w.titles[ti].pay
	switch {
	case p < 0.9:
		return 0 // entry
	case p < 1.2:
		return 1 // mid
	case p < 1.7:
		return 2 // senior
	default:
		return 3 // executive
	}
}

// appendArticle appends " is hiring a " or " is hiring an " as English wants before name.
func appendArticle(b []byte, name string) []byte {
	if name != "" && strings.IndexByte("AEIOU", name[0]) >= 0 {
		return append(b, " is hiring an "...)
	}
	return append(b, " is hiring a "...)
}
