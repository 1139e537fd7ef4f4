package pipeline

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHeldOpenUnreadCountsLiveReqsNoSourceReadOKCarries(t *testing.T) {
	t.Parallel()
	st := newState()
	st.reqs["a"] = &reqState{live: true, sources: []string{"gh:acme"}}               // its one source read ok
	st.reqs["b"] = &reqState{live: true, sources: []string{"lever:acme"}}            // its one source failed
	st.reqs["c"] = &reqState{live: true, sources: []string{"lever:acme", "board:x"}} // neither read ok
	st.reqs["d"] = &reqState{live: true, sources: []string{"lever:acme", "gh:acme"}} // one read ok
	st.reqs["e"] = &reqState{live: false, sources: []string{"lever:acme"}}           // closed
	c, err := newCrawler(nil, st, Config{})
	require.NoError(t, err)
	ok := map[string]bool{"gh:acme": true}
	require.Equal(t, 2, c.HeldOpenUnread(func(k string) bool { return ok[k] }))
}
