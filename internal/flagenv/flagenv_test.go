package flagenv

import (
	"os"
	"strings"
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

func TestListRepeatsAndReplacesTheVariable(t *testing.T) {
	list := func(args ...string) []string {
		t.Helper()
		s := New("test", "")
		v := s.List("flagenv-list", []string{"d1"}, "")
		require.NoError(t, s.Parse(args))
		return *v
	}
	unsetenv(t, "HS_FLAGENV_LIST")
	require.Equal(t, []string{"d1"}, list())
	require.Equal(t, []string{"a", "b"}, list("--flagenv-list=a", "--flagenv-list", "b"), "each flag adds one, the default goes")
	require.Equal(t, []string{"a", "b", "c"}, list("--flagenv-list=a, b,,c"), "commas split a value")
	t.Setenv("HS_FLAGENV_LIST", "e1, e2,")
	require.Equal(t, []string{"e1", "e2"}, list(), "the variable is comma-separated")
	require.Equal(t, []string{"f"}, list("--flagenv-list=f"), "the command line replaces the variable")
	t.Setenv("HS_FLAGENV_LIST", "")
	require.Equal(t, []string{"d1"}, list(), "an empty variable names nothing")

	s := New("test", "")
	s.List("flagenv-list", nil, "entries")
	var help strings.Builder
	s.SetOutput(&help)
	s.Usage()
	require.Contains(t, help.String(), "entries (repeatable, or comma-separated) (env HS_FLAGENV_LIST)")
}

func TestEnvNameOverridesTheVariable(t *testing.T) {
	unsetenv(t, "HS_FLAGENV_TEST")
	t.Setenv("HS_OTHER_NAME", "from-other")
	s := New("test", "")
	s.EnvName("flagenv-test", "HS_OTHER_NAME")
	v := s.String("flagenv-test", "def", "the value")
	require.NoError(t, s.Parse(nil))
	require.Equal(t, "from-other", *v)
	require.True(t, s.Given("flagenv-test"))
	var help strings.Builder
	s.SetOutput(&help)
	s.Usage()
	require.Contains(t, help.String(), "the value (env HS_OTHER_NAME)")

	t.Setenv("HS_OTHER_NAME", "x")
	s = New("test", "")
	s.EnvName("flagenv-n", "HS_OTHER_NAME")
	s.Int("flagenv-n", 1, "")
	require.ErrorContains(t, s.Parse(nil), `cannot parse HS_OTHER_NAME="x" as an integer`)
}
