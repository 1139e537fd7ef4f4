// Package bigworld writes a large committed ledger straight into ClickHouse, without a crawl: the
// benchmark world of millions of reqs that the read side (read/snapshot's build, the API's search
// and company reads, the events feed) is measured on. Crawling such a world through the simulator
// would take hours on the benchmark machine; this writes 10 million reqs in minutes.
//
// The world is drawn from a seed: companies modelled on a small simulated world's directory
// (package sim: names, domains, HQ countries, regions, industries, headcount bands, agency kinds,
// ATS vendors and tenants, the regions' job boards) with a heavy-tailed number of reqs each (most
// 1–20, a few thousand), and reqs modelled on that world's ground truth at one tick (titles,
// functions, countries, the facts their descriptions state), with team qualifiers and gender tags
// that vary the titles as real feeds do. Each req has a lifecycle over Config.Days of 3-hour cycles
// in every crawl region: most are live from the first cycle, the rest open later; some are
// reobserved with a new board or a declared salary, some close, some of those are reposted. The
// rows are those the crawl writes (package analytics' tables, with the crawl's req keys, company
// ids and normalized titles: packages pipeline and normalize), in large columnar INSERTs with
// named columns, each cycle committed by its cycles row once its events are written, so the
// committed watermark, the presence check and the tick rule read it as a crawled ledger.
//
// Generate is deterministic (same Config, same rows) and resumable: it commits whole ticks, and a
// rerun regenerates the world in memory and writes only the ticks after the last committed one;
// on a complete database it writes nothing. It does not write req_descriptions: 85% of reqs name a
// description hash, as a crawled world's do, but no text (include=description answers null).
//
// It is for bench/ programs and their tests only, and must not be imported by the service. It
// writes only the database of the connection it is given and never drops anything.
package bigworld
