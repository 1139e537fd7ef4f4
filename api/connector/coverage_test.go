package connector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
)

type coverageStatusList struct {
	Requests []struct {
		RequestID int64   `json:"request_id"`
		Domain    *string `json:"domain"`
		Name      *string `json:"name"`
		Status    string  `json:"status"`
		Reason    *string `json:"reason"`
		Sources   []struct {
			Vendor string  `json:"vendor"`
			Tenant *string `json:"tenant"`
			URL    string  `json:"url"`
		} `json:"sources"`
		Tried []struct {
			URL    string `json:"url"`
			Status int    `json:"status"`
		} `json:"tried"`
		LastTriedAt *time.Time `json:"last_tried_at"`
	} `json:"requests"`
}

// TestCoverageRequestsShowWhereTheSearchStands: a coverage request is searching until its
// company's discovery answers; then covered with the sources found (while the company's reads
// still answer no_ats_signal: it is crawled from the next window), or no_ats_found with what was
// tried. A request by name alone needs a domain. Another customer sees none of it.
func TestCoverageRequestsShowWhereTheSearchStands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := world.Get(t)
	key := f.srv.Account(t, "growth").Key
	suffix := fmt.Sprint(time.Now().UnixNano())
	found, lost, name := "found-"+suffix+".example", "lost-"+suffix+".example", "Only A Name "+suffix
	apitest.PostJSON[imported](t, f.srv, "/v1/migration-import", key,
		map[string]any{"companies": []any{map[string]any{"domain": found}, map[string]any{"domain": lost}, map[string]any{"name": name}}}, 200)
	var got coverageStatusList // the page list read last
	list := func() map[string]int {
		t.Helper()
		r := f.srv.Get(t, "/v1/coverage-requests", key, nil)
		f.srv.Conforms(t, "GET", "/v1/coverage-requests", r)
		var v coverageStatusList
		r.Decode(t, 200, &v)
		require.Len(t, v.Requests, 3)
		got = v
		out := map[string]int{}
		for i, req := range v.Requests {
			switch {
			case req.Domain != nil:
				out[*req.Domain] = i
			default:
				out[*req.Name] = i
			}
		}
		return out
	}

	at := list()
	for _, d := range []string{found, lost} {
		req := got.Requests[at[d]]
		require.Equal(t, "searching", req.Status, d)
		require.Empty(t, req.Sources)
		require.Empty(t, req.Tried)
		require.Nil(t, req.LastTriedAt)
		require.Nil(t, req.Reason)
	}
	byName := got.Requests[at[name]]
	require.Equal(t, "needs_domain", byName.Status)
	require.Contains(t, *byName.Reason, "domain")

	// Discovery answers for both domains.
	steps := make([]map[string]any, 12)
	for i := range steps {
		steps[i] = map[string]any{"url": fmt.Sprintf("https://%s/path-%d", lost, i), "status": 404}
	}
	tried, err := json.Marshal(steps)
	require.NoError(t, err)
	_, err = oltp.StoreDiscovery(ctx, f.srv.Pool, oltp.DiscoveryOutcome{Domain: found, Status: oltp.DiscoveryCovered, By: "discovery",
		Sources: []oltp.SourceInput{{Key: "greenhouse:found" + suffix, Vendor: "greenhouse", Kind: oltp.SourceATSTenant, Tenant: "found" + suffix,
			CompanyDomain: found, URL: "https://boards-api.greenhouse.io/v1/boards/found" + suffix + "/jobs?content=true", Status: oltp.SourceActive, Validated: true}}}, true)
	require.NoError(t, err)
	_, err = oltp.StoreDiscovery(ctx, f.srv.Pool, oltp.DiscoveryOutcome{Domain: lost, Status: oltp.DiscoveryNoATS, Reason: "no careers page links to a job board",
		Tried: tried, By: "discovery"}, true)
	require.NoError(t, err)

	at = list()
	cov := got.Requests[at[found]]
	require.Equal(t, "covered", cov.Status)
	require.Len(t, cov.Sources, 1)
	require.Equal(t, "greenhouse", cov.Sources[0].Vendor)
	require.Equal(t, "found"+suffix, *cov.Sources[0].Tenant)
	require.Equal(t, "https://boards-api.greenhouse.io/v1/boards/found"+suffix+"/jobs?content=true", cov.Sources[0].URL)
	require.NotNil(t, cov.LastTriedAt)
	require.Empty(t, cov.Tried)
	miss := got.Requests[at[lost]]
	require.Equal(t, "no_ats_found", miss.Status)
	require.Equal(t, "no careers page links to a job board", *miss.Reason)
	require.Len(t, miss.Tried, oltp.MaxCoverageTried, "a short list")
	require.Equal(t, 404, miss.Tried[0].Status)
	require.Empty(t, miss.Sources)

	// Covered in the registry, not yet crawled: reads answer no_ats_signal until its first window.
	var row struct {
		CompanyID      *uint64 `json:"company_id"`
		CoverageStatus string  `json:"coverage_status"`
	}
	f.srv.Post(t, "/v1/connector/enrich", key, map[string]any{"domain": found}).Decode(t, 200, &row)
	require.Nil(t, row.CompanyID)
	require.Equal(t, "no_ats_signal", row.CoverageStatus)

	other := f.srv.Account(t, "growth").Key
	require.Empty(t, apitest.GetJSON[coverageStatusList](t, f.srv, "/v1/coverage-requests", other, nil, 200).Requests,
		"another customer's requests answer like missing ones")
}
