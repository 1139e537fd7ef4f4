// Package apikey mints, checks and hashes API key strings.
//
// Format: "hsk_" + 32 base62 random characters (≈190 bits) + 6 base62 characters of CRC-32
// over the random part, like GitHub's tokens, so secret scanners recognise a leaked key offline
// and typos are rejected before any lookup. Only the SHA-256 of the whole key is stored.
// It owns the format; it must not touch storage.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"hash/crc32"
	"math/big"
	"strings"
)

// Prefix starts every key.
const Prefix = "hsk_"

const (
	alphabet  = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	randLen   = 32
	checkLen  = 6
	keyLength = len(Prefix) + randLen + checkLen
)

// New returns a fresh random key.
func New() (string, error) {
	var b strings.Builder
	b.Grow(keyLength)
	b.WriteString(Prefix)
	max := big.NewInt(int64(len(alphabet)))
	body := make([]byte, randLen)
	for i := range body {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", err
		}
		body[i] = alphabet[n.Int64()]
	}
	b.Write(body)
	b.WriteString(checksum(body))
	return b.String(), nil
}

func checksum(body []byte) string {
	var out [checkLen]byte
	checksumInto(&out, body)
	return string(out[:])
}

// checksumInto writes the checksum of body into out.
func checksumInto(out *[checkLen]byte, body []byte) { checksumOf(out, crc32.ChecksumIEEE(body)) }

// checksumOf writes the checksum characters of a body whose CRC-32 is crc.
func checksumOf(out *[checkLen]byte, crc uint32) {
	c := uint64(crc)
	for i := checkLen - 1; i >= 0; i-- {
		out[i] = alphabet[c%62]
		c /= 62
	}
}

// WellFormed reports whether s has the key format and a valid checksum.
func WellFormed(s string) bool {
	if len(s) != keyLength || !strings.HasPrefix(s, Prefix) {
		return false
	}
	body := s[len(Prefix) : len(Prefix)+randLen]
	for i := 0; i < len(body); i++ {
		if !base62(body[i]) {
			return false
		}
	}
	var sum [checkLen]byte
	checksumOf(&sum, crc32String(body))
	return string(sum[:]) == s[len(Prefix)+randLen:]
}

// base62 reports whether c is a character of alphabet (a range test: checked for every character
// of every key presented).
func base62(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' }

// crc32String is crc32.ChecksumIEEE of s, read in place: handing crc32 a slice copies s to the
// heap, on every call of every key presented.
func crc32String(s string) uint32 {
	c := ^uint32(0)
	for i := 0; i < len(s); i++ {
		c = crc32.IEEETable[byte(c)^s[i]] ^ (c >> 8)
	}
	return ^c
}

// Hash returns the SHA-256 digest stored for a key.
func Hash(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// Display returns the short, non-secret prefix shown in key listings (e.g. "hsk_AbCd…").
func Display(key string) string {
	if len(key) < len(Prefix)+4 {
		return Prefix
	}
	return key[:len(Prefix)+4] + "…"
}
