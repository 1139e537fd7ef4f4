package signing

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"
)

func TestKnownAnswer(t *testing.T) {
	t.Parallel()
	// The Standard Webhooks specification's test vector.
	sig, err := Sign([]string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, "msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0), []byte(`{"test": 2432232314}`))
	require.NoError(t, err)
	require.Equal(t, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", sig)
}

func TestSignVerifiesUnderEitherSecretWithTheReferenceLibrary(t *testing.T) {
	t.Parallel()
	oldSecret, newSecret, other := NewSecret(), NewSecret(), NewSecret()
	body := []byte(`{"event":"opened","company":"Acme"}`)
	ts := time.Now()
	sig, err := Sign([]string{newSecret, oldSecret}, "msg_123", ts, body)
	require.NoError(t, err)
	require.Len(t, strings.Split(sig, " "), 2)

	h := http.Header{}
	h.Set(HeaderID, "msg_123")
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, sig)
	verify := func(secret string) error {
		wh, err := standardwebhooks.NewWebhook(secret)
		require.NoError(t, err)
		return wh.Verify(body, h)
	}
	require.NoError(t, verify(oldSecret))
	require.NoError(t, verify(newSecret))
	require.ErrorIs(t, verify(other), standardwebhooks.ErrNoMatchingSignature)

	wh, err := standardwebhooks.NewWebhook(oldSecret)
	require.NoError(t, err)
	require.ErrorIs(t, wh.Verify([]byte(`{"event":"closed","company":"Acme"}`), h), standardwebhooks.ErrNoMatchingSignature)
}

func TestNewSecret(t *testing.T) {
	t.Parallel()
	s := NewSecret()
	require.NoError(t, ValidateSecret(s))
	require.True(t, strings.HasPrefix(s, SecretPrefix))
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, SecretPrefix))
	require.NoError(t, err)
	require.Len(t, key, 32)
	require.NotEqual(t, s, NewSecret())
}

func TestValidateSecret(t *testing.T) {
	t.Parallel()
	b64 := func(n int) string { return base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", n))) }
	f := func(in string, ok bool) {
		t.Helper()
		err := ValidateSecret(in)
		if ok {
			require.NoError(t, err, in)
			return
		}
		require.ErrorIs(t, err, ErrSecretFormat, in)
		if len(in) > len(SecretPrefix)+4 {
			require.NotContains(t, err.Error(), in[len(SecretPrefix):], "an error never echoes the secret")
		}
	}
	f("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", true) // 24 bytes
	f("whsec_"+b64(24), true)
	f("whsec_"+b64(32), true)
	f("whsec_"+b64(64), true)

	f("whsec_"+b64(23), false)
	f("whsec_"+b64(65), false)
	f("whsec_", false)
	f("", false)
	f(b64(32), false)               // no prefix (the reference library would take it)
	f("WHSEC_"+b64(32), false)      // prefix is case-sensitive
	f(" whsec_"+b64(32), false)     // no surrounding space
	f("whsec_"+b64(32)+"\n", false) // no line break, which the base64 decoder would skip
	f("whsec_"+b64(32)[:20]+"\n"+b64(32)[20:], false)
	f("whsec_"+strings.TrimRight(b64(32), "="), false) // padding is required
	f("whsec_"+base64.URLEncoding.EncodeToString([]byte(strings.Repeat("\xfb\xff", 16))), false)
	f("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSx", true)
	f("whsec_"+b64(32)[:42]+"5=", false) // non-canonical trailing bits
}

func TestSignRefusesBadInput(t *testing.T) {
	t.Parallel()
	s := NewSecret()
	_, err := Sign(nil, "msg_1", time.Unix(0, 0), nil)
	require.Error(t, err)
	_, err = Sign([]string{s, "whsec_short"}, "msg_1", time.Unix(0, 0), nil)
	require.ErrorIs(t, err, ErrSecretFormat)
	require.ErrorContains(t, err, "secret 2")
	for _, id := range []string{"", "msg 1", "msg\n1", strings.Repeat("m", 256)} {
		_, err = Sign([]string{s}, id, time.Unix(0, 0), nil)
		require.ErrorContains(t, err, "message id", "%q", id)
	}
}
