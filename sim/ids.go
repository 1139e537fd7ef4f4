package sim

import (
	"strconv"

	"github.com/planehq/hiringsignal/internal/atsurl"
)

// Posting ids. Every id is derived from (company, slot, generation, repost) through a bijective
// mixer, so ids are unique within their source and change when a req is reposted (a repost is a
// new posting of the same req), while requisition ids stay with the req.

// packed identifies a posting of a company: slot, generation and repost counter.
func packed(g *gen) uint32 {
	return uint32(g.slot)<<20 | uint32(g.k&0x3FFF)<<6 | uint32(g.rep)
}

// atsID32 is the posting number of g on vendor v: unique within the tenant.
func atsID32(c *company, v uint8, g *gen) uint32 {
	return mix32(packed(g) ^ uint32(h2(c.key, uint64(v)+saltID)))
}

// internalID32 is stable across reposts (Greenhouse internal_job_id).
func internalID32(c *company, g *gen) uint32 {
	p := uint32(g.slot)<<20 | uint32(g.k&0x3FFF)<<6
	return mix32(p ^ uint32(h2(c.key, saltID+100)))
}

// appendATSID appends the source id of g as vendor v serves it.
func appendATSID(b []byte, c *company, v uint8, g *gen) []byte {
	id := atsID32(c, v, g)
	switch v {
	case vGreenhouse:
		return strconv.AppendInt(b, 4000000000+int64(id), 10)
	case vLever, vAshby:
		return appendUUID(b, id, c.key+uint64(v))
	case vWorkable:
		b = appendHexUpper(b, uint64(id), 8)
		return appendHexUpper(b, c.key>>56, 2)
	case vSmartRecruiters:
		return strconv.AppendUint(b, 743999000000000+uint64(id), 10)
	case vRecruitee, vPersonio, vWorkday:
		// Workday's list names a posting by its path (appendWorkdayPath); this is its number.
		return strconv.AppendInt(b, 1000000+int64(id), 10)
	case vTeamtailor:
		return strconv.AppendInt(b, 7000000+int64(id), 10) // the number in the job's link
	case vBambooHR, vPinpoint:
		return strconv.AppendUint(b, uint64(id), 10)
	case vBreezy:
		// Twelve hex digits, like Breezy's "9fdd4744af8f".
		b = appendHexLower(b, uint64(id), 8)
		return appendHexLower(b, c.key>>48, 4)
	case vJoin:
		return strconv.AppendInt(b, 10000000+int64(id), 10)
	case vICIMS:
		return strconv.AppendUint(b, uint64(id), 10)
	case vJobvite:
		// An 8-character job code as Jobvite's ("oD2jAfwi"): "o", the posting number in base 62,
		// and one character of the tenant.
		b = append(b, 'o')
		b = appendBase62(b, uint64(id), 6)
		return append(b, base62Digits[c.key%62])
	case vJazzHR:
		// A 10-character id as JazzHR's ("RHnK3IiNee"): the posting number in base 62 and four
		// characters of the tenant.
		b = appendBase62(b, uint64(id), 6)
		return appendBase62(b, c.key>>20, 4)
	case vRippling:
		return appendUUID(b, id, c.key+uint64(v))
	}
	return b
}

// appendHexLower appends the low n hex digits of v, lower case.
func appendHexLower(b []byte, v uint64, n int) []byte {
	for i := n - 1; i >= 0; i-- {
		b = append(b, hexDigits[(v>>(uint(i)*4))&0xF])
	}
	return b
}

const base62Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// appendBase62 appends v as n base-62 digits (v modulo 62^n), most significant first.
func appendBase62(b []byte, v uint64, n int) []byte {
	start := len(b)
	for i := 0; i < n; i++ {
		b = append(b, 0)
	}
	for i := n - 1; i >= 0; i-- {
		b[start+i] = base62Digits[v%62]
		v /= 62
	}
	return b
}

// boardPostKey is unique per (company, slot, generation, repost) across the whole world.
func boardPostKey(c *company, g *gen) uint64 {
	return uint64(c.idx)<<32 | uint64(packed(g))
}

// appendBoardID appends the id of g's posting on board bi.
func (w *World) appendBoardID(b []byte, bi int, c *company, g *gen) []byte {
	b = append(b, boardDefs[bi].prefix...)
	b = append(b, '-')
	return strconv.AppendUint(b, mix64(boardPostKey(c, g)^h2(w.seed, uint64(bi)+saltID)), 36)
}

// appendAggID appends the id of g's posting on the aggregator.
func (w *World) appendAggID(b []byte, c *company, g *gen) []byte {
	b = append(b, "jm_"...)
	return strconv.AppendUint(b, mix64(boardPostKey(c, g)^h2(w.seed, saltID+999)), 36)
}

// hasReqID reports whether c publishes requisition ids on formats that carry one.
func hasReqID(c *company) bool { return c.key&0xF < 11 } // ~70%

// appendReqID appends the employer requisition id of g (stable across reposts and migrations).
func (w *World) appendReqID(b []byte, g *gen) []byte {
	b = append(b, functionCode[w.titles[g.title].fn]...)
	b = append(b, '-')
	n := (uint64(g.k)%90000+10000)*1000 + uint64(g.slot)
	return strconv.AppendUint(b, n, 10)
}

// tenantKey is the source key of vendor v's tenant of c: atsurl.SourceKey, as the registry and
// the ledger spell it ("greenhouse:acme").
func tenantKey(c *company, v uint8) string {
	return atsurl.SourceKey(vendorNames[v], c.tenant(v), atsurl.VariantDefault, "")
}

// tenantURL builds the first-page URL of c's tenant on vendor v: the vendor's real endpoint in
// host mode, the simulator's own path under BaseURL otherwise.
func (w *World) tenantURL(c *company, v uint8) string {
	t := c.tenant(v)
	if w.cfg.HostMode {
		u, err := atsurl.FirstPage(vendorNames[v], t, atsurl.VariantDefault)
		if err != nil {
			// Tenants are drawn from letters and digits; TestTenantsAreRealTenants checks them.
			panic("sim: tenant " + t + " has no real URL: " + err.Error())
		}
		return u
	}
	base := w.cfg.BaseURL
	switch v {
	case vGreenhouse:
		return base + "/greenhouse/v1/boards/" + t + "/jobs?content=true"
	case vLever:
		return base + "/lever/v0/postings/" + t + "?mode=json&skip=0&limit=100"
	case vAshby:
		return base + "/ashby/posting-api/job-board/" + t + "?includeCompensation=true"
	case vWorkable:
		return base + "/workable/api/v1/widget/accounts/" + t + "?details=true"
	case vSmartRecruiters:
		return base + "/smartrecruiters/v1/companies/" + t + "/postings?limit=100&offset=0"
	case vRecruitee:
		return base + "/recruitee/" + t + "/api/offers/"
	case vPersonio:
		return base + "/personio/" + t + "/xml?language=en"
	case vTeamtailor:
		return base + "/teamtailor/" + t + "/jobs.rss?per_page=" + atsurl.TeamtailorPageSize + "&offset=0"
	case vBambooHR:
		return base + "/bamboohr/" + t + "/careers/list"
	case vBreezy:
		return base + "/breezy/" + t + "/json"
	case vPinpoint:
		return base + "/pinpoint/" + t + "/postings.json"
	case vJoin:
		return base + "/join/api/public/companies/" + t + "/jobs?page=1&pageSize=" + atsurl.JoinPageSize
	case vWorkday:
		company, dc, site, _ := atsurl.WorkdayParts(t)
		return base + "/workday/" + dc + "/wday/cxs/" + company + "/" + site + "/jobs"
	case vICIMS:
		return base + "/icims/" + t + "/jobs/search?ss=1&in_iframe=1"
	case vJobvite:
		return base + "/jobvite/" + t + "/search/"
	case vJazzHR:
		return base + "/jazzhr/" + t + "/apply"
	case vRippling:
		return base + "/rippling/api/v2/board/" + t + "/jobs?page=0&pageSize=50"
	}
	return ""
}

// hostBoardURL is the first page of board bi on its own host: its URL in host mode and in the
// registry, and (without the scheme) its source key in both modes.
func hostBoardURL(bi int) string {
	return "https://" + boardDefs[bi].host + "/jobs?page=1"
}

// hostAggregatorURL is the aggregator's feed of region on its own host (see hostBoardURL).
func hostAggregatorURL(region int) string {
	return "https://" + AggregatorFeedHost + "/v1/feed?region=" + regionNames[region]
}

func (w *World) boardURL(bi int) string {
	if w.cfg.HostMode {
		return hostBoardURL(bi)
	}
	return w.cfg.BaseURL + "/boards/" + boardDefs[bi].name + "/jobs?page=1"
}

func (w *World) aggregatorURL(region int) string {
	if w.cfg.HostMode {
		return hostAggregatorURL(region)
	}
	return w.cfg.BaseURL + "/aggregator/v1/feed?region=" + regionNames[region]
}
