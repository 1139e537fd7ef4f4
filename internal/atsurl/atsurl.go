// Package atsurl knows where each job-feed vendor publishes a tenant's postings on the real web:
// the first page's URL rendered from a vendor, a tenant and a host variant, the board-level
// endpoint that says whether a tenant still exists, the public board page a careers site links
// to (for JOIN, the company page, which names the company by its slug), the vendor's own home page (where a gone tenant redirects), the hostnames a vendor serves
// from, and the reverse: which vendor and tenant a pasted board, careers or embed URL names (never
// a path word such as "embed" or "api", never a look-alike host), and whether a URL is a vendor's
// own page that names no tenant. The source registry
// renders its URLs here and the simulator's host mode serves exactly these URLs, so the crawl is
// tested on the addresses it reads in production.
//
// A tenant is interpolated into a URL only after it passed the vendor's allowlist (Tenant), so
// no tenant can change a URL's host or path. A tenant is one value of one of four forms: a path
// segment (Greenhouse, Lever, Ashby, Workable, SmartRecruiters, Jobvite, Rippling), a DNS label
// of the vendor's host (Recruitee, Personio, Teamtailor, BambooHR, Breezy, Pinpoint, iCIMS,
// JazzHR), a number (JOIN, whose public API names a company by its numeric id:
// https://join.com/api/public/companies/{id}/jobs), or Workday's three, company/wdN/site, each
// checked on its own before it is placed in the host or the path. The package does no I/O and
// must not import any other package of this project.
package atsurl

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Vendor names, as the crawl's adapters (pipeline/ats) and the registry spell them.
const (
	Greenhouse      = "greenhouse"
	Lever           = "lever"
	Ashby           = "ashby"
	Workable        = "workable"
	SmartRecruiters = "smartrecruiters"
	Recruitee       = "recruitee"
	Personio        = "personio"
	Teamtailor      = "teamtailor"
	BambooHR        = "bamboohr"
	Breezy          = "breezy"
	Pinpoint        = "pinpoint"
	Join            = "join"
	Workday         = "workday"
	ICIMS           = "icims"
	Jobvite         = "jobvite"
	JazzHR          = "jazzhr"
	Rippling        = "rippling"
	JSONLD          = "jsonld"
	Aggregator      = "aggregator"
)

// Variants of a vendor's hosts. Default ("") is the vendor's main (US or global) host.
const (
	VariantDefault = ""
	VariantEU      = "eu"  // Greenhouse and Lever EU hosts
	VariantCom     = "com" // Personio's jobs.personio.com
	VariantNA      = "na"  // Teamtailor's North American hosts, {tenant}.na.teamtailor.com
)

// vendorDef is what the package knows of one vendor.
type vendorDef struct {
	name      string
	templated bool     // the first page is rendered from the tenant; else the source names its URL
	subdomain bool     // the tenant is a DNS label of the host (else a path segment)
	numeric   bool     // the tenant is a number (JOIN's company id), a path segment
	composite bool     // the tenant is company/wdN/site (Workday): see Tenant
	variants  []string // accepted variants, VariantDefault first
}

var vendors = []vendorDef{
	{name: Greenhouse, templated: true, variants: []string{VariantDefault, VariantEU}},
	{name: Lever, templated: true, variants: []string{VariantDefault, VariantEU}},
	{name: Ashby, templated: true, variants: []string{VariantDefault}},
	{name: Workable, templated: true, variants: []string{VariantDefault}},
	{name: SmartRecruiters, templated: true, variants: []string{VariantDefault}},
	{name: Recruitee, templated: true, subdomain: true, variants: []string{VariantDefault}},
	{name: Personio, templated: true, subdomain: true, variants: []string{VariantDefault, VariantCom}},
	{name: Teamtailor, templated: true, subdomain: true, variants: []string{VariantDefault, VariantNA}},
	{name: BambooHR, templated: true, subdomain: true, variants: []string{VariantDefault}},
	{name: Breezy, templated: true, subdomain: true, variants: []string{VariantDefault}},
	{name: Pinpoint, templated: true, subdomain: true, variants: []string{VariantDefault}},
	{name: Join, templated: true, numeric: true, variants: []string{VariantDefault}},
	{name: Workday, templated: true, composite: true, variants: []string{VariantDefault}},
	{name: ICIMS, templated: true, subdomain: true, variants: []string{VariantDefault}},
	{name: Jobvite, templated: true, variants: []string{VariantDefault}},
	{name: JazzHR, templated: true, subdomain: true, variants: []string{VariantDefault}},
	{name: Rippling, templated: true, variants: []string{VariantDefault}},
	{name: JSONLD, variants: []string{VariantDefault}},
	{name: Aggregator, variants: []string{VariantDefault}},
}

func lookup(vendor string) (*vendorDef, error) {
	for i := range vendors {
		if vendors[i].name == vendor {
			return &vendors[i], nil
		}
	}
	return nil, fmt.Errorf("unknown vendor %q: use one of %s", vendor, strings.Join(Vendors(), ", "))
}

// Vendors lists every vendor name, sorted.
func Vendors() []string {
	out := make([]string, len(vendors))
	for i, v := range vendors {
		out[i] = v.name
	}
	slices.Sort(out)
	return out
}

// Known reports whether vendor is a vendor name.
func Known(vendor string) bool {
	_, err := lookup(vendor)
	return err == nil
}

// Templated reports whether vendor's first page is rendered from a tenant (an ATS tenant);
// false for sources that name their own URL (JSON-LD boards and careers sites, the aggregator).
func Templated(vendor string) bool {
	v, err := lookup(vendor)
	return err == nil && v.templated
}

var (
	pathSlug    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)
	labelSlug   = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)
	numericSlug = regexp.MustCompile(`^[1-9][0-9]{0,11}$`)
	// Workday's tenant parts: the data centre of the host (wd1, wd5, wd103) and the career
	// site's name, one path segment without dots.
	workdayDC   = regexp.MustCompile(`^wd[1-9][0-9]{0,2}$`)
	workdaySite = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$`)
)

// ErrTenant is wrapped by every refusal of a tenant.
var ErrTenant = errors.New("invalid tenant")

// Tenant checks tenant for vendor and returns it in its canonical form (a subdomain tenant
// lower-cased). A path tenant is 1-100 of [A-Za-z0-9._-] starting with a letter or digit; a
// subdomain tenant is one DNS label; a numeric tenant (JOIN's company id) is 1-12 digits without
// a leading zero. Anything that could change the URL's host or path (a slash, a dot-only
// segment, '@', '?', '#', '%', a space) is refused with ErrTenant.
//
// A Workday tenant names three things its careers URL carries and none of which follows from
// another: the company, the data centre of its host and the career site
// (https://acme.wd5.myworkdayjobs.com/en-US/External is acme/wd5/External). It is written
// company/wdN/site and split on its two slashes before anything is interpolated, so the slashes
// only separate the parts: the company is one DNS label (lower-cased; it is the host's first
// label and the CXS path's company), wdN is "wd" and 1-3 digits (lower-cased; the host's second
// label), and the site is 1-100 of [A-Za-z0-9_-] starting with a letter or digit (one path
// segment, never "." or ".."; kept as written). Any other shape is refused with ErrTenant.
func Tenant(vendor, tenant string) (string, error) {
	v, err := lookup(vendor)
	if err != nil {
		return "", err
	}
	if !v.templated {
		return "", fmt.Errorf("vendor %s has no tenant: give the source's url instead", vendor)
	}
	if v.numeric {
		if !numericSlug.MatchString(tenant) {
			return "", fmt.Errorf("%w %q for %s: a %s tenant is the company's number in the feed's URL (1-12 digits, no leading zero), not the name in its careers page", ErrTenant, tenant, vendor, vendor)
		}
		return tenant, nil
	}
	if v.composite {
		company, dc, site, ok := workdayParts(tenant)
		if !ok {
			return "", fmt.Errorf("%w %q for %s: a workday tenant is company/wdN/site as its careers URL names them (acme.wd5.myworkdayjobs.com/External is acme/wd5/External): the company one DNS label, wdN the data centre, the site letters, digits, '_' or '-'", ErrTenant, tenant, vendor)
		}
		return company + "/" + dc + "/" + site, nil
	}
	if v.subdomain {
		t := strings.ToLower(tenant)
		if !labelSlug.MatchString(t) {
			return "", fmt.Errorf("%w %q for %s: a %s tenant is one DNS label (letters, digits and inner hyphens, at most 63)", ErrTenant, tenant, vendor, vendor)
		}
		return t, nil
	}
	if !pathSlug.MatchString(tenant) {
		return "", fmt.Errorf("%w %q for %s: a tenant is 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit", ErrTenant, tenant, vendor)
	}
	return tenant, nil
}

// workdayParts splits a Workday tenant company/wdN/site into its checked, canonical parts.
func workdayParts(tenant string) (company, dc, site string, ok bool) {
	parts := strings.Split(tenant, "/")
	if len(parts) != 3 {
		return "", "", "", false
	}
	company, dc, site = strings.ToLower(parts[0]), strings.ToLower(parts[1]), parts[2]
	if !labelSlug.MatchString(company) || !workdayDC.MatchString(dc) || !workdaySite.MatchString(site) {
		return "", "", "", false
	}
	return company, dc, site, true
}

// WorkdayParts returns the company, data centre and site of a Workday tenant (see Tenant), ok
// false when it is not one.
func WorkdayParts(tenant string) (company, dc, site string, ok bool) { return workdayParts(tenant) }

// Variant checks variant for vendor ("" is the vendor's main host).
func Variant(vendor, variant string) error {
	v, err := lookup(vendor)
	if err != nil {
		return err
	}
	if !slices.Contains(v.variants, variant) {
		names := make([]string, 0, len(v.variants))
		for _, x := range v.variants {
			if x == "" {
				x = `"" (main host)`
			}
			names = append(names, x)
		}
		return fmt.Errorf("unknown variant %q for %s: use one of %s", variant, vendor, strings.Join(names, ", "))
	}
	return nil
}

// checked is tenant in its canonical form (Tenant) once variant is known for vendor (Variant).
func checked(vendor, tenant, variant string) (string, error) {
	t, err := Tenant(vendor, tenant)
	if err != nil {
		return "", err
	}
	if err := Variant(vendor, variant); err != nil {
		return "", err
	}
	return t, nil
}

// FirstPage renders the URL of the first page of a tenant's postings on the vendor's real
// public endpoint. Later pages follow from each page (the adapters compute them).
func FirstPage(vendor, tenant, variant string) (string, error) {
	t, err := checked(vendor, tenant, variant)
	if err != nil {
		return "", err
	}
	switch vendor {
	case Greenhouse:
		return "https://" + greenhouseAPIHost(variant) + "/v1/boards/" + t + "/jobs?content=true", nil
	case Lever:
		return "https://" + leverAPIHost(variant) + "/v0/postings/" + t + "?mode=json&skip=0&limit=100", nil
	case Ashby:
		return "https://api.ashbyhq.com/posting-api/job-board/" + t + "?includeCompensation=true", nil
	case Workable:
		// details=true: each job with its description, requirements and benefits.
		return "https://apply.workable.com/api/v1/widget/accounts/" + t + "?details=true", nil
	case SmartRecruiters:
		return "https://api.smartrecruiters.com/v1/companies/" + t + "/postings?limit=100&offset=0", nil
	case Recruitee:
		return "https://" + t + ".recruitee.com/api/offers/", nil
	case Personio:
		return "https://" + t + "." + personioHost(variant) + "/xml?language=en", nil
	case Teamtailor:
		return "https://" + t + "." + teamtailorHost(variant) + "/jobs.rss?per_page=" + TeamtailorPageSize + "&offset=0", nil
	case BambooHR:
		return "https://" + t + ".bamboohr.com/careers/list", nil
	case Breezy:
		return "https://" + t + ".breezy.hr/json", nil
	case Pinpoint:
		return "https://" + t + ".pinpointhq.com/postings.json", nil
	case Join:
		return "https://join.com/api/public/companies/" + t + "/jobs?page=1&pageSize=" + JoinPageSize, nil
	case Workday:
		company, dc, site, _ := workdayParts(t)
		return "https://" + company + "." + dc + "." + workdayHostSuffix + "/wday/cxs/" + company + "/" + site + "/jobs", nil
	case ICIMS:
		return "https://" + t + ".icims.com/jobs/search?ss=1&in_iframe=1", nil
	case Jobvite:
		return "https://jobs.jobvite.com/" + t + "/search/", nil
	case JazzHR:
		return "https://" + t + ".applytojob.com/apply", nil
	case Rippling:
		return "https://ats.rippling.com/api/v2/board/" + t + "/jobs?page=0&pageSize=50", nil
	}
	return "", fmt.Errorf("vendor %s has no URL template", vendor)
}

// BoardURL is the tenant's board-level endpoint: it answers while the tenant exists, whatever
// its postings (Greenhouse's board endpoint answers its name). For vendors without one it is
// the first page. A crawler asks it before believing that a board fell empty.
func BoardURL(vendor, tenant, variant string) (string, error) {
	if vendor == Greenhouse {
		t, err := checked(vendor, tenant, variant)
		if err != nil {
			return "", err
		}
		return "https://" + greenhouseAPIHost(variant) + "/v1/boards/" + t, nil
	}
	return FirstPage(vendor, tenant, variant)
}

func greenhouseAPIHost(variant string) string {
	if variant == VariantEU {
		return "boards-api.eu.greenhouse.io"
	}
	return "boards-api.greenhouse.io"
}

func leverAPIHost(variant string) string {
	if variant == VariantEU {
		return "api.eu.lever.co"
	}
	return "api.lever.co"
}

// TeamtailorPageSize is the per_page of Teamtailor's RSS feed: its own default is 100, it
// honours larger values and pages on with offset.
const TeamtailorPageSize = "200"

// JoinPageSize is the pageSize of JOIN's public jobs API, which refuses anything above 5 (HTTP
// 422 `[{"param":"pageSize","msg":"Invalid value"}]`).
const JoinPageSize = "5"

func teamtailorHost(variant string) string {
	if variant == VariantNA {
		return "na.teamtailor.com"
	}
	return "teamtailor.com"
}

func personioHost(variant string) string {
	if variant == VariantCom {
		return "jobs.personio.com"
	}
	return "jobs.personio.de"
}

// workdayHostSuffix is the domain of every Workday tenant's host, {company}.{wdN}.myworkdayjobs.com.
const workdayHostSuffix = "myworkdayjobs.com"

// WorkdayDataCentres are the Workday data centres whose hosts Hosts names. A tenant on another
// one (any wdN passes Tenant) is read all the same; only a test certificate and the simulator's
// host routing are limited to these.
var WorkdayDataCentres = []string{"wd1", "wd2", "wd3", "wd4", "wd5", "wd10", "wd12", "wd100", "wd101", "wd102", "wd103", "wd104", "wd105", "wd108", "wd501"}

// Hosts lists the hostnames the templated vendors' feeds are served from: exact names, and
// "*.suffix" for vendors whose tenant is a subdomain (a TLS certificate for a test world names
// exactly these). Workday's are one "*.{wdN}.myworkdayjobs.com" per data centre of
// WorkdayDataCentres.
func Hosts() []string {
	out := []string{
		"boards-api.greenhouse.io", "boards-api.eu.greenhouse.io",
		"api.lever.co", "api.eu.lever.co",
		"api.ashbyhq.com",
		"apply.workable.com",
		"api.smartrecruiters.com",
		"*.recruitee.com",
		"*.jobs.personio.de", "*.jobs.personio.com",
		"*.teamtailor.com", "*.na.teamtailor.com",
		"*.bamboohr.com",
		"*.breezy.hr",
		"*.pinpointhq.com",
		"join.com",
	}
	for _, dc := range WorkdayDataCentres {
		out = append(out, "*."+dc+"."+workdayHostSuffix)
	}
	return append(out,
		"*.icims.com",
		"jobs.jobvite.com",
		"*.applytojob.com",
		"ats.rippling.com",
	)
}

// SourceURL checks the URL of a source whose vendor has no template (a JSON-LD board or
// careers site, the aggregator feed): an absolute https URL (http only when allowHTTP, for a
// simulated world) with a host, no user info and no fragment. It returns the URL as parsed and
// re-rendered.
func SourceURL(vendor, raw string, allowHTTP bool) (string, error) {
	v, err := lookup(vendor)
	if err != nil {
		return "", err
	}
	if v.templated {
		return "", fmt.Errorf("vendor %s renders its URL from the tenant: give the tenant, not a url", vendor)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("invalid url %q: %w", raw, err)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowHTTP:
	default:
		return "", fmt.Errorf("invalid url %q: a source is read over https", raw)
	}
	if u.Host == "" || u.Hostname() == "" || u.User != nil || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("invalid url %q: want scheme://host/path with no user info or fragment", raw)
	}
	return u.String(), nil
}

// reservedPathWords are path segments of the vendors' own pages and scripts, never a tenant:
// "jobs.ashbyhq.com/api/…", "boards.greenhouse.io/embed/…" (without its ?for=), an asset path.
var reservedPathWords = map[string]bool{
	"api": true, "embed": true, "js": true, "assets": true, "static": true, "widget": true,
	"v0": true, "v1": true, "v2": true, "favicon": true, "robots": true,
}

// Board is what a pasted board or feed URL names.
type Board struct {
	Vendor  string
	Tenant  string
	Variant string
}

// Recognize reads a board, careers or API URL of a templated vendor ("https://boards.greenhouse.io/acme",
// "jobs.lever.co/acme/…", "https://acme.recruitee.com/", the embed script
// "boards.greenhouse.io/embed/job_board/js?for=acme", "https://acme.wd5.myworkdayjobs.com/en-US/External",
// "careers-acme.icims.com/jobs/123/…", "jobs.jobvite.com/careers/acme/jobs",
// "acme.applytojob.com/apply", "ats.rippling.com/acme/jobs", or any URL FirstPage renders) and
// says which vendor, tenant and variant it names. ok is false for anything else, including a
// look-alike host ("greenhouse.io.evil.example", "myworkdayjobs.com.evil.example"), a vendor's
// own host that is no tenant's ("www.teamtailor.com", www.icims.com), a tenant that fails
// Tenant, and a JOIN careers page (join.com/companies/acme names the company's name; its tenant
// is the company's number, which only the API URL states).
func Recognize(raw string) (b Board, ok bool) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return Board{}, false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	segs := strings.FieldsFunc(u.Path, func(r rune) bool { return r == '/' })
	seg := func(i int) string {
		if i < len(segs) {
			return segs[i]
		}
		return ""
	}
	pick := func(vendor, tenant, variant string) (Board, bool) {
		t, err := Tenant(vendor, tenant)
		word, _, _ := strings.Cut(strings.ToLower(t), ".") // "embed.js" is the word "embed"
		if err != nil || Variant(vendor, variant) != nil || reservedPathWords[word] {
			return Board{}, false
		}
		return Board{Vendor: vendor, Tenant: t, Variant: variant}, true
	}
	switch host {
	case "boards.greenhouse.io", "job-boards.greenhouse.io", "job-boards.eu.greenhouse.io", "boards.eu.greenhouse.io":
		variant := VariantDefault
		if strings.Contains(host, ".eu.") {
			variant = VariantEU
		}
		if seg(0) == "embed" {
			return pick(Greenhouse, u.Query().Get("for"), variant)
		}
		return pick(Greenhouse, seg(0), variant)
	case "boards-api.greenhouse.io", "boards-api.eu.greenhouse.io":
		variant := VariantDefault
		if host == "boards-api.eu.greenhouse.io" {
			variant = VariantEU
		}
		if seg(0) == "v1" && seg(1) == "boards" {
			return pick(Greenhouse, seg(2), variant)
		}
	case "jobs.lever.co", "jobs.eu.lever.co":
		variant := VariantDefault
		if host == "jobs.eu.lever.co" {
			variant = VariantEU
		}
		return pick(Lever, seg(0), variant)
	case "api.lever.co", "api.eu.lever.co":
		variant := VariantDefault
		if host == "api.eu.lever.co" {
			variant = VariantEU
		}
		if seg(0) == "v0" && seg(1) == "postings" {
			return pick(Lever, seg(2), variant)
		}
	case "jobs.ashbyhq.com":
		return pick(Ashby, seg(0), VariantDefault)
	case "api.ashbyhq.com":
		if seg(0) == "posting-api" && seg(1) == "job-board" {
			return pick(Ashby, seg(2), VariantDefault)
		}
	case "apply.workable.com":
		if seg(0) == "api" && seg(1) == "v1" && seg(2) == "widget" && seg(3) == "accounts" {
			return pick(Workable, seg(4), VariantDefault)
		}
		if seg(0) == "api" || seg(0) == "j" {
			return Board{}, false
		}
		return pick(Workable, seg(0), VariantDefault)
	case "www.workable.com", "workable.com":
		if seg(0) == "api" && seg(1) == "accounts" {
			return pick(Workable, seg(2), VariantDefault)
		}
	case "careers.smartrecruiters.com", "jobs.smartrecruiters.com":
		return pick(SmartRecruiters, seg(0), VariantDefault)
	case "api.smartrecruiters.com":
		if seg(0) == "v1" && seg(1) == "companies" {
			return pick(SmartRecruiters, seg(2), VariantDefault)
		}
	case "join.com", "www.join.com":
		// Only the API names the company's number; a careers page (join.com/companies/acme)
		// names its name, which Recognize cannot turn into the number without a fetch.
		if seg(0) == "api" && seg(1) == "public" && seg(2) == "companies" {
			return pick(Join, seg(3), VariantDefault)
		}
		return Board{}, false
	case "jobs.jobvite.com":
		// jobs.jobvite.com/{company}/jobs, /{company}/search/, /{company}/job/{id} and the newer
		// sites' /careers/{company}/jobs.
		i := 0
		if seg(0) == "careers" {
			i = 1
		}
		if seg(i) == "__assets__" || seg(i) == "api" {
			return Board{}, false
		}
		return pick(Jobvite, seg(i), VariantDefault)
	case "ats.rippling.com":
		// The board ats.rippling.com/[{locale}/]{board}/jobs[/{id}] and its API
		// /api/v2/board/{board}/jobs.
		if seg(0) == "api" {
			if seg(1) == "v2" && seg(2) == "board" {
				return pick(Rippling, seg(3), VariantDefault)
			}
			return Board{}, false
		}
		i := 0
		if isLocale(seg(0)) {
			i = 1
		}
		return pick(Rippling, seg(i), VariantDefault)
	case "api.rippling.com":
		if seg(0) == "platform" && seg(1) == "api" && seg(2) == "ats" && seg(3) == "v1" && seg(4) == "board" {
			return pick(Rippling, seg(5), VariantDefault)
		}
	}
	if rest, found := strings.CutSuffix(host, "."+workdayHostSuffix); found {
		return recognizeWorkday(rest, segs, pick)
	}
	if dc, found := strings.CutSuffix(host, ".myworkdaysite.com"); found && workdayDC.MatchString(dc) {
		// wd3.myworkdaysite.com/[{locale}/]recruiting/{company}/{site}: the same site as
		// {company}.wd3.myworkdayjobs.com/{site}.
		i := 0
		if isLocale(seg(0)) {
			i = 1
		}
		if seg(i) == "recruiting" {
			return pick(Workday, seg(i+1)+"/"+dc+"/"+seg(i+2), VariantDefault)
		}
		return Board{}, false
	}
	for _, s := range []struct{ suffix, vendor, variant string }{
		{".recruitee.com", Recruitee, VariantDefault},
		{".jobs.personio.de", Personio, VariantDefault},
		{".jobs.personio.com", Personio, VariantCom},
		{".na.teamtailor.com", Teamtailor, VariantNA},
		{".teamtailor.com", Teamtailor, VariantDefault},
		{".bamboohr.com", BambooHR, VariantDefault},
		{".breezy.hr", Breezy, VariantDefault},
		{".pinpointhq.com", Pinpoint, VariantDefault},
		{".icims.com", ICIMS, VariantDefault},
		{".applytojob.com", JazzHR, VariantDefault},
	} {
		if label, found := strings.CutSuffix(host, s.suffix); found && !strings.Contains(label, ".") {
			if reservedLabel(s.vendor, label) {
				return Board{}, false
			}
			return pick(s.vendor, label, s.variant)
		}
	}
	return Board{}, false
}

// reservedLabel reports whether label is one of a subdomain vendor's own hosts rather than a
// tenant's (www.teamtailor.com, app.teamtailor.com, api.breezy.hr, na.teamtailor.com, iCIMS's
// sign-in, community and cookie-banner hosts, ...).
func reservedLabel(vendor, label string) bool {
	switch vendor {
	case Teamtailor, BambooHR, Breezy, Pinpoint:
		switch label {
		case "www", "app", "api", "cdn", "assets", "support", "help", "status", "developers", "marketplace":
			return true
		}
		return vendor == Teamtailor && label == "na"
	}
	return vendorOwnHost[vendor][label]
}

// vendorOwnHost lists, for iCIMS and JazzHR, the labels of the vendor's own hosts that are no
// tenant's.
var vendorOwnHost = map[string]map[string]bool{
	ICIMS:  {"www": true, "login": true, "community": true, "cookie-policy-scripts": true, "developer": true, "api": true, "care": true},
	JazzHR: {"www": true, "app": true},
}

// recognizeWorkday reads a URL on {company}.{wdN}.myworkdayjobs.com (rest is "{company}.{wdN}"):
// the career site /[{locale}/]{site}[/job/...], or the CXS API /wday/cxs/{company}/{site}/...,
// whose company must be the host's.
func recognizeWorkday(rest string, segs []string, pick func(vendor, tenant, variant string) (Board, bool)) (Board, bool) {
	company, dc, found := strings.Cut(rest, ".")
	if !found || strings.Contains(dc, ".") {
		return Board{}, false
	}
	seg := func(i int) string {
		if i < len(segs) {
			return segs[i]
		}
		return ""
	}
	if seg(0) == "wday" {
		if seg(1) == "cxs" && strings.EqualFold(seg(2), company) {
			return pick(Workday, company+"/"+dc+"/"+seg(3), VariantDefault)
		}
		return Board{}, false
	}
	i := 0
	if isLocale(seg(0)) {
		i = 1
	}
	if site := seg(i); site != "job" && site != "wday" {
		return pick(Workday, company+"/"+dc+"/"+site, VariantDefault)
	}
	return Board{}, false
}

// localeSeg is a language-region path segment ("en-US", "fr-FR") that career sites put before
// the site's own path.
var localeSeg = regexp.MustCompile(`^[a-z]{2}-[A-Za-z]{2}$`)

func isLocale(s string) bool { return localeSeg.MatchString(s) }

// SourceKey is a source's stable identity, the same in the registry, the simulator and the
// ledger: "vendor:tenant" for an ATS tenant on its main host, "vendor:tenant:variant" on another
// host, and "vendor:" followed by the URL without its scheme for a source that names its own URL.
// tenant must already be canonical (Tenant) and url checked (SourceURL).
func SourceKey(vendor, tenant, variant, url string) string {
	if Templated(vendor) {
		if variant != VariantDefault {
			return vendor + ":" + tenant + ":" + variant
		}
		return vendor + ":" + tenant
	}
	_, rest, found := strings.Cut(url, "://")
	if !found {
		rest = url
	}
	return vendor + ":" + rest
}

// BoardPage renders the URL of a tenant's public job board page on the vendor's own site: the
// page a company's careers site links to, embeds in an iframe or redirects to
// ("https://jobs.lever.co/acme", "https://acme.teamtailor.com/jobs",
// "https://acme.wd5.myworkdayjobs.com/External"). Recognize reads it back. The crawl never reads
// it (FirstPage is the feed); the simulator serves it in host mode. JOIN has none a tenant
// renders: its company page names the company by its slug, not by the number that is its tenant
// (JoinCompanyPage).
func BoardPage(vendor, tenant, variant string) (string, error) {
	if vendor == Join {
		return "", fmt.Errorf("vendor join's board page names the company's slug, not its number %q: render it with JoinCompanyPage", tenant)
	}
	t, err := checked(vendor, tenant, variant)
	if err != nil {
		return "", err
	}
	switch vendor {
	case Greenhouse:
		if variant == VariantEU {
			return "https://job-boards.eu.greenhouse.io/" + t, nil
		}
		return "https://job-boards.greenhouse.io/" + t, nil
	case Lever:
		if variant == VariantEU {
			return "https://jobs.eu.lever.co/" + t, nil
		}
		return "https://jobs.lever.co/" + t, nil
	case Ashby:
		return "https://jobs.ashbyhq.com/" + t, nil
	case Workable:
		return "https://apply.workable.com/" + t + "/", nil
	case SmartRecruiters:
		return "https://careers.smartrecruiters.com/" + t, nil
	case Recruitee:
		return "https://" + t + ".recruitee.com/", nil
	case Personio:
		return "https://" + t + "." + personioHost(variant) + "/", nil
	case Teamtailor:
		return "https://" + t + "." + teamtailorHost(variant) + "/jobs", nil
	case BambooHR:
		return "https://" + t + ".bamboohr.com/careers", nil
	case Breezy:
		return "https://" + t + ".breezy.hr/", nil
	case Pinpoint:
		return "https://" + t + ".pinpointhq.com/", nil
	case Workday:
		company, dc, site, _ := workdayParts(t)
		return "https://" + company + "." + dc + "." + workdayHostSuffix + "/" + site, nil
	case ICIMS:
		return "https://" + t + ".icims.com/jobs", nil
	case Jobvite:
		return "https://jobs.jobvite.com/" + t, nil
	case JazzHR:
		return "https://" + t + ".applytojob.com/apply", nil
	case Rippling:
		return "https://ats.rippling.com/" + t + "/jobs", nil
	}
	return "", fmt.Errorf("vendor %s has no board page", vendor)
}

// joinSlug is the slug of a JOIN company page: one DNS-label-like word, lower-cased.
var joinSlug = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$`)

// JoinCompanyPage renders the URL of a JOIN company's public page, https://join.com/companies/{slug}:
// the page a careers site links to, embeds or redirects to. The slug is the company's name as
// JOIN spells it in its URLs (letters, digits and inner hyphens, lower-cased); the page's data
// states the company's number, the tenant the jobs API takes (pipeline/ats.JoinCompany reads
// it), which is why Recognize does not read this page and JoinCompanySlug does.
func JoinCompanyPage(slug string) (string, error) {
	s := strings.ToLower(slug)
	if !joinSlug.MatchString(s) {
		return "", fmt.Errorf("%w %q for join's company page: a slug is letters, digits and inner hyphens (at most 100)", ErrTenant, slug)
	}
	return "https://join.com/companies/" + s, nil
}

// JoinCompanySlug reads a JOIN company page URL (join.com/companies/{slug}, any page under it, such
// as a job's /companies/{slug}/{id}-{title}) and returns the company's slug; ok is false for
// anything else, the API's URLs included (Recognize reads those).
func JoinCompanySlug(raw string) (slug string, ok bool) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return "", false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host != "join.com" && host != "www.join.com" {
		return "", false
	}
	segs := strings.FieldsFunc(u.Path, func(r rune) bool { return r == '/' })
	if len(segs) < 2 || segs[0] != "companies" {
		return "", false
	}
	s := strings.ToLower(segs[1])
	if !joinSlug.MatchString(s) {
		return "", false
	}
	return s, true
}

// homes are the vendors' own home pages and the registrable domains of their own sites.
var homes = []struct {
	vendor, page string
	domains      []string
}{
	{Greenhouse, "https://www.greenhouse.io/", []string{"greenhouse.io", "greenhouse.com"}},
	{Lever, "https://www.lever.co/", []string{"lever.co"}},
	{Ashby, "https://www.ashbyhq.com/", []string{"ashbyhq.com"}},
	{Workable, "https://www.workable.com/", []string{"workable.com"}},
	{SmartRecruiters, "https://www.smartrecruiters.com/", []string{"smartrecruiters.com"}},
	{Recruitee, "https://recruitee.com/", []string{"recruitee.com"}},
	{Personio, "https://www.personio.de/", []string{"personio.de", "personio.com"}},
	{Teamtailor, "https://www.teamtailor.com/", []string{"teamtailor.com"}},
	{BambooHR, "https://www.bamboohr.com/", []string{"bamboohr.com"}},
	{Breezy, "https://breezy.hr/", []string{"breezy.hr"}},
	{Pinpoint, "https://www.pinpointhq.com/", []string{"pinpointhq.com"}},
	{Join, "https://join.com/", []string{"join.com"}},
	{Workday, "https://www.workday.com/", []string{"workday.com"}},
	{ICIMS, "https://www.icims.com/", []string{"icims.com"}},
	{Jobvite, "https://www.jobvite.com/", []string{"jobvite.com"}},
	{JazzHR, "https://www.jazzhr.com/", []string{"jazzhr.com", "applytojob.com"}},
	{Rippling, "https://www.rippling.com/", []string{"rippling.com"}},
}

// HomePage is the vendor's own home page: where a vendor sends a request for a tenant it does not
// have (any more).
func HomePage(vendor string) (string, error) {
	for _, h := range homes {
		if h.vendor == vendor {
			return h.page, nil
		}
	}
	return "", fmt.Errorf("vendor %q has no home page: use one of the templated vendors", vendor)
}

// VendorHome reports whether raw is a page of a templated vendor's own site that names no tenant:
// its home page, or any other URL on its domains that Recognize does not read as a tenant's and
// that is no JOIN company page (JoinCompanySlug). A tenant's board or feed that redirects there
// is gone (or never was), whatever status the end of the redirect answers.
func VendorHome(raw string) (vendor string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return "", false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for _, h := range homes {
		for _, d := range h.domains {
			if host == d || strings.HasSuffix(host, "."+d) {
				if _, isBoard := Recognize(raw); isBoard {
					return "", false
				}
				if _, isCompany := JoinCompanySlug(raw); isCompany {
					return "", false
				}
				return h.vendor, true
			}
		}
	}
	return "", false
}

// PageHosts lists the hostnames of the vendors' board pages (BoardPage) and home pages (HomePage)
// that Hosts does not already name: a TLS certificate for a test world that serves them names
// these too.
func PageHosts() []string {
	return []string{
		"boards.greenhouse.io", "job-boards.greenhouse.io", "job-boards.eu.greenhouse.io",
		"jobs.lever.co", "jobs.eu.lever.co",
		"jobs.ashbyhq.com",
		"careers.smartrecruiters.com",
		"www.greenhouse.io", "www.lever.co", "www.ashbyhq.com", "www.workable.com",
		"www.smartrecruiters.com", "recruitee.com", "www.personio.de",
		"breezy.hr", "www.workday.com", "www.jobvite.com", "www.jazzhr.com", "www.rippling.com",
	}
}

// IsEmbed reports whether raw, a URL Recognize reads, is a vendor's board embed rather than its
// board or feed: a path segment starting "embed" (Greenhouse's /embed/job_board/js?for={token}
// and /embed/job_board?for={token}, Ashby's /{name}/embed?version=2, BambooHR's
// {tenant}.bamboohr.com/js/embed.js). The other vendors are embedded as an iframe of their board
// page, which is no embed script.
func IsEmbed(raw string) bool {
	if _, ok := Recognize(raw); !ok {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return false
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if strings.HasPrefix(strings.ToLower(seg), "embed") {
			return true
		}
	}
	return false
}
