package sim

import (
	"hash/crc32"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/planehq/hiringsignal/internal/atsurl"
)

// World is a deterministic simulated hiring world. It is safe for concurrent use.
type World struct {
	cfg    Config
	seed   uint64
	titles []titleDef
	tinfo  []titleInfo // per title: what it implies for descriptions
	units  []uint16    // units modulo len(titles): multipliers of per-company title permutations
	wtab   [256]int32  // log-uniform window lengths of base slots
	zones  []*time.Location

	companies []company
	// tenants maps vendor → tenant → company index (a tenant exists under a vendor whether or
	// not it is active at a given tick; activity is checked per tick).
	tenants [numVendors]map[string]int32
	// regionCountries lists country indexes per region.
	regionCountries [numRegions][]uint8
	// boardsOf lists the two list-board indexes (into boardDefs) of each region.
	boardsOf [numRegions][2]int
	// pageBoard is the job-page board index (into boardDefs) of each region.
	pageBoard [numRegions]int
	// covered lists the indexes of companies with an ATS tenant, per region.
	covered [numRegions][]int32
	// Source keys of the boards and aggregator feeds.
	boardKeys []string
	aggKeys   [numRegions]string
	// boardHosts maps a board's host to its index into boardDefs, and apiHosts lists the
	// vendors' API hosts (atsurl.Hosts), for host routing.
	boardHosts map[string]int
	apiHosts   []string
	// domains maps a company's domain to its index (its careers site answers there and on www.),
	// joinSlugs a JOIN company page's slug to the index of the company ever on JOIN, and demos
	// holds the demo company of each ATS vendor with a demo tenant (sites.go).
	domains   map[string]int32
	joinSlugs map[string]int32
	demos     [numVendors]company

	pinned   atomic.Int64 // -1 when never pinned
	attempts attemptTracker
	snaps    snapCache
	bufs     sync.Pool // *[]byte body buffers
	descs    sync.Pool // *descDoc: descriptions being written
	dcache   *descCache
	slotBase []int32   // per company index (and demo company past them): its first slot's index
	gz       sync.Pool // *gzip.Writer at BestSpeed
	crc      *crc32.Table
}

// company is the static data of one company.
type company struct {
	idx      int32
	key      uint64
	core     string // brand name without legal suffix, e.g. "Brightwell" or "Kestrel Systems"
	slug     string // lower-case alphanumeric core: tenant token
	camel    string // CamelCase core: SmartRecruiters company identifier
	kebab    string // lower-case hyphenated core: Personio, Breezy, Pinpoint, Jobvite and Rippling tenant, JOIN page slug
	name     string // directory name: core + one legal spelling
	domain   string
	country  uint8
	region   uint8
	industry int8 // -1 unknown
	band     uint8
	agency   uint8
	legal    uint8 // legalForms index
	spelling uint8 // spelling used in the directory name
	atsName  uint8 // 0: ATS feeds show the core name, 1: the directory name

	vendor  uint8 // 0 when not covered
	vendor2 uint8 // vendor after migration (0 when none)
	migrate int32 // first tick on vendor2

	hqOnly bool // every req in the HQ country (Personio cannot publish a country)

	nBase, nSurge uint16
	surgeStart    int32 // first tick of the surge window
	surgeLen      int32

	// Title permutation: position x of the company's title space holds title
	// (permMul*(x - permB)) mod NT; slots own positions, so they never share a title.
	permMul, permB uint16
}

func (c *company) nSlots() int { return int(c.nBase) + int(c.nSurge) }

// vendorAt returns the ATS vendor of c at tick (0 when not covered).
func (c *company) vendorAt(tick int) uint8 {
	if c.vendor2 != 0 && tick >= int(c.migrate) {
		return c.vendor2
	}
	return c.vendor
}

// tenant returns the tenant token of c on vendor v.
func (c *company) tenant(v uint8) string {
	switch v {
	case vSmartRecruiters:
		return c.camel
	case vPersonio, vBreezy, vPinpoint:
		return c.kebab
	case vJoin:
		return joinCompanyID(c)
	case vWorkday:
		return c.slug + "/" + workdayDC(c) + "/" + workdaySite(c)
	case vICIMS:
		return "careers-" + c.slug
	case vJobvite, vRippling:
		return c.kebab
	}
	return c.slug
}

// joinSlug is c's name in its JOIN company page's URL (join.com/companies/{slug}).
func joinSlug(c *company) string { return c.kebab }

// joinCompanyID is c's company number on JOIN, unique in the world (JOIN's API names a company
// by number, not by name).
func joinCompanyID(c *company) string { return strconv.Itoa(100000 + int(c.idx)) }

// New builds a world. Static per-company data is computed here; everything that depends on
// the tick is computed on the fly.
func New(cfg Config) *World {
	cfg = cfg.withDefaults()
	w := &World{cfg: cfg, seed: mix64(uint64(cfg.Seed) ^ 0x5EED5EED)}
	w.pinned.Store(-1)
	w.boardHosts = make(map[string]int, len(boardDefs))
	w.apiHosts = append(atsurl.Hosts(), atsurl.PageHosts()...)
	w.titles = buildTitles()
	w.tinfo = buildTitleInfo(w.titles)
	w.units = unitsMod(len(w.titles))
	w.wtab = windowTable()
	w.zones = buildZones()
	for i := range countries {
		r := countries[i].region
		w.regionCountries[r] = append(w.regionCountries[r], uint8(i))
	}
	var nb [numRegions]int
	for i, b := range boardDefs {
		if b.pages {
			w.pageBoard[b.region] = i
			continue
		}
		w.boardsOf[b.region][nb[b.region]] = i
		nb[b.region]++
	}
	for bi := range boardDefs {
		w.boardKeys = append(w.boardKeys, atsurl.SourceKey(atsurl.JSONLD, "", "", hostBoardURL(bi)))
		w.boardHosts[boardDefs[bi].host] = bi
	}
	for r := range regionNames {
		w.aggKeys[r] = atsurl.SourceKey(atsurl.Aggregator, "", "", hostAggregatorURL(r))
	}
	for v := range w.tenants {
		w.tenants[v] = map[string]int32{}
	}
	w.buildCompanies()
	w.domains = make(map[string]int32, len(w.companies))
	w.joinSlugs = map[string]int32{}
	for i := range w.companies {
		c := &w.companies[i]
		w.domains[c.domain] = int32(i)
		if c.vendor == vJoin || c.vendor2 == vJoin {
			w.joinSlugs[joinSlug(c)] = int32(i)
		}
	}
	for v := vGreenhouse; v <= lastATS; v++ {
		if demoTenants[v].tenant != "" {
			w.demos[v] = w.demoCompany(uint8(v))
		}
	}
	w.slotBase = make([]int32, len(w.companies)+numVendors)
	slots := 0
	for i := range w.slotBase {
		w.slotBase[i] = int32(slots)
		if i < len(w.companies) {
			slots += w.companies[i].nSlots()
		} else {
			slots += w.demos[i-len(w.companies)].nSlots()
		}
	}
	w.dcache = newDescCache(cfg.DescriptionCache, slots)
	w.bufs.New = func() any { b := make([]byte, 0, 64<<10); return &b }
	w.gz.New = newGzipWriter
	w.crc = crc32.MakeTable(crc32.Castagnoli)
	return w
}

// unitsMod returns the units modulo n (the a for which x → a*x mod n is a bijection).
func unitsMod(n int) []uint16 {
	var out []uint16
	for a := 1; a < n; a++ {
		if gcd(a, n) == 1 {
			out = append(out, uint16(a))
		}
	}
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func (w *World) buildCompanies() {
	n := w.cfg.Companies
	w.companies = make([]company, n)
	usedCore := make(map[string]bool, n)
	cw := make([][]float64, numRegions)
	for r := 0; r < numRegions; r++ {
		for _, ci := range w.regionCountries[r] {
			cw[r] = append(cw[r], countries[ci].weight)
		}
	}
	nt := len(w.titles)
	for i := 0; i < n; i++ {
		c := &w.companies[i]
		c.idx = int32(i)
		c.key = h2(w.seed^saltCompany, uint64(i))
		r := rng{c.key}

		c.core = w.uniqueCore(i, usedCore)
		c.slug = slugOf(c.core)
		c.camel = strings.ReplaceAll(c.core, " ", "")
		c.kebab = strings.ToLower(strings.ReplaceAll(c.core, " ", "-"))

		c.region = uint8(r.pick(regionWeights))
		c.country = w.regionCountries[c.region][r.pick(cw[c.region])]
		cd := &countries[c.country]
		c.legal = uint8(cd.legal[r.intn(len(cd.legal))])
		// The directory mostly uses the usual spelling, sometimes another one.
		if r.chance(0.8) {
			c.spelling = 0
		} else {
			c.spelling = uint8(r.intn(len(legalForms[c.legal].spellings)))
		}
		c.name = c.core + legalForms[c.legal].spellings[c.spelling]
		c.atsName = uint8(r.intn(2))
		tld := ".com"
		switch x := r.float(); {
		case x < 0.35:
			tld = cd.tld
		case x < 0.45:
			tld = ".io"
		case x < 0.50:
			tld = ".co"
		}
		c.domain = c.slug + tld

		c.agency = uint8(r.pick(agencyWeights))
		switch agencyKinds[c.agency] {
		case "staffing_agency":
			c.industry = indStaffing
		case "job_board":
			c.industry = indInternet
		default:
			if r.chance(0.04) {
				c.industry = -1
			} else {
				c.industry = int8(r.pick(industryWeights))
			}
		}
		c.band = uint8(r.pick(bandWeights))

		// Coverage: ~85% have one ATS tenant.
		if r.chance(0.85) {
			var wbuf [numVendors]float64
			weights := atsWeights(wbuf[:0], c.region, c.band)
			c.vendor = uint8(vGreenhouse + r.pick(weights))
			if r.chance(0.02) {
				v2 := uint8(vGreenhouse + r.pick(weights))
				for v2 == c.vendor {
					v2 = uint8(vGreenhouse + r.intn(lastATS-vGreenhouse+1))
				}
				c.vendor2 = v2
				c.migrate = int32(8 + r.intn(960))
			}
			c.hqOnly = c.vendor == vPersonio || c.vendor2 == vPersonio
			target := bandLiveReqs[c.band] * (0.7 + 0.6*r.float())
			nb := int(math.Round(target / 0.6))
			nb = max(2, min(nb, 110))
			c.nBase = uint16(nb)
			if r.chance(0.02) {
				c.nSurge = uint16(min(2*nb+2, 170))
				c.surgeStart = int32(16 + r.intn(960))
				c.surgeLen = int32(24 + r.intn(97))
			}
			c.permMul = w.units[r.intn(len(w.units))]
			c.permB = uint16(r.intn(nt))
			w.covered[c.region] = append(w.covered[c.region], int32(i))
			w.tenants[c.vendor][c.tenant(c.vendor)] = int32(i)
			if c.vendor2 != 0 {
				w.tenants[c.vendor2][c.tenant(c.vendor2)] = int32(i)
			}
		}
	}
}

// uniqueCore draws a brand name for company i that no earlier company uses.
func (w *World) uniqueCore(i int, used map[string]bool) string {
	for attempt := uint64(0); ; attempt++ {
		r := rng{h3(w.seed^saltName, uint64(i), attempt)}
		var b strings.Builder
		ns := 2
		if r.chance(0.45) {
			ns = 3
		}
		for j := 0; j < ns; j++ {
			b.WriteString(nameSyllables[r.intn(len(nameSyllables))])
		}
		b.WriteString(nameEndings[r.intn(len(nameEndings))])
		word := b.String()
		if len(word) < 4 || len(word) > 14 {
			continue
		}
		core := capitalize(word)
		if r.chance(0.18) {
			core += " " + nameDescriptors[r.intn(len(nameDescriptors))]
		}
		slug := slugOf(core)
		if used[word] || used[slug] {
			continue
		}
		used[word], used[slug] = true, true
		return core
	}
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func slugOf(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TickAt returns the tick whose cycle contains t (floor; negative before the epoch).
func (w *World) TickAt(t time.Time) int {
	d := t.Sub(w.cfg.Epoch)
	tick := int(d / TickDuration)
	if d < 0 && d%TickDuration != 0 {
		tick--
	}
	return tick
}

// CycleTime returns the start of tick's cycle: epoch + tick*3h.
func (w *World) CycleTime(tick int) time.Time {
	return w.cfg.Epoch.Add(time.Duration(tick) * TickDuration)
}

// Pin pins the served tick (as POST /_sim/tick does). Negative ticks are clamped to 0.
func (w *World) Pin(tick int) {
	w.pinned.Store(int64(max(tick, 0)))
}

// CurrentTick is the served tick: the pinned tick, or Config.Clock's tick when never pinned.
func (w *World) CurrentTick() int {
	if p := w.pinned.Load(); p >= 0 {
		return int(p)
	}
	return max(0, w.TickAt(w.cfg.Clock.Now()))
}

// Config returns the effective configuration (defaults applied).
func (w *World) Config() Config { return w.cfg }
