package sources

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/atsurl"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/oltp"
)

// The columns of an import file: the required ones must be in the header (their values may be
// empty where a row does not need them), the optional ones may be; the order is free.
var (
	RequiredColumns = []string{"domain", "name", "vendor", "tenant"}
	OptionalColumns = []string{"variant", "hq_country", "industry", "headcount_band", "agency_kind", "url", "region"}
)

// Bounds of an import.
const (
	MaxRows      = 1_000_000 // data rows per file
	MaxFileBytes = 512 << 20 // bytes per file
	MaxDomain    = 253
	MaxName      = 200
	MaxIndustry  = 120
	MaxURL       = 2048 // also the bound of any other field
	// MaxRowErrors is how many bad rows an ImportError lists; the rest are counted.
	MaxRowErrors = 100
)

// ImportOptions tune an import.
type ImportOptions struct {
	// File names the file in facts and evidence ("csv:FILE:LINE"); only its base name is kept.
	File string
	// By is who imports (added_by).
	By string
	// Status is the status of the sources the file adds: active (the default: crawled from the
	// next cycle) or candidate (listed, not crawled, until someone resumes or adds it).
	Status string
	// AllowHTTP accepts http feed URLs (a simulated world); feeds are https otherwise.
	AllowHTTP bool
	// Apply writes; without it the import is a dry run that reports what it would do.
	Apply bool
}

// RowError is one bad row of a file.
type RowError struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// ImportError lists the bad rows of a file, of which nothing was written.
type ImportError struct {
	File   string     `json:"file"`
	Errors []RowError `json:"errors"` // the first MaxRowErrors, by line
	More   int        `json:"more"`   // bad rows past those
}

func (e *ImportError) Error() string {
	var b strings.Builder
	n := len(e.Errors) + e.More
	fmt.Fprintf(&b, "%s has %d bad row", e.File, n)
	if n != 1 {
		b.WriteString("s")
	}
	b.WriteString("; nothing was written. Fix them and import again:")
	for _, r := range e.Errors {
		fmt.Fprintf(&b, "\n  line %d: %s", r.Line, r.Reason)
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", e.More)
	}
	return b.String()
}

func (e *ImportError) add(line int, reason string) {
	if len(e.Errors) < MaxRowErrors {
		e.Errors = append(e.Errors, RowError{Line: line, Reason: reason})
	} else {
		e.More++
	}
}

// ImportReport says what an import does (or did, when Applied).
type ImportReport struct {
	File string `json:"file"`
	Rows int    `json:"rows"`
	oltp.RegistryReport
}

// Import reads a CSV file of companies and sources (ParseCSV) and upserts them in one
// transaction, or, without opts.Apply, reports what that would do.
func Import(ctx context.Context, db *pgxpool.Pool, r io.Reader, opts ImportOptions) (ImportReport, error) {
	batch, rows, err := ParseCSV(r, opts)
	rep := ImportReport{File: fileName(opts.File), Rows: rows}
	if err != nil {
		return rep, err
	}
	rep.RegistryReport, err = oltp.UpsertRegistry(ctx, db, batch, opts.Apply)
	if err != nil {
		return rep, fmt.Errorf("cannot import %s: %w", rep.File, err)
	}
	return rep, nil
}

func fileName(f string) string {
	if f == "" {
		return "stdin"
	}
	return filepath.Base(f)
}

// ParseCSV reads an import file and returns the batch it writes and its number of data rows. The
// header row names the columns (RequiredColumns, OptionalColumns; an unknown name is an error).
// Each row is one of:
//
//   - a company: domain and name, vendor and tenant empty;
//   - an ATS tenant of a company: domain, name, vendor, tenant (or a url atsurl.Recognize reads
//     as that vendor's board), and a variant for a vendor's other host; its URL is rendered;
//   - a feed (vendor jsonld or aggregator): url, and either the domain of the company whose
//     careers site it is (jsonld only: kind careers_site) or, for a multi-employer feed (kind
//     board or aggregator), the region it serves, with name as the board's name.
//
// hq_country is a country name or ISO code; region is derived from it (a region given too must
// agree), or given alone while the country is unknown. Rows naming one domain must agree on each
// field they give. Every bad row is reported with its line; a file with any returns an
// *ImportError and no batch.
func ParseCSV(r io.Reader, opts ImportOptions) (oltp.RegistryBatch, int, error) {
	p := parser{
		file:    fileName(opts.File),
		opts:    opts,
		errs:    &ImportError{File: fileName(opts.File)},
		company: map[string]*companyRows{},
		sources: map[string]int{},
		at:      time.Now().UTC().Format(time.RFC3339),
	}
	switch opts.Status {
	case "":
		p.opts.Status = oltp.SourceActive
	case oltp.SourceActive, oltp.SourceCandidate:
	default:
		return oltp.RegistryBatch{}, 0, fmt.Errorf("cannot import %s: status %q of new sources: use active or candidate", p.file, opts.Status)
	}
	if strings.TrimSpace(opts.By) == "" {
		return oltp.RegistryBatch{}, 0, fmt.Errorf("cannot import %s: say who imports it", p.file)
	}
	lr := &limitedReader{r: r, left: MaxFileBytes}
	cr := csv.NewReader(lr)
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return oltp.RegistryBatch{}, 0, fmt.Errorf("cannot import %s: the file is empty: its first row names the columns (%s required)", p.file, strings.Join(RequiredColumns, ","))
	}
	if err != nil {
		return oltp.RegistryBatch{}, 0, fmt.Errorf("cannot import %s: cannot read its header row: %w", p.file, err)
	}
	if err := p.header(header); err != nil {
		return oltp.RegistryBatch{}, 0, fmt.Errorf("cannot import %s: line 1: %w", p.file, err)
	}
	rows := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if lr.over {
			return oltp.RegistryBatch{}, rows, fmt.Errorf("cannot import %s: it is larger than %d MiB: split it", p.file, MaxFileBytes>>20)
		}
		var pe *csv.ParseError
		switch {
		case errors.As(err, &pe) && errors.Is(err, csv.ErrFieldCount):
			rows++
			p.errs.add(pe.StartLine, fmt.Sprintf("has %d fields, the header has %d", len(rec), len(p.cols)))
			continue
		case errors.As(err, &pe):
			rows++
			p.errs.add(pe.Line, fmt.Sprintf("is not valid CSV: %v", pe.Err))
			if len(p.errs.Errors)+p.errs.More > 10*MaxRowErrors {
				return oltp.RegistryBatch{}, rows, p.errs
			}
			continue
		case err != nil:
			return oltp.RegistryBatch{}, rows, fmt.Errorf("cannot import %s: %w", p.file, err)
		}
		rows++
		line, _ := cr.FieldPos(0)
		if rows > MaxRows {
			return oltp.RegistryBatch{}, rows, fmt.Errorf("cannot import %s: it has more than %d rows: split it", p.file, MaxRows)
		}
		p.row(line, rec)
	}
	if lr.over {
		return oltp.RegistryBatch{}, rows, fmt.Errorf("cannot import %s: it is larger than %d MiB: split it", p.file, MaxFileBytes>>20)
	}
	if len(p.errs.Errors) > 0 {
		slices.SortStableFunc(p.errs.Errors, func(a, b RowError) int { return a.Line - b.Line })
		return oltp.RegistryBatch{}, rows, p.errs
	}
	b := oltp.RegistryBatch{By: opts.By, Sources: p.out}
	b.Companies = make([]oltp.CompanyInput, 0, len(p.order))
	for _, d := range p.order {
		b.Companies = append(b.Companies, p.company[d].in)
	}
	return b, rows, nil
}

// limitedReader reads at most left bytes and then reports EOF with over set.
type limitedReader struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limitedReader) Read(b []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			l.over = true
		}
		return 0, io.EOF
	}
	if int64(len(b)) > l.left {
		b = b[:l.left]
	}
	n, err := l.r.Read(b)
	l.left -= int64(n)
	return n, err
}

// companyRows is one company as the rows naming its domain give it, with the line of each field.
type companyRows struct {
	in    oltp.CompanyInput
	lines map[string]int
}

type parser struct {
	file    string
	opts    ImportOptions
	cols    []string
	errs    *ImportError
	company map[string]*companyRows
	order   []string       // company domains in file order
	sources map[string]int // source key → line
	out     []oltp.SourceInput
	at      string
}

func (p *parser) header(rec []string) error {
	known := append(append([]string(nil), RequiredColumns...), OptionalColumns...)
	list := fmt.Sprintf("%s (required) and %s", strings.Join(RequiredColumns, ", "), strings.Join(OptionalColumns, ", "))
	p.cols = make([]string, len(rec))
	for i, h := range rec {
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		h = strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(known, h) {
			return fmt.Errorf("unknown column %q: the columns are %s", h, list)
		}
		if slices.Contains(p.cols[:i], h) {
			return fmt.Errorf("column %q is named twice", h)
		}
		p.cols[i] = h
	}
	for _, c := range RequiredColumns {
		if !slices.Contains(p.cols, c) {
			return fmt.Errorf("missing column %q: the columns are %s", c, list)
		}
	}
	return nil
}

var (
	dnsLabel   = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)
	allDigits  = regexp.MustCompile(`^[0-9]+$`)
	agencyList = strings.Join(oltp.AgencyKinds(), ", ")
)

// Domain reduces a domain or URL to the registry's company key (normalize.DomainKey: lower case,
// no scheme, path, port or "www.") and checks it is a DNS host name with a dot, not an address.
func Domain(raw string) (string, error) {
	d := normalize.DomainKey(raw)
	if d == "" {
		return "", errors.New("domain is empty")
	}
	if len(d) > MaxDomain {
		return "", fmt.Errorf("domain %q is longer than %d characters", raw, MaxDomain)
	}
	labels := strings.Split(d, ".")
	ok := len(labels) >= 2 && !allDigits.MatchString(labels[len(labels)-1])
	for _, l := range labels {
		ok = ok && dnsLabel.MatchString(l)
	}
	if !ok {
		return "", fmt.Errorf("domain %q is not a host name such as acme.com (an internationalised name goes in its xn-- form)", raw)
	}
	return d, nil
}

// text checks a free-text field: printable, at most max bytes.
func text(field, v string, max int) error {
	if len(v) > max {
		return fmt.Errorf("%s has %d bytes: keep it to %d", field, len(v), max)
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("%s is not UTF-8", field)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return fmt.Errorf("%s holds a control character", field)
		}
	}
	return nil
}

func (p *parser) row(line int, rec []string) {
	v := make(map[string]string, len(p.cols))
	for i, c := range p.cols {
		v[c] = strings.TrimSpace(rec[i])
		if len(v[c]) > MaxURL {
			p.errs.add(line, fmt.Sprintf("%s has %d bytes: keep it to %d", c, len(v[c]), MaxURL))
			return
		}
	}
	var why []string
	bad := func(format string, args ...any) { why = append(why, fmt.Sprintf(format, args...)) }

	domain := ""
	if v["domain"] != "" {
		d, err := Domain(v["domain"])
		if err != nil {
			bad("%v", err)
		}
		domain = d
	}
	name := v["name"]
	if name == "" {
		bad("name is empty: give the company's name (for a feed without a domain, the board's)")
	} else if err := text("name", name, MaxName); err != nil {
		bad("%v", err)
	}
	if err := text("industry", v["industry"], MaxIndustry); err != nil {
		bad("%v", err)
	}
	country := ""
	if c := v["hq_country"]; c != "" {
		if country = normalize.CountryCode(c); country == "" {
			bad("unknown hq_country %q: give an ISO 3166-1 code (DE, DEU) or the country's English name", c)
		}
	}
	region := strings.ToLower(v["region"])
	if region != "" && !normalize.ValidRegion(region) {
		bad("unknown region %q: use one of %s", v["region"], strings.Join(normalize.Regions(), ", "))
		region = ""
	}
	if country != "" {
		cr := normalize.RegionOf(country)
		if region != "" && region != cr {
			bad("region %s disagrees with hq_country %s (region %s): leave region empty", region, v["hq_country"], cr)
		}
		region = cr
	}
	band := v["headcount_band"]
	if band != "" && !normalize.ValidHeadcountBand(band) {
		bad("unknown headcount_band %q: use one of %s", band, strings.Join(normalize.HeadcountBands(), ", "))
	}
	agency := strings.ToLower(v["agency_kind"])
	if agency != "" && !slices.Contains(oltp.AgencyKinds(), agency) {
		bad("unknown agency_kind %q: use one of %s", v["agency_kind"], agencyList)
	}

	vendor, tenant, variant, rawURL := strings.ToLower(v["vendor"]), v["tenant"], strings.ToLower(v["variant"]), v["url"]
	var src *oltp.SourceInput
	switch {
	case vendor == "":
		if tenant != "" || variant != "" || rawURL != "" {
			bad("vendor is empty: a source needs its vendor (one of %s); a company-only row leaves tenant, variant and url empty", strings.Join(atsurl.Vendors(), ", "))
		}
		if domain == "" && v["domain"] == "" {
			bad("domain is empty: a company needs its domain")
		}
	case !atsurl.Known(vendor):
		bad("unknown vendor %q: use one of %s", v["vendor"], strings.Join(atsurl.Vendors(), ", "))
	case atsurl.Templated(vendor):
		if v["domain"] == "" {
			bad("domain is empty: a %s tenant belongs to a company: give the company's domain", vendor)
		}
		if tenant == "" && rawURL != "" {
			if b, ok := atsurl.Recognize(rawURL); ok && b.Vendor == vendor && (variant == "" || variant == b.Variant) {
				tenant, variant = b.Tenant, b.Variant
			}
		}
		if tenant == "" {
			bad("tenant is empty: a %s row needs the tenant (the board's name in its URL)", vendor)
			break
		}
		t, err := atsurl.Tenant(vendor, tenant)
		if err != nil {
			bad("%v", err)
			break
		}
		if err := atsurl.Variant(vendor, variant); err != nil {
			bad("%v", err)
			break
		}
		if rawURL != "" {
			if b, ok := atsurl.Recognize(rawURL); !ok || b != (atsurl.Board{Vendor: vendor, Tenant: t, Variant: variant}) {
				bad("url %q is not %s tenant %q's board: leave url empty (a tenant's URL is rendered from it)", rawURL, vendor, t)
				break
			}
		}
		first, err := atsurl.FirstPage(vendor, t, variant)
		if err != nil {
			bad("%v", err)
			break
		}
		src = &oltp.SourceInput{Key: atsurl.SourceKey(vendor, t, variant, ""), Vendor: vendor, Kind: oltp.SourceATSTenant,
			Tenant: t, Variant: variant, CompanyDomain: domain, URL: first, Region: region}
	default: // a feed that names its own URL
		if tenant != "" {
			bad("tenant %q: a %s source has no tenant: give its url", tenant, vendor)
		}
		if err := atsurl.Variant(vendor, variant); err != nil {
			bad("%v", err)
		}
		if rawURL == "" {
			bad("url is empty: a %s row needs the feed's url", vendor)
			break
		}
		u, err := atsurl.SourceURL(vendor, rawURL, p.opts.AllowHTTP)
		if err != nil {
			if !p.opts.AllowHTTP && strings.HasPrefix(strings.ToLower(rawURL), "http://") {
				err = fmt.Errorf("%w (http is accepted only for a simulated world)", err)
			}
			bad("%v", err)
			break
		}
		kind, board := oltp.SourceBoard, ""
		if v["domain"] != "" {
			kind = oltp.SourceCareersSite // one company's own JSON-LD pages
		}
		if vendor == atsurl.Aggregator {
			kind = oltp.SourceAggregator
			if v["domain"] != "" {
				bad("an aggregator feed serves many employers: leave domain empty and give the region it serves")
			}
		}
		if v["domain"] == "" {
			board = name
			if region == "" {
				bad("region is empty: a feed without a company names the region it serves (one of %s)", strings.Join(normalize.Regions(), ", "))
			}
			for _, c := range []string{"hq_country", "industry", "headcount_band", "agency_kind"} {
				if v[c] != "" {
					bad("%s is a company's: a feed without a domain takes none", c)
				}
			}
		}
		src = &oltp.SourceInput{Key: atsurl.SourceKey(vendor, "", "", u), Vendor: vendor, Kind: kind, Board: board,
			CompanyDomain: domain, URL: u, Region: region}
	}
	if len(why) > 0 {
		p.errs.add(line, strings.Join(why, "; "))
		return
	}
	if src != nil {
		if prev, dup := p.sources[src.Key]; dup {
			p.errs.add(line, fmt.Sprintf("source %s repeats line %d", src.Key, prev))
			return
		}
	}
	at := fmt.Sprintf("csv:%s:%d", p.file, line)
	if domain != "" {
		in := oltp.CompanyInput{Domain: domain, Name: name, HQCountry: country, Region: region, Industry: v["industry"],
			HeadcountBand: band, AgencyKind: agency, Source: at}
		if !p.mergeCompany(line, in) {
			return
		}
	}
	if src != nil {
		p.sources[src.Key] = line
		src.Status = p.opts.Status
		src.Evidence, _ = json.Marshal(map[string]string{"source": at, "at": p.at})
		p.out = append(p.out, *src)
	}
}

// mergeCompany adds in to the company its domain names, or reports the line where an earlier row
// gave one of its fields otherwise.
func (p *parser) mergeCompany(line int, in oltp.CompanyInput) bool {
	cr, ok := p.company[in.Domain]
	if !ok {
		cr = &companyRows{in: in, lines: map[string]int{}}
		for _, f := range companyFields(&cr.in) {
			if *f.v != "" {
				cr.lines[f.name] = line
			}
		}
		p.company[in.Domain] = cr
		p.order = append(p.order, in.Domain)
		return true
	}
	var why []string
	next := companyFields(&in)
	for i, f := range companyFields(&cr.in) {
		nv := *next[i].v
		if nv == "" || nv == *f.v {
			continue
		}
		if *f.v != "" {
			why = append(why, fmt.Sprintf("%s %q for %s differs from %q on line %d", f.name, nv, in.Domain, *f.v, cr.lines[f.name]))
		}
	}
	if len(why) > 0 {
		p.errs.add(line, strings.Join(why, "; "))
		return false
	}
	for i, f := range companyFields(&cr.in) {
		if nv := *next[i].v; nv != "" && *f.v == "" {
			*f.v = nv
			cr.lines[f.name] = line
			if cr.in.Sources == nil {
				cr.in.Sources = map[string]string{}
			}
			cr.in.Sources[f.name] = in.Source
		}
	}
	return true
}

type companyField struct {
	name string
	v    *string
}

func companyFields(c *oltp.CompanyInput) []companyField {
	return []companyField{{"name", &c.Name}, {"hq_country", &c.HQCountry}, {"region", &c.Region}, {"industry", &c.Industry},
		{"headcount_band", &c.HeadcountBand}, {"agency_kind", &c.AgencyKind}}
}
