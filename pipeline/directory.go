package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Source is one URL the crawl reads each cycle (docs/crawl-contract.md).
type Source struct {
	Key           string `json:"key"`
	Vendor        string `json:"vendor"`
	Kind          string `json:"kind"` // ats_tenant, careers_site (a company's own JSON-LD pages), board, aggregator
	Region        string `json:"region"`
	Tenant        string `json:"tenant,omitempty"`
	Board         string `json:"board,omitempty"`
	CompanyDomain string `json:"company_domain,omitempty"`
	URL           string `json:"url"`
	// Status is the registry's status of a source read from the source registry (pipeline/sources):
	// "" (the simulator's directory) and active are read each cycle; suspect is read and watched;
	// paused stays listed so its reqs are unknown, never closed, and is not to be fetched.
	Status string `json:"status,omitempty"`
}

// BoardName is the name reported in a req's boards for postings from this source.
func (s Source) BoardName() string {
	if s.Board != "" {
		return s.Board
	}
	return s.Vendor
}

// SourceType is the req attribute: ats_tenant for ATS tenants, board for the rest (boards,
// aggregators, and careers sites, whose pages are no ATS feed).
func (s Source) SourceType() string {
	if s.Kind == "ats_tenant" {
		return "ats_tenant"
	}
	return "board"
}

// Company is a known employer.
type Company struct {
	Domain        string `json:"domain"`
	Name          string `json:"name"`
	HQCountry     string `json:"hq_country"`
	Region        string `json:"region"`
	Industry      string `json:"industry"`
	HeadcountBand string `json:"headcount_band"`
	AgencyKind    string `json:"agency_kind"`
}

// Directory is the list of sources and known companies at a tick.
type Directory struct {
	Tick      int       `json:"tick"`
	CycleTime time.Time `json:"cycle_time"`
	Regions   []string  `json:"regions"`
	Companies []Company `json:"companies"`
	Sources   []Source  `json:"sources"`
	// Retired names the sources an operator retired (the registry's; none in the simulator's).
	// They are not in Sources, so the reqs they alone carried close, with close_reason
	// source_retired.
	Retired []string `json:"retired,omitempty"`
}

// FetchDirectory reads the directory at baseURL for tick (tick < 0: the current tick).
func FetchDirectory(ctx context.Context, client *http.Client, baseURL string, tick int) (*Directory, error) {
	url := baseURL + "/_sim/directory"
	if tick >= 0 {
		url += fmt.Sprintf("?tick=%d", tick)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot read the source directory at %s (is the simulator up? flag --sim-url): %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("cannot read the source directory at %s: status %d: %s", url, resp.StatusCode, b)
	}
	var d Directory
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil {
		return nil, fmt.Errorf("cannot decode the source directory: %w", err)
	}
	return &d, nil
}

// CompanyID is the stable id of a company: the first 48 bits of SHA-256 of its domain, so it is
// the same on every crawler and every rerun without coordination, and exact in JSON (< 2^53).
func CompanyID(domain string) uint64 {
	h := sha256.Sum256([]byte(domain))
	return binary.BigEndian.Uint64(h[:8]) >> 16
}

// ReqKey is the stable identity of a req: company, normalized title and country (the first 8
// bytes of SHA-256 of the company id, the title key, a zero byte and the country, in hex). It
// hashes from a stack buffer: one allocation, the key itself.
func ReqKey(companyID uint64, titleKey, country string) string {
	var buf [256]byte
	b := binary.BigEndian.AppendUint64(buf[:0], companyID)
	b = append(b, titleKey...)
	b = append(b, 0)
	b = append(b, country...)
	sum := sha256.Sum256(b)
	var out [16]byte
	hex.Encode(out[:], sum[:8])
	return string(out[:])
}
