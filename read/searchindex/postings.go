package searchindex

import "sort"

// A postings iterator walks an ascending list of ordinals lazily: seek(from) moves to the first
// ordinal at or after from and returns it, ok false past the end. Callers seek ascending only.
// Unions and intersections of posting lists are iterators over their parts, so a query that stops
// early (a total at MaxCount, a page filled with the best score) reads only the prefix it needs
// and allocates no merged list: at ten million reqs a common word's list holds millions.
type postingIter interface {
	seek(from uint32) (uint32, bool)
}

// each calls fn for every ordinal of it, ascending, until fn returns false.
func each(it postingIter, fn func(ord uint32) bool) {
	for ord, ok := it.seek(0); ok && fn(ord); ord, ok = it.seek(ord + 1) {
	}
}

// listIter walks one ascending list, galloping to the next ordinal sought.
type listIter struct {
	l []uint32
	p int
}

func (it *listIter) seek(from uint32) (uint32, bool) {
	l, p := it.l, it.p
	if p < len(l) && l[p] < from {
		step := 1
		for p+step < len(l) && l[p+step] < from {
			step *= 2
		}
		hi := min(p+step+1, len(l))
		p += sort.Search(hi-p, func(i int) bool { return l[p+i] >= from })
		it.p = p
	}
	if p >= len(l) {
		return 0, false
	}
	return l[p], true
}

// unionIter walks the ordinals in any of its parts.
type unionIter struct {
	its   []postingIter
	heads []uint32
	state []uint8 // per part: 0 not sought yet, 1 heads holds its next ordinal, 2 ended
}

func (u *unionIter) seek(from uint32) (uint32, bool) {
	best, found := uint32(0), false
	for i, it := range u.its {
		switch {
		case u.state[i] == 2:
			continue
		case u.state[i] == 0 || u.heads[i] < from:
			v, ok := it.seek(from)
			if !ok {
				u.state[i] = 2
				continue
			}
			u.heads[i], u.state[i] = v, 1
		}
		if !found || u.heads[i] < best {
			best, found = u.heads[i], true
		}
	}
	return best, found
}

// interIter walks the ordinals in every one of its parts (leapfrog: each part seeks the largest
// ordinal another returned until all agree).
type interIter struct{ its []postingIter }

func (x *interIter) seek(from uint32) (uint32, bool) {
	cand := from
	for {
		moved := false
		for _, it := range x.its {
			v, ok := it.seek(cand)
			if !ok {
				return 0, false
			}
			if v != cand {
				cand, moved = v, true
			}
		}
		if !moved {
			return cand, true
		}
	}
}

// emptyIter has no ordinals.
type emptyIter struct{}

func (emptyIter) seek(uint32) (uint32, bool) { return 0, false }

func listOf(l []uint32) postingIter {
	if len(l) == 0 {
		return emptyIter{}
	}
	return &listIter{l: l}
}

// unionOf is the union of its, without the parts that are empty.
func unionOf(its ...postingIter) postingIter {
	var kept []postingIter
	for _, it := range its {
		if _, empty := it.(emptyIter); !empty {
			kept = append(kept, it)
		}
	}
	switch len(kept) {
	case 0:
		return emptyIter{}
	case 1:
		return kept[0]
	}
	return &unionIter{its: kept, heads: make([]uint32, len(kept)), state: make([]uint8, len(kept))}
}

// interOf is the intersection of its; empty when any part is, or when there are none.
func interOf(its ...postingIter) postingIter {
	for _, it := range its {
		if _, empty := it.(emptyIter); empty {
			return emptyIter{}
		}
	}
	switch len(its) {
	case 0:
		return emptyIter{}
	case 1:
		return its[0]
	}
	return &interIter{its: its}
}
