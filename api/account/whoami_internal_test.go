package account

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWhoamiIsWrittenAsJSONWritesIt(t *testing.T) {
	t.Parallel()
	for _, w := range []whoamiResponse{
		{CustomerID: "cus_1", AccountID: 7, KeyID: 9, Tier: "tier_2", TierName: "Growth", Scopes: []string{"read", "write"}},
		{CustomerID: "", AccountID: -1, Tier: "enterprise", TierName: "Enterprise <custom> & \"co\"", Scopes: []string{}, Demo: true},
		{CustomerID: "c\u2028\xff", TierName: "Zürich", Scopes: nil},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(w))
		require.Equal(t, want.String(), string(w.appendJSON(nil)))
	}
}
