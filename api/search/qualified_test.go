package search_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/search"
	"github.com/planehq/hiringsignal/pipeline/normalize"
)

func qualifiedTests(t *testing.T, w *world, h *harness) {
	growth := h.account("starter")
	served := 0
	type row = map[string]any
	post := func(body string) resp { return h.do("POST", "/v1/reqs/qualified", growth.Key, body) }
	pageAll := func(body map[string]any) ([]row, uint64) {
		t.Helper()
		var out []row
		var cursor uint64
		if c, ok := body["cursor"]; ok {
			cursor = c.(uint64)
		}
		for page := 0; ; page++ {
			require.Less(t, page, 10000)
			body["cursor"] = cursor
			b, _ := json.Marshal(body)
			r := post(string(b))
			require.Equal(t, 200, r.status, string(r.body))
			m := r.obj(t)
			rows := m["rows"].([]any)
			served += len(rows)
			next := uint64(m["next_cursor"].(float64))
			require.GreaterOrEqual(t, next, cursor, "monotone")
			for _, x := range rows {
				rr := x.(row)
				require.Greater(t, uint64(rr["ledger_seq"].(float64)), cursor)
				out = append(out, rr)
			}
			if body["include_pulse"] == true {
				cos := m["companies"].(map[string]any)
				for _, x := range rows {
					require.Contains(t, cos, fmt.Sprint(uint64(x.(row)["company_id"].(float64))))
				}
			}
			if len(rows) == 0 || next == cursor {
				return out, next
			}
			cursor = next
		}
	}

	t.Run("reqs/qualified 422s", func(t *testing.T) {
		cases := []struct{ body, loc string }{
			{`{"criteria":{"req":{"colour":"blue"}}}`, "body.criteria.req.colour"},
			{`{"criteria":{"person":{"name":"x"}}}`, "body.criteria.person"},
			{`{"criteria":{"event":{"function":"Engineering"}}}`, "body.criteria.event.function"},
			{`{"criteria":{"event":{"event_type":"opened"}}}`, "body.criteria.event.event_type"},
			{`{"criteria":{"req":{"function":"Astrology"}}}`, "body.criteria.req.function.0"},
			{`{"criteria":{"req":{"country":"DE"}}}`, "body.criteria.req.country.0"},
			{`{"criteria":{"company":{"headcount_band":["huge"]}}}`, "body.criteria.company.headcount_band.0"},
			{`{"criteria":{"req":{"source_type":"feed"}}}`, "body.criteria.req.source_type.0"},
			{`{"salary_min_usd":200000,"salary_max_usd":100000}`, "body.salary_min_usd"},
			{`{"limit":0}`, "body.limit"},
			{`{"limit":101}`, "body.limit"},
			{`{"colour":"blue"}`, "body.colour"},
		}
		for _, c := range cases {
			r := post(c.body)
			var flat []string
			for _, l := range errLocs(t, r) {
				var parts []string
				for _, p := range l {
					parts = append(parts, fmt.Sprint(p))
				}
				flat = append(flat, strings.Join(parts, "."))
			}
			require.Contains(t, flat, c.loc, "%s: %s", c.body, r.body)
		}
		// Vocabulary errors come alone, before any other check.
		r := post(`{"criteria":{"req":{"colour":"blue","function":"Astrology"}},"salary_min_usd":2,"salary_max_usd":1}`)
		require.Len(t, errLocs(t, r), 1)
	})

	all := w.currentReqs()
	cos, err := analytics.Companies(context.Background(), w.ch)
	require.NoError(t, err)
	agency := map[uint64]bool{}
	for _, c := range cos {
		switch c.AgencyKind {
		case "staffing_agency", "job_board", "aggregator", "subcontractor_network":
			agency[c.CompanyID] = true
		}
	}

	t.Run("reqs/qualified criteria match the ledger", func(t *testing.T) {
		ids, _ := normalize.ResolveFunction("Engineering")
		rows, _ := pageAll(map[string]any{"criteria": map[string]any{"req": map[string]any{"function": []string{"Engineering"}, "q_excludes": []string{"senior"}}},
			"limit": 37, "include_pulse": true})
		want := map[string]bool{}
		for _, r := range all {
			if !r.Live() || agency[r.CompanyID] {
				continue
			}
			ok := false
			for _, id := range ids {
				ok = ok || r.Function == id
			}
			if ok && !normalize.MatchAll(normalize.Stems("senior"), normalize.Stems(r.RawTitle)) {
				want[r.ReqKey] = true
			}
		}
		got := map[string]bool{}
		for _, r := range rows {
			got[r["req_key"].(string)] = true
			require.NotContains(t, strings.ToLower(r["raw_title"].(string)), "senior")
			require.Equal(t, "Engineering", r["function_name"])
		}
		require.Equal(t, want, got)
	})

	t.Run("reqs/qualified pay band", func(t *testing.T) {
		rows, _ := pageAll(map[string]any{"salary_min_usd": 90000.0, "salary_max_usd": 150000.0, "limit": 100})
		require.NotEmpty(t, rows)
		for _, r := range rows {
			comp := r["compensation"].(map[string]any)
			f := comp["figure_usd"].(float64)
			require.GreaterOrEqual(t, f, 90000.0)
			require.LessOrEqual(t, f, 150000.0)
		}
	})

	t.Run("reqs/qualified cursor returns only reqs new since", func(t *testing.T) {
		before := map[string]bool{}
		for _, r := range all {
			before[r.ReqKey] = true
		}
		_, cursor := pageAll(map[string]any{"limit": 100})
		rows, again := pageAll(map[string]any{"limit": 100, "cursor": cursor})
		require.Empty(t, rows)
		require.Equal(t, cursor, again)

		w.crawlTo(w.last + 6)
		swapped, err := h.idx.Refresh(context.Background())
		require.NoError(t, err)
		require.True(t, swapped)
		rows, _ = pageAll(map[string]any{"limit": 100, "cursor": cursor})
		want := map[string]bool{}
		for _, r := range w.currentReqs() {
			if r.Live() && !before[r.ReqKey] && !agency[r.CompanyID] {
				want[r.ReqKey] = true
			}
		}
		require.NotEmpty(t, want)
		got := map[string]bool{}
		for _, r := range rows {
			got[r["req_key"].(string)] = true
		}
		require.Equal(t, want, got)
	})

	t.Run("reqs/qualified units", func(t *testing.T) {
		require.Equal(t, served, h.sourceRows(growth.Key))
	})
}

// The OpenAPI criteria text names every field of the vocabulary.
func TestVocabularyIsPublished(t *testing.T) {
	for _, cr := range search.Vocabulary() {
		require.Contains(t, api.CriteriaVocabularyDoc, cr.Group+"."+cr.Name)
		for _, e := range cr.Enum {
			require.Contains(t, api.CriteriaVocabularyDoc, e)
		}
	}
	s := search.VocabularySchema()
	require.Contains(t, s["properties"], "req")
}
