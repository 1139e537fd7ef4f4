// Package ats turns fetched job-feed bodies into Postings: one adapter per real public
// job-feed format (Greenhouse, Lever, Ashby, Workable, SmartRecruiters, Recruitee,
// Personio XML, Teamtailor RSS, BambooHR's careers list, Breezy, Pinpoint, JOIN, schema.org
// JobPosting JSON-LD board pages, and our aggregator feed).
//
// The package owns format-level decoding only: it accepts what real feeds send
// (scalar-or-array and string-or-object fields, numbers as strings, several timestamp
// styles, blank salary objects), maps each record onto Posting, counts records it cannot
// use as Malformed instead of failing the page, and computes the next page URL from the
// URL the body came from. It also derives what a format implies but does not spell out: the
// public posting link where the feed has none (SmartRecruiters, Personio, BambooHR, JOIN,
// JSON-LD job pages), one Posting per place of a posting listed for several places, remote
// wording, and pay a feed renders only as text (Breezy's "$170,000 – $300,000 / year").
//
// It must not touch anything else: no HTTP (callers fetch and hand over bodies), no
// normalization beyond format-level decoding (countries stay as published, titles stay
// raw, no currency conversion, no company resolution), and no import of any other package
// of this project. Adapters are stateless and safe for concurrent use.
package ats
