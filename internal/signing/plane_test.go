package signing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPlaneSignatureIsHMACOfTheBodyUnderEachSecret(t *testing.T) {
	t.Parallel()
	body := []byte(`{"event":"opened","company":"Acme"}`)
	a, b := NewSecret(), NewSecret()
	m := hmac.New(sha256.New, []byte(a))
	m.Write(body)
	want := "sha256=" + hex.EncodeToString(m.Sum(nil))
	require.Equal(t, want, PlaneSignature([]string{a}, body), "what a receiver computes with a stock HMAC")

	both := PlaneSignature([]string{a, b}, body)
	require.True(t, VerifyPlane(a, both, body), "old secret verifies during the overlap")
	require.True(t, VerifyPlane(b, both, body), "new secret verifies during the overlap")
	require.False(t, VerifyPlane(NewSecret(), both, body), "another secret does not")
	require.False(t, VerifyPlane(a, both, append(body, ' ')), "a changed body does not")
	require.False(t, VerifyPlane(a, "", body))
}
