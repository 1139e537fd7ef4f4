package searchindex

import "github.com/planehq/hiringsignal/internal/normalize"

// words is a q compiled for "every word must match" (reqs/search q, req.q of reqs/qualified and
// watches, and the direct matches of jobs/search): each word of q is covered when the title holds
// its stem, or (with spellings) every stem of one of normalize.Spellings of the word, or of the
// word and its neighbour, which covers both words ("ml engineer" matches "Machine Learning
// Engineer"; "software engineer" matches "SWE"). An empty q has no words and matches every title.
type words struct {
	x     *Index
	alts  [][][]uint32       // per word: the stem-id lists that cover it (its own stem first)
	pairs map[int][][]uint32 // i → stem-id lists covering words i and i+1
	none  bool               // some word is covered by nothing in the index: no title matches
}

// compileWords compiles q against the index; spellings false keeps only each word's own stem.
func (x *Index) compileWords(q string, spellings bool) *words {
	w := &words{x: x, pairs: map[int][][]uint32{}}
	toks := normalize.Tokens(q)
	stems := normalize.Stems(q)
	phrases := func(s string) [][]uint32 {
		var out [][]uint32
		if !spellings {
			return nil
		}
		for _, p := range normalize.Spellings(s) {
			if ids, ok := x.stemIDsOf(p); ok && len(ids) > 0 {
				out = append(out, ids)
			}
		}
		return out
	}
	for i, tok := range toks {
		var alts [][]uint32
		if i < len(stems) {
			if id, ok := x.stemIDs[stems[i]]; ok {
				alts = append(alts, []uint32{id})
			}
		}
		w.alts = append(w.alts, append(alts, phrases(tok)...))
		if i+1 < len(toks) {
			if ps := phrases(tok + " " + toks[i+1]); len(ps) > 0 {
				w.pairs[i] = ps
			}
		}
	}
	for i, a := range w.alts {
		if len(a) == 0 && len(w.pairs[i]) == 0 && len(w.pairs[i-1]) == 0 {
			w.none = true
		}
	}
	return w
}

// empty reports whether q had no words (every title matches).
func (w *words) empty() bool { return len(w.alts) == 0 }

// covered reports whether word i is covered by the title.
func (w *words) covered(i int, t *Title) bool {
	for _, a := range w.alts[i] {
		if t.hasAll(a) {
			return true
		}
	}
	for _, j := range []int{i - 1, i} {
		for _, p := range w.pairs[j] {
			if t.hasAll(p) {
				return true
			}
		}
	}
	return false
}

// matches reports whether the title covers every word.
func (w *words) matches(t *Title) bool {
	if w.none {
		return false
	}
	for i := range w.alts {
		if !w.covered(i, t) {
			return false
		}
	}
	return true
}

// iters returns one iterator per word, walking every req whose title covers the word (walk
// intersects them); ok is false when no title can match. A word covered only by its own stem is
// its posting list as is.
func (w *words) iters() (out []postingIter, ok bool) {
	if w.none {
		return nil, false
	}
	for i := range w.alts {
		out = append(out, w.iter(i))
	}
	return out, true
}

// iter walks every ordinal whose title covers word i, ascending, without a merged
// list.
func (w *words) iter(i int) postingIter {
	var parts []postingIter
	for _, a := range w.alts[i] {
		parts = append(parts, w.x.phraseIter(a))
	}
	for _, j := range []int{i - 1, i} {
		for _, p := range w.pairs[j] {
			parts = append(parts, w.x.phraseIter(p))
		}
	}
	return unionOf(parts...)
}

// phraseIter walks every ordinal whose title holds every stem of ids.
func (x *Index) phraseIter(ids []uint32) postingIter {
	parts := make([]postingIter, len(ids))
	for i, id := range ids {
		parts[i] = listOf(x.postings[id])
	}
	return interOf(parts...)
}
