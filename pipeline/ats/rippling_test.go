package ats

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

const ripplingURL = "https://ats.rippling.com/api/v2/board/acme/jobs?page=0&pageSize=50"

func TestRipplingParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "rippling", fixture(t, "rippling_jobs.json"), ripplingURL)
	require.Equal(t, 1, page.Malformed, "a row without a name")
	require.Empty(t, page.NextURL, "page 0 of 1")
	m := bySourceID(t, page)
	require.Len(t, m, 4)

	id := "5f0c2a8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b"
	require.Equal(t, Posting{
		SourceID:      id,
		Title:         "BizOps Manager",
		Location:      "San Francisco, CA",
		City:          "San Francisco",
		Country:       "US",
		Department:    "Bizops",
		WorkplaceType: "onsite",
		URL:           "https://ats.rippling.com/acme/jobs/" + id,
	}, m[id])
	further := m[id+"#1"]
	require.Equal(t, "New York", further.City, "the second row of an id is a further place")
	require.Equal(t, "https://ats.rippling.com/acme/jobs/"+id, further.URL)

	p := m["7a1b2c3d-0000-4000-8000-000000000002"]
	require.True(t, p.Remote)
	require.Equal(t, "Remote (United States)", p.Location)
	require.Equal(t, "US", p.Country)
	p = m["7a1b2c3d-0000-4000-8000-000000000003"]
	require.False(t, p.Remote, "hybrid is not remote")
	require.Empty(t, p.Department, "department null")
	require.Equal(t, "GB", p.Country)
}

func ripplingBody(page, n, size, total int) []byte {
	items := []map[string]any{}
	for i := 0; i < n; i++ {
		items = append(items, map[string]any{"id": "id-" + strconv.Itoa(page*size+i), "name": "Job", "url": "https://ats.rippling.com/acme/jobs/x",
			"department": "Ops", "locations": []map[string]any{{"name": "Lisbon", "city": "Lisbon", "country": "Portugal", "workplaceType": "ON_SITE"}}})
	}
	pages := (total + size - 1) / size
	b, _ := json.Marshal(map[string]any{"items": items, "page": page, "pageSize": size, "totalItems": total, "totalPages": pages})
	return b
}

func TestRipplingPagesUntilTotalPages(t *testing.T) {
	t.Parallel()
	p0 := mustParse(t, "rippling", ripplingBody(0, 50, 50, 120), ripplingURL)
	require.Equal(t, "https://ats.rippling.com/api/v2/board/acme/jobs?page=1&pageSize=50", p0.NextURL)
	require.Equal(t, "Ops", p0.Postings[0].Department, "a department given as a string")
	require.Equal(t, "Portugal", p0.Postings[0].Country, "country when there is no code")
	p1 := mustParse(t, "rippling", ripplingBody(1, 50, 50, 120), p0.NextURL)
	require.Equal(t, "https://ats.rippling.com/api/v2/board/acme/jobs?page=2&pageSize=50", p1.NextURL)
	require.Empty(t, mustParse(t, "rippling", ripplingBody(2, 20, 50, 120), p1.NextURL).NextURL)
	require.Empty(t, mustParse(t, "rippling", []byte(`{"items":[],"page":0,"pageSize":50,"totalItems":0,"totalPages":0}`), ripplingURL).NextURL)
	// Without totals, a full page asks for the next.
	full := mustParse(t, "rippling", []byte(`{"items":[{"id":"a","name":"A"},{"id":"b","name":"B"}]}`), "https://ats.rippling.com/api/v2/board/acme/jobs?page=0&pageSize=2")
	require.Equal(t, "https://ats.rippling.com/api/v2/board/acme/jobs?page=1&pageSize=2", full.NextURL)
}

func TestRipplingOlderArray(t *testing.T) {
	t.Parallel()
	body := `[{"uuid":"u1","name":"Software Engineer","url":"https://ats.rippling.com/acme/jobs/u1","department":{"id":"d","label":"Engineering"},"workLocation":{"id":"x","label":"Remote (United States)"}}]`
	page := mustParse(t, "rippling", []byte(body), "https://api.rippling.com/platform/api/ats/v1/board/acme/jobs")
	require.Len(t, page.Postings, 1)
	p := page.Postings[0]
	require.Equal(t, "u1", p.SourceID)
	require.Equal(t, "Engineering", p.Department)
	require.Equal(t, "Remote (United States)", p.Location)
	require.True(t, p.Remote)
	require.Empty(t, page.NextURL)
}

func TestRipplingBadBodies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", `{"code":"RESOURCE_NOT_FOUND"}`, `{"items":{}}`, `{"items":[{"id":"a","name":"A"}`} {
		parseErr(t, "rippling", []byte(body))
	}
}
