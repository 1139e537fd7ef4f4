package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// goldenBodies is the SHA-256 of every body goldenHash renders of the golden world
// (Config{Seed: 23, Companies: 200}) at goldenTicks, as e587235 ("sim: real job descriptions per
// req, in each vendor's field, with their truth") rendered them. A change of any byte of any
// feed, page or truth changes it: a change meant to move no byte (a cache, a faster writer) must
// keep it; a change meant to move bytes updates it in the same commit, saying why.
const goldenBodies = "35844dbf1f98d186d8d9a51469ac41dd8e1525d102ad0ae12db63d7c7540e789"

var goldenTicks = []int{30, 31, 90}

func goldenConfig() Config { return Config{Seed: 23, Companies: 200} }

// goldenHash hashes, in a fixed order, every body of w at ticks: every ATS feed of every
// company and demo tenant in each of its variants (with and without descriptions, paged, with
// a junk record), every board page and job page, every aggregator page and the truth. It is the
// hash of the ticks' hashes (tickHash), in order.
func goldenHash(w *World, ticks []int) string {
	sums := make([][]byte, len(ticks))
	for i, tick := range ticks {
		sums[i] = tickHash(w, tick)
	}
	return combine(sums)
}

func combine(sums [][]byte) string {
	h := sha256.New()
	for _, s := range sums {
		h.Write(s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func tickHash(w *World, tick int) []byte {
	h := sha256.New()
	goldenTick(w, tick, h)
	return h.Sum(nil)
}

func goldenTick(w *World, tick int, h hash.Hash) {
	var buf []byte
	put := func(key string, b []byte) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write([]byte(key))
		h.Write(n[:])
		h.Write(b)
	}
	comps := make([]*company, 0, len(w.companies)+numVendors)
	for i := range w.companies {
		comps = append(comps, &w.companies[i])
	}
	for v := range w.demos {
		if w.demos[v].vendor != vNone {
			comps = append(comps, &w.demos[v])
		}
	}
	for _, c := range comps {
		v := c.vendorAt(tick)
		key := strconv.Itoa(tick) + ":" + vendorNames[v] + ":" + c.tenant(v)
		for _, junk := range []bool{false, true} {
			k := key
			if junk {
				k += ":junk"
			}
			switch v {
			case vNone:
				continue
			case vGreenhouse:
				put(k+":plain", w.renderGreenhouse(buf[:0], c, tick, false, junk))
				buf = w.renderGreenhouse(buf[:0], c, tick, true, junk)
			case vLever:
				put(k+":3", w.renderLever(buf[:0], c, tick, 0, 3, junk))
				put(k+":3+3", w.renderLever(buf[:0], c, tick, 3, 3, junk))
				buf = w.renderLever(buf[:0], c, tick, 0, -1, junk)
			case vAshby:
				put(k+":nocomp", w.renderAshby(buf[:0], c, tick, false, junk))
				buf = w.renderAshby(buf[:0], c, tick, true, junk)
			case vWorkable:
				put(k+":list", w.renderWorkable(buf[:0], c, tick, false, junk))
				buf = w.renderWorkable(buf[:0], c, tick, true, junk)
			case vSmartRecruiters:
				put(k+":5", w.renderSmartRecruiters(buf[:0], c, tick, 0, 5, junk))
				put(k+":5+5", w.renderSmartRecruiters(buf[:0], c, tick, 5, 5, junk))
				buf = w.renderSmartRecruiters(buf[:0], c, tick, 0, 100, junk)
			case vRecruitee:
				buf = w.renderRecruitee(buf[:0], c, tick, junk)
			case vPersonio:
				buf = w.renderPersonio(buf[:0], c, tick, junk)
			case vTeamtailor:
				put(k+":3+3", w.renderTeamtailor(buf[:0], c, tick, 3, 3, junk))
				buf = w.renderTeamtailor(buf[:0], c, tick, 0, 100, junk)
			case vBambooHR:
				buf = w.renderBambooHR(buf[:0], c, tick, junk)
			case vBreezy:
				buf = w.renderBreezy(buf[:0], c, tick, junk)
			case vPinpoint:
				buf = w.renderPinpoint(buf[:0], c, tick, junk)
			case vJoin:
				put(k+":2x5", w.renderJoin(buf[:0], c, tick, 2, 5, junk))
				buf = w.renderJoin(buf[:0], c, tick, 1, joinMaxPageSize, junk)
			case vWorkday:
				put(k+":20", w.renderWorkday(buf[:0], c, tick, workdayMaxLimit, workdayMaxLimit, junk))
				buf = w.renderWorkday(buf[:0], c, tick, 0, workdayMaxLimit, junk)
			case vICIMS:
				put(k+":1", w.renderICIMS(buf[:0], c, tick, 1, junk))
				buf = w.renderICIMS(buf[:0], c, tick, 0, junk)
			case vJobvite:
				put(k+":1", w.renderJobvite(buf[:0], c, tick, 1, junk))
				buf = w.renderJobvite(buf[:0], c, tick, 0, junk)
			case vJazzHR:
				buf = w.renderJazzHR(buf[:0], c, tick, junk)
			case vRippling:
				put(k+":1x5", w.renderRippling(buf[:0], c, tick, 1, 5, junk))
				buf = w.renderRippling(buf[:0], c, tick, 0, 20, junk)
			}
			put(k, buf)
		}
	}
	snap := w.snapshot(tick)
	key := strconv.Itoa(tick) + ":"
	for bi := range boardDefs {
		if boardDefs[bi].pages {
			put(key+"index:"+strconv.Itoa(bi), w.renderJobPagesIndex(buf[:0], bi, tick, "http://x", false))
			ids := make([]string, 0, len(snap.pageIdx[bi]))
			for id := range snap.pageIdx[bi] {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			for _, id := range ids {
				put(key+"page:"+strconv.Itoa(bi)+":"+id, w.renderJobPage(buf[:0], bi, tick, id, "http://x"))
			}
			continue
		}
		for p := 1; p <= boardPages(len(snap.boards[bi])); p++ {
			put(key+"board:"+strconv.Itoa(bi)+":"+strconv.Itoa(p), w.renderJSONLD(buf[:0], bi, tick, p, "http://x", p == 1))
		}
	}
	for r := 0; r < numRegions; r++ {
		for off := 0; off == 0 || off < len(snap.aggs[r]); off += aggPageSize {
			put(key+"agg:"+strconv.Itoa(r)+":"+strconv.Itoa(off), w.renderAggregator(buf[:0], r, tick, off, off == 0))
		}
	}
	b, err := json.Marshal(w.Truth(tick))
	if err != nil {
		panic(err)
	}
	put(key+"truth", b)
}

// Every body the world renders is byte for byte what it was when descriptions came in, however
// often it is rendered and by how many readers at once: three readers render every tick, each
// from its own, so each tick is rendered cold, again (when the cache keeps what it wrote) and
// from the cache.
func TestBodiesMatchGolden(t *testing.T) {
	t.Parallel()
	w := New(goldenConfig())
	var wg sync.WaitGroup
	sums := make([][][]byte, len(goldenTicks))
	for i := range goldenTicks {
		sums[i] = make([][]byte, len(goldenTicks))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range goldenTicks {
				k := (i + j) % len(goldenTicks)
				sums[i][k] = tickHash(w, goldenTicks[k])
			}
		}()
	}
	wg.Wait()
	for i := range sums {
		require.Equal(t, goldenBodies, combine(sums[i]), "reader %d: a body of the golden world changed", i)
	}
}
