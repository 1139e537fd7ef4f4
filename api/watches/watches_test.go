package watches_test

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
)

var watchFields = []string{"watch_id", "company_id", "criteria", "webhook_endpoint_id", "event_types", "max_fires_per_hour", "fires_last_hour",
	"rate_limited", "last_fired_at", "fires_last_7d", "fires_last_30d", "status", "blocked", "created_at"}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sorted(s ...string) []string { s = append([]string{}, s...); sort.Strings(s); return s }

func TestCreateListAndMeterWatches(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.RoomyAccount(t, "starter")
	ep := h.Endpoint(t, a.Key, "https://hooks.example.com/w")

	r := h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": acme, "webhook_endpoint_id": ep})
	require.Equal(t, 201, r.Status, string(r.Body))
	h.Conforms(t, "POST", "/v1/watches", r)
	w := apitest.Object(t, r)
	require.Equal(t, sorted(append(watchFields, "webhook_secret")...), keysOf(w))
	require.EqualValues(t, acme, w["company_id"])
	require.Nil(t, w["criteria"])
	require.EqualValues(t, ep, w["webhook_endpoint_id"])
	require.Equal(t, []any{"opened", "reposted", "closed"}, w["event_types"], "the default")
	require.EqualValues(t, 20, w["max_fires_per_hour"], "the default")
	require.Equal(t, "active", w["status"])
	require.Equal(t, false, w["rate_limited"])
	require.Nil(t, w["last_fired_at"])
	require.Nil(t, w["webhook_secret"], "the endpoint was registered before")
	require.NotEmpty(t, r.Header["Ratelimit-Limit"], "a metered answer")

	r = h.Post(t, "/v1/watches", a.Key, map[string]any{"criteria": map[string]any{"req": map[string]any{"function": "engineering"}, "event": map[string]any{"event_type": "opened"}},
		"q": "platform engineer", "geo": "Germany", "webhook_endpoint_id": ep, "event_types": []string{"closed", "reobserved", "closed"}, "max_fires_per_hour": 5})
	require.Equal(t, 201, r.Status, string(r.Body))
	h.Conforms(t, "POST", "/v1/watches", r)
	c := apitest.Object(t, r)
	require.Nil(t, c["company_id"])
	require.Equal(t, map[string]any{"req": map[string]any{"function": "engineering", "q": "platform engineer", "country": "Germany"},
		"event": map[string]any{"event_type": "opened"}}, c["criteria"], "q and geo are folded into criteria")
	require.Equal(t, []any{"reobserved", "closed"}, c["event_types"], "vocabulary order, repeats once")
	require.EqualValues(t, 5, c["max_fires_per_hour"])

	r = h.Get(t, "/v1/watches", a.Key, nil)
	h.Conforms(t, "GET", "/v1/watches", r)
	list := apitest.Object(t, r)["watches"].([]any)
	require.Len(t, list, 2)
	first, second := list[0].(map[string]any), list[1].(map[string]any)
	require.Equal(t, id(c), id(first), "newest first")
	require.Equal(t, id(w), id(second))
	require.Equal(t, sorted(watchFields...), keysOf(first))
	require.Equal(t, c["criteria"], first["criteria"])

	require.EqualValues(t, 2, h.usage(t, a.Key)["watches"], "one watch unit per watch created")
	require.EqualValues(t, 2, h.usage(t, a.Key)["by_meter_class"].(map[string]any)["watch"])
}

func TestFireCountersAndHeartbeat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	ep := h.Endpoint(t, a.Key, "https://hooks.example.com/f")
	w := apitest.Object(t, h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": beta, "webhook_endpoint_id": ep, "max_fires_per_hour": 2}))
	wid := int64(w["watch_id"].(float64))

	now := time.Now().UTC().Truncate(time.Second)
	require.NoError(t, oltp.RecordWatchFire(ctx, h.Pool, wid, now.Add(-10*24*time.Hour), 1))
	require.NoError(t, oltp.RecordWatchFire(ctx, h.Pool, wid, now.Add(-2*24*time.Hour), 2))
	require.NoError(t, oltp.RecordWatchFire(ctx, h.Pool, wid, now.Add(-90*time.Minute), 3))
	require.NoError(t, oltp.RecordWatchFire(ctx, h.Pool, wid, now.Add(-20*time.Minute), 4))
	got := apitest.Object(t, h.Get(t, "/v1/watches", a.Key, nil))["watches"].([]any)[0].(map[string]any)
	require.EqualValues(t, 1, got["fires_last_hour"])
	require.EqualValues(t, 3, got["fires_last_7d"])
	require.EqualValues(t, 4, got["fires_last_30d"])
	require.Equal(t, false, got["rate_limited"])
	require.Equal(t, "active", got["status"])
	last, err := time.Parse(time.RFC3339Nano, got["last_fired_at"].(string))
	require.NoError(t, err)
	require.True(t, now.Add(-20*time.Minute).Equal(last))

	require.NoError(t, oltp.RecordWatchFire(ctx, h.Pool, wid, now.Add(-time.Minute), 5))
	got = apitest.Object(t, h.Get(t, "/v1/watches", a.Key, nil))["watches"].([]any)[0].(map[string]any)
	require.EqualValues(t, 2, got["fires_last_hour"])
	require.Equal(t, true, got["rate_limited"], "fires_last_hour met max_fires_per_hour")
	require.Equal(t, "rate_limited", got["status"])

	require.Equal(t, 200, h.Post(t, "/v1/account/pause", a.Key, nil).Status)
	r := h.Get(t, "/v1/watches", a.Key, nil)
	require.Equal(t, 200, r.Status, "listing is not billable: it works while paused")
	h.Conforms(t, "GET", "/v1/watches", r)
	require.Equal(t, "paused", apitest.Object(t, r)["watches"].([]any)[0].(map[string]any)["status"])
	r = h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": beta, "webhook_endpoint_id": ep})
	require.Equal(t, 403, r.Status, "creating is billable")
	require.Equal(t, "account_paused", apitest.Object(t, r)["detail"].(map[string]any)["reason"])
}

func TestBadWatchesAre422AndWriteNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	ep := h.Endpoint(t, a.Key, "https://hooks.example.com/bad")
	crit := map[string]any{"req": map[string]any{"q": "engineer"}}
	for _, c := range []struct {
		body map[string]any
		locs []string
	}{
		{map[string]any{"webhook_endpoint_id": ep}, []string{"body"}},
		{map[string]any{"company_id": acme, "criteria": crit, "webhook_endpoint_id": ep}, []string{"body"}},
		{map[string]any{"company_id": acme, "q": "engineer", "webhook_endpoint_id": ep}, []string{"body"}},
		{map[string]any{"company_id": 0, "webhook_endpoint_id": ep}, []string{"body.company_id"}},
		{map[string]any{"company_id": acme}, []string{"body"}},
		{map[string]any{"company_id": acme, "webhook_endpoint_id": ep, "webhook_url": "https://hooks.example.com/x"}, []string{"body"}},
		{map[string]any{"company_id": acme, "webhook_endpoint_id": ep, "event_types": []string{}}, []string{"body.event_types"}},
		{map[string]any{"company_id": acme, "webhook_endpoint_id": ep, "event_types": []string{"opened", "hired"}}, []string{"body.event_types.1"}},
		{map[string]any{"company_id": acme, "webhook_endpoint_id": ep, "max_fires_per_hour": 0}, []string{"body.max_fires_per_hour"}},
		{map[string]any{"company_id": acme, "webhook_endpoint_id": ep, "max_fires_per_hour": 1001}, []string{"body.max_fires_per_hour"}},
		{map[string]any{"company_id": "42", "webhook_endpoint_id": ep}, []string{"body.company_id"}},
		{map[string]any{"criteria": map[string]any{"req": map[string]any{"colour": "red"}}, "webhook_endpoint_id": ep}, []string{"body.criteria.req.colour"}},
		{map[string]any{"criteria": map[string]any{"req": map[string]any{"function": "basket weaving"}}, "webhook_endpoint_id": ep}, []string{"body.criteria.req.function.0"}},
		{map[string]any{"criteria": map[string]any{}, "webhook_endpoint_id": ep}, []string{"body.criteria"}},
		{map[string]any{"criteria": map[string]any{"req": map[string]any{}}, "webhook_endpoint_id": ep}, []string{"body.criteria"}},
		{map[string]any{"criteria": crit, "q": "nurse", "webhook_endpoint_id": ep}, []string{"body.q"}},
		{map[string]any{"criteria": map[string]any{"req": map[string]any{"country": "France"}}, "geo": "Germany", "webhook_endpoint_id": ep}, []string{"body.geo"}},
		{map[string]any{"geo": "Atlantis", "webhook_endpoint_id": ep}, []string{"body.geo"}},
		{map[string]any{"criteria": map[string]any{"req": "engineer"}, "q": "nurse", "webhook_endpoint_id": ep}, []string{"body.criteria"}},
		{map[string]any{"q": strings.Repeat("word ", 40), "webhook_endpoint_id": ep}, []string{"body.q"}},
		{map[string]any{"company_id": acme, "webhook_endpoint_id": ep, "colour": "red"}, []string{"body.colour"}},
	} {
		r := h.Post(t, "/v1/watches", a.Key, c.body)
		require.Equal(t, c.locs, r.Invalid(t).Locs(), "%v: %s", c.body, r.Body)
		h.Conforms(t, "POST", "/v1/watches", r)
	}
	r := h.Post(t, "/v1/watches", a.Key, `{"company_id": 42, `)
	require.Equal(t, 422, r.Status)
	var n int
	require.NoError(t, h.Pool.QueryRow(ctx, "SELECT count(*) FROM watches WHERE customer_id = $1", a.CustomerID).Scan(&n))
	require.Zero(t, n, "nothing was written")
	require.EqualValues(t, 0, h.usage(t, a.Key)["watches"], "nothing was metered")
}

func TestCompanyAndEndpointMustExist(t *testing.T) {
	t.Parallel()
	h := start(t)
	a, b := h.RoomyAccount(t, "growth"), h.RoomyAccount(t, "growth")
	ep := h.Endpoint(t, a.Key, "https://hooks.example.com/e")
	theirs := h.Endpoint(t, b.Key, "https://hooks.example.com/e")

	r := h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": nobod, "webhook_endpoint_id": ep})
	require.Equal(t, 404, r.Status)
	require.Contains(t, apitest.Object(t, r)["detail"], "company_id")

	missing := h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": acme, "webhook_endpoint_id": 999999})
	foreign := h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": acme, "webhook_endpoint_id": theirs})
	require.Equal(t, 404, missing.Status)
	h.Conforms(t, "POST", "/v1/watches", missing)
	sameAnswer(t, missing, foreign)
	require.Empty(t, apitest.Object(t, h.Get(t, "/v1/watches", a.Key, nil))["watches"])
	require.Empty(t, apitest.Object(t, h.Get(t, "/v1/watches", b.Key, nil))["watches"])
	require.EqualValues(t, 0, h.usage(t, a.Key)["watches"])
}

func TestInlineWebhookURL(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.RoomyAccount(t, "growth")
	r := h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": acme, "webhook_url": "https://hooks.example.com/inline"})
	require.Equal(t, 201, r.Status, string(r.Body))
	w := apitest.Object(t, r)
	secret := w["webhook_secret"].(string)
	require.NoError(t, signing.ValidateSecret(secret))
	eps := apitest.Object(t, h.Get(t, "/v1/webhooks", a.Key, nil))["endpoints"].([]any)
	require.Len(t, eps, 1)
	require.Equal(t, w["webhook_endpoint_id"], eps[0].(map[string]any)["id"])
	s, err := oltp.SigningSecrets(context.Background(), h.Pool, h.box, int64(w["webhook_endpoint_id"].(float64)), time.Now())
	require.NoError(t, err)
	require.Equal(t, []string{secret}, s)

	r = h.Post(t, "/v1/watches", a.Key, map[string]any{"q": "nurse", "webhook_url": "https://hooks.example.com/inline"})
	require.Equal(t, 201, r.Status)
	again := apitest.Object(t, r)
	require.Equal(t, w["webhook_endpoint_id"], again["webhook_endpoint_id"], "the url's endpoint is reused")
	require.Nil(t, again["webhook_secret"], "its secret is not shown again")

	other := signing.NewSecret()
	r = h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": beta, "webhook_url": "https://hooks.example.com/inline", "secret": other})
	require.Equal(t, 409, r.Status, string(r.Body))
	h.Conforms(t, "POST", "/v1/watches", r)
	require.Equal(t, "secret_mismatch", apitest.Object(t, r)["detail"].(map[string]any)["reason"])

	mine := signing.NewSecret()
	r = h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": beta, "webhook_url": "https://hooks.example.com/mine", "secret": mine})
	require.Equal(t, 201, r.Status)
	require.Equal(t, mine, apitest.Object(t, r)["webhook_secret"])

	for _, c := range []struct {
		body map[string]any
		loc  string
	}{
		{map[string]any{"company_id": acme, "webhook_url": "https://internal.example.com/x"}, "body.webhook_url"},
		{map[string]any{"company_id": acme, "webhook_url": "https://127.1/x"}, "body.webhook_url"},
		{map[string]any{"company_id": acme, "webhook_url": "http://hooks.example.com/x"}, "body.webhook_url"},
		{map[string]any{"company_id": acme, "webhook_url": "https://hooks.example.com/x", "secret": "whsec_tooshort"}, "body.secret"},
		{map[string]any{"company_id": acme, "webhook_endpoint_id": 1, "secret": mine}, "body.secret"},
	} {
		r := h.Post(t, "/v1/watches", a.Key, c.body)
		inv := r.Invalid(t)
		require.Equal(t, []string{c.loc}, inv.Locs(), "%v", c.body)
		require.NotContains(t, string(r.Body), strings.TrimPrefix(mine, "whsec_"))
		require.NotContains(t, string(r.Body), "tooshort")
	}
	require.Len(t, apitest.Object(t, h.Get(t, "/v1/watches", a.Key, nil))["watches"], 3)
	for _, v := range []string{secret, other, mine} {
		require.NotContains(t, h.log.String(), strings.TrimPrefix(v, "whsec_"))
		require.NotContains(t, string(h.Get(t, "/v1/watches", a.Key, nil).Body), strings.TrimPrefix(v, "whsec_"))
	}
}

// Ten concurrent creations on a Free account (allowance 3): exactly three watches, three units,
// seven 402s in the spec's shape, and nothing else left behind.
func TestTheAllowanceHoldsUnderConcurrentCreations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t)
	a := h.RoomyAccount(t, "free")
	ep := h.Endpoint(t, a.Key, "https://hooks.example.com/race")
	const n = 10
	res := make([]apitest.Response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": acme, "webhook_url": fmt.Sprintf("https://hooks.example.com/race%d", i)})
		}()
	}
	wg.Wait()
	created, refused := 0, 0
	var last apitest.Response
	for _, r := range res {
		switch r.Status {
		case 201:
			created++
		case 402:
			refused++
			last = r
		default:
			t.Fatalf("unexpected %d: %s", r.Status, r.Body)
		}
	}
	require.Equal(t, 3, created)
	require.Equal(t, n-3, refused)
	h.Conforms(t, "POST", "/v1/watches", last)
	d := apitest.Object(t, last)["detail"].(map[string]any)
	require.Equal(t, "quota_exceeded", d["reason"])
	require.Equal(t, map[string]any{"limit": 3.0, "used": 3.0, "reset": nil}, d["quota"])
	require.Equal(t, "/v1/watches", d["endpoint"])
	require.Contains(t, d["upgrade_url"], "/v1/pricing#upgrade")
	require.Contains(t, d["purchase_url"], "/v1/pricing#bundles")
	require.Contains(t, d["message"], "Free")

	var rows, endpoints int
	require.NoError(t, h.Pool.QueryRow(ctx, "SELECT count(*) FROM watches WHERE customer_id = $1", a.CustomerID).Scan(&rows))
	require.NoError(t, h.Pool.QueryRow(ctx, "SELECT count(*) FROM webhook_endpoints WHERE customer_id = $1", a.CustomerID).Scan(&endpoints))
	require.Equal(t, 3, rows)
	require.Equal(t, 1+3, endpoints, "a refused watch leaves its inline endpoint behind neither")
	require.EqualValues(t, 3, h.usage(t, a.Key)["watches"])
	ft := apitest.Object(t, h.Get(t, "/v1/usage/dashboard", a.Key, nil))["free_tier"].(map[string]any)
	require.EqualValues(t, 3, ft["watches_used"])
	require.EqualValues(t, 3, ft["watches_allowance"])

	// Canceling returns the slot.
	list := apitest.Object(t, h.Get(t, "/v1/watches", a.Key, nil))["watches"].([]any)
	require.Equal(t, 204, h.Do(t, "DELETE", "/v1/watches/"+id(list[0].(map[string]any)), a.Key, nil).Status)
	require.EqualValues(t, 2, apitest.Object(t, h.Get(t, "/v1/usage/dashboard", a.Key, nil))["free_tier"].(map[string]any)["watches_used"])
	require.Equal(t, 201, h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": beta, "webhook_endpoint_id": ep}).Status)
	require.Equal(t, 402, h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": beta, "webhook_endpoint_id": ep}).Status)
}

func TestCancelWatch(t *testing.T) {
	t.Parallel()
	h := start(t)
	a, b := h.RoomyAccount(t, "starter"), h.RoomyAccount(t, "starter")
	ep := h.Endpoint(t, a.Key, "https://hooks.example.com/c")
	w1 := apitest.Object(t, h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": acme, "webhook_endpoint_id": ep}))
	w2 := apitest.Object(t, h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": beta, "webhook_endpoint_id": ep}))

	r := h.Do(t, "DELETE", "/v1/watches/"+id(w1), a.Key, nil)
	require.Equal(t, 204, r.Status)
	h.Conforms(t, "DELETE", "/v1/watches/{watch_id}", r)
	require.Empty(t, r.Body)
	require.Equal(t, 204, h.Do(t, "DELETE", "/v1/watches/"+id(w1), a.Key, nil).Status, "again: 204")
	list := apitest.Object(t, h.Get(t, "/v1/watches", a.Key, nil))["watches"].([]any)
	require.Len(t, list, 1, "canceled watches are omitted")
	require.Equal(t, id(w2), id(list[0].(map[string]any)))

	missing := h.Do(t, "DELETE", "/v1/watches/999999", b.Key, nil)
	foreign := h.Do(t, "DELETE", "/v1/watches/"+id(w2), b.Key, nil)
	require.Equal(t, 404, missing.Status)
	h.Conforms(t, "DELETE", "/v1/watches/{watch_id}", missing)
	sameAnswer(t, missing, foreign)
	require.Len(t, apitest.Object(t, h.Get(t, "/v1/watches", a.Key, nil))["watches"], 1, "the foreign watch is untouched")
	require.Equal(t, 422, h.Do(t, "DELETE", "/v1/watches/x", a.Key, nil).Status)
}

func TestDemoKeyCannotCreateOrCancel(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.RoomyAccount(t, "starter")
	ep := h.Endpoint(t, a.Key, "https://hooks.example.com/demo")
	w := apitest.Object(t, h.Post(t, "/v1/watches", a.Key, map[string]any{"company_id": acme, "webhook_endpoint_id": ep}))
	for _, r := range []apitest.Response{
		h.Post(t, "/v1/watches", api.PublicDemoKey, map[string]any{"company_id": acme, "webhook_url": "https://hooks.example.com/demo"}),
		h.Do(t, "DELETE", "/v1/watches/"+id(w), api.PublicDemoKey, nil),
	} {
		require.Equal(t, 403, r.Status)
		d := apitest.Object(t, r)["detail"].(map[string]any)
		require.Equal(t, "insufficient_scope", d["reason"])
		require.Equal(t, "write", d["required_scope"])
	}
	r := h.Get(t, "/v1/watches", api.PublicDemoKey, nil)
	require.Equal(t, 200, r.Status)
	h.Conforms(t, "GET", "/v1/watches", r)
	require.Empty(t, apitest.Object(t, r)["watches"])
	require.Len(t, apitest.Object(t, h.Get(t, "/v1/watches", a.Key, nil))["watches"], 1)
}

// The cross-tenant sweep of the push routes: every route taking a watch or endpoint id answers
// another customer's id exactly like a missing one (status, body and headers).
func TestCrossTenantIDsAnswerLikeMissingOnes(t *testing.T) {
	t.Parallel()
	h := start(t)
	me, other := h.RoomyAccount(t, "growth"), h.RoomyAccount(t, "growth")
	theirEndpoint := h.Endpoint(t, other.Key, "https://hooks.example.com/t")
	theirWatch := id(apitest.Object(t, h.Post(t, "/v1/watches", other.Key, map[string]any{"company_id": acme, "webhook_endpoint_id": theirEndpoint})))
	mine := h.Endpoint(t, me.Key, "https://hooks.example.com/t")
	theirDelivery := itoa(h.delivery(t, other, theirEndpoint, oltp.DeliveryFailed))
	myDelivery := h.delivery(t, me, mine, oltp.DeliveryFailed)
	cases := []struct {
		method, path, body string
		foreign            string
	}{
		{"DELETE", "/v1/watches/%s", "", theirWatch},
		{"DELETE", "/v1/webhooks/%s", "", itoa(theirEndpoint)},
		{"POST", "/v1/webhooks/%s/rotate-secret", "{}", itoa(theirEndpoint)},
		{"POST", "/v1/watches", `{"company_id": 42, "webhook_endpoint_id": %s}`, itoa(theirEndpoint)},
		{"POST", "/v1/watches", `{"q": "engineer", "webhook_endpoint_id": %s}`, itoa(theirEndpoint)},
		{"POST", "/v1/webhooks/%s/test", "", itoa(theirEndpoint)},
		{"GET", "/v1/webhook-deliveries/%s", "", theirDelivery},
		{"POST", "/v1/webhook-deliveries/%s/replay", "", theirDelivery},
	}
	for _, c := range cases {
		do := func(ref string) apitest.Response {
			path, body := c.path, c.body
			if strings.Contains(path, "%s") {
				path = fmt.Sprintf(path, ref)
			} else {
				body = fmt.Sprintf(body, ref)
			}
			var b any
			if body != "" {
				b = body
			}
			return h.Do(t, c.method, path, me.Key, b)
		}
		missing, foreign := do("999999"), do(c.foreign)
		require.Equal(t, 404, missing.Status, "%s %s: %s", c.method, c.path, missing.Body)
		sameAnswer(t, missing, foreign)
	}
	// The list's filters select nothing of another customer's, exactly as a missing id.
	for _, name := range []string{"watch_id", "webhook_endpoint_id"} {
		ref := theirWatch
		if name == "webhook_endpoint_id" {
			ref = itoa(theirEndpoint)
		}
		missing := h.Get(t, "/v1/webhook-deliveries", me.Key, url.Values{name: {"999999"}})
		require.Equal(t, 200, missing.Status)
		sameAnswer(t, missing, h.Get(t, "/v1/webhook-deliveries", me.Key, url.Values{name: {ref}}))
	}
	// Everything of the other customer is untouched; each customer lists only its own deliveries.
	var st string
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT status FROM webhook_deliveries WHERE delivery_id = $1", theirDelivery).Scan(&st))
	require.Equal(t, oltp.DeliveryFailed, st)
	require.Equal(t, []any{float64(myDelivery)}, deliveryIDs(t, h.Get(t, "/v1/webhook-deliveries", me.Key, nil)))
	require.Len(t, deliveryIDs(t, h.Get(t, "/v1/webhook-deliveries", other.Key, nil)), 1)
	require.Len(t, apitest.Object(t, h.Get(t, "/v1/watches", other.Key, nil))["watches"], 1)
	require.Len(t, apitest.Object(t, h.Get(t, "/v1/webhooks", other.Key, nil))["endpoints"], 1)
	require.Empty(t, apitest.Object(t, h.Get(t, "/v1/watches", me.Key, nil))["watches"])
}

// sameAnswer requires two answers to be indistinguishable: status, body and headers (but the
// date and the rate-limit window's countdown, which move between any two calls).
func sameAnswer(t *testing.T, a, b apitest.Response) {
	t.Helper()
	require.Equal(t, a.Status, b.Status)
	require.Equal(t, string(a.Body), string(b.Body))
	strip := func(h map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range h {
			if k != "Date" && k != "Ratelimit-Remaining" && k != "Ratelimit-Reset" {
				out[k] = v
			}
		}
		return out
	}
	require.Equal(t, strip(a.Header), strip(b.Header))
}

// delivery writes a test-shaped delivery of a to endpoint ep in status, straight into
// webhook_deliveries (as the notifier or the dispatcher would leave it), and returns its id.
func (h *harness) delivery(t *testing.T, a oltp.NewAccount, ep int64, status string) int64 {
	t.Helper()
	ctx := context.Background()
	var id int64
	require.NoError(t, h.Pool.QueryRow(ctx, "SELECT nextval(pg_get_serial_sequence('webhook_deliveries', 'delivery_id'))").Scan(&id))
	b := payload.Body{Event: payload.EventTest, WebhookID: ep, DeliveryID: id, IdempotencyKey: payload.TestKey(id), OccurredAt: "2026-11-01T00:00:00Z"}
	body := b.Marshal()
	if oltp.Blocked(status) {
		body = nil // a blocked delivery keeps no body
	}
	_, err := h.Pool.Exec(ctx, `INSERT INTO webhook_deliveries (delivery_id, idempotency_key, customer_id, account_id, endpoint_id, event_type, body, status)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, id, b.IdempotencyKey, a.CustomerID, a.AccountID, ep, b.Event, body, status)
	require.NoError(t, err)
	return id
}

func deliveryIDs(t *testing.T, r apitest.Response) []any {
	t.Helper()
	require.Equal(t, 200, r.Status, string(r.Body))
	var out []any
	for _, d := range apitest.Object(t, r)["deliveries"].([]any) {
		out = append(out, d.(map[string]any)["delivery_id"])
	}
	return out
}
