package sim

import (
	"runtime"
	"sync"
)

// A snapshot indexes, for one tick, the postings of every JSON-LD board and aggregator feed so
// that any page can be rendered in O(page size). It is built lazily, in parallel, once per tick
// and the few most recent ones are kept.

type postRef struct {
	comp int32
	slot uint16
}

type snapshot struct {
	tick   int
	boards [][]postRef           // per boardDefs index
	aggs   [numRegions][]postRef // per region
	// pageIdx maps a job-page board's posting id to its position in boards (per boardDefs index;
	// nil for list boards).
	pageIdx []map[string]int
}

type snapEntry struct {
	tick int
	once sync.Once
	snap *snapshot
}

type snapCache struct {
	mu      sync.Mutex
	entries []*snapEntry // most recently used last
}

const keptSnapshots = 3

func (w *World) snapshot(tick int) *snapshot {
	w.snaps.mu.Lock()
	var e *snapEntry
	for i, x := range w.snaps.entries {
		if x.tick == tick {
			e = x
			w.snaps.entries = append(w.snaps.entries[:i], w.snaps.entries[i+1:]...)
			break
		}
	}
	if e == nil {
		e = &snapEntry{tick: tick}
		if len(w.snaps.entries) >= keptSnapshots {
			w.snaps.entries = w.snaps.entries[1:]
		}
	}
	w.snaps.entries = append(w.snaps.entries, e)
	w.snaps.mu.Unlock()
	e.once.Do(func() { e.snap = w.buildSnapshot(tick) })
	return e.snap
}

// chunkLists is what one worker produces for a contiguous run of a region's companies.
type chunkLists struct {
	boards [2][]postRef
	agg    []postRef
	pages  []postRef
}

func (w *World) buildSnapshot(tick int) *snapshot {
	s := &snapshot{tick: tick, boards: make([][]postRef, len(boardDefs)), pageIdx: make([]map[string]int, len(boardDefs))}
	workers := runtime.GOMAXPROCS(0)
	for r := 0; r < numRegions; r++ {
		comps := w.covered[r]
		nchunks := max(1, min(workers*4, len(comps)/256))
		chunks := make([]chunkLists, nchunks)
		var wg sync.WaitGroup
		sem := make(chan struct{}, workers)
		for ci := 0; ci < nchunks; ci++ {
			lo, hi := ci*len(comps)/nchunks, (ci+1)*len(comps)/nchunks
			wg.Add(1)
			sem <- struct{}{}
			go func(out *chunkLists, part []int32) {
				defer func() { <-sem; wg.Done() }()
				for _, idx := range part {
					c := &w.companies[idx]
					for sl := 0; sl < c.nSlots(); sl++ {
						g := w.genAt(c, sl, tick)
						if !g.live {
							continue
						}
						mask, agg := crossPost(&g)
						ref := postRef{comp: idx, slot: uint16(sl)}
						if mask&1 != 0 {
							out.boards[0] = append(out.boards[0], ref)
						}
						if mask&2 != 0 {
							out.boards[1] = append(out.boards[1], ref)
						}
						if agg {
							out.agg = append(out.agg, ref)
						}
						if jobPaged(&g) {
							out.pages = append(out.pages, ref)
						}
					}
				}
			}(&chunks[ci], comps[lo:hi])
		}
		wg.Wait()
		for j := 0; j < 2; j++ {
			n := 0
			for i := range chunks {
				n += len(chunks[i].boards[j])
			}
			list := make([]postRef, 0, n)
			for i := range chunks {
				list = append(list, chunks[i].boards[j]...)
			}
			s.boards[w.boardsOf[r][j]] = list
		}
		n := 0
		for i := range chunks {
			n += len(chunks[i].agg)
		}
		list := make([]postRef, 0, n)
		for i := range chunks {
			list = append(list, chunks[i].agg...)
		}
		s.aggs[r] = list
		pb := w.pageBoard[r]
		var pages []postRef
		for i := range chunks {
			pages = append(pages, chunks[i].pages...)
		}
		s.boards[pb] = pages
		idx := make(map[string]int, len(pages))
		var buf []byte
		for i, ref := range pages {
			c := &w.companies[ref.comp]
			g := w.genAt(c, int(ref.slot), tick)
			buf = w.appendBoardID(buf[:0], pb, c, &g)
			idx[string(buf)] = i
		}
		s.pageIdx[pb] = idx
	}
	return s
}
