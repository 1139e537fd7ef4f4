package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
)

func TestRegisterIsIdempotentAndShowsTheSecretOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t, false)
	a, b := h.Account(t, "free"), h.Account(t, "free")

	r := h.Post(t, "/v1/webhooks", a.Key, `{"url":"https://Hooks.Example.com/in?x=1"}`)
	require.Equal(t, 201, r.Status, string(r.Body))
	h.Conforms(t, "POST", "/v1/webhooks", r)
	first := apitest.Object(t, r)
	secret := first["secret"].(string)
	require.NoError(t, signing.ValidateSecret(secret))
	require.Equal(t, "https://hooks.example.com/in?x=1", first["url"], "scheme and host lower-cased")
	require.Nil(t, first["secret_rotated_at"])
	require.Nil(t, first["previous_secret_expires_at"])
	id := idOf(t, first)

	r = h.Post(t, "/v1/webhooks", a.Key, `{"url":"https://hooks.example.com/in?x=1"}`)
	require.Equal(t, 200, r.Status, string(r.Body))
	h.Conforms(t, "POST", "/v1/webhooks", r)
	again := apitest.Object(t, r)
	require.Equal(t, id, idOf(t, again), "the same url is the same endpoint")
	require.Nil(t, again["secret"], "the secret is shown only on creation")
	require.Equal(t, 200, h.Post(t, "/v1/webhooks", a.Key, map[string]any{"url": "https://hooks.example.com/in?x=1", "secret": secret}).Status, "the same secret again")

	other := signing.NewSecret()
	r = h.Post(t, "/v1/webhooks", a.Key, map[string]any{"url": "https://hooks.example.com/in?x=1", "secret": other})
	require.Equal(t, 409, r.Status, string(r.Body))
	h.Conforms(t, "POST", "/v1/webhooks", r)
	d := apitest.Object(t, r)["detail"].(map[string]any)
	require.Equal(t, "secret_mismatch", d["reason"])
	require.Contains(t, d["message"], "rotate-secret")
	require.NotContains(t, string(r.Body), other)
	require.NotContains(t, string(r.Body), secret)

	// Another customer registering the same url gets its own endpoint, with the secret it sent.
	mine := signing.NewSecret()
	r = h.Post(t, "/v1/webhooks", b.Key, map[string]any{"url": "https://hooks.example.com/in?x=1", "secret": mine})
	require.Equal(t, 201, r.Status, string(r.Body))
	require.NotEqual(t, id, idOf(t, apitest.Object(t, r)))
	require.Equal(t, mine, apitest.Object(t, r)["secret"])

	r = h.Get(t, "/v1/webhooks", a.Key, nil)
	require.Equal(t, 200, r.Status)
	h.Conforms(t, "GET", "/v1/webhooks", r)
	list := apitest.Object(t, r)["endpoints"].([]any)
	require.Len(t, list, 1)
	require.NotContains(t, list[0].(map[string]any), "secret")
	require.NotContains(t, string(r.Body), secret)

	// Stored sealed; never logged.
	var n int
	require.NoError(t, h.Pool.QueryRow(ctx, "SELECT count(*) FROM webhook_endpoints e WHERE position($1 in e::text) > 0 OR position(convert_to($1, 'UTF8') in secret_sealed) > 0",
		secret).Scan(&n))
	require.Zero(t, n)
	s, err := oltp.SigningSecrets(ctx, h.Pool, h.box, id, time.Now())
	require.NoError(t, err)
	require.Equal(t, []string{secret}, s)
	for _, v := range []string{secret, other, mine} {
		require.NotContains(t, h.log.String(), v)
		require.NotContains(t, h.log.String(), strings.TrimPrefix(v, signing.SecretPrefix))
	}
}

func TestURLsAreCheckedInEverySpelling(t *testing.T) {
	t.Parallel()
	h := start(t, false)
	a := h.Account(t, "growth")
	long := "https://hooks.example.com/" + strings.Repeat("a", egress.MaxURLLength)
	for _, c := range []struct{ url, reason string }{
		{"http://hooks.example.com/in", egress.ReasonNotHTTPS},
		{"hooks.example.com/in", egress.ReasonNotAbsolute},
		{"https://user:secret-token@hooks.example.com/in", egress.ReasonCredentials},
		{long, egress.ReasonTooLong},
		{"https://localhost/in", egress.ReasonPrivateAddress},
		{"https://127.0.0.1/in", egress.ReasonPrivateAddress},
		{"https://127.1/in", egress.ReasonPrivateAddress},
		{"https://2130706433/in", egress.ReasonPrivateAddress},
		{"https://0x7f000001/in", egress.ReasonPrivateAddress},
		{"https://[::ffff:127.0.0.1]/in", egress.ReasonPrivateAddress},
		{"https://[::1]/in", egress.ReasonPrivateAddress},
		{"https://10.0.0.1/in", egress.ReasonPrivateAddress},
		{"https://192.168.1.1/in", egress.ReasonPrivateAddress},
		{"https://169.254.169.254/latest", egress.ReasonPrivateAddress},
		{"https://100.64.0.1/in", egress.ReasonPrivateAddress},
		{"https://[fc00::1]/in", egress.ReasonPrivateAddress},
		{"https://224.0.0.1/in", egress.ReasonPrivateAddress},
		{"https://0.0.0.0/in", egress.ReasonPrivateAddress},
		{"https://internal.example.com/in", egress.ReasonNoPublicAddress},
		{"https://mapped.example.com/in", egress.ReasonNoPublicAddress},
		{"https://nowhere.example.com/in", egress.ReasonNoPublicAddress},
	} {
		r := h.Post(t, "/v1/webhooks", a.Key, map[string]any{"url": c.url})
		inv := r.Invalid(t)
		h.Conforms(t, "POST", "/v1/webhooks", r)
		require.Equal(t, []string{"body.url"}, inv.Locs(), c.url)
		require.Equal(t, "url_refused", inv.Detail[0].Type, c.url)
		require.Equal(t, c.reason, inv.Detail[0].Ctx["reason"], c.url)
		require.NotContains(t, string(r.Body), "secret-token", "a URL with credentials is not echoed")
	}
	require.Empty(t, apitest.Object(t, h.Get(t, "/v1/webhooks", a.Key, nil))["endpoints"], "nothing was saved")
	require.Equal(t, []string{"body.url"}, h.Post(t, "/v1/webhooks", a.Key, `{}`).Invalid(t).Locs())

	// dev allows http and loopback, so a local receiver works.
	dev := start(t, true)
	d := dev.Account(t, "free")
	require.Equal(t, 201, dev.Post(t, "/v1/webhooks", d.Key, `{"url":"http://127.0.0.1:9999/hook"}`).Status)
	require.Equal(t, 201, dev.Post(t, "/v1/webhooks", d.Key, `{"url":"http://localhost:9999/hook"}`).Status)
}

func TestBadSecretsAreRefusedWithoutEcho(t *testing.T) {
	t.Parallel()
	h := start(t, false)
	a := h.Account(t, "free")
	for _, s := range []any{"whsec_c2hvcnQ=", "sk_live_notawebhooksecretatallbutlong", "whsec_" + strings.Repeat("A", 200), 12345, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"} {
		r := h.Post(t, "/v1/webhooks", a.Key, map[string]any{"url": "https://hooks.example.com/s", "secret": s})
		inv := r.Invalid(t)
		require.Equal(t, []string{"body.secret"}, inv.Locs())
		require.Nil(t, inv.Detail[0].Input)
		if str, ok := s.(string); ok {
			require.NotContains(t, string(r.Body), strings.TrimPrefix(str, "whsec_"))
		}
		require.NotContains(t, string(r.Body), "12345")
	}
	require.Empty(t, apitest.Object(t, h.Get(t, "/v1/webhooks", a.Key, nil))["endpoints"])
	for _, s := range []string{"c2hvcnQ=", "sk_live_notawebhooksecretatallbutlong"} {
		require.NotContains(t, h.log.String(), s)
	}
}

func TestRotateSecretOverlap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t, false)
	a, b := h.Account(t, "starter"), h.Account(t, "starter")
	first := apitest.Object(t, h.Post(t, "/v1/webhooks", a.Key, `{"url":"https://hooks.example.com/r"}`))
	id := idOf(t, first)
	old := first["secret"].(string)

	r := h.Post(t, "/v1/webhooks/"+itoa(id)+"/rotate-secret", a.Key, `{}`)
	require.Equal(t, 200, r.Status, string(r.Body))
	h.Conforms(t, "POST", "/v1/webhooks/{id}/rotate-secret", r)
	rot := apitest.Object(t, r)
	fresh := rot["secret"].(string)
	require.NoError(t, signing.ValidateSecret(fresh))
	require.NotEqual(t, old, fresh)
	rotatedAt, err := time.Parse(time.RFC3339Nano, rot["secret_rotated_at"].(string))
	require.NoError(t, err)
	until, err := time.Parse(time.RFC3339Nano, rot["previous_secret_expires_at"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, rotatedAt.Add(oltp.DefaultSecretOverlap), until, time.Second, "24 h by default")

	s, err := oltp.SigningSecrets(ctx, h.Pool, h.box, id, rotatedAt)
	require.NoError(t, err)
	require.Equal(t, []string{fresh, old}, s, "both sign during the overlap")
	s, err = oltp.SigningSecrets(ctx, h.Pool, h.box, id, until.Add(time.Second))
	require.NoError(t, err)
	require.Equal(t, []string{fresh}, s, "only the new one after it")

	mine := signing.NewSecret()
	r = h.Post(t, "/v1/webhooks/"+itoa(id)+"/rotate-secret", a.Key, map[string]any{"secret": mine, "overlap_seconds": 0})
	require.Equal(t, 200, r.Status, string(r.Body))
	s, err = oltp.SigningSecrets(ctx, h.Pool, h.box, id, time.Now())
	require.NoError(t, err)
	require.Equal(t, []string{mine}, s)

	require.Equal(t, []string{"body.overlap_seconds"}, h.Post(t, "/v1/webhooks/"+itoa(id)+"/rotate-secret", a.Key, `{"overlap_seconds":604801}`).Invalid(t).Locs())
	require.Equal(t, []string{"body.secret"}, h.Post(t, "/v1/webhooks/"+itoa(id)+"/rotate-secret", a.Key, `{"secret":"whsec_x"}`).Invalid(t).Locs())
	require.Equal(t, 404, h.Post(t, "/v1/webhooks/"+itoa(id)+"/rotate-secret", b.Key, `{}`).Status)

	// The list never shows a secret, before or after a rotation.
	r = h.Get(t, "/v1/webhooks", a.Key, nil)
	for _, v := range []string{old, fresh, mine} {
		require.NotContains(t, string(r.Body), v)
		require.NotContains(t, h.log.String(), v)
	}
	require.NotNil(t, apitest.Object(t, r)["endpoints"].([]any)[0].(map[string]any)["secret_rotated_at"])
}

func TestDeleteEndpoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t, false)
	a := h.Account(t, "free")
	id := idOf(t, apitest.Object(t, h.Post(t, "/v1/webhooks", a.Key, `{"url":"https://hooks.example.com/d"}`)))
	company := int64(7)
	w, _, _, err := oltp.CreateWatch(ctx, h.Pool, h.box, oltp.NewWatch{CustomerID: a.CustomerID, AccountID: a.AccountID, Allowance: 3, EndpointID: id,
		CompanyID: &company, EventTypes: []string{"opened"}, MaxFiresPerHour: 20})
	require.NoError(t, err)

	r := h.Do(t, "DELETE", "/v1/webhooks/"+itoa(id), a.Key, nil)
	require.Equal(t, 409, r.Status, string(r.Body))
	h.Conforms(t, "DELETE", "/v1/webhooks/{id}", r)
	d := apitest.Object(t, r)["detail"].(map[string]any)
	require.Equal(t, "endpoint_in_use", d["reason"])
	require.Equal(t, []any{float64(w.ID)}, d["watch_ids"])
	require.Len(t, apitest.Object(t, h.Get(t, "/v1/webhooks", a.Key, nil))["endpoints"], 1, "nothing was deleted")

	require.NoError(t, oltp.CancelWatch(ctx, h.Pool, a.CustomerID, w.ID))
	r = h.Do(t, "DELETE", "/v1/webhooks/"+itoa(id), a.Key, nil)
	require.Equal(t, 204, r.Status)
	h.Conforms(t, "DELETE", "/v1/webhooks/{id}", r)
	require.Empty(t, r.Body)
	require.Equal(t, 204, h.Do(t, "DELETE", "/v1/webhooks/"+itoa(id), a.Key, nil).Status, "again: 204")
	require.Empty(t, apitest.Object(t, h.Get(t, "/v1/webhooks", a.Key, nil))["endpoints"])
	require.Equal(t, 404, h.Post(t, "/v1/webhooks/"+itoa(id)+"/rotate-secret", a.Key, `{}`).Status, "a deleted endpoint is not rotated")
	r = h.Post(t, "/v1/webhooks", a.Key, `{"url":"https://hooks.example.com/d"}`)
	require.Equal(t, 201, r.Status, "the url is free again: a new endpoint")
	require.NotEqual(t, id, idOf(t, apitest.Object(t, r)))
}

func TestEndpointsPerCustomerAreBounded(t *testing.T) {
	t.Parallel()
	h := start(t, false)
	a := h.Account(t, "growth")
	big := int64(1000)
	require.NoError(t, oltp.SetCallsPerMinute(context.Background(), h.Pool, a.AccountID, &big))
	for i := range oltp.MaxLiveEndpoints {
		require.Equal(t, 201, h.Post(t, "/v1/webhooks", a.Key, map[string]any{"url": fmt.Sprintf("https://hooks.example.com/%d", i)}).Status)
	}
	r := h.Post(t, "/v1/webhooks", a.Key, `{"url":"https://hooks.example.com/more"}`)
	inv := r.Invalid(t)
	require.Equal(t, "too_many_endpoints", inv.Detail[0].Type)
	require.Equal(t, []string{"body.url"}, inv.Locs())
	require.Equal(t, 200, h.Post(t, "/v1/webhooks", a.Key, `{"url":"https://hooks.example.com/0"}`).Status, "re-registering is not creating")
	list := apitest.Object(t, h.Get(t, "/v1/webhooks", a.Key, nil))["endpoints"].([]any)
	require.Len(t, list, oltp.MaxLiveEndpoints)
	require.Equal(t, "https://hooks.example.com/24", list[0].(map[string]any)["url"], "newest first")
}

func TestDemoKeyCannotRegisterRotateOrDelete(t *testing.T) {
	t.Parallel()
	h := start(t, false)
	a := h.Account(t, "free")
	id := idOf(t, apitest.Object(t, h.Post(t, "/v1/webhooks", a.Key, `{"url":"https://hooks.example.com/demo"}`)))
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/webhooks", `{"url":"https://hooks.example.com/demo"}`},
		{"POST", "/v1/webhooks/" + itoa(id) + "/rotate-secret", `{}`},
		{"DELETE", "/v1/webhooks/" + itoa(id), ""},
		{"POST", "/v1/webhooks/" + itoa(id) + "/test", ""},
	} {
		var body any
		if c.body != "" {
			body = c.body
		}
		r := h.Do(t, c.method, c.path, api.PublicDemoKey, body)
		require.Equal(t, 403, r.Status, c.path)
		d := apitest.Object(t, r)["detail"].(map[string]any)
		require.Equal(t, "insufficient_scope", d["reason"])
		require.Equal(t, "write", d["required_scope"])
	}
	r := h.Get(t, "/v1/webhooks", api.PublicDemoKey, nil)
	require.Equal(t, 200, r.Status)
	require.Empty(t, apitest.Object(t, r)["endpoints"], "the demo key sees no one's endpoints")
	require.Len(t, apitest.Object(t, h.Get(t, "/v1/webhooks", a.Key, nil))["endpoints"], 1)
}

// Every webhook route taking an id answers another customer's id exactly like a missing one.
func TestCrossTenantEndpointIDsAnswerLikeMissingOnes(t *testing.T) {
	t.Parallel()
	h := start(t, false)
	me, other := h.Account(t, "growth"), h.Account(t, "growth")
	foreign := itoa(idOf(t, apitest.Object(t, h.Post(t, "/v1/webhooks", other.Key, `{"url":"https://hooks.example.com/x"}`))))
	for _, c := range []struct{ method, path, body string }{
		{"DELETE", "/v1/webhooks/%s", ""},
		{"POST", "/v1/webhooks/%s/rotate-secret", "{}"},
		{"POST", "/v1/webhooks/%s/rotate-secret", `{"overlap_seconds":60}`},
		{"POST", "/v1/webhooks/%s/test", ""},
	} {
		var body any
		if c.body != "" {
			body = c.body
		}
		missing := h.Do(t, c.method, fmt.Sprintf(c.path, "999999"), me.Key, body)
		theirs := h.Do(t, c.method, fmt.Sprintf(c.path, foreign), me.Key, body)
		SameAnswer(t, missing, theirs)
		require.Equal(t, 404, missing.Status)
		h.Conforms(t, c.method, strings.ReplaceAll(c.path, "%s", "{id}"), missing)
	}
	require.Len(t, apitest.Object(t, h.Get(t, "/v1/webhooks", other.Key, nil))["endpoints"], 1, "the foreign endpoint is untouched")
}

// SameAnswer requires two answers to be indistinguishable: status, body and headers (but the
// date and the rate-limit window's countdown, which move between any two calls).
func SameAnswer(t *testing.T, a, b apitest.Response) {
	t.Helper()
	require.Equal(t, a.Status, b.Status)
	require.Equal(t, string(a.Body), string(b.Body))
	strip := func(h map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range h {
			switch k {
			case "Date", "Ratelimit-Remaining", "Ratelimit-Reset":
			default:
				out[k] = v
			}
		}
		return out
	}
	require.Equal(t, strip(a.Header), strip(b.Header))
	var x any
	require.NoError(t, json.Unmarshal(a.Body, &x))
}

// GET /v1/webhooks says when and why an endpoint was disabled; enabled endpoints carry nulls.
func TestListedEndpointsSayWhetherTheyAreDisabled(t *testing.T) {
	t.Parallel()
	h := start(t, false)
	a := h.Account(t, "growth")
	on := idOf(t, apitest.Object(t, h.Post(t, "/v1/webhooks", a.Key, `{"url":"https://hooks.example.com/on"}`)))
	off := idOf(t, apitest.Object(t, h.Post(t, "/v1/webhooks", a.Key, `{"url":"https://hooks.example.com/off"}`)))
	_, err := h.Pool.Exec(context.Background(), "UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = 'answered 410 Gone', failing_since = now() - interval '3 days' WHERE endpoint_id = $1", off)
	require.NoError(t, err)
	r := h.Get(t, "/v1/webhooks", a.Key, nil)
	require.Equal(t, 200, r.Status)
	h.Conforms(t, "GET", "/v1/webhooks", r)
	byID := map[int64]map[string]any{}
	for _, e := range apitest.Object(t, r)["endpoints"].([]any) {
		m := e.(map[string]any)
		byID[idOf(t, m)] = m
	}
	require.Nil(t, byID[on]["disabled_at"])
	require.Nil(t, byID[on]["disabled_reason"])
	at, err := time.Parse(time.RFC3339Nano, byID[off]["disabled_at"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, time.Now(), at, time.Minute)
	require.Equal(t, "answered 410 Gone", byID[off]["disabled_reason"])
	// A test delivery to it is refused, naming its state.
	t409 := h.Post(t, "/v1/webhooks/"+itoa(off)+"/test", a.Key, nil)
	require.Equal(t, 409, t409.Status, string(t409.Body))
	h.Conforms(t, "POST", "/v1/webhooks/{id}/test", t409)
	require.Equal(t, "endpoint_disabled", apitest.Object(t, t409)["detail"].(map[string]any)["reason"])
	ok := h.Post(t, "/v1/webhooks/"+itoa(on)+"/test", a.Key, nil)
	require.Equal(t, 201, ok.Status, string(ok.Body))
	h.Conforms(t, "POST", "/v1/webhooks/{id}/test", ok)

	// Registering its url again enables it: same id, nulls again, and it takes a test.
	again := h.Post(t, "/v1/webhooks", a.Key, `{"url":"https://hooks.example.com/off"}`)
	require.Equal(t, 200, again.Status, string(again.Body))
	h.Conforms(t, "POST", "/v1/webhooks", again)
	require.Equal(t, off, idOf(t, apitest.Object(t, again)))
	require.Nil(t, apitest.Object(t, again)["disabled_at"])
	require.Nil(t, apitest.Object(t, again)["disabled_reason"])
	var failing *time.Time
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT failing_since FROM webhook_endpoints WHERE endpoint_id = $1", off).Scan(&failing))
	require.Nil(t, failing)
	require.Equal(t, 201, h.Post(t, "/v1/webhooks/"+itoa(off)+"/test", a.Key, nil).Status)
}
