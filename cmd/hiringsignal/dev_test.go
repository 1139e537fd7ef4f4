package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/flagenv"
)

// dev runs a private store only for what neither a flag nor its HS_* variable names: a
// --postgres-url on the command line is used as given, with or without HS_POSTGRES_URL.
func TestDevPrivateStoresFlagBeatsEnvironmentBeatsDefault(t *testing.T) {
	for _, name := range []string{"HS_POSTGRES_URL", "HS_CLICKHOUSE_ADDR"} {
		t.Setenv(name, "") // restored after the test
		require.NoError(t, os.Unsetenv(name))
	}
	parseDev := func(args ...string) (*flagenv.Set, *storeFlags) {
		t.Helper()
		fs := flagenv.New("dev", "")
		f := addStoreFlags(fs)
		require.NoError(t, parse(fs, args))
		return fs, f
	}

	fs, _ := parseDev()
	pg, ch := privateStores(fs)
	require.True(t, pg, "no flag, no variable: the private Postgres")
	require.True(t, ch, "no flag, no variable: the private ClickHouse")

	fs, f := parseDev("--postgres-url=postgres://elsewhere:5432/hs")
	pg, ch = privateStores(fs)
	require.False(t, pg, "--postgres-url given: no private Postgres")
	require.True(t, ch)
	require.Equal(t, "postgres://elsewhere:5432/hs", *f.postgresURL)

	fs, f = parseDev("--clickhouse-addr=elsewhere:9000")
	pg, ch = privateStores(fs)
	require.True(t, pg)
	require.False(t, ch, "--clickhouse-addr given: no private ClickHouse")
	require.Equal(t, "elsewhere:9000", *f.clickhouseAddr)

	t.Setenv("HS_POSTGRES_URL", "postgres://from-env:5432/hs")
	fs, f = parseDev()
	pg, _ = privateStores(fs)
	require.False(t, pg, "HS_POSTGRES_URL set: no private Postgres")
	require.Equal(t, "postgres://from-env:5432/hs", *f.postgresURL)

	fs, f = parseDev("--postgres-url=postgres://from-flag:5432/hs")
	pg, _ = privateStores(fs)
	require.False(t, pg)
	require.Equal(t, "postgres://from-flag:5432/hs", *f.postgresURL, "the flag beats the variable")
}
