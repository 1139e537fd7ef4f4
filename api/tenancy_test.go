package api_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/apitest"
)

// missingID is an id no resource of the sweep server has.
const missingID = 987654321

var lastUsed = regexp.MustCompile(`"last_used_at":("[^"]*"|null)`)

// Every /v1 route that names a customer's resource by id (keys, webhook endpoints, watches,
// deliveries, crawl jobs; in the path, a query filter or a body) answers another customer's id
// exactly like a missing one: the same status and the same body once the id itself is masked,
// and it changes nothing of the other customer's. A route added with an id in its path and no
// resource of that kind here fails the test.
func TestAnotherCustomersIDsAnswerExactlyLikeMissingOnes(t *testing.T) {
	t.Parallel()
	srv, snaps, w := sweepServer(t)
	m := snaps.Current().Model
	var co uint64
	for id := range w.Companies {
		if w.Covered[id] && len(w.Live[id]) > 0 && m.Company(id) != nil && (co == 0 || id < co) {
			co = id
		}
	}
	require.NotZero(t, co)

	me := srv.RoomyAccount(t, "enterprise")
	other := srv.RoomyAccount(t, "enterprise")
	object := func(r apitest.Response, want int) map[string]any {
		t.Helper()
		require.Equal(t, want, r.Status, "%s", r.Body)
		var o map[string]any
		require.NoError(t, json.Unmarshal(r.Body, &o))
		return o
	}
	id := func(o map[string]any, k string) int64 {
		t.Helper()
		v, ok := o[k].(float64)
		require.True(t, ok, "%s in %v", k, o)
		return int64(v)
	}

	// The other customer's resources, one of each kind.
	foreign := map[string]int64{}
	foreign["{key_id}"] = id(object(srv.Post(t, "/v1/keys", other.Key, map[string]any{"scopes": []string{"read"}}), 201), "key_id")
	ep := object(srv.Post(t, "/v1/webhooks", other.Key, map[string]any{"url": "https://hooks.example.com/other"}), 201)
	foreign["{id}"] = id(ep, "id")
	watch := object(srv.Post(t, "/v1/watches", other.Key, map[string]any{"company_id": co, "webhook_endpoint_id": foreign["{id}"]}), 201)
	foreign["{watch_id}"] = id(watch, "watch_id")
	foreign["{delivery_id}"] = id(object(srv.Post(t, fmt.Sprintf("/v1/webhooks/%d/test", foreign["{id}"]), other.Key, nil), 201), "delivery_id")
	foreign["{job_id}"] = id(object(srv.Get(t, fmt.Sprintf("/v1/companies/%d/hiring-pulse", co), other.Key, url.Values{"max_age": {"0"}}), 202), "job_id")
	// What the other customer sees of them, to check nothing changed.
	before := func() []string {
		var out []string
		for _, p := range []string{"/v1/keys", "/v1/webhooks", "/v1/watches", "/v1/webhook-deliveries", fmt.Sprintf("/v1/crawl-jobs/%d", foreign["{job_id}"])} {
			r := srv.Get(t, p, other.Key, nil)
			require.Equal(t, 200, r.Status, "%s: %s", p, r.Body)
			// last_used_at moves with the other customer's own calls, these reads included
			out = append(out, lastUsed.ReplaceAllString(string(r.Body), `"last_used_at":"…"`))
		}
		return out
	}
	seen := before()

	// The id masked in an answer: a message may name the id it was asked about.
	mask := func(body []byte, ids ...int64) string {
		s := string(body)
		for _, v := range ids {
			s = regexp.MustCompile(`\b`+strconv.FormatInt(v, 10)+`\b`).ReplaceAllString(s, "ID")
		}
		return s
	}
	compare := func(what, method, foreignPath, missingPath string, foreignBody, missingBody any, ids ...int64) {
		t.Helper()
		a := srv.Do(t, method, missingPath, me.Key, missingBody)
		b := srv.Do(t, method, foreignPath, me.Key, foreignBody)
		require.Equal(t, a.Status, b.Status, "%s: a missing id answered %d, another customer's %d: %s", what, a.Status, b.Status, b.Body)
		require.GreaterOrEqual(t, a.Status, 400, "%s: a missing id answered %d: %s", what, a.Status, a.Body)
		require.Equal(t, mask(a.Body, append(ids, missingID)...), mask(b.Body, append(ids, missingID)...), what)
	}

	// Every route with a customer's id in its path.
	covered := 0
	for _, rt := range srv.API.Routes() {
		// A company id or a technology slug names the shared corpus, no customer's resource (the
		// company reads and technographics answer every customer alike: see below).
		if !strings.HasPrefix(rt.Path, "/v1/") || !strings.Contains(rt.Path, "{") || strings.Contains(rt.Path, "{company_id}") || strings.Contains(rt.Path, "{slug}") {
			continue
		}
		fp, mp := rt.Path, rt.Path
		var ids []int64
		for param, v := range foreign {
			if strings.Contains(fp, param) {
				fp = strings.ReplaceAll(fp, param, strconv.FormatInt(v, 10))
				mp = strings.ReplaceAll(mp, param, strconv.Itoa(missingID))
				ids = append(ids, v)
			}
		}
		require.NotContains(t, fp, "{", "%s %s names an id this test has no resource of: add one", rt.Method, rt.Path)
		var body any
		if rt.Body != nil {
			body = map[string]any{}
		}
		compare(rt.Method+" "+rt.Path, rt.Method, fp, mp, body, body, ids...)
		covered++
	}
	require.GreaterOrEqual(t, covered, 8, "keys (revoke, rotate), webhooks (delete, rotate-secret, test), watches, deliveries (get, replay), crawl jobs")

	// Ids in query filters and bodies.
	for _, f := range []string{"watch_id", "webhook_endpoint_id"} {
		v := foreign["{watch_id}"]
		if f == "webhook_endpoint_id" {
			v = foreign["{id}"]
		}
		a := srv.Get(t, "/v1/webhook-deliveries", me.Key, url.Values{f: {strconv.Itoa(missingID)}})
		b := srv.Get(t, "/v1/webhook-deliveries", me.Key, url.Values{f: {strconv.FormatInt(v, 10)}})
		require.Equal(t, a.Status, b.Status, "deliveries filtered by another customer's %s", f)
		require.Equal(t, mask(a.Body, v, missingID), mask(b.Body, v, missingID), "deliveries filtered by another customer's %s", f)
	}
	compare("POST /v1/watches naming another customer's endpoint", "POST", "/v1/watches", "/v1/watches",
		map[string]any{"company_id": co, "webhook_endpoint_id": foreign["{id}"]}, map[string]any{"company_id": co, "webhook_endpoint_id": missingID}, foreign["{id}"])

	// The technographics hold no customer's data: two customers on one plan read the same
	// answers, whatever the other watched, labelled or asked before.
	techs := srv.Get(t, fmt.Sprintf("/v1/companies/%d/technologies", co), other.Key, nil)
	require.Equal(t, 200, techs.Status, "%s", techs.Body)
	require.Equal(t, string(techs.Body), string(srv.Get(t, fmt.Sprintf("/v1/companies/%d/technologies", co), me.Key, nil).Body))
	var named struct {
		Technologies []struct {
			Slug string `json:"slug"`
		} `json:"technologies"`
	}
	require.NoError(t, json.Unmarshal(techs.Body, &named))
	require.NotEmpty(t, named.Technologies)
	path := "/v1/technologies/" + named.Technologies[0].Slug + "/companies"
	theirs := srv.Get(t, path, other.Key, nil)
	require.Equal(t, 200, theirs.Status, "%s", theirs.Body)
	require.Equal(t, string(theirs.Body), string(srv.Get(t, path, me.Key, nil).Body))

	require.Equal(t, seen, before(), "nothing of the other customer's changed")
}
