package flagenv

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// unsetenv unsets name for the test and restores it after.
func unsetenv(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "")
	require.NoError(t, os.Unsetenv(name))
}

func TestEnvFallsBackOnlyWhenUnset(t *testing.T) {
	unsetenv(t, "HS_FLAGENV_TEST")
	require.Equal(t, "def", Env("HS_FLAGENV_TEST", "def"))
	t.Setenv("HS_FLAGENV_TEST", "")
	require.Equal(t, "", Env("HS_FLAGENV_TEST", "def"), "a variable set to \"\" is set")
	t.Setenv("HS_FLAGENV_TEST", "from-env")
	require.Equal(t, "from-env", Env("HS_FLAGENV_TEST", "def"))
}

func TestStringFlagBeatsEnvironmentBeatsDefault(t *testing.T) {
	unsetenv(t, "HS_FLAGENV_TEST")
	s := New("test", "")
	v := s.String("flagenv-test", "def", "")
	require.NoError(t, s.Parse(nil))
	require.Equal(t, "def", *v)

	t.Setenv("HS_FLAGENV_TEST", "from-env")
	s = New("test", "")
	v = s.String("flagenv-test", "def", "")
	require.NoError(t, s.Parse(nil))
	require.Equal(t, "from-env", *v)

	s = New("test", "")
	v = s.String("flagenv-test", "def", "")
	require.NoError(t, s.Parse([]string{"--flagenv-test=from-flag"}))
	require.Equal(t, "from-flag", *v)
}
