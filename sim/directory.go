package sim

import "time"

// Directory is the list of sources and known companies at a tick (GET /_sim/directory).
type Directory struct {
	Tick      int       `json:"tick"`
	CycleTime time.Time `json:"cycle_time"`
	Regions   []string  `json:"regions"`
	Companies []Company `json:"companies"`
	Sources   []Source  `json:"sources"`
}

// Company is one known company of the directory.
type Company struct {
	Domain        string `json:"domain"`
	Name          string `json:"name"`
	HQCountry     string `json:"hq_country"`
	Region        string `json:"region"`
	Industry      string `json:"industry"`
	HeadcountBand string `json:"headcount_band"`
	AgencyKind    string `json:"agency_kind"`
}

// Source is one URL the crawl reads each cycle (following its pagination).
type Source struct {
	Key           string `json:"key"`
	Vendor        string `json:"vendor"`
	Kind          string `json:"kind"` // ats_tenant, board or aggregator
	Board         string `json:"board,omitempty"`
	Region        string `json:"region"`
	Tenant        string `json:"tenant,omitempty"`
	CompanyDomain string `json:"company_domain,omitempty"`
	URL           string `json:"url"`
}

// Source kinds.
const (
	KindATSTenant  = "ats_tenant"
	KindBoard      = "board"
	KindAggregator = "aggregator"
)

// Regions returns the region codes in contract order.
func Regions() []string { return append([]string(nil), regionNames[:]...) }

// Directory returns the directory at tick: every company, then the ATS tenants active at
// tick (in company order), the JSON-LD boards and the aggregator feeds.
func (w *World) Directory(tick int) Directory {
	d := Directory{
		Tick:      tick,
		CycleTime: w.CycleTime(tick),
		Regions:   Regions(),
		Companies: make([]Company, len(w.companies)),
		Sources:   make([]Source, 0, len(w.companies)+len(boardDefs)+numRegions),
	}
	for i := range w.companies {
		c := &w.companies[i]
		d.Companies[i] = w.directoryCompany(c)
	}
	w.eachSource(tick, func(s Source) { d.Sources = append(d.Sources, s) })
	return d
}

func (w *World) directoryCompany(c *company) Company {
	dc := Company{
		Domain:        c.domain,
		Name:          c.name,
		HQCountry:     countries[c.country].name,
		Region:        regionNames[c.region],
		HeadcountBand: bandNames[c.band],
		AgencyKind:    agencyKinds[c.agency],
	}
	if c.industry >= 0 {
		dc.Industry = industries[c.industry]
	}
	return dc
}

// eachSource calls fn for every source of the directory at tick, in directory order.
func (w *World) eachSource(tick int, fn func(Source)) {
	for i := range w.companies {
		c := &w.companies[i]
		v := c.vendorAt(tick)
		if v == vNone {
			continue
		}
		fn(Source{
			Key:           tenantKey(c, v),
			Vendor:        vendorNames[v],
			Kind:          KindATSTenant,
			Region:        regionNames[c.region],
			Tenant:        c.tenant(v),
			CompanyDomain: c.domain,
			URL:           w.tenantURL(c, v),
		})
	}
	for bi, b := range boardDefs {
		fn(Source{
			Key:    w.boardKey(bi),
			Vendor: vendorNames[vJSONLD],
			Kind:   KindBoard,
			Board:  b.name,
			Region: regionNames[b.region],
			URL:    w.boardURL(bi),
		})
	}
	for r := 0; r < numRegions; r++ {
		fn(Source{
			Key:    w.aggregatorKey(r),
			Vendor: vendorNames[vAggregator],
			Kind:   KindAggregator,
			Board:  aggregatorName,
			Region: regionNames[r],
			URL:    w.aggregatorURL(r),
		})
	}
}

func (w *World) aggregatorKey(r int) string { return w.aggKeys[r] }
func (w *World) boardKey(bi int) string     { return w.boardKeys[bi] }
