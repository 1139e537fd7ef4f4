package search_test

import (
	"encoding/json"
	"net/url"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/readmodeltest"
)

// TestPageSizes measures reqs/search page sizes (bench/README.md, "Page sizes") on a world with
// eight weeks of history: 20 and 100 companies a page, by default (no momentum, 5 matched reqs
// a company), with each heavy part, and with both (include=momentum&matched_reqs=50: the shape
// every page had when both were the default, plus its few new members). It crawls its own world,
// so it runs only with HS_PAGE_SIZES=1:
//
//	HS_PAGE_SIZES=1 go test ./api/search -run TestPageSizes -v
func TestPageSizes(t *testing.T) {
	if os.Getenv("HS_PAGE_SIZES") == "" {
		t.Skip("measurement: set HS_PAGE_SIZES=1")
	}
	// 400 companies, one cycle a day for 57 days (8 weeks and a day, as make run's backfill).
	w := readmodeltest.Crawl(t, readmodeltest.Config{Seed: 11, Companies: 400, First: 0, Last: 56 * 8, Step: 8})
	srv, _ := startServer(t, w.CH)
	key := srv.Account(t, "growth").Key
	for _, limit := range []int{20, 100} {
		for _, q := range []url.Values{{}, {"include": {"momentum"}}, {"matched_reqs": {"50"}}, {"include": {"momentum"}, "matched_reqs": {"50"}}} {
			q.Set("limit", strconv.Itoa(limit))
			resp := srv.Get(t, "/v1/reqs/search", key, q)
			require.Equal(t, 200, resp.Status)
			t.Logf("reqs/search %s: %d bytes", q.Encode(), len(resp.Body))
		}
	}
}

// TestDescriptionPageSizes measures reqs/search pages of 100 req rows with and without
// include=description (bench/README.md, "Page sizes"): 100 companies with one matched req each,
// and 20 companies with up to five each (the default), on a world crawled at two ticks a day
// apart. It runs only with HS_PAGE_SIZES=1:
//
//	HS_PAGE_SIZES=1 go test ./api/search -run TestDescriptionPageSizes -v
func TestDescriptionPageSizes(t *testing.T) {
	if os.Getenv("HS_PAGE_SIZES") == "" {
		t.Skip("measurement: set HS_PAGE_SIZES=1")
	}
	w := readmodeltest.Crawl(t, readmodeltest.Config{Seed: 11, Companies: 600, First: 0, Last: 8, Step: 8})
	srv, _ := startServer(t, w.CH)
	key := srv.Account(t, "growth").Key
	for _, shape := range []url.Values{{"limit": {"100"}, "matched_reqs": {"1"}}, {"limit": {"20"}}} {
		for _, include := range []string{"", "description"} {
			q := url.Values{}
			for k, v := range shape {
				q[k] = v
			}
			if include != "" {
				q.Set("include", include)
			}
			resp := srv.Get(t, "/v1/reqs/search", key, q)
			require.Equal(t, 200, resp.Status)
			var page struct {
				Companies []struct {
					MatchedReqs []struct {
						Description json.RawMessage `json:"description"`
					} `json:"matched_reqs"`
				} `json:"companies"`
			}
			require.NoError(t, json.Unmarshal(resp.Body, &page))
			rows, described, text := 0, 0, 0
			for _, co := range page.Companies {
				for _, r := range co.MatchedReqs {
					rows++
					if len(r.Description) > 0 && string(r.Description) != "null" {
						var s string
						require.NoError(t, json.Unmarshal(r.Description, &s))
						described++
						text += len(s)
					}
				}
			}
			if include != "" {
				require.Positive(t, described, "the page's postings have descriptions")
			}
			t.Logf("reqs/search %s: %d bytes, %d companies, %d rows, %d with a description (%d bytes of text)",
				q.Encode(), len(resp.Body), len(page.Companies), rows, described, text)
		}
	}
}
