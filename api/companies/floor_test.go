package companies_test

import (
	"context"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/read/readmodel"
)

// Every company read hides the reqs the freshness floor hides on search (readmodel.FreshBefore):
// if open-reqs served a Free key the reqs first seen within the plan's floor (24 h), and
// is-hiring counted them, a Free or demo key could take company ids from search and read what
// search and jobs/role hide. Paid plans (floor 0) see every live req.
func TestCompanyReadsHideReqsFirstSeenWithinTheFreshnessFloor(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	cut := f.m.AsOf.Add(-24 * time.Hour).Unix()
	var ids []uint64
	for id := range f.w.Companies {
		if co := f.m.Company(id); co != nil && co.Covered() &&
			slices.ContainsFunc(co.Live, func(r readmodel.Req) bool { return r.FirstSeen > cut }) &&
			slices.ContainsFunc(co.Live, func(r readmodel.Req) bool { return r.FirstSeen <= cut }) {
			ids = append(ids, id)
		}
	}
	require.NotEmpty(t, ids, "the world has a company with live reqs on both sides of the floor")
	slices.Sort(ids)
	id := ids[0]
	co := f.m.Company(id)
	var all, visible []string
	for _, r := range co.Live {
		all = append(all, r.Key)
		if r.FirstSeen <= cut {
			visible = append(visible, r.Key)
		}
	}
	free := f.srv.Account(t, "free").Key
	paid := f.srv.Account(t, "growth").Key
	keys := func(rows []reqRow) (out []string) {
		for _, r := range rows {
			out = append(out, r.ReqKey)
		}
		return out
	}
	q := url.Values{"limit": {"200"}}
	r := f.srv.Get(t, cpath(id, "open-reqs"), free, q)
	var fo openReqs
	r.Decode(t, 200, &fo)
	f.srv.Conforms(t, "GET", "/v1/companies/{company_id}/open-reqs", r)
	require.Equal(t, visible, keys(fo.Reqs), "Free: only reqs past the floor")
	require.Equal(t, len(visible), *fo.Total)
	po := apitest.GetJSON[openReqs](t, f.srv, cpath(id, "open-reqs"), paid, q, 200)
	require.Equal(t, all, keys(po.Reqs), "paid: every live req")
	require.Equal(t, len(all), *po.Total)

	fi := apitest.GetJSON[isHiring](t, f.srv, cpath(id, "is-hiring"), free, nil, 200)
	require.Equal(t, len(visible), *fi.OpenReqCount, "Free: is-hiring counts what open-reqs serves")
	pi := apitest.GetJSON[isHiring](t, f.srv, cpath(id, "is-hiring"), paid, nil, 200)
	require.Equal(t, len(all), *pi.OpenReqCount)

	// first-hire and repost-pain show no req first seen within the floor either (a few companies,
	// those with such a first hire or repost first: a Free key makes 20 calls a minute).
	hasHidden := func(x uint64) bool {
		c := f.m.Company(x)
		return slices.ContainsFunc(c.FirstHires(), func(h readmodel.FirstHire) bool { return h.FirstSeen.Unix() > cut }) ||
			slices.ContainsFunc(c.Reposted(), func(r readmodel.Req) bool { return r.FirstSeen > cut })
	}
	slices.SortStableFunc(ids, func(a, b uint64) int {
		switch ha, hb := hasHidden(a), hasHidden(b); {
		case ha && !hb:
			return -1
		case hb && !ha:
			return 1
		}
		return 0
	})
	require.True(t, hasHidden(ids[0]), "the world has a first hire or a repost within the floor")
	for _, x := range ids[:min(len(ids), 5)] {
		fh := apitest.GetJSON[firstHire](t, f.srv, cpath(x, "first-hire"), free, nil, 200)
		for _, h := range fh.FirstHires {
			require.LessOrEqual(t, h.FirstSeen.Unix(), cut, "company %d first hire %s", x, h.Function)
		}
		hidden := map[string]bool{}
		for _, r := range f.m.Company(x).Reposted() {
			if r.FirstSeen > cut {
				hidden[r.Key] = true
			}
		}
		rp := apitest.GetJSON[repostPain](t, f.srv, cpath(x, "repost-pain"), free, nil, 200)
		for _, r := range rp.Reqs {
			require.False(t, hidden[r.ReqKey], "company %d repost-pain %s", x, r.ReqKey)
		}
	}
}

// A 202 crawling answer for a cold company marks the call forced-fresh, as max_age does, so it
// is metered and charged to quota as docs/decisions.md says: a forced-fresh read answered 202
// crawling counts as one metered call with no units.
func TestA202CrawlingForAColdCompanyIsOneMeteredForcedFreshCall(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	srv, snaps, clock := startServer(t, f.w)
	co := snaps.Current().Model.Company(f.covered)
	key := srv.Account(t, "growth").Key
	clock.Set(co.LastRead().Add(25 * time.Hour)) // cold
	for _, seg := range []string{"is-hiring", "hiring-pulse", "pre-action-brief"} {
		var c crawling
		srv.Get(t, cpath(f.covered, seg), key, nil).Decode(t, 202, &c)
		require.Equal(t, "crawling", c.Status, seg)
	}
	require.NoError(t, srv.API.FlushUsage(context.Background()))
	var u struct {
		Calls       int `json:"calls"`
		SourceRows  int `json:"source_rows"`
		ForcedFresh int `json:"forced_fresh"`
	}
	srv.Get(t, "/v1/usage", key, nil).Decode(t, 200, &u)
	require.Equal(t, 3, u.Calls, "each cold 202 crawling is one metered call")
	require.Equal(t, 3, u.ForcedFresh)
	require.Zero(t, u.SourceRows, "with no units")
}
