package oltp_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/secretbox"
)

// testBox seals with a fresh key.
func testBox(t *testing.T) *secretbox.Box {
	t.Helper()
	b, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	return b
}
