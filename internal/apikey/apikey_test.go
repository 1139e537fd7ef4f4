package apikey

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewKeysAreWellFormedAndDistinct(t *testing.T) {
	t.Parallel()
	a, err := New()
	require.NoError(t, err)
	b, err := New()
	require.NoError(t, err)
	require.NotEqual(t, a, b)
	require.True(t, WellFormed(a))
	require.Len(t, Hash(a), 32)
	require.NotEqual(t, Hash(a), Hash(b))
}

func TestWellFormedRejectsTyposAndOtherTokens(t *testing.T) {
	t.Parallel()
	k, err := New()
	require.NoError(t, err)
	flipped := []byte(k)
	if flipped[10] == 'a' {
		flipped[10] = 'b'
	} else {
		flipped[10] = 'a'
	}
	require.False(t, WellFormed(string(flipped)))
	require.False(t, WellFormed(k[:len(k)-1]))
	require.False(t, WellFormed("sk_live_"+k[4:]))
	require.False(t, WellFormed(""))
}
