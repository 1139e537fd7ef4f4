package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/secretbox"
)

func TestWebhookSecretBox(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keyPath := filepath.Join(dir, devSecretKeyFile)

	// serve: keys are required, and the error says how to make one.
	_, err := webhookSecretBox("", false, dir)
	require.ErrorContains(t, err, "--webhook-secret-keys")
	require.ErrorContains(t, err, "HS_WEBHOOK_SECRET_KEYS")
	require.ErrorContains(t, err, "openssl rand -base64 32")
	require.NoFileExists(t, keyPath, "serve never generates a key")

	_, err = webhookSecretBox("c2hvcnQ=", false, dir)
	require.ErrorContains(t, err, "--webhook-secret-keys")

	k1 := base64.StdEncoding.EncodeToString(secretbox.GenerateKey())
	k2 := base64.StdEncoding.EncodeToString(secretbox.GenerateKey())
	b, err := webhookSecretBox(k1+","+k2, false, dir)
	require.NoError(t, err)
	sealed := b.Seal([]byte("whsec_x"), []byte("row"))
	only1, err := webhookSecretBox(k1, false, dir)
	require.NoError(t, err)
	_, err = only1.Open(sealed, []byte("row"))
	require.NoError(t, err, "the first key seals")

	// dev with keys given uses them and writes nothing.
	_, err = webhookSecretBox(k1, true, dir)
	require.NoError(t, err)
	require.NoFileExists(t, keyPath)

	// dev without keys generates one once, private to the user, and reuses it.
	devRun := filepath.Join(dir, "run")
	devKey := filepath.Join(devRun, devSecretKeyFile)
	first, err := webhookSecretBox("", true, devRun)
	require.NoError(t, err)
	st, err := os.Stat(devKey)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	content, err := os.ReadFile(devKey)
	require.NoError(t, err)
	sealed = first.Seal([]byte("whsec_y"), []byte("row"))

	second, err := webhookSecretBox("", true, devRun)
	require.NoError(t, err)
	got, err := second.Open(sealed, []byte("row"))
	require.NoError(t, err, "the next run reuses the generated key")
	require.Equal(t, "whsec_y", string(got))
	again, err := os.ReadFile(devKey)
	require.NoError(t, err)
	require.Equal(t, content, again)
	entries, err := os.ReadDir(devRun)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")

	// A damaged key file is an error naming the file, never silently replaced.
	require.NoError(t, os.WriteFile(devKey, []byte("garbage"), 0o600))
	_, err = webhookSecretBox("", true, devRun)
	require.ErrorContains(t, err, devKey)
	require.False(t, strings.Contains(err.Error(), "garbage"))
}
