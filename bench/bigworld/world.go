package bigworld

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// Config says which world to write.
type Config struct {
	// Reqs is the number of distinct reqs in the ledger, live and closed (about 88% live at the
	// end of the history).
	Reqs int
	// Seed selects the world: the simulated world the vocabulary comes from and every draw.
	Seed int64
	// Days of history (default 28): 8 cycles a day in each of the simulator's 7 regions.
	Days int
	// Batch is the number of events per INSERT (default 200,000).
	Batch int
}

func (c Config) withDefaults() Config {
	if c.Days <= 0 {
		c.Days = 28
	}
	if c.Batch <= 0 {
		c.Batch = 200_000
	}
	return c
}

// Epoch is the cycle time of the world's first cycle: a Monday, so momentum weeks are whole.
var Epoch = time.Date(2026, 9, 7, 0, 0, 0, 0, time.UTC)

// cycleEvery is the time between two cycles of a region, as the crawl's schedule has it.
const cycleEvery = 3 * time.Hour

// templateCompanies is the size of the simulated world the companies and reqs are modelled on.
const templateCompanies = 3000

// Event kinds of the generated lifecycle, in the order a req goes through them.
const (
	kindOpened = iota
	kindReobserved
	kindClosed
	kindReposted
)

var kindNames = [...]string{analytics.EventOpened, analytics.EventReobserved, analytics.EventClosed, analytics.EventReposted}

// template is a req of the simulated world's truth: what a generated req takes its title,
// function, country and posting facts from.
type template struct {
	title   string
	country string
	fn      string // the function's name (Engineering, Sales, ...)
	boards  int    // postings on job boards and the aggregator beside the ATS one
	facts   analytics.Facts
	pay     *sim.PayTruth
}

// title is one raw title of the world with what the crawl derives from it.
type title struct {
	raw, clean, key, function string
	keyID                     uint32 // one per distinct title key
}

// boardSource is a job board or aggregator feed of a region.
type boardSource struct {
	key, name, host string
}

// company is one generated company.
type company struct {
	id                                 uint64
	domain, name, nameKey              string
	hq, region, industry, band, agency string
	vendor, tenant, atsHost            string
	regionIdx                          uint8
	firstReq, reqs                     uint32
	weight                             float64 // salary level of its HQ country
}

// req is one generated req: the rest of it (lifecycle, boards, salary) is drawn from its index.
type req struct {
	co      uint32
	title   uint32
	tmpl    uint32
	country uint16
}

// world is everything Generate writes, drawn from the Config.
type world struct {
	cfg       Config
	ticks     int
	regions   []string
	boards    [][]boardSource // per region
	titles    []title
	countries []string
	templates []template
	cos       []company
	reqs      []req

	// The events in ledger order: by tick, region, then req (generation order, which is company
	// order). ev[i] is reqIdx<<2 | kind; bucket b = tick*len(regions)+region holds
	// ev[start[b]:start[b+1]], so its event_seq run is start[b]+1 .. start[b+1].
	ev    []uint32
	start []int
	live  []int64 // live reqs per bucket after its cycle
}

// mix is splitmix64: the world's one source of randomness, a pure function of its input.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// draw is the n-th draw of stream salt for item i.
func (w *world) draw(salt, i uint64) uint64 {
	return mix(uint64(w.cfg.Seed)*0x2545F4914F6CDD1D ^ mix(salt<<40^i))
}

// unit is draw as a float in [0, 1).
func (w *world) unit(salt, i uint64) float64 { return float64(w.draw(salt, i)>>11) / (1 << 53) }

// Draw streams.
const (
	sSize = iota + 1
	sEmpty
	sTemplate
	sQualifier
	sCountry
	sGender
	sOpen
	sReobs
	sClose
	sRepost
	sBoards
	sATS
	sSalary
	sPosted
	sReqID
	sDesc
	sExtra
)

// qualifiers vary a title as teams and markets do ("Senior Software Engineer, Payments").
var qualifiers = []string{"Payments", "Platform", "Growth", "Infrastructure", "Mobile", "Data Platform", "Enterprise",
	"EMEA", "APAC", "Cloud", "Identity", "Search", "Ads", "Billing", "Core", "Developer Experience", "Risk", "Retail",
	"SMB", "Mid-Market", "Partnerships", "Onboarding", "Compliance", "Logistics", "Security", "Marketplace",
	"Customer Experience", "Analytics", "Integrations", "Public Sector", "Healthcare", "Fintech", "AI", "Automation",
	"Supply Chain", "Field", "Strategic Accounts", "North America", "LATAM", "DACH"}

// syllables name the companies beyond the simulated world's own.
var syllables = []string{"ka", "lo", "mi", "ra", "ven", "tor", "sel", "dan", "qui", "bri", "mo", "zen", "al", "fer",
	"gu", "ha", "ix", "jo", "nu", "pe", "ro", "sa", "ti", "u", "va", "we", "xo", "yl", "za", "ber", "cor", "del"}

// functionPay is a mid-level yearly USD salary per function name.
var functionPay = map[string]float64{"Engineering": 120000, "Data & Analytics": 110000, "Product": 125000, "Design": 100000,
	"Sales": 85000, "Marketing": 90000, "Customer Success": 78000, "Support": 58000, "Finance": 88000, "Legal": 130000,
	"People": 80000, "Operations": 78000, "IT": 82000, "Security": 125000}

// countryPay is the salary level of a country relative to the United States (1 when unlisted
// high-income, 0.5 otherwise).
var countryPay = map[string]float64{"United States": 1, "Canada": 0.8, "United Kingdom": 0.75, "Ireland": 0.75,
	"Germany": 0.75, "Switzerland": 1.05, "Austria": 0.7, "France": 0.65, "Netherlands": 0.72, "Spain": 0.5,
	"Australia": 0.8, "Japan": 0.6, "Singapore": 0.8, "Israel": 0.8}

// vendorHosts are the job-page hosts of the ATS vendors, for the req's url.
var vendorHosts = map[string]string{"greenhouse": "job-boards.greenhouse.io", "lever": "jobs.lever.co",
	"ashby": "jobs.ashbyhq.com", "workable": "apply.workable.com", "smartrecruiters": "jobs.smartrecruiters.com",
	"recruitee": "recruitee.com", "personio": "jobs.personio.de", "workday": "myworkdayjobs.com",
	"teamtailor": "career.teamtailor.com", "bamboohr": "bamboohr.com", "icims": "icims.com", "jobvite": "jobs.jobvite.com",
	"jazzhr": "applytojob.com", "rippling": "ats.rippling.com", "pinpoint": "pinpointhq.com", "breezy": "breezy.hr",
	"join": "join.com"}

// newWorld draws the world of cfg: vocabulary, companies, reqs and every req's events in ledger
// order. It holds about 40 bytes a req.
func newWorld(cfg Config) (*world, error) {
	cfg = cfg.withDefaults()
	if cfg.Reqs <= 0 {
		return nil, fmt.Errorf("cannot draw a world of %d reqs: give at least 1", cfg.Reqs)
	}
	if cfg.Reqs >= 1<<30 {
		return nil, fmt.Errorf("cannot draw a world of %d reqs: at most %d", cfg.Reqs, 1<<30-1)
	}
	w := &world{cfg: cfg, ticks: cfg.Days * 8, regions: sim.Regions()}
	sw := sim.New(sim.Config{Seed: cfg.Seed, Companies: templateCompanies, DescriptionCache: -1, Epoch: Epoch})
	const truthTick = 100
	dir := sw.Directory(truthTick)
	truth := sw.Truth(truthTick)
	regionIdx := map[string]int{}
	for i, r := range w.regions {
		regionIdx[r] = i
	}
	w.boards = make([][]boardSource, len(w.regions))
	type ats struct{ vendor, tenant string }
	atsOf := map[string]ats{}
	for _, s := range dir.Sources {
		switch s.Kind {
		case sim.KindATSTenant:
			atsOf[s.CompanyDomain] = ats{s.Vendor, s.Tenant}
		case sim.KindBoard, sim.KindAggregator:
			ri, ok := regionIdx[s.Region]
			if !ok {
				continue
			}
			host := s.Key[strings.IndexByte(s.Key, ':')+1:]
			if i := strings.IndexByte(host, '/'); i > 0 {
				host = host[:i]
			}
			w.boards[ri] = append(w.boards[ri], boardSource{key: s.Key, name: s.Board, host: host})
		}
	}
	countryID := map[string]uint16{}
	country := func(name string) uint16 {
		id, ok := countryID[name]
		if !ok {
			id = uint16(len(w.countries))
			countryID[name] = id
			w.countries = append(w.countries, name)
		}
		return id
	}
	for _, r := range truth.Reqs {
		t := template{title: r.Title, country: r.Country, fn: r.Function}
		for _, p := range r.Postings {
			if strings.HasPrefix(p.SourceKey, "jsonld:") || strings.HasPrefix(p.SourceKey, "aggregator:") {
				t.boards++
			}
		}
		if d := r.Description; d != nil {
			t.facts = factsOf(d)
			t.pay = d.Pay
		}
		country(r.Country)
		w.templates = append(w.templates, t)
	}
	if len(w.templates) == 0 {
		return nil, fmt.Errorf("cannot draw a world: the simulated world of seed %d has no reqs", cfg.Seed)
	}

	// Companies, with a heavy-tailed number of reqs each, until the reqs are drawn.
	total := 0
	for i := 0; total < cfg.Reqs; i++ {
		t := dir.Companies[i%len(dir.Companies)]
		g := i / len(dir.Companies)
		c := company{hq: t.HQCountry, region: t.Region, industry: t.Industry, band: t.HeadcountBand, agency: t.AgencyKind,
			regionIdx: uint8(regionIdx[t.Region]), domain: t.Domain, name: t.Name}
		a := atsOf[t.Domain]
		c.vendor, c.tenant = a.vendor, a.tenant
		if g > 0 {
			p := prefix(g)
			c.name = strings.ToUpper(p[:1]) + p[1:] + " " + t.Name
			c.domain = p + t.Domain
			if c.tenant != "" {
				c.tenant = p + c.tenant
			}
		}
		c.id = pipeline.CompanyID(c.domain)
		c.nameKey = normalize.CompanyKey(c.name)
		c.atsHost = vendorHosts[c.vendor]
		if c.atsHost == "" && c.vendor != "" {
			c.atsHost = c.vendor + ".example"
		}
		c.weight = 0.5
		if p, ok := countryPay[c.hq]; ok {
			c.weight = p
		}
		if w.unit(sEmpty, uint64(i)) >= 0.12 { // 12% of the directory has no req
			// Pareto with index 1 from 1, capped at 5,000: median 2, mean about 9.5.
			n := int(math.Min(5000, 1/(1-w.unit(sSize, uint64(i)))))
			n = min(n, cfg.Reqs-total)
			c.firstReq, c.reqs = uint32(total), uint32(n)
			total += n
		}
		w.cos = append(w.cos, c)
	}

	// Reqs: a template each, a title varied as feeds vary it, unique (title key, country) per
	// company, as the crawl's req key makes them.
	w.reqs = make([]req, cfg.Reqs)
	titleID := map[string]uint32{}
	keyID := map[string]uint32{}
	seen := map[uint64]bool{}
	for ci := range w.cos {
		c := &w.cos[ci]
		clear(seen)
		for j := uint32(0); j < c.reqs; j++ {
			ri := uint64(c.firstReq + j)
			r := req{co: uint32(ci)}
			for attempt := uint64(0); ; attempt++ {
				d := ri<<8 | attempt
				r.tmpl = uint32(w.draw(sTemplate, d) % uint64(len(w.templates)))
				t := &w.templates[r.tmpl]
				raw := t.title
				if attempt > 0 || w.unit(sQualifier, d) < 0.25 {
					raw += ", " + qualifiers[w.draw(sQualifier, d+1)%uint64(len(qualifiers))]
				}
				if attempt >= 8 {
					raw += fmt.Sprintf(" %d", attempt)
				}
				if c.region == "dach" && w.unit(sGender, d) < 0.5 {
					raw += " (m/w/d)"
				}
				r.country = country(c.hq)
				if w.unit(sCountry, d) < 0.25 {
					r.country = country(t.country)
				}
				id, ok := titleID[raw]
				if !ok {
					tk := normalize.TitleKey(raw)
					k, ok := keyID[tk]
					if !ok {
						k = uint32(len(keyID))
						keyID[tk] = k
					}
					fn, _ := normalize.Classify(raw)
					id = uint32(len(w.titles))
					titleID[raw] = id
					w.titles = append(w.titles, title{raw: raw, clean: normalize.CleanTitle(raw), key: tk, function: fn, keyID: k})
				}
				r.title = id
				u := uint64(w.titles[id].keyID)<<16 | uint64(r.country)
				if w.titles[id].key != "" && !seen[u] {
					seen[u] = true
					break
				}
			}
			w.reqs[ri] = r
		}
	}
	w.lay()
	return w, nil
}

// prefix is the name part that tells the g-th copy of a simulated company from the others.
func prefix(g int) string {
	var b strings.Builder
	for g > 0 {
		b.WriteString(syllables[g%len(syllables)])
		g /= len(syllables)
	}
	return b.String()
}

// factsOf is what a posting of a req of this truth states.
func factsOf(d *sim.DescriptionTruth) analytics.Facts {
	f := analytics.Facts{Seniority: d.Seniority, EmploymentType: d.EmploymentType, WorkplaceType: d.WorkplaceType,
		RemoteCountries: slices.Clone(d.RemoteCountries)}
	for _, s := range d.TechnologiesRequired {
		f.Technologies, f.TechKinds = append(f.Technologies, s), append(f.TechKinds, analytics.TechRequired)
	}
	for _, s := range d.TechnologiesNice {
		f.Technologies, f.TechKinds = append(f.Technologies, s), append(f.TechKinds, analytics.TechNiceToHave)
	}
	if len(f.Technologies) > analytics.MaxTechnologies {
		f.Technologies, f.TechKinds = f.Technologies[:analytics.MaxTechnologies], f.TechKinds[:analytics.MaxTechnologies]
	}
	if y := d.YearsExperienceMin; y != nil && *y >= 0 && *y < 256 {
		v := uint8(*y)
		f.YearsMin = &v
	}
	if v := d.VisaSponsorship; v != nil {
		b := *v
		f.Visa = &b
	}
	return f
}

// life is a req's lifecycle: the tick of each of its events, -1 when it has none. open <
// reobs < close < repost where set.
type life struct{ open, reobs, close, repost int }

func (w *world) lifeOf(i uint32) life {
	id, last := uint64(i), w.ticks-1
	l := life{reobs: -1, close: -1, repost: -1}
	if w.unit(sOpen, id) >= 0.65 { // 65% live from the first cycle, the rest open later
		l.open = 1 + int(w.draw(sOpen, id^1<<32)%uint64(max(1, last)))
		l.open = min(l.open, last)
	}
	after := l.open
	if w.unit(sReobs, id) < 0.2 && after < last {
		l.reobs = after + 1 + int(w.draw(sReobs, id^1<<32)%uint64(last-after))
		after = l.reobs
	}
	if w.unit(sClose, id) < 0.17 && after < last {
		l.close = after + 1 + int(w.draw(sClose, id^1<<32)%uint64(last-after))
		if w.unit(sRepost, id) < 0.3 {
			if r := l.close + 1 + int(w.draw(sRepost, id^1<<32)%8); r <= last {
				l.repost = r
			}
		}
	}
	return l
}

// lay puts every req's events in ledger order (a counting sort by cycle) and counts the live
// reqs of each cycle's region.
func (w *world) lay() {
	nb := w.ticks * len(w.regions)
	count := make([]int, nb+1)
	delta := make([]int64, nb)
	each := func(fn func(i uint32, kind, tick int)) {
		for i := range w.reqs {
			l := w.lifeOf(uint32(i))
			fn(uint32(i), kindOpened, l.open)
			if l.reobs >= 0 {
				fn(uint32(i), kindReobserved, l.reobs)
			}
			if l.close >= 0 {
				fn(uint32(i), kindClosed, l.close)
			}
			if l.repost >= 0 {
				fn(uint32(i), kindReposted, l.repost)
			}
		}
	}
	each(func(i uint32, kind, tick int) {
		b := tick*len(w.regions) + int(w.cos[w.reqs[i].co].regionIdx)
		count[b+1]++
		switch kind {
		case kindOpened, kindReposted:
			delta[b]++
		case kindClosed:
			delta[b]--
		}
	})
	for b := 0; b < nb; b++ {
		count[b+1] += count[b]
	}
	w.start = count
	w.ev = make([]uint32, count[nb])
	next := slices.Clone(count[:nb])
	each(func(i uint32, kind, tick int) {
		b := tick*len(w.regions) + int(w.cos[w.reqs[i].co].regionIdx)
		w.ev[next[b]] = i<<2 | uint32(kind)
		next[b]++
	})
	w.live = make([]int64, nb)
	for b := range delta {
		w.live[b] = delta[b]
		if b >= len(w.regions) {
			w.live[b] += w.live[b-len(w.regions)]
		}
	}
}

// cycleTime is the cycle time of tick.
func cycleTime(tick int) time.Time { return Epoch.Add(time.Duration(tick) * cycleEvery) }
