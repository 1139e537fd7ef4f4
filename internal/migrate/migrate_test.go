package migrate

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

func TestLoadOrdersAndRejectsBadNames(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"m/0002_b.sql": {Data: []byte("SELECT 2;")},
		"m/0001_a.sql": {Data: []byte("SELECT 1;")},
		"m/README":     {Data: []byte("x")},
	}
	ms, err := Load(fsys, "m")
	require.NoError(t, err)
	require.Len(t, ms, 2)
	require.Equal(t, 1, ms[0].Version)
	require.Equal(t, "0002_b.sql", ms[1].Name)

	_, err = Load(fstest.MapFS{"m/x_a.sql": {Data: []byte("")}}, "m")
	require.ErrorContains(t, err, "NNNN_description.sql")
	_, err = Load(fstest.MapFS{"m/0001_a.sql": {}, "m/0001_b.sql": {}}, "m")
	require.ErrorContains(t, err, "share version 1")
}

func TestStatementsSplitsOnLineEndSemicolons(t *testing.T) {
	t.Parallel()
	got := Statements("-- comment\nCREATE TABLE a (\n x Int32\n);\n\nINSERT INTO a (x) VALUES (1);\nSELECT 1")
	require.Equal(t, []string{"CREATE TABLE a (\n x Int32\n)", "INSERT INTO a (x) VALUES (1)", "SELECT 1"}, got)
}
