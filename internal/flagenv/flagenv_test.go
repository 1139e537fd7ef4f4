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

func TestGivenByFlagOrVariable(t *testing.T) {
	given := func(args ...string) bool {
		t.Helper()
		s := New("test", "")
		s.String("flagenv-test", "def", "")
		s.String("other", "", "")
		require.NoError(t, s.Parse(args))
		return s.Given("flagenv-test")
	}
	unsetenv(t, "HS_FLAGENV_TEST")
	require.False(t, given())
	require.False(t, given("--other=x"), "another flag is not this one")
	require.True(t, given("--flagenv-test=x"))
	require.True(t, given("--flagenv-test=def"), "given on the command line, even at its default")
	t.Setenv("HS_FLAGENV_TEST", "")
	require.False(t, given(), "an empty variable names nothing")
	t.Setenv("HS_FLAGENV_TEST", "x")
	require.True(t, given())
}
