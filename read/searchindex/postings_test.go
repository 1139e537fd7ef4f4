package searchindex

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The lazy unions and intersections walk exactly the ordinals of the merged lists, whatever the
// lists' sizes and overlaps, and a seek past some ordinals lands on the first one at or after it.
func TestPostingIteratorsWalkWhatTheMergedListsHold(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	list := func() []uint32 {
		n, density := rng.IntN(300), 1+rng.IntN(20)
		var l []uint32
		for o := uint32(rng.IntN(5)); len(l) < n; o += uint32(1 + rng.IntN(density)) {
			l = append(l, o)
		}
		return l
	}
	walk := func(it postingIter, stride uint32) []uint32 {
		out := []uint32{}
		for ord, ok := it.seek(0); ok; ord, ok = it.seek(ord + stride) {
			out = append(out, ord)
		}
		return out
	}
	thin := func(l []uint32, stride uint32) []uint32 { // what a walk seeking ord+stride sees of l
		out := []uint32{}
		for i := 0; i < len(l); {
			out = append(out, l[i])
			next := l[i] + stride
			for i < len(l) && l[i] < next {
				i++
			}
		}
		return out
	}
	for range 300 {
		a, b, c := list(), list(), list()
		for _, stride := range []uint32{1, 3, 40} {
			wantUnion := union(union(a, b), c)
			require.Equal(t, thin(wantUnion, stride), walk(unionOf(listOf(a), listOf(b), listOf(c)), stride))
			wantInter := intersect(intersect(a, b), c)
			require.Equal(t, thin(wantInter, stride), walk(interOf(listOf(a), listOf(b), listOf(c)), stride))
			// a union inside an intersection, as a word with other spellings inside a phrase
			want := intersect(union(a, b), c)
			require.Equal(t, thin(want, stride), walk(interOf(unionOf(listOf(a), listOf(b)), listOf(c)), stride))
		}
		require.Equal(t, []uint32{}, walk(interOf(), 1))
		require.Equal(t, []uint32{}, walk(unionOf(listOf(nil), emptyIter{}), 1))
	}
}

// intersect and union merge two ascending lists whole: the reference the iterators are held to.
func intersect(a, b []uint32) []uint32 {
	out := make([]uint32, 0, min(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func union(a, b []uint32) []uint32 {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}
