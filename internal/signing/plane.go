package signing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// HeaderPlaneSignature carries the body-only signature of spec 6.1.
const HeaderPlaneSignature = "X-Plane-Signature"

// PlaneSignaturePrefix starts each entry of an X-Plane-Signature value.
const PlaneSignaturePrefix = "sha256="

// PlaneSignature is the X-Plane-Signature value of body (spec 6.1): for each secret,
// "sha256=" + lowercase hex of HMAC-SHA256 keyed with the secret string exactly as the endpoint
// was given it (the whole "whsec_..." text, as bytes), entries separated by one space (two during
// a rotation's overlap, the current secret's first). A receiver verifies it in three lines:
//
//	expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
//	received = request.headers["X-Plane-Signature"].split(" ")
//	ok = any(hmac.compare_digest(expected, r) for r in received)
//
// It signs the body only, so it carries no replay protection: receivers that want it verify
// the Standard Webhooks headers (Sign), which sign the message id and timestamp too.
func PlaneSignature(secrets []string, body []byte) string {
	entries := make([]string, 0, len(secrets))
	for _, s := range secrets {
		m := hmac.New(sha256.New, []byte(s))
		m.Write(body)
		entries = append(entries, PlaneSignaturePrefix+hex.EncodeToString(m.Sum(nil)))
	}
	return strings.Join(entries, " ")
}

// VerifyPlane reports whether header (an X-Plane-Signature value) holds a signature of body
// under secret, comparing in constant time.
func VerifyPlane(secret, header string, body []byte) bool {
	want := []byte(PlaneSignature([]string{secret}, body))
	ok := false
	for _, got := range strings.Fields(header) {
		if hmac.Equal(want, []byte(got)) {
			ok = true // no early return: every entry is compared
		}
	}
	return ok
}
