package jobtext

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// A tag list names a technology by a whole alias in any case, ambiguous names included (a tag
// stands alone), and nothing by other words.
func TestTags(t *testing.T) {
	t.Parallel()
	for tags, want := range map[string][]string{
		"go,kubernetes":                     {"go", "kubernetes"},
		"Go; Rust | r\nswift":               {"go", "rust", "r", "swift"},
		"node.js, NodeJS, react native":     {"nodejs", "react_native"},
		"Marketing,Berlin,remote,full-time": nil,
		"sales, customer success, it":       nil,
		"go to market, python developer":    nil,
		"":                                  nil,
		"python,python,Python":              {"python"},
	} {
		require.Equal(t, want, Tags(tags), "%q", tags)
	}
}

// The regions Derive reads are the served vocabulary's.
func TestRegionsAreTheServedVocabulary(t *testing.T) {
	t.Parallel()
	for _, r := range regionsTable {
		if r.name != "" {
			require.Contains(t, normalize.RemoteRegions, r.name)
		}
	}
	d := Derive("Account Executive", "This is a remote role (Remote - EMEA).")
	require.Equal(t, []string{"emea"}, d.RemoteRegions)
	d = Derive("", "Remote (Europe)")
	require.Equal(t, Remote, d.WorkplaceType)
	require.Equal(t, []string{"europe"}, d.RemoteRegions)
}
