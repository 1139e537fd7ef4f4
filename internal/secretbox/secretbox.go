// Package secretbox encrypts at rest the small secrets the service must keep in clear to use them
// (webhook signing secrets cannot be hashed: they sign). AES-256-GCM with server keys given by
// the --webhook-secret-keys flag; the first key seals and every key opens, so keys rotate by
// putting a new key first and dropping the old one once every row is resealed.
//
// It owns the sealed format and key handling only: it must not read flags, files or the
// environment, store anything or log (callers pass keys in and store what Seal returns).
package secretbox

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of every key: AES-256.
const KeySize = 32

// Flag is the command-line flag that carries the keys; errors name it.
const Flag = "--webhook-secret-keys"

// version is the first byte of every sealed value. A sealed value is
// version(1) | key id(4) | nonce(12) | ciphertext | tag(16); GCM authenticates the first 5 bytes
// and the caller's aad besides the ciphertext.
const (
	version    = 1
	idSize     = 4
	headerSize = 1 + idSize
	nonceSize  = 12
	overhead   = headerSize + nonceSize + 16
)

// ErrOpen is returned when a sealed value does not open: damaged, sealed for another row (aad),
// or under a key that has the same id but is not the one given.
var ErrOpen = errors.New("cannot open the sealed secret: it was altered, copied from another row, or sealed under another key")

type key struct {
	id   [idSize]byte
	aead cipher.AEAD
}

// Box seals and opens small secrets with AES-256-GCM. The first key seals; every key opens (key
// rotation). A Box is safe for concurrent use.
type Box struct {
	keys []key
}

// New returns a Box over keys: each exactly KeySize bytes, at least one; the first seals.
func New(keys ...[]byte) (*Box, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("cannot use %s: no key given (generate one with: openssl rand -base64 32)", Flag)
	}
	b := &Box{}
	for i, k := range keys {
		if len(k) != KeySize {
			return nil, fmt.Errorf("cannot use %s: key %d is %d bytes, want %d (generate one with: openssl rand -base64 32)", Flag, i+1, len(k), KeySize)
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, fmt.Errorf("cannot use %s: key %d: %w", Flag, i+1, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("cannot use %s: key %d: %w", Flag, i+1, err)
		}
		b.keys = append(b.keys, key{id: keyID(k), aead: aead})
	}
	return b, nil
}

// keyID names a key in sealed values without revealing it: the first bytes of an HMAC under the
// key itself.
func keyID(k []byte) [idSize]byte {
	m := hmac.New(sha256.New, k)
	m.Write([]byte("hiringsignal secretbox key id"))
	var id [idSize]byte
	copy(id[:], m.Sum(nil))
	return id
}

// ParseKeys reads keys as the flag takes them: comma-separated standard base64, each 32 bytes
// once decoded (openssl rand -base64 32 makes one). Spaces around a key are ignored. Errors name
// the flag and the key's position, never its value.
func ParseKeys(s string) ([][]byte, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("cannot use %s: no key given (generate one with: openssl rand -base64 32)", Flag)
	}
	var keys [][]byte
	for i, part := range strings.Split(s, ",") {
		k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("cannot use %s: key %d is not standard base64 (generate one with: openssl rand -base64 32)", Flag, i+1)
		}
		if len(k) != KeySize {
			return nil, fmt.Errorf("cannot use %s: key %d is %d bytes once decoded, want %d (generate one with: openssl rand -base64 32)", Flag, i+1, len(k), KeySize)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// GenerateKey returns KeySize random bytes.
func GenerateKey() []byte {
	k := make([]byte, KeySize)
	_, _ = rand.Read(k) // crypto/rand.Read never fails (it crashes the program instead)
	return k
}

// Seal encrypts plaintext under the first key with a random nonce, bound to aad (e.g. the row's
// customer id and URL, so a sealed value copied to another row does not open). The result
// carries the key's id so Open picks the key.
func (b *Box) Seal(plaintext, aad []byte) []byte {
	k := b.keys[0]
	out := make([]byte, headerSize+nonceSize, overhead+len(plaintext))
	out[0] = version
	copy(out[1:headerSize], k.id[:])
	_, _ = rand.Read(out[headerSize:])
	return k.aead.Seal(out, out[headerSize:], plaintext, additional(out[:headerSize], aad))
}

// Open decrypts what Seal returned for the same aad, under whichever of the Box's keys sealed
// it. A value sealed under a key no longer given is an error naming the flag; any alteration, or
// another aad, is ErrOpen.
func (b *Box) Open(sealed, aad []byte) ([]byte, error) {
	if len(sealed) < overhead || sealed[0] != version {
		return nil, ErrOpen
	}
	header, nonce, ct := sealed[:headerSize], sealed[headerSize:headerSize+nonceSize], sealed[headerSize+nonceSize:]
	found := false
	for _, k := range b.keys {
		if !bytes.Equal(k.id[:], header[1:]) {
			continue
		}
		found = true
		if pt, err := k.aead.Open(nil, nonce, ct, additional(header, aad)); err == nil {
			return pt, nil
		}
	}
	if !found {
		return nil, fmt.Errorf("cannot open the sealed secret: it was sealed under a key that %s no longer lists (keep old keys after the first until every secret is resealed)", Flag)
	}
	return nil, ErrOpen
}

// additional is GCM's additional data: the fixed-size header, then the caller's aad.
func additional(header, aad []byte) []byte {
	return append(append(make([]byte, 0, len(header)+len(aad)), header...), aad...)
}
