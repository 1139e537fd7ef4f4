package sim

import (
	"math"
	"strconv"
)

// Req lifecycle model.
//
// Each covered company has slots. A base slot s has a window length W and a phase φ drawn from
// hash(seed, company, s). Time is cut into windows of W ticks; window k holds generation k of
// the slot: one logical req (a title the slot owns and a country) that opens at some offset o
// in the window, stays live for d ticks (30%-90% of W, so days to months) and then closes; the
// first and last tick of each window are always closed, so a slot never carries two reqs at
// once and every close is observable. About 10% of generations go away for 1-8 ticks and come
// back (a repost). All of it is a pure function of (seed, company, slot, tick).
//
// Titles are partitioned among the company's slots through a per-company permutation of the
// title pool, so two slots never share a title and therefore never share (title, country).
// Consecutive generations of a slot cycle through the slot's titles; a slot's window is
// long enough that the same title comes back only after at least minRecurrence ticks, far
// beyond any repost gap: a pipeline that treats a return within a few days as a repost and a
// return after weeks as a new opening agrees with the truth.
//
// Surge slots (about 2% of companies) each hold a single generation that opens inside the
// company's surge window, several times the usual rate of openings.

const (
	tickBase      = 1 << 22 // keeps internal tick arithmetic non-negative
	minWindow     = 48      // 6 days
	maxWindow     = 1200    // 150 days
	minRecurrence = 520     // ticks before a slot can reuse a title (65 days)
	hqShare       = 0.8
	remoteShare   = 0.12
	salaryShare   = 0.4
	repostShare   = 0.10
	multiShare    = 0.15 // of the on-site reqs of companies whose ATS can list several places
)

// noCountry marks a gen without a second country.
const noCountry = 0xFF

// windowTable holds log-uniform window lengths.
func windowTable() [256]int32 {
	var t [256]int32
	for i := range t {
		t[i] = int32(math.Round(minWindow * math.Pow(maxWindow/minWindow, float64(i)/255)))
	}
	return t
}

// gen is one generation of a slot (one life of one logical req), evaluated at a tick.
type gen struct {
	slot     int
	k        int64  // generation index (0 for surge slots)
	h        uint64 // generation hash: source of every further per-req draw
	live     bool   // live at the evaluated tick
	rep      uint8  // 1 once the req came back from its repost gap (at the evaluated tick)
	open     int    // first live tick (first_tick)
	close    int    // first tick after the life
	gapStart int    // first tick of the repost gap (== gapEnd when none)
	gapEnd   int    // first tick live again after the gap
	title    int
	country  uint8
	city     uint8
	remote   bool
	salary   bool
	empType  uint8 // empFullTime, empPartTime, empContract, empInternship or empTemporary
	// country2/city2: a second country the same posting is published for (noCountry when none).
	// It is a req of its own (one req per company, title and country), carried by the ATS
	// posting's further place and by job pages' jobLocation arrays only.
	country2 uint8
	city2    uint8
}

func (g *gen) hasGap() bool { return g.gapEnd > g.gapStart }

// postedTick is the tick the currently visible posting of g was (re)published.
func (g *gen) postedTick() int {
	if g.rep == 1 {
		return g.gapEnd
	}
	return g.open
}

// titlesOwned is how many titles base slot s owns.
func (w *World) titlesOwned(c *company, s int) int {
	nt := len(w.titles) - int(c.nSurge)
	nb := int(c.nBase)
	return (nt - s + nb - 1) / nb
}

// titleOf maps a position x of the company's permuted title space to a title index.
func (w *World) titleOf(c *company, x int) int {
	nt := len(w.titles)
	return (int(c.permMul) * ((x - int(c.permB) + nt) % nt)) % nt
}

// genAt evaluates slot s of company c at tick.
func (w *World) genAt(c *company, s int, tick int) gen {
	var g gen
	g.slot = s
	if s >= int(c.nBase) {
		w.surgeGen(c, s, tick, &g)
	} else {
		w.baseGen(c, s, tick, &g)
	}
	return g
}

func (w *World) baseGen(c *company, s int, tick int, g *gen) {
	sh := h3(w.seed^saltSlot, uint64(c.idx), uint64(s))
	m := w.titlesOwned(c, s)
	W := w.windowOf(c, s, sh)
	phi := int64((sh >> 8) % uint64(W))
	u := int64(tick) + tickBase + phi
	k := u / W
	g.k = k
	g.h = h4(w.seed^saltGen, uint64(c.idx), uint64(s), uint64(k))
	r := rng{g.h}
	lo, hi := W*3/10, W*9/10
	d := lo + int64(r.intn(int(hi-lo+1)))
	d = max(2, min(d, W-2))
	o := 1 + int64(r.intn(int(W-d-1)))
	start := int(k*W - phi - tickBase)
	g.open = start + int(o)
	g.close = g.open + int(d)
	g.gapStart, g.gapEnd = g.close, g.close
	if r.chance(repostShare) && d >= 16 {
		glen := 1 + r.intn(8)
		gs := int(o) + 2 + r.intn(int(d)-glen-3)
		g.gapStart = start + gs
		g.gapEnd = g.gapStart + glen
	}
	j := (int(k%int64(m)) + int((sh>>40)%uint64(m))) % m
	g.title = w.titleOf(c, int(c.nSurge)+s+j*int(c.nBase))
	w.reqDetails(c, g, &r, tick)
}

// windowOf is the window length of base slot s (sh its slot hash): long enough that the slot's
// titles recur no sooner than minRecurrence ticks.
func (w *World) windowOf(c *company, s int, sh uint64) int64 {
	m := w.titlesOwned(c, s)
	W := int64(w.wtab[sh&255])
	if m > 1 {
		if mw := int64((minRecurrence + m - 2) / (m - 1)); W < mw {
			W = mw
		}
	} else if W < minRecurrence {
		W = minRecurrence
	}
	return W
}

func (w *World) surgeGen(c *company, s int, tick int, g *gen) {
	i := s - int(c.nBase)
	g.k = 0
	g.h = h3(w.seed^saltSurge, uint64(c.idx), uint64(i))
	r := rng{g.h}
	g.open = int(c.surgeStart) + r.intn(int(c.surgeLen))
	d := 40 + r.intn(360)
	g.close = g.open + d
	g.gapStart, g.gapEnd = g.close, g.close
	if r.chance(repostShare) {
		glen := 1 + r.intn(8)
		gs := 2 + r.intn(d-glen-3)
		g.gapStart = g.open + gs
		g.gapEnd = g.gapStart + glen
	}
	g.title = w.titleOf(c, i)
	w.reqDetails(c, g, &r, tick)
}

// reqDetails draws the rest of the req (country, city, remote, salary) and its state at tick.
func (w *World) reqDetails(c *company, g *gen, r *rng, tick int) {
	g.country = c.country
	if !c.hqOnly && !r.chance(hqShare) {
		others := w.regionCountries[c.region]
		if len(others) > 1 {
			x := others[r.intn(len(others)-1)]
			if x == c.country {
				x = others[len(others)-1]
			}
			g.country = x
		}
	}
	g.city = uint8(r.intn(len(countries[g.country].cities)))
	g.remote = r.chance(remoteShare)
	g.salary = r.chance(salaryShare)
	switch x := r.float(); {
	case x < 0.90:
		g.empType = empFullTime
	case x < 0.94:
		g.empType = empPartTime
	case x < 0.98:
		g.empType = empContract
		// Some are fixed-term employment rather than a contractor's: drawn from a hash of their
		// own, so the stream above is what it was.
		if h2(g.h, saltDesc)%temporaryShare == 0 {
			g.empType = empTemporary
		}
	default:
		g.empType = empInternship
	}
	w.multiCountry(c, g)
	g.live = tick >= g.open && tick < g.close && !(tick >= g.gapStart && tick < g.gapEnd)
	if g.hasGap() && tick >= g.gapEnd {
		g.rep = 1
	}
}

// multiOK reports whether every ATS vendor c ever uses can list several places for one posting
// (Ashby secondaryLocations, Personio additionalOffices, Workable one entry per location,
// Teamtailor tt:locations, Breezy locations, an iCIMS card's "US-NY-New York | DE-BE-Berlin"),
// so a multi-country req never appears or vanishes with an ATS migration.
func multiOK(c *company) bool {
	ok := func(v uint8) bool {
		return v == vAshby || v == vPersonio || v == vWorkable || v == vTeamtailor || v == vBreezy || v == vICIMS
	}
	return ok(c.vendor) && (c.vendor2 == vNone || ok(c.vendor2))
}

// multiCountry draws g's second country from its own hash (the other draws stay as they were).
func (w *World) multiCountry(c *company, g *gen) {
	g.country2 = noCountry
	others := w.regionCountries[c.region]
	if g.remote || !multiOK(c) || len(others) < 2 {
		return
	}
	r := rng{h2(g.h, saltMulti)}
	if !r.chance(multiShare) {
		return
	}
	x := others[r.intn(len(others)-1)]
	if x == g.country {
		x = others[len(others)-1]
	}
	g.country2 = x
	// Personio names offices by city only: the first (largest) city, which every place table
	// knows. Others draw a city.
	if c.vendor != vPersonio && c.vendor2 != vPersonio {
		g.city2 = uint8(r.intn(len(countries[x].cities)))
	}
}

// truthID is the stable id of the logical req g (same across reposts and ATS migrations).
func truthID(b []byte, c *company, g *gen) []byte {
	b = append(b, 'c')
	b = strconv.AppendInt(b, int64(c.idx), 10)
	b = append(b, "-s"...)
	b = strconv.AppendInt(b, int64(g.slot), 10)
	b = append(b, "-g"...)
	b = strconv.AppendInt(b, g.k, 10)
	return b
}

// salary of a req: bounds in the country's currency and the period it is quoted per.
type salary struct {
	min, max float64
	currency string
	period   uint8 // periodYear, periodMonth, periodHour
}

const (
	periodYear = iota
	periodMonth
	periodHour
)

func (w *World) salaryOf(g *gen) salary {
	t := &w.titles[g.title]
	cd := &countries[g.country]
	r := rng{h2(g.h, saltExtra)}
	yearly := functionPay[t.fn] * t.pay * cd.pay * cd.fx
	lo := yearly * (0.85 + 0.1*r.float())
	hi := lo * (1.15 + 0.25*r.float())
	s := salary{currency: cd.currency}
	hourlyFn := t.fn == fnSupport || t.fn == fnCustomerSuccess || t.fn == fnOperations
	switch {
	case hourlyFn && r.chance(0.3):
		s.period = periodHour
		lo, hi = lo/2080, hi/2080
	case cd.monthly:
		s.period = periodMonth
		lo, hi = lo/12, hi/12
	}
	s.min, s.max = roundNice(lo), roundNice(hi)
	if s.max <= s.min {
		s.max = s.min * 1.2
	}
	return s
}

// roundNice keeps three significant digits (hourly rates keep cents at half units).
func roundNice(x float64) float64 {
	if x < 100 {
		return math.Round(x*2) / 2
	}
	p := math.Pow(10, math.Floor(math.Log10(x))-2)
	return math.Round(x/p) * p
}
