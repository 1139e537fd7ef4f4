package oltp_test

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// gcmBox is a stand-in sealer until package secretbox is merged.
type gcmBox struct{ aead cipher.AEAD }

func testBox(t *testing.T) gcmBox {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	b, err := aes.NewCipher(key)
	require.NoError(t, err)
	g, err := cipher.NewGCM(b)
	require.NoError(t, err)
	return gcmBox{g}
}

func (b gcmBox) Seal(p, aad []byte) []byte {
	n := make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(n)
	return b.aead.Seal(n, n, p, aad)
}

func (b gcmBox) Open(s, aad []byte) ([]byte, error) {
	if len(s) < b.aead.NonceSize() {
		return nil, errors.New("short")
	}
	return b.aead.Open(nil, s[:b.aead.NonceSize()], s[b.aead.NonceSize():], aad)
}
