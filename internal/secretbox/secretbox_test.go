package secretbox

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func newBox(t *testing.T, keys ...[]byte) *Box {
	t.Helper()
	b, err := New(keys...)
	require.NoError(t, err)
	return b
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	b := newBox(t, GenerateKey())
	aad := []byte("cus_1|https://example.com/hook")
	for _, pt := range [][]byte{[]byte("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), {}, bytes.Repeat([]byte{0}, 1000)} {
		sealed := b.Seal(pt, aad)
		if len(pt) > 0 {
			require.False(t, bytes.Contains(sealed, pt), "the plaintext shows in the sealed value")
		}
		got, err := b.Open(sealed, aad)
		require.NoError(t, err)
		require.Equal(t, len(pt), len(got))
		require.True(t, bytes.Equal(pt, got))
	}
	// Random nonces: the same secret seals differently each time.
	require.NotEqual(t, b.Seal([]byte("s"), aad), b.Seal([]byte("s"), aad))
}

func TestTamperFails(t *testing.T) {
	t.Parallel()
	b := newBox(t, GenerateKey())
	aad := []byte("cus_1|https://example.com/hook")
	sealed := b.Seal([]byte("whsec_secret-value"), aad)
	for i := range sealed {
		for bit := range 8 {
			c := bytes.Clone(sealed)
			c[i] ^= 1 << bit
			_, err := b.Open(c, aad)
			require.Error(t, err, "bit %d of byte %d flipped", bit, i)
		}
	}
	for n := range sealed {
		_, err := b.Open(sealed[:n], aad)
		require.Error(t, err, "truncated to %d bytes", n)
	}
	_, err := b.Open(append(bytes.Clone(sealed), 0), aad)
	require.Error(t, err)
}

func TestWrongAADFails(t *testing.T) {
	t.Parallel()
	b := newBox(t, GenerateKey())
	sealed := b.Seal([]byte("whsec_secret-value"), []byte("cus_1|https://example.com/hook"))
	for _, aad := range []string{"cus_2|https://example.com/hook", "cus_1|https://example.com/hook2", "", "cus_1|https://example.com/hoo"} {
		_, err := b.Open(sealed, []byte(aad))
		require.ErrorIs(t, err, ErrOpen, aad)
	}
}

func TestRotation(t *testing.T) {
	t.Parallel()
	oldKey, newKey := GenerateKey(), GenerateKey()
	aad := []byte("row")
	sealedOld := newBox(t, oldKey).Seal([]byte("first"), aad)

	rotated := newBox(t, newKey, oldKey)
	got, err := rotated.Open(sealedOld, aad)
	require.NoError(t, err)
	require.Equal(t, "first", string(got))

	sealedNew := rotated.Seal([]byte("second"), aad)
	_, err = newBox(t, oldKey).Open(sealedNew, aad)
	require.ErrorContains(t, err, Flag, "a value sealed under the new key does not open with the old one alone")
	got, err = newBox(t, newKey).Open(sealedNew, aad)
	require.NoError(t, err, "the first key seals")
	require.Equal(t, "second", string(got))

	_, err = newBox(t, newKey).Open(sealedOld, aad)
	require.ErrorContains(t, err, Flag, "dropping the old key too early says which flag to fix")
}

func TestBadKeysNameTheFlag(t *testing.T) {
	t.Parallel()
	for _, keys := range [][][]byte{nil, {make([]byte, 16)}, {GenerateKey(), make([]byte, 33)}, {{}}} {
		_, err := New(keys...)
		require.ErrorContains(t, err, "--webhook-secret-keys")
	}
	k1 := base64.StdEncoding.EncodeToString(GenerateKey())
	k2 := base64.StdEncoding.EncodeToString(GenerateKey())
	keys, err := ParseKeys(k1 + ", " + k2)
	require.NoError(t, err)
	require.Len(t, keys, 2)
	b := newBox(t, keys...)
	_, err = b.Open(b.Seal([]byte("x"), nil), nil)
	require.NoError(t, err)

	short := base64.StdEncoding.EncodeToString(make([]byte, 16))
	for _, s := range []string{"", " ", k1 + ",", k1 + "," + short, "not base64!", strings.TrimRight(k1, "="), base64.URLEncoding.EncodeToString([]byte(strings.Repeat("\xff", 32)))} {
		_, err := ParseKeys(s)
		require.ErrorContains(t, err, "--webhook-secret-keys", "%q", s)
		require.ErrorContains(t, err, "openssl rand -base64 32")
		if s != "" && len(s) > 8 {
			require.NotContains(t, err.Error(), s[:8], "an error never echoes a key")
		}
	}
}
