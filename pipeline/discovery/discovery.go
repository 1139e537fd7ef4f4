// Package discovery finds a company's job sources from its domain: it reads the company's own
// site (robots.txt, the home page, common careers paths and sitemap entries, following links that
// say careers or jobs), recognises every known ATS tenant in links, script sources and iframes
// (embedded boards first, so a path word is never taken for a tenant) and JOIN's company pages
// (whose data states the company's number, its tenant), takes JobPosting JSON-LD pages of the
// company's own site as a careers_site source, and otherwise guesses at most one tenant per
// vendor whose feed states a company's name. Every candidate is validated against the vendor's
// endpoint, asked as the crawl asks it (Workday's list is POSTed; answers, parses, not a demo
// tenant, not a redirect to the vendor's home, the vendor's company name matches the company's)
// and kept with its evidence. A run stays within a page budget and a request budget
// (Options); Result says what it found, every request it made, and, when the company is not
// covered, why in one line. The rules (budgets, what is unambiguous enough to make active, the
// demo rule, when a careers site is a source) are docs/decisions.md, "Discovery from a domain".
//
// It owns the steps of discovery, the HTML scan (x/net/html's tokenizer, never patterns over
// markup), the validation rules and the Result it reports. It must not hold SQL or write the
// registry (oltp and pipeline/sources do), fetch anything except through the Getter it is given
// (pipeline.Fetcher.Get, and its Post for a list that answers a POST only, which carry
// robots.txt, the host budgets and the egress policy), render or recognise vendor URLs itself
// (internal/atsurl does), or parse a vendor's feed or page but with pipeline/ats (its adapters,
// and ats.JoinCompany for JOIN's company page; it reads only the "name" of Greenhouse's board
// endpoint and of Workable's account besides).
package discovery

import "time"

// Company is what discovery starts from: the company's registrable domain and, when known, its
// name (used to confirm a vendor's company name and to guess tenants).
type Company struct {
	Domain string `json:"domain"`
	Name   string `json:"name,omitempty"`
}

// Outcomes of a discovery run.
const (
	// OutcomeCovered: at least one source was validated and made active.
	OutcomeCovered = "covered"
	// OutcomeCandidates: sources were found and validated, but none unambiguously enough to make
	// active without an operator (they wait as candidates).
	OutcomeCandidates = "candidates"
	// OutcomeNoATS: the site was read and nothing valid was found; Tried says what was tried.
	OutcomeNoATS = "no_ats_found"
	// OutcomeBlockedByRobots: the company's robots.txt disallows the pages discovery reads.
	OutcomeBlockedByRobots = "blocked_by_robots"
	// OutcomeUnreachable: the company's site could not be read (DNS, connection, 5xx).
	OutcomeUnreachable = "unreachable"
)

// Kinds of a found source, as the registry's crawl_sources.kind spells them.
const (
	KindATSTenant   = "ats_tenant"
	KindCareersSite = "careers_site"
)

// How a source was found (Evidence.Via).
const (
	ViaEmbed    = "embed"    // an embedded board script or container (Greenhouse's embed first)
	ViaIframe   = "iframe"   // an iframe's src
	ViaScript   = "script"   // a script's src
	ViaLink     = "link"     // an anchor's href
	ViaRedirect = "redirect" // the careers page redirected to the board
	ViaJSONLD   = "jsonld"   // JobPosting JSON-LD on the company's own pages
	ViaGuess    = "guess"    // a tenant guessed from the domain or name, validated at the vendor
)

// Found is one source discovery found, with what it saw.
type Found struct {
	Kind    string `json:"kind"`              // KindATSTenant or KindCareersSite
	Vendor  string `json:"vendor"`            // atsurl vendor name ("jsonld" for a careers site)
	Tenant  string `json:"tenant,omitempty"`  // canonical tenant (atsurl.Tenant) of an ATS tenant
	Variant string `json:"variant,omitempty"` // atsurl variant
	URL     string `json:"url"`               // the first page the crawl reads (atsurl.FirstPage, or the careers page)
	// Active: validated and unambiguous, so the registry makes it active; else it waits as a
	// candidate for an operator.
	Active bool `json:"active"`
	// Rejected names why a candidate was not kept ("" when kept): "demo_tenant",
	// "vendor_home_redirect", "name_mismatch", "not_found", "empty", "unparsable", ...
	Rejected string   `json:"rejected,omitempty"`
	Evidence Evidence `json:"evidence"`
}

// Evidence is what discovery saw of one candidate.
type Evidence struct {
	Via          string `json:"via"`                     // ViaEmbed, ViaLink, ...
	FoundOn      string `json:"found_on,omitempty"`      // the page whose markup named it ("" for a guess)
	CheckedURL   string `json:"checked_url"`             // the vendor endpoint asked to validate it
	FinalURL     string `json:"final_url,omitempty"`     // where that request ended after redirects
	Status       int    `json:"status"`                  // its HTTP status (0: no answer)
	Jobs         int    `json:"jobs"`                    // postings it listed
	DetectedName string `json:"detected_name,omitempty"` // the company name the vendor states
	NameMatches  bool   `json:"name_matches"`            // DetectedName is the company's name
}

// Step is one request discovery made, for the record a coverage request shows.
type Step struct {
	URL    string `json:"url"`
	Status int    `json:"status"`         // HTTP status; 0 when no answer
	Note   string `json:"note,omitempty"` // "robots disallow", "timeout", "3 links followed", ...
}

// Result is what one discovery run of one company found.
type Result struct {
	Company  Company       `json:"company"`
	Outcome  string        `json:"outcome"`          // Outcome*
	Reason   string        `json:"reason,omitempty"` // one line a customer can read when not covered
	Found    []Found       `json:"found"`            // every candidate, kept or rejected
	Tried    []Step        `json:"tried"`            // every request, in order
	Requests int           `json:"requests"`
	Started  time.Time     `json:"started"`
	Took     time.Duration `json:"took"`
}
