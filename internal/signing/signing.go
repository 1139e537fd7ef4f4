// Package signing makes webhook secrets and signatures in the Standard Webhooks format
// (https://www.standardwebhooks.com): secrets are "whsec_" + standard base64 of random bytes, and
// a delivery carries webhook-id, webhook-timestamp and webhook-signature headers, the last holding
// "v1,<base64 HMAC-SHA256 of id.timestamp.body>" under each current secret. Signatures come from
// the reference library, so any stock Standard Webhooks verifier accepts them.
//
// It owns the secret format and the signature only: it must not store, encrypt or log secrets
// (secretbox seals them at rest), choose message ids, or send anything.
package signing

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// SecretPrefix starts every secret.
const SecretPrefix = "whsec_"

// Bounds of a secret's key, in bytes once decoded.
const (
	MinSecretBytes = 24
	MaxSecretBytes = 64
	newSecretBytes = 32
)

// The headers of a signed delivery.
const (
	HeaderID        = standardwebhooks.HeaderWebhookID        // the message id, the same on every attempt
	HeaderTimestamp = standardwebhooks.HeaderWebhookTimestamp // Unix seconds of this attempt
	HeaderSignature = standardwebhooks.HeaderWebhookSignature // Sign's value
)

// NewSecret returns a fresh secret: SecretPrefix + standard base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, newSecretBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it crashes the program instead)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// ErrSecretFormat says the rule a secret breaks; it never carries the secret.
var ErrSecretFormat = fmt.Errorf("a webhook secret is %q followed by standard base64 (with = padding) of %d to %d random bytes, e.g. %q + the output of openssl rand -base64 32", SecretPrefix, MinSecretBytes, MaxSecretBytes, SecretPrefix)

// ValidateSecret accepts exactly what stock Standard Webhooks libraries accept and we want:
// SecretPrefix + canonical standard base64 (padded, no line breaks) of MinSecretBytes to
// MaxSecretBytes bytes. Anything else is ErrSecretFormat, which states the rule without echoing
// the secret.
func ValidateSecret(s string) error {
	enc, ok := strings.CutPrefix(s, SecretPrefix)
	if !ok {
		return ErrSecretFormat
	}
	key, err := base64.StdEncoding.DecodeString(enc)
	// The decoder skips line breaks and ignores stray low bits; only the one spelling of the key
	// is accepted, so the stored secret is exactly what every verifier decodes.
	if err != nil || base64.StdEncoding.EncodeToString(key) != enc {
		return ErrSecretFormat
	}
	if len(key) < MinSecretBytes || len(key) > MaxSecretBytes {
		return ErrSecretFormat
	}
	return nil
}

// Sign returns the webhook-signature header value for body under every secret given
// (space-separated "v1,<sig>" entries, as Standard Webhooks allows several during a secret
// rotation overlap), for message id msgID at ts (whole seconds are signed). msgID must be 1 to
// 255 printable ASCII characters without spaces, as it travels in the webhook-id header.
func Sign(secrets []string, msgID string, ts time.Time, body []byte) (string, error) {
	if len(secrets) == 0 {
		return "", errors.New("cannot sign a webhook: no secret given")
	}
	if !validID(msgID) {
		return "", errors.New("cannot sign a webhook: the message id must be 1 to 255 printable ASCII characters without spaces")
	}
	sigs := make([]string, 0, len(secrets))
	for i, s := range secrets {
		if err := ValidateSecret(s); err != nil {
			return "", fmt.Errorf("cannot sign a webhook with secret %d: %w", i+1, err)
		}
		wh, err := standardwebhooks.NewWebhook(s)
		if err != nil {
			return "", fmt.Errorf("cannot sign a webhook with secret %d: %w", i+1, ErrSecretFormat)
		}
		sig, err := wh.Sign(msgID, ts, body)
		if err != nil {
			return "", fmt.Errorf("cannot sign a webhook with secret %d: %w", i+1, err)
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}

func validID(id string) bool {
	if id == "" || len(id) > 255 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] >= 0x7f {
			return false
		}
	}
	return true
}
