package analytics

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/migrate"
)

// TestExpandTemplatesTheEngineAndTheClause: on a single server a migration is the plain DDL; in
// cluster mode each MergeTree-family engine is its Replicated twin at the table's own replica
// path, a CREATE runs ON CLUSTER, and an ALTER runs on the local replicated table.
func TestExpandTemplatesTheEngineAndTheClause(t *testing.T) {
	t.Parallel()
	create := "CREATE TABLE IF NOT EXISTS events {ON_CLUSTER} (\n  event_seq UInt64, version UInt64\n) ENGINE = {REPLICATED}ReplacingMergeTree(version)\nPARTITION BY toYYYYMM(observed_at)\nORDER BY event_seq"
	got, err := expand(create, "")
	require.NoError(t, err)
	require.Equal(t, "CREATE TABLE IF NOT EXISTS events  (\n  event_seq UInt64, version UInt64\n) ENGINE = ReplacingMergeTree(version)\nPARTITION BY toYYYYMM(observed_at)\nORDER BY event_seq", got)
	got, err = expand(create, "hs")
	require.NoError(t, err)
	require.Equal(t, "CREATE TABLE IF NOT EXISTS events  ON CLUSTER `hs` (\n  event_seq UInt64, version UInt64\n) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/events', '{replica}', version)\nPARTITION BY toYYYYMM(observed_at)\nORDER BY event_seq", got)

	got, err = expand("CREATE TABLE IF NOT EXISTS cycles {ON_CLUSTER} (region String) ENGINE = {REPLICATED}ReplacingMergeTree() ORDER BY region", "hs")
	require.NoError(t, err)
	require.Contains(t, got, "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/cycles', '{replica}') ORDER BY", "no engine arguments: no trailing comma")

	alter := "ALTER TABLE events {ON_CLUSTER}\n    ADD COLUMN posted_at Nullable(DateTime)"
	for _, cluster := range []string{"", "hs"} {
		got, err = expand(alter, cluster)
		require.NoError(t, err)
		require.Equal(t, "ALTER TABLE events \n    ADD COLUMN posted_at Nullable(DateTime)", got, "cluster %q", cluster)
	}

	_, err = expand("ALTER TABLE events ADD COLUMN x {REPLICATED}MergeTree(", "hs")
	require.Error(t, err)
}

// TestEveryMigrationIsTemplated: every MergeTree-family engine of the embedded migrations is
// templated (so cluster mode replicates every table) and every ALTER TABLE names its table's
// cluster placeholder (so Migrate can make its ADD COLUMN clauses idempotent); every statement
// expands in both layouts.
func TestEveryMigrationIsTemplated(t *testing.T) {
	t.Parallel()
	ms, err := migrate.Load(migrationsFS, "migrations")
	require.NoError(t, err)
	require.NotEmpty(t, ms)
	bare := regexp.MustCompile(`(^|[^}A-Za-z])[A-Za-z]*MergeTree\(`)
	for _, m := range ms {
		for i, stmt := range migrate.Statements(m.SQL) {
			require.False(t, bare.MatchString(stmt), "%s statement %d: write the engine as {REPLICATED}XMergeTree(...)", m.Name, i+1)
			if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(stmt)), "ALTER TABLE") {
				require.True(t, alterTableRE.MatchString(stmt), "%s statement %d: write ALTER TABLE <table> {ON_CLUSTER} ...", m.Name, i+1)
			}
			for _, cluster := range []string{"", "hs"} {
				_, err := expand(stmt, cluster)
				require.NoError(t, err, "%s statement %d", m.Name, i+1)
			}
		}
	}
}

func TestSplitTopLevelKeepsParenthesesAndQuotes(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"ADD COLUMN a String DEFAULT 'x,y'", "ADD COLUMN b DateTime DEFAULT toDateTime(0, 'UTC')", "ADD COLUMN c Nullable(Float64)"},
		splitTopLevel("\n ADD COLUMN a String DEFAULT 'x,y',\n ADD COLUMN b DateTime DEFAULT toDateTime(0, 'UTC'),\n ADD COLUMN c Nullable(Float64)\n"))
}
