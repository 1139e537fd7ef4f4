package sources

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
)

// Directory builds the crawl's directory at tick from the registry (BuildDirectory over
// oltp.RegistryDirectory).
func Directory(ctx context.Context, db *pgxpool.Pool, tick int, cycleTime time.Time) (*pipeline.Directory, error) {
	reg, err := oltp.RegistryDirectory(ctx, db)
	if err != nil {
		return nil, err
	}
	return BuildDirectory(reg, tick, cycleTime), nil
}

// BuildDirectory turns the registry into the crawl's directory, in the shape the simulator's
// directory has:
//
//   - Regions are normalize.Regions();
//   - every company, its HQCountry the country's canonical name (normalize.CountryName) and its
//     agency kind as the crawl spells it ("" for an employer, "unknown" when unclassified);
//   - the active, suspect and paused sources, each with its Status. Paused and suspect sources stay
//     in the directory so that the reqs they carried are unknown while they are not read, never
//     closed. A retired source is left out: leaving the directory is what lets the reqs it alone
//     carried close. Candidates are not in the registry's listing at all.
//
// A company whose country (hence region) is unknown, and its sources, are crawled with region
// na (DefaultRegion): the region only partitions the crawl's work, and a registry row that names
// just a domain, a name, a vendor and a tenant must be crawled.
func BuildDirectory(reg oltp.RegistryListing, tick int, cycleTime time.Time) *pipeline.Directory {
	d := &pipeline.Directory{
		Tick:      tick,
		CycleTime: cycleTime,
		Regions:   normalize.Regions(),
		Companies: make([]pipeline.Company, 0, len(reg.Companies)),
		Sources:   make([]pipeline.Source, 0, len(reg.Sources)),
	}
	for _, c := range reg.Companies {
		hq := ""
		if c.HQCountry != "" {
			hq, _ = normalize.CountryName(c.HQCountry)
		}
		kind := c.AgencyKind
		if kind == "employer" {
			kind = ""
		}
		d.Companies = append(d.Companies, pipeline.Company{Domain: c.Domain, Name: c.Name, HQCountry: hq, Region: regionOr(c.Region),
			Industry: c.Industry, HeadcountBand: c.HeadcountBand, AgencyKind: kind})
	}
	for _, s := range reg.Sources {
		switch s.Status {
		case oltp.SourceActive, oltp.SourceSuspect, oltp.SourcePaused:
		case oltp.SourceRetired:
			d.Retired = append(d.Retired, s.Key)
			continue
		default:
			continue
		}
		d.Sources = append(d.Sources, pipeline.Source{Key: s.Key, Vendor: s.Vendor, Kind: s.Kind, Region: regionOr(s.Region), Tenant: s.Tenant,
			Board: s.Board, CompanyDomain: s.CompanyDomain, URL: s.URL, Status: s.Status})
	}
	return d
}

// DefaultRegion is the crawl region of a company whose HQ country is not known.
const DefaultRegion = normalize.RegionNA

func regionOr(r string) string {
	if r == "" {
		return DefaultRegion
	}
	return r
}
