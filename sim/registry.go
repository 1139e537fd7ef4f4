package sim

import (
	"encoding/csv"
	"fmt"
	"io"
)

// RegistryColumns is the header of RegistryCSV: the source registry's import format.
var RegistryColumns = []string{"domain", "name", "vendor", "tenant", "variant", "hq_country", "industry", "headcount_band", "agency_kind", "url", "region"}

// RegistryCSV writes the world's source registry at tick as CSV (header RegistryColumns), the
// file an operator imports into the registry: in company order, one row per company, with its ATS
// tenant active at tick when it has one (vendor, tenant; the URL is the registry's to render) or
// with vendor and tenant empty (a company known only through boards); then one row per JSON-LD
// board and one per aggregator feed (domain empty, name the board's display name, url its
// host-mode URL, region the region it serves). hq_country is the ISO alpha-2 code. Every source's
// key, atsurl.SourceKey of the row, is its key in the directory and the truth, in both modes.
func (w *World) RegistryCSV(out io.Writer, tick int) error {
	cw := csv.NewWriter(out)
	if err := cw.Write(RegistryColumns); err != nil {
		return fmt.Errorf("cannot write the registry: %w", err)
	}
	row := make([]string, len(RegistryColumns))
	for i := range w.companies {
		c := &w.companies[i]
		clear(row)
		row[0], row[1] = c.domain, c.name
		if v := c.vendorAt(tick); v != vNone {
			row[2], row[3] = vendorNames[v], c.tenant(v)
		}
		row[5] = countries[c.country].a2
		if c.industry >= 0 {
			row[6] = industries[c.industry]
		}
		row[7], row[8] = bandNames[c.band], agencyKinds[c.agency]
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("cannot write the registry: %w", err)
		}
	}
	for bi := range boardDefs {
		clear(row)
		row[1], row[2], row[9], row[10] = boardDefs[bi].display, vendorNames[vJSONLD], hostBoardURL(bi), regionNames[boardDefs[bi].region]
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("cannot write the registry: %w", err)
		}
	}
	for r := range regionNames {
		clear(row)
		row[1], row[2], row[9], row[10] = aggregatorDisplay, vendorNames[vAggregator], hostAggregatorURL(r), regionNames[r]
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("cannot write the registry: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("cannot write the registry: %w", err)
	}
	return nil
}
