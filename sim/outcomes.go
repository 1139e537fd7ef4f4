package sim

import "math"

// Conversion outcomes: the world's hidden answer to "does a sales touch on this company convert?"
// Each company has a conversion propensity at every tick, tied to its true hiring motion (how
// many reqs it opened in the trailing 4 weeks against how many it carries) plus a per-company
// trait the crawl cannot see (noise on the logit). OutcomeLabels draws labels from it, as
// customers' CRMs would report them, so a score fitted on the crawl's pulse can be checked
// against labels it never saw. Like everything else here it is a pure function of (seed,
// company, tick, draw).

// Coefficients of the propensity's logit: logit p = PropensityBase + PropensityOpened·ln(1 +
// opened in the trailing 28 days) + PropensityLive·ln(1 + live reqs) + noise, noise ~ N(0,
// PropensityNoise²) per company. Companies without coverage have no motion: only base and noise.
const (
	PropensityBase   = -4.1
	PropensityOpened = 1.3
	PropensityLive   = -0.4
	PropensityNoise  = 0.35
)

// motionWindow is the trailing window of "opened" in the propensity: 28 days of 3-hour ticks.
const motionWindow = 28 * 8

const (
	saltPropensity uint64 = 0xC0117E75
	saltOutcome    uint64 = 0x0DDC0DE5
)

// Motion is a company's true hiring motion at a tick.
type Motion struct {
	Live     int // logical reqs live at the tick
	Opened28 int // logical reqs whose life began in the trailing 28 days (tick-223 .. tick)
}

// motion counts c's live reqs at tick and the lives begun in the trailing window. A slot's
// generation lives inside a window of at least minWindow ticks, so sampling every 8 ticks visits
// every generation that began in the trailing window.
func (w *World) motion(c *company, tick int) Motion {
	var m Motion
	if c.vendor == vNone {
		return m
	}
	for s := 0; s < c.nSlots(); s++ {
		g := w.genAt(c, s, tick)
		if g.live {
			m.Live++
		}
		seen := map[int64]bool{}
		for t := tick; t > tick-motionWindow-8; t -= 8 {
			g := w.genAt(c, s, t)
			if g.open > tick-motionWindow && g.open <= tick && !seen[g.k] {
				seen[g.k] = true
				m.Opened28++
			}
		}
	}
	return m
}

// trait is company c's hidden deviation of the propensity's logit: N(0, PropensityNoise²).
func (w *World) trait(c *company) float64 {
	r := rng{h2(w.seed^saltPropensity, uint64(c.idx))}
	u1, u2 := r.float(), r.float()
	return PropensityNoise * math.Sqrt(-2*math.Log(1-u1)) * math.Cos(2*math.Pi*u2)
}

func (w *World) propensity(c *company, tick int) float64 {
	m := w.motion(c, tick)
	logit := PropensityBase + w.trait(c)
	if c.vendor != vNone {
		logit += PropensityOpened*math.Log1p(float64(m.Opened28)) + PropensityLive*math.Log1p(float64(m.Live))
	}
	return 1 / (1 + math.Exp(-logit))
}

// Propensity is the hidden conversion probability of the company at domain at tick, and its true
// motion; ok is false for a domain the world does not have.
func (w *World) Propensity(domain string, tick int) (p float64, m Motion, ok bool) {
	for i := range w.companies {
		if c := &w.companies[i]; c.domain == domain {
			return w.propensity(c, tick), w.motion(c, tick), true
		}
	}
	return 0, Motion{}, false
}

// OutcomeLabel is one reported outcome: a sales touch on the company at Tick converted
// (Positive) or not.
type OutcomeLabel struct {
	CompanyDomain string `json:"company_domain"`
	Tick          int    `json:"tick"`
	Positive      bool   `json:"positive"`
}

// OutcomeLabels draws perCompany labels for every company at tick from its propensity there.
// draw selects an independent set of draws (e.g. one to fit on, another to check against).
func (w *World) OutcomeLabels(tick, perCompany int, draw uint64) []OutcomeLabel {
	out := make([]OutcomeLabel, 0, len(w.companies)*perCompany)
	for i := range w.companies {
		c := &w.companies[i]
		p := w.propensity(c, tick)
		r := rng{h4(w.seed^saltOutcome, uint64(c.idx), uint64(int64(tick)+tickBase), draw)}
		for j := 0; j < perCompany; j++ {
			out = append(out, OutcomeLabel{CompanyDomain: c.domain, Tick: tick, Positive: r.chance(p)})
		}
	}
	return out
}
