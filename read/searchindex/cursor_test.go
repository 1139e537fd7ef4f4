package searchindex

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestJobCursorRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []JobCursor{
		{CompanyID: 42, Key: "00ff"},
		{CompanyID: 42, Key: "00ff", Sort: SortRelevance, Rel: 8500},
		{CompanyID: 7, Key: "abcd", Sort: SortRecency, FirstSeen: 1780000000},
	} {
		got, err := ParseJobCursor(c.String())
		require.NoError(t, err)
		require.Equal(t, c, got)
	}
	require.Equal(t, "42:00ff", JobCursor{CompanyID: 42, Key: "00ff"}.String())
	for _, bad := range []string{"", "x", "42", "42:", "a:b", "42:k~", "42:k~x1", "42:k~r99999", "42:k~rnope"} {
		_, err := ParseJobCursor(bad)
		require.Error(t, err, bad)
	}
}

func TestWalk(t *testing.T) {
	t.Parallel()
	x := &Index{reqs: make([]Req, 20)}
	var got []uint32
	x.walk([]postingIter{listOf([]uint32{1, 3, 5, 7, 9, 11}), listOf([]uint32{3, 4, 5, 9, 11, 15}), listOf([]uint32{0, 5, 9, 10, 11})}, 6, func(o uint32) bool {
		got = append(got, o)
		return true
	})
	require.Equal(t, []uint32{9, 11}, got)
	got = nil
	x.walk(nil, 17, func(o uint32) bool { got = append(got, o); return true })
	require.Equal(t, []uint32{17, 18, 19}, got)
}

func TestTitleDerivations(t *testing.T) {
	t.Parallel()
	tt := &Title{Raw: "Sr. Backend Engineer (Go, Kubernetes) - Remote"}
	deriveTitle(tt)
	require.Equal(t, "senior", tt.Seniority)
	require.Equal(t, []string{"backend", "go", "kubernetes"}, tt.Skills)
	tt = &Title{Raw: "VP of Sales"}
	deriveTitle(tt)
	require.Equal(t, "vp", tt.Seniority)
}
