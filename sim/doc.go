// Package sim is the crawl simulator: a deterministic, seeded, evolving world of employers, their
// requisitions (reqs), ATS tenants, job boards and aggregator feeds, served over HTTP in the real
// public formats (Greenhouse, Lever, Ashby, Workable, SmartRecruiters, Recruitee, Personio XML,
// Teamtailor RSS, BambooHR's careers list, Breezy, Pinpoint, JOIN, Workday's CXS list (a POST,
// dated relative to the Date it answers with), the iCIMS, Jobvite and JazzHR careers pages
// (server-rendered HTML), Rippling's board API, schema.org JobPosting JSON-LD list pages and job
// pages, and our aggregator feed) with the shapes real feeds send (several places per posting,
// remote wording, missing links and countries, pay as text, pay with the wrong period, pay a
// tenant hides), with injectable faults and an exportable ground truth. Workday and iCIMS
// tenants lean to large employers and JazzHR's to small ones, as their markets do.
//
// What it owns: the world model (companies, coverage, ATS migrations, req lifecycles, surges,
// reposts, cross-posting with variant titles), the vendor wire formats and their pagination,
// conditional requests (ETag / If-None-Match) and gzip, the fault schedule, the source directory
// and the ground truth (/_sim/directory, /_sim/truth, /_sim/tick, /_sim/healthz), the registry
// export (RegistryCSV: the world as the source registry's import file), host mode (every vendor,
// board and the aggregator answered at its real hostname and path, routed by Host, with
// /robots.txt on every host; hosts.go), the companies' careers sites on their own domains with
// the vendors' board pages (JOIN's company pages), demo tenants, gone tenants and home pages, and the discovery truth
// (DiscoveryTruth, /_sim/discovery: per company, its own sources and whether discovery can find
// one; sites.go), the world's clock (Clock: wall time, or one 3-hour cycle
// per --cycle-every of wall time for the dev stack), and each company's hidden conversion propensity, tied to its hiring motion, from which
// OutcomeLabels draws outcome labels (outcomes.go), and every req's job description: what it
// states (technologies, level, employment and workplace type, years, visa, pay; DescriptionTruth,
// exported with the truth) and its text, written in the req's language (English, German, French,
// Spanish) with the sections, wordings and noise real postings have, and rendered in each
// vendor's field and markup (describe.go, descrender.go, data_desc.go, data_stacks.go).
// The contract it implements is docs/crawl-contract.md.
//
// Determinism: every fact about tick t is a pure function of (seed, company, slot, t), computed on
// the fly from hashes; nothing is replayed. Static per-company data is computed once in New. A
// req's description draws from hash streams of its own, so adding it shifted no other draw; a
// description depends on its req alone, so the World keeps descriptions (as each feed wrote
// them) and their truth in a cache bounded by bytes (Config.DescriptionCache, desccache.go)
// that changes no byte of any body (TestBodiesMatchGolden). The only per-tick caches are the
// board/aggregator indexes (rebuilt lazily for the ticks being served) and the per-(tick, URL)
// attempt counters used by transient faults.
//
// Source keys are internal/atsurl's SourceKey of the real URLs in both modes ("greenhouse:acme",
// "jsonld:www.jobsnorth.example/jobs?page=1"), so the registry, the ledger and the truth agree.
//
// What it must not touch: it imports only leaves (internal/atsurl renders the vendors' real URLs
// for host mode; internal/jobtext gives descriptions their technology vocabulary and
// internal/normalize their seniorities and country names, and the tests read descriptions back
// with jobtext; the tests also use internal/testca), never the crawl (the
// adapters in pipeline/ats and this package agree only through the contract), keeps no
// package-level mutable state, and never reaches outside the loopback world it serves.
package sim
