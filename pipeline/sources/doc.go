// Package sources is the operator's side of the source registry and the crawl's way into it: it
// reads CSV inventories of companies and sources (Import), adds one ATS tenant after one
// validating fetch of its real feed (Add), builds the crawl's pipeline.Directory from the
// registry (Directory), runs the registry crawl's workers (which store their reads in batches by
// size or age: readstore.go, and carry a chain of pages longer than its window to the next one:
// chains.go) and committer (Crawl) and its on-demand
// crawls of one company through the workers' leases (Crawl.CrawlCompany), telling
// operators what each committed window saw (WindowHealth: sources by vendor and read status, the
// reqs held open by sources not read ok, the registry by status and cooling down). Metrics are
// the caller's: this package counts, it registers nothing.
//
// It also runs discovery around package discovery, which it is given as a Discoverer: the
// workers' DiscoveryRunner queues coverage requests, broken sources' companies (at once when a
// read answers 404 or 410) and the monthly re-check and runs one discovery whenever no feed
// source is due, within a per-window budget;
// StoreResult checks what a run found and writes it to the registry (DiscoverNow is the
// operator's run); and the committer retires the source a company moved away from once its new
// source was read. It must not run discovery's own steps (package discovery does).
//
// Everything an operator gives is checked here before anything is written: domains are reduced to
// their host, vendors and tenants pass internal/atsurl (so no tenant can move a URL's host or
// path), feed URLs are absolute https, countries, regions, headcount bands and agency kinds are
// the vocabulary of internal/normalize. A file with any bad row writes nothing, and every write is
// a dry run unless asked to apply.
//
// It owns those checks and the mapping between the registry's rows and the crawl's directory. It
// must not hold SQL (the statements are oltp's), parse feed formats (pipeline/ats does), render or
// recognise vendor URLs (internal/atsurl does), or touch ClickHouse or the ledger.
package sources
