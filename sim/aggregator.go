package sim

import (
	"strconv"
	"time"
)

// Aggregator feed (our own design): GET /aggregator/v1/feed?region=R[&cursor=C]
// {"jobs":[{"id","title","company":{"name","domain"},"location":{"city","country"},"url",
// "posted_at" (RFC 3339),"source" (the board it copied from),"description" (HTML, as the source
// published it),"salary":{"min","max","currency","period"}|null}],"next_cursor":"..."}; pages of
// 200, next_cursor absent on the last page.

const aggPageSize = 200

const aggregatorJunk = `{"id":null,"title":17,"company":"?","location":[],"url":false,"posted_at":"never","source":null,"salary":"lots"}`

// appendCursor encodes a page offset as an opaque cursor.
func appendCursor(b []byte, offset int) []byte {
	b = append(b, "c1."...)
	return strconv.AppendUint(b, uint64(offset)*7919+13, 36)
}

// parseCursor decodes a cursor; ok is false for a malformed one.
func parseCursor(s string) (offset int, ok bool) {
	if s == "" {
		return 0, true
	}
	if len(s) < 4 || s[:3] != "c1." {
		return 0, false
	}
	v, err := strconv.ParseUint(s[3:], 36, 64)
	if err != nil || v < 13 || (v-13)%7919 != 0 {
		return 0, false
	}
	return int((v - 13) / 7919), true
}

func (w *World) renderAggregator(b []byte, region, tick, offset int, junk bool) []byte {
	refs := w.snapshot(tick).aggs[region]
	lo := min(offset, len(refs))
	hi := min(lo+aggPageSize, len(refs))
	var scratch [512]byte
	b = append(b, `{"jobs":[`...)
	n := 0
	if junk && lo == 0 {
		b = append(b, aggregatorJunk...)
		n++
	}
	for i := lo; i < hi; i++ {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		ref := refs[i]
		c := &w.companies[ref.comp]
		g := w.genAt(c, int(ref.slot), tick)
		cd := &countries[g.country]
		b = append(b, `{"id":"`...)
		idStart := len(b)
		b = w.appendAggID(b, c, &g)
		idEnd := len(b)
		b = append(b, `","title":`...)
		b = appendStrBytes(b, w.appendTitleVariant(scratch[:0], &g, h3(g.h, saltVariant, 100)))
		b = append(b, `,"company":{"name":`...)
		b = appendStrBytes(b, appendCompanyVariant(scratch[:0], c, h3(g.h, saltVariant+1, 100)))
		b = append(b, `,"domain":"`...)
		b = append(b, c.domain...)
		b = append(b, `"},"location":{"city":`...)
		if g.remote {
			b = append(b, `"Remote"`...)
		} else {
			b = appendStr(b, cd.cities[g.city])
		}
		b = append(b, `,"country":`...)
		b = appendStr(b, cd.name)
		b = append(b, `},"url":"https://`...)
		b = append(b, aggregatorHost...)
		b = append(b, "/j/"...)
		b = append(b, b[idStart:idEnd]...)
		b = append(b, `","posted_at":`...)
		b = appendTime(b, w.postedAt(&g, saltVariant+100).UTC(), time.RFC3339)
		b = append(b, `,"source":"`...)
		mask, _ := crossPost(&g)
		switch {
		case mask&1 != 0:
			b = append(b, boardDefs[w.boardsOf[region][0]].name...)
		case mask&2 != 0:
			b = append(b, boardDefs[w.boardsOf[region][1]].name...)
		default:
			b = append(b, vendorNames[c.vendorAt(tick)]...)
		}
		b = append(b, `","description":`...)
		d := w.descOf(c, &g)
		b = d.append(b, flHTMLJSON)
		d.release()
		b = append(b, `,"salary":`...)
		if g.salary {
			s := w.salaryOf(&g)
			b = append(b, `{"min":`...)
			b = appendNum(b, s.min)
			b = append(b, `,"max":`...)
			b = appendNum(b, s.max)
			b = append(b, `,"currency":"`...)
			b = append(b, s.currency...)
			b = append(b, `","period":"`...)
			b = append(b, periodWord[s.period]...)
			b = append(b, `"}}`...)
		} else {
			b = append(b, "null}"...)
		}
	}
	b = append(b, ']')
	if hi < len(refs) {
		b = append(b, `,"next_cursor":"`...)
		b = appendCursor(b, hi)
		b = append(b, '"')
	}
	return append(b, '}')
}
