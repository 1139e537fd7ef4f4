package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/internal/secretbox"
)

// devSecretKeyFile is the file under the run dir where dev keeps its generated webhook secret key.
const devSecretKeyFile = "webhook-secret.key"

func addWebhookKeyFlag(fs *flagenv.Set) *string {
	return fs.String("webhook-secret-keys", "", "comma-separated base64 32-byte keys that encrypt webhook signing secrets at rest (AES-256-GCM); the first seals, every one opens, so rotate by putting a new key first. Generate one with: openssl rand -base64 32. dev without it keeps a generated key in <run-dir>/"+devSecretKeyFile)
}

// webhookSecretBox returns the box sealing webhook signing secrets, from --webhook-secret-keys.
// Without keys, serve is refused (a generated key would be lost, and every stored secret with
// it); dev generates a key once into <runDir>/webhook-secret.key (mode 0600) and reuses it.
func webhookSecretBox(flagValue string, dev bool, runDir string) (*secretbox.Box, error) {
	if strings.TrimSpace(flagValue) != "" {
		keys, err := secretbox.ParseKeys(flagValue)
		if err != nil {
			return nil, err
		}
		return secretbox.New(keys...)
	}
	if !dev {
		return nil, errors.New("cannot keep webhook secrets: set --webhook-secret-keys (env HS_WEBHOOK_SECRET_KEYS) to a base64 32-byte key; generate one with: openssl rand -base64 32")
	}
	path := filepath.Join(runDir, devSecretKeyFile)
	enc, err := devSecretKey(path)
	if err != nil {
		return nil, err
	}
	keys, err := secretbox.ParseKeys(enc)
	if err != nil {
		return nil, fmt.Errorf("cannot use the dev webhook secret key in %s (delete it to generate a new one; webhook secrets saved under it will no longer open): %w", path, err)
	}
	return secretbox.New(keys...)
}

// devSecretKey reads the key file at path, or creates it with a new key. The file appears whole
// or not at all (written aside, then linked into place), and a file created meanwhile by another
// process is read rather than replaced.
func devSecretKey(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("cannot read the dev webhook secret key (set --webhook-secret-keys, or fix --run-dir): %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("cannot create the run dir for the dev webhook secret key (set --run-dir): %w", err)
	}
	enc := base64.StdEncoding.EncodeToString(secretbox.GenerateKey())
	tmp, err := os.CreateTemp(filepath.Dir(path), devSecretKeyFile+".*.tmp") // mode 0600
	if err != nil {
		return "", fmt.Errorf("cannot write the dev webhook secret key (set --webhook-secret-keys, or fix --run-dir): %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(enc + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	if errors.Is(err, fs.ErrExist) {
		return devSecretKey(path)
	}
	if err != nil {
		return "", fmt.Errorf("cannot write the dev webhook secret key (set --webhook-secret-keys, or fix --run-dir): %w", err)
	}
	return enc, nil
}
