// Package pipeline owns the crawl: for one region at one tick it fetches every source of the
// directory, parses each page with its format adapter (pipeline/ats), normalizes postings
// (internal/normalize), reads what each posting states of itself (its feed's structured terms
// first, then its title and cleaned description through internal/jobtext, in a cycle only for
// the postings a req's facts come from; the description is stored apart from the ledger, once
// per distinct text of a req: describe.go), deduplicates them
// into reqs (one per company, title and country, all boards listed; a req's facts are its best
// posting's, gaps filled from another posting's text where the best one's list has none, or from
// a fuller text where its own is a short opening), diffs them against the ledger state (opened,
// reobserved, reposted, closed) and hands the cycle's events and sightings to package analytics,
// which writes them in batches and commits the cycle last. The ledger state is rebuilt at start
// through analytics' reads. BackfillFacts (factsbackfill.go) re-derives stored reqs' facts from
// their stored texts and writes them on their latest events, outside any cycle.
//
// The fetcher is fit for real hosts: it obeys robots.txt (a page it disallows is not fetched and
// its source is blocked), keeps each host under a request rate that halves on 429s, follows
// redirects only within a source's registrable domain or its company's, asks conditionally (ETag,
// Last-Modified, and a body hash for hosts that send neither), sends the request an adapter asks
// for (Workday's list is a POST whose offset the page URL's fragment carries), and dials through
// internal/egress's policy unless the run allows private addresses (the simulator) or routes a
// host explicitly (ConnectTo). It tells every request's vendor, host, outcome and latency to
// FetchConfig.OnRequest, and counts the reqs held open only by sources not read ok
// (Crawler.HeldOpenUnread): the metrics themselves are the caller's, and pipeline imports no
// metrics package. Fetcher.Get reads any one page with the same politeness (one attempt,
// redirects followed to any host, each hop asked of its robots.txt, a bounded body) for
// pipeline/discovery, which finds a company's sources from its domain.
//
// A source's pages are a chain, each naming the next: where an adapter's pages are numbered
// (ats.Numbered) the next pages are read ahead on fetch slots no source is using, within each
// host's gate and rate, and taken only when the page before links them, so the pages and
// postings are those of a read page after page (chain.go); a chain longer than
// FetchConfig.MaxPages fails its source (told to FetchConfig.OnPageCap). A worker may read a chain
// in parts (ReadSegment, from a ChainPlace): a read that stops with pages left is StatusPartial,
// whose sightings count and whose reqs none closes, and which the cycles row counts as carried
// (sources_carried), never as failed; a stored read's pages and postings, which the row sums, are
// those its window read. Carrying the parts across windows is pipeline/sources'.
//
// Stages are bounded goroutine pools joined by bounded channels, so a slow stage holds back the one
// before it. A source that fails or is blocked is unknown, never empty: none of its reqs is closed. A cycle is
// idempotent: a committed (region, tick) is skipped, and a crashed one is recomputed from the
// committed ledger and overwrites its own partial rows.
//
// Only an ok read closes: a source that failed, was blocked, was not fetched (paused), was read in
// part (partial) or read suspect (its reqs fell to zero, or by more than 80 %, from 5 or more:
// guard.go, confirmed by a later read) keeps its reqs open; a source an operator retired closes
// what it alone carried with close_reason source_retired. A cycle after a gap in its region's
// history carries the gap's bounds and dates openings by their posted date inside it.
//
// A cycle can run whole (RunRegions, RunTick) or split (split.go): workers read sources into
// SourceReads (ReadSources) and one committer commits a window from every worker's reads
// (CommitReads). Every commit holds Config.CommitLock and checks the committed head first, so
// processes sharing a ledger never reuse an event_seq; with Config.Ledger the head and the commit
// in flight are also kept beside ClickHouse (ledgerhead.go), so a write that gave up and lands
// later is sent again as it was numbered, never numbered over.
//
// It must not serve HTTP or touch Postgres (the commit lock, the ledger head and the host turns
// are interfaces its caller fills from oltp): reads belong to api, accounts to oltp. It holds no SQL
// and no ClickHouse row type (statements and rows are analytics'), and no place table or country
// rule (those are normalize's).
package pipeline
