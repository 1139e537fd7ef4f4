package agent_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/read/criteria"
)

// search_roles takes the posting-fact filters jobs/search takes (technologies, seniority,
// employment_type, workplace_type), answers what the route answers with them, and refuses what the
// route refuses (a value outside the vocabulary, more than criteria.MaxFactValues values) as a
// tool error naming the argument, billed nothing.
func TestSearchRolesTakesThePostingFactFilters(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	a := f.srv.Account(t, "growth")
	s := connect(t, f.srv, a.Key, "")
	rest := func(q url.Values) map[string]any {
		t.Helper()
		var m map[string]any
		r := f.srv.Get(t, "/v1/jobs/search", a.Key, q)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		require.NoError(t, json.Unmarshal(r.Body, &m), "%s", r.Body)
		return m
	}

	args := map[string]any{"sort": "recency", "limit": 20, "detail": "full",
		"workplace_type": []string{"remote", "hybrid"}, "seniority": []string{"senior", "staff", "lead"},
		"employment_type": []string{"full_time"}}
	q := url.Values{"sort": {"recency"}, "limit": {"20"}, "workplace_type": {"remote", "hybrid"},
		"seniority": {"senior", "staff", "lead"}, "employment_type": {"full_time"}}
	got := ok(t, s, "search_roles", args)
	require.Equal(t, rest(q), got)
	jobs := got["jobs"].([]any)
	require.NotEmpty(t, jobs, "the world has senior full-time remote or hybrid roles")
	for _, j := range jobs {
		row := j.(map[string]any)
		require.Contains(t, []any{"remote", "hybrid"}, row["workplace_type"])
		require.Contains(t, []any{"senior", "staff", "lead"}, row["seniority"])
		require.Equal(t, "full_time", row["employment_type"])
	}

	// A technology by name, any case, as the route takes it.
	tech := ok(t, s, "search_roles", map[string]any{"technologies": []string{"Python"}, "limit": 10, "detail": "full"})
	require.Equal(t, rest(url.Values{"technologies": {"Python"}, "limit": {"10"}}), tech)
	require.NotEmpty(t, tech["jobs"], "the world's postings name Python")
	for _, j := range tech["jobs"].([]any) {
		b, _ := json.Marshal(j.(map[string]any)["technologies"])
		require.Contains(t, string(b), `"slug":"python"`)
	}
	before := readUsage(t, f.srv, a.Key)

	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"technologies": []string{"apache-kafka"}}, "technologies"},
		{map[string]any{"seniority": []string{"guru"}}, "seniority"},
		{map[string]any{"employment_type": []string{"fulltime"}}, "employment_type"},
		{map[string]any{"technologies": strings.Split(strings.Repeat("go,", criteria.MaxFactValues+1), ",")[:criteria.MaxFactValues+1]}, "technologies"},
	} {
		r, m := call(t, s, "search_roles", c.args)
		require.True(t, r.IsError, "%v", c.args)
		require.Equal(t, "invalid_arguments", m["reason"], "%v", c.args)
		b, _ := json.Marshal(m)
		require.Contains(t, string(b), c.want, "%v", c.args)
	}
	after := readUsage(t, f.srv, a.Key)
	require.Equal(t, before.Calls, after.Calls, "a refused call is billed nothing")
}
