package snapshot

import (
	"encoding/binary"

	"github.com/planehq/hiringsignal/analytics"
)

// positions is where one company's reqs lie in the ledger (an analytics.ReqAt each), packed as
// signed varints a req: the event_seq of its latest event, the distance back to its first, and
// its posting date in unix seconds (0: none). About 10 bytes a req where a ReqAt is 24: a snapshot
// holds one for every req of the ledger, and only an applied commit reads them, for the companies
// it touched.
type positions []byte

// appendPosition appends a's packed form to p.
func appendPosition(p positions, a analytics.ReqAt) positions {
	p = binary.AppendVarint(p, int64(a.Last))
	p = binary.AppendVarint(p, int64(a.Last)-int64(a.Open))
	return binary.AppendVarint(p, a.PostedAt)
}

// appendTo appends p's positions to out.
func (p positions) appendTo(out []analytics.ReqAt) []analytics.ReqAt {
	next := func() int64 {
		v, n := binary.Varint(p)
		if n <= 0 {
			panic("snapshot: damaged req positions")
		}
		p = p[n:]
		return v
	}
	for len(p) > 0 {
		last := next()
		open := last - next()
		out = append(out, analytics.ReqAt{Last: uint64(last), Open: uint64(open), PostedAt: next()})
	}
	return out
}

// exactly is reqs with each company's positions moved into one array of the exact size (append
// left them up to twice their length).
func exactly(reqs map[uint64]positions) map[uint64]positions {
	n := 0
	for _, l := range reqs {
		n += len(l)
	}
	arena := make([]byte, 0, n)
	for id, l := range reqs {
		from := len(arena)
		arena = append(arena, l...)
		reqs[id] = arena[from:len(arena):len(arena)]
	}
	return reqs
}
