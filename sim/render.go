package sim

import (
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

// empTypeLabel names the employment types as Workable, iCIMS and JazzHR label them.
var empTypeLabel = [numEmpTypes]string{"Full-time", "Part-time", "Contract", "Internship", "Temporary"}

// junkAt returns where a junk record goes in a list of n real entries (-1 when none).
func junkAt(junk bool, n int) int {
	if !junk {
		return -1
	}
	return n / 2
}
