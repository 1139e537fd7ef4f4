package sources

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline/ats"
)

// Bounds of Add's validating fetch.
const (
	AddTimeout = 30 * time.Second // the fetch, connect to last byte
	MaxAddBody = 8 << 20          // the page's bytes once decoded
)

// DefaultUserAgent is the User-Agent of Add's fetch when the request names none.
const DefaultUserAgent = "hiringsignal-registry/0.1 (+https://hiringsignal.example/bot)"

// AddRequest is one ATS tenant to add after validating it.
type AddRequest struct {
	Vendor, Tenant, Variant string
	Domain                  string // the company's domain
	Name                    string // the company's name; "" takes the name the vendor's feed gives
	By                      string // who adds it (added_by)
	// AllowEmpty accepts a feed that answers with no postings (an unknown tenant of some vendors
	// answers an empty board, so one is refused by default).
	AllowEmpty bool
	// UserAgent of the fetch ("" is DefaultUserAgent).
	UserAgent string
	// Apply writes; without it Add fetches, validates and reports what it would write.
	Apply bool
}

// AddReport is what Add saw and did.
type AddReport struct {
	Key        string              `json:"key"`
	URL        string              `json:"url"`
	Status     int                 `json:"status"`      // the feed's HTTP status (200)
	Count      int                 `json:"count"`       // postings on the first page
	MorePages  bool                `json:"more_pages"`  // the feed pages on past the first
	Malformed  int                 `json:"malformed"`   // records of the first page the adapter could not use
	VendorName string              `json:"vendor_name"` // the company name the feed gives, "" when its format has none
	Name       string              `json:"name"`        // the company name written
	Warnings   []string            `json:"warnings,omitempty"`
	Registry   oltp.RegistryReport `json:"registry"`
}

// Add validates an ATS tenant with one fetch of its first page through client and, with
// req.Apply, upserts its company and the source as active. The page must answer 200 and parse
// with the vendor's adapter (pipeline/ats); its postings are counted and the company name the feed
// gives, if any, is reported (and used when req.Name is empty; a different name is a warning, as
// a slug may belong to another company of the same name). The source's evidence keeps the URL,
// status, count, vendor name and time. A candidate or suspect source becomes active; a paused or
// retired one keeps its status (the report says so). client should refuse redirects and dial
// through the egress policy; Add bounds the fetch by AddTimeout.
func Add(ctx context.Context, db *pgxpool.Pool, client *http.Client, req AddRequest) (AddReport, error) {
	var rep AddReport
	vendor := strings.ToLower(strings.TrimSpace(req.Vendor))
	if !atsurl.Known(vendor) {
		return rep, fmt.Errorf("cannot add: unknown vendor %q: use one of %s", req.Vendor, strings.Join(atsurl.Vendors(), ", "))
	}
	if !atsurl.Templated(vendor) {
		return rep, fmt.Errorf("cannot add a %s source with add: it names its own url: import it from a CSV file with its url and region", vendor)
	}
	tenant, err := atsurl.Tenant(vendor, strings.TrimSpace(req.Tenant))
	if err != nil {
		return rep, fmt.Errorf("cannot add: %w", err)
	}
	variant := strings.ToLower(strings.TrimSpace(req.Variant))
	if err := atsurl.Variant(vendor, variant); err != nil {
		return rep, fmt.Errorf("cannot add: %w", err)
	}
	domain, err := Domain(req.Domain)
	if err != nil {
		return rep, fmt.Errorf("cannot add: %w: give the company's --domain", err)
	}
	name := strings.TrimSpace(req.Name)
	if err := text("name", name, MaxName); err != nil {
		return rep, fmt.Errorf("cannot add: %w", err)
	}
	if strings.TrimSpace(req.By) == "" {
		return rep, errors.New("cannot add: say who adds the source")
	}
	rep.Key = atsurl.SourceKey(vendor, tenant, variant, "")
	rep.URL, err = atsurl.FirstPage(vendor, tenant, variant)
	if err != nil {
		return rep, fmt.Errorf("cannot add: %w", err)
	}

	adapter, ok := ats.For(vendor)
	if !ok {
		return rep, fmt.Errorf("cannot validate %s: the crawl has no adapter for %s", rep.Key, vendor)
	}
	body, status, err := fetchOnce(ctx, client, adapter, rep.URL, req.UserAgent)
	rep.Status = status
	if err != nil {
		return rep, fmt.Errorf("cannot validate %s: %w", rep.Key, err)
	}
	page, err := adapter.Parse(body, rep.URL)
	if err != nil {
		return rep, fmt.Errorf("cannot validate %s: %s answered 200 with a page that is not a %s feed: %w", rep.Key, rep.URL, vendor, err)
	}
	rep.Count, rep.MorePages, rep.Malformed = len(page.Postings), page.NextURL != "", page.Malformed
	for _, p := range page.Postings {
		if p.CompanyName != "" {
			rep.VendorName = p.CompanyName
			break
		}
	}
	if rep.Count == 0 && !req.AllowEmpty {
		return rep, fmt.Errorf("cannot validate %s: %s answered 200 with no postings; some vendors answer an unknown tenant so: check the tenant, or give --allow-empty for a board known to be empty", rep.Key, rep.URL)
	}
	nameSource := "cli"
	switch {
	case name == "" && rep.VendorName == "":
		return rep, fmt.Errorf("cannot add %s: the %s feed names no company: give --name", rep.Key, vendor)
	case name == "":
		name, nameSource = rep.VendorName, "vendor:"+vendor
		if err := text("name", name, MaxName); err != nil {
			return rep, fmt.Errorf("cannot add %s: the feed's company name: %w: give --name", rep.Key, err)
		}
	case rep.VendorName != "" && normalize.CompanyKey(rep.VendorName) != normalize.CompanyKey(name):
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the feed names the company %q, not %q: check that %s is this company's tenant", rep.VendorName, name, rep.Key))
	}
	rep.Name = name

	evidence, _ := json.Marshal(map[string]any{"url": rep.URL, "status": rep.Status, "count": rep.Count, "vendor_name": rep.VendorName,
		"at": time.Now().UTC().Format(time.RFC3339)})
	batch := oltp.RegistryBatch{
		By:        req.By,
		Companies: []oltp.CompanyInput{{Domain: domain, Name: name, Source: nameSource}},
		Sources: []oltp.SourceInput{{Key: rep.Key, Vendor: vendor, Kind: oltp.SourceATSTenant, Tenant: tenant, Variant: variant,
			CompanyDomain: domain, URL: rep.URL, Status: oltp.SourceActive, Evidence: evidence, Validated: true}},
	}
	rep.Registry, err = oltp.UpsertRegistry(ctx, db, batch, req.Apply)
	if err != nil {
		return rep, fmt.Errorf("cannot add %s: %w", rep.Key, err)
	}
	return rep, nil
}

// fetchOnce requests url once, as adapter asks (a GET, or its ats.Requester's method and
// body), and returns its body when it answers 200.
func fetchOnce(ctx context.Context, client *http.Client, adapter ats.Adapter, url, userAgent string) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, AddTimeout)
	defer cancel()
	method, contentType := http.MethodGet, ""
	var reqBody io.Reader
	if r, ok := adapter.(ats.Requester); ok {
		m, b, ct := r.Request(url)
		if m != "" {
			method = m
		}
		if b != nil {
			reqBody, contentType = bytes.NewReader(b), ct
		}
	}
	hr, err := http.NewRequestWithContext(ctx, method, url, reqBody)
	if err != nil {
		return nil, 0, err
	}
	if userAgent == "" {
		userAgent = DefaultUserAgent
	}
	hr.Header.Set("User-Agent", userAgent)
	if contentType != "" {
		hr.Header.Set("Content-Type", contentType)
		if strings.HasPrefix(contentType, "application/json") {
			hr.Header.Set("Accept", "application/json")
		}
	}
	resp, err := client.Do(hr)
	if err != nil {
		return nil, 0, fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		where := ""
		if loc := resp.Header.Get("Location"); loc != "" {
			where = " to " + loc
		}
		return nil, resp.StatusCode, fmt.Errorf("%s %s answered %d%s, not 200: check the vendor, tenant and variant", method, url, resp.StatusCode, where)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxAddBody+1))
	if err != nil {
		return nil, resp.StatusCode, fmt.Errorf("%s %s: cannot read the body: %w", method, url, err)
	}
	if len(body) > MaxAddBody {
		return nil, resp.StatusCode, fmt.Errorf("%s %s: the page is larger than %d MiB", method, url, MaxAddBody>>20)
	}
	return body, resp.StatusCode, nil
}
