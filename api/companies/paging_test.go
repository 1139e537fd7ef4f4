package companies_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// Pages people can use: open-reqs pages to the end by cursor (no silent stop at the
// page cap), says has_more and keeps total on every page.
func TestOpenReqsPagesByCursorToTheEnd(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	paid := f.srv.Account(t, "growth").Key
	live := f.w.Live[f.covered]
	require.Greater(t, len(live), 3)
	seen := map[string]bool{}
	q := url.Values{"limit": {"2"}}
	for page := 0; ; page++ {
		require.Less(t, page, 1000)
		resp := f.srv.Get(t, cpath(f.covered, "open-reqs"), paid, q)
		f.srv.Conforms(t, "GET", "/v1/companies/{company_id}/open-reqs", resp)
		var p struct {
			openReqs
			HasMore    bool    `json:"has_more"`
			NextCursor *string `json:"next_cursor"`
		}
		resp.Decode(t, 200, &p)
		require.Equal(t, len(live), *p.Total, "total is every matching req, on every page")
		for _, r := range p.Reqs {
			require.False(t, seen[r.ReqKey], "each req once across pages: %s", r.ReqKey)
			seen[r.ReqKey] = true
			require.Contains(t, live, r.ReqKey)
		}
		require.Equal(t, p.NextCursor != nil, p.HasMore)
		if !p.HasMore {
			break
		}
		require.Len(t, p.Reqs, 2, "a page that says more follows is full")
		q.Set("cursor", *p.NextCursor)
	}
	require.Len(t, seen, len(live), "the pages together serve every live req")
	bad := f.srv.Get(t, cpath(f.covered, "open-reqs"), paid, url.Values{"cursor": {"nonsense"}})
	require.Equal(t, []string{"query.cursor"}, bad.Invalid(t).Locs())
}

// A plan-gated route's 402 keeps the spec's reason but says plainly that the plan does not
// include the route and which plan does (plan_gate), unlike a spent quota.
func TestPlanGate402SaysWhichPlanIncludesTheRoute(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	free := f.srv.Account(t, "free").Key
	resp := f.srv.Get(t, cpath(f.covered, "hiring-pulse"), free, nil)
	f.srv.Conforms(t, "GET", "/v1/companies/{company_id}/hiring-pulse", resp)
	var d struct {
		Detail struct {
			Reason   string `json:"reason"`
			Message  string `json:"message"`
			PlanGate *struct {
				GatedEndpoint string   `json:"gated_endpoint"`
				Plan          string   `json:"plan"`
				IncludedIn    []string `json:"included_in"`
				UpgradeTo     *string  `json:"upgrade_to"`
			} `json:"plan_gate"`
		} `json:"detail"`
	}
	resp.Decode(t, 402, &d)
	require.Equal(t, "quota_exceeded", d.Detail.Reason, "the spec's reason values are kept")
	require.NotNil(t, d.Detail.PlanGate)
	require.Equal(t, "hiring-pulse", d.Detail.PlanGate.GatedEndpoint)
	require.Equal(t, "free", d.Detail.PlanGate.Plan)
	require.Equal(t, []string{"trial", "starter", "growth", "enterprise"}, d.Detail.PlanGate.IncludedIn)
	require.Equal(t, "starter", *d.Detail.PlanGate.UpgradeTo)
	require.Contains(t, d.Detail.Message, "does not include hiring-pulse")
	require.Contains(t, d.Detail.Message, "Starter")
	require.Contains(t, d.Detail.Message, "not a spent quota")
}
