// Package ats turns fetched job-feed bodies into Postings: one adapter per real public
// job-feed format (Greenhouse, Lever, Ashby, Workable, SmartRecruiters, Recruitee,
// Personio XML, Teamtailor RSS, BambooHR's careers list, Breezy, Pinpoint, JOIN, Workday's CXS
// list, the iCIMS, Jobvite and JazzHR careers pages, Rippling's board API, schema.org
// JobPosting JSON-LD board pages, and our aggregator feed).
//
// Where a vendor's only public surface is HTML (iCIMS, Jobvite, JazzHR) the adapter reads the
// server-rendered list by the vendor's own markup (golang.org/x/net/html), and a page cut short
// or without that markup is an error, never an empty board. Optional interfaces let an
// adapter say more than Parse: Requester (the page is not a plain GET: Workday's list is a
// POST whose offset the page URL carries in its fragment) and ServedParser (the format dates
// postings relative to when the page was served: Workday's "Posted 3 Days Ago"); a third,
// Numbered, marks the formats whose pages are addressed by a number or an offset, which
// PageAhead steps on so the crawl can ask a page before the page linking it is read.
//
// The package owns format-level decoding only: it accepts what real feeds send
// (scalar-or-array and string-or-object fields, numbers as strings, several timestamp
// styles, blank salary objects), maps each record onto Posting, counts records it cannot
// use as Malformed instead of failing the page, and computes the next page URL from the
// URL the body came from. It also derives what a format implies but does not spell out: the
// public posting link where the feed has none (SmartRecruiters, Personio, BambooHR, JOIN,
// JSON-LD job pages, Workday's externalPath, Jobvite's relative links), one Posting per place
// of a posting listed for several places, remote wording, and pay a feed renders only as text
// (Breezy's "$170,000 – $300,000 / year"). Besides the feeds it reads one vendor page that is no
// feed: JOIN's company page, for the company number its API takes (JoinCompany).
//
// It keeps each posting's description as the feed publishes it (HTML or text, sections in the
// feed's order under their headings), bounded at MaxDescription, and never cleans it: turning it
// into text is internal/jobtext's.
//
// It maps the terms a feed states in structured fields (employment type, workplace type, a
// seniority level, years of experience) onto internal/normalize's vocabularies, and only those:
// a value the vocabulary does not know is left unset, and nothing is read from the description.
//
// It must not touch anything else: no HTTP (callers fetch and hand over bodies), no
// normalization beyond format-level decoding and those terms (countries stay as published,
// titles stay raw, no currency conversion, no company resolution), and no import of any
// package of this project but internal/normalize. Adapters are stateless and safe for concurrent use.
package ats
