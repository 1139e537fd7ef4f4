package account_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
)

func TestKeysIssueListRevokeRotate(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.Account(t, "starter")

	r := h.Do(t, "POST", "/v1/keys", a.Key, `{}`)
	require.Equal(t, 201, r.Status, string(r.Body))
	k := object(t, r)
	require.Equal(t, "tier_2", k["tier"])
	require.Equal(t, []any{"read", "write", "keys"}, k["scopes"])
	require.EqualValues(t, a.KeyID, k["parent_key_id"])
	newKey := k["key"].(string)
	w := object(t, h.Do(t, "GET", "/v1/whoami", newKey, ""))
	require.Equal(t, a.CustomerID, w["customer_id"])
	require.EqualValues(t, a.AccountID, w["account_id"])

	r = h.Do(t, "POST", "/v1/keys", a.Key, `{"tier":"tier_3"}`)
	require.Equal(t, 422, r.Status)
	d := object(t, r)["detail"].([]any)[0].(map[string]any)
	require.Equal(t, []any{"body", "tier"}, d["loc"])
	require.Equal(t, "extra_forbidden", d["type"])
	require.Contains(t, d, "ctx")
	require.Contains(t, d, "input")

	list := object(t, h.Do(t, "GET", "/v1/keys", a.Key, ""))["keys"].([]any)
	require.Len(t, list, 2)
	for _, it := range list {
		m := it.(map[string]any)
		require.NotContains(t, m, "key", "the key itself is never listed")
		require.Contains(t, m, "last_used_at")
		require.Contains(t, m, "revoked_at")
	}

	newID := itoa(int64(k["key_id"].(float64)))
	r = h.Do(t, "DELETE", "/v1/keys/"+newID, a.Key, "")
	require.Equal(t, 204, r.Status)
	require.Empty(t, r.Body)
	require.Equal(t, 403, h.Do(t, "GET", "/v1/whoami", newKey, "").Status)

	// Rotating a revoked key is 404; rotating needs a JSON body.
	r = h.Do(t, "POST", "/v1/keys/"+newID+"/rotate", a.Key, `{}`)
	require.Equal(t, 404, r.Status)
	r = h.Do(t, "POST", "/v1/keys/"+itoa(a.KeyID)+"/rotate", a.Key, "")
	require.Equal(t, 422, r.Status)
	require.Equal(t, "missing", object(t, r)["detail"].([]any)[0].(map[string]any)["type"])

	r = h.Do(t, "POST", "/v1/keys/"+itoa(a.KeyID)+"/rotate", a.Key, `{}`)
	require.Equal(t, 201, r.Status)
	rot := object(t, r)
	require.Equal(t, "tier_2", rot["tier"])
	require.Equal(t, 403, h.Do(t, "GET", "/v1/whoami", a.Key, "").Status, "the rotated key is revoked at once")
	require.Equal(t, 200, h.Do(t, "GET", "/v1/whoami", rot["key"].(string), "").Status)
}

// An answer carrying a secret (an issued or rotated key) is never kept by a cache along the way,
// and neither is any other /v1 answer, errors included.
func TestAnswersCarryingKeysAreNotCached(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.Account(t, "starter")
	r := h.Do(t, "POST", "/v1/keys", a.Key, `{}`)
	require.Equal(t, 201, r.Status, string(r.Body))
	require.Equal(t, "no-store", r.Header["Cache-Control"])
	r = h.Do(t, "POST", "/v1/keys/"+itoa(a.KeyID)+"/rotate", a.Key, `{}`)
	require.Equal(t, 201, r.Status, string(r.Body))
	require.Equal(t, "no-store", r.Header["Cache-Control"])
	for _, key := range []string{object(t, r)["key"].(string), "", "hsk_unknown"} {
		r = h.Do(t, "GET", "/v1/whoami", key, "")
		require.Equal(t, "no-store", r.Header["Cache-Control"], "status %d", r.Status)
	}
}

// Every key route that takes an id answers another customer's id exactly like a missing one.
func TestCrossTenantIDsAnswerLikeMissingOnes(t *testing.T) {
	t.Parallel()
	h := start(t)
	me := h.Account(t, "growth")
	other := h.Account(t, "growth")
	missing := "999999"
	foreign := itoa(other.KeyID)
	cases := []struct{ method, path, body string }{
		{"DELETE", "/v1/keys/%s", ""},
		{"POST", "/v1/keys/%s/rotate", "{}"},
	}
	for _, c := range cases {
		a := h.Do(t, c.method, fmt.Sprintf(c.path, missing), me.Key, c.body)
		b := h.Do(t, c.method, fmt.Sprintf(c.path, foreign), me.Key, c.body)
		require.Equal(t, a.Status, b.Status, c.path)
		require.Equal(t, string(a.Body), string(b.Body), c.path)
		require.NotEqual(t, 200, a.Status)
		require.NotEqual(t, 204, a.Status)
	}
	// The foreign key still works for its owner.
	require.Equal(t, 200, h.Do(t, "GET", "/v1/whoami", other.Key, "").Status)
}

// sameMinute waits, near the end of a minute, for the next one, so a test's calls share one
// 60-second window.
func sameMinute(t *testing.T) {
	t.Helper()
	if s := time.Now().Second(); s >= 50 {
		time.Sleep(time.Duration(61-s) * time.Second)
	}
}

// A key never grants more than it holds: rotating with {} from a key scoped ["keys"] gives the
// replacement only "keys", not the rotated key's read, write, keys.
func TestRotateNeverGrantsMoreScopeThanThePresentingKey(t *testing.T) {
	t.Parallel()
	h := start(t)
	a := h.Account(t, "starter")
	mint := func(scopes string) map[string]any {
		r := h.Do(t, "POST", "/v1/keys", a.Key, `{"scopes":`+scopes+`}`)
		require.Equal(t, 201, r.Status, string(r.Body))
		return object(t, r)
	}
	keysOnly := mint(`["keys"]`)["key"].(string)
	readOnly := mint(`["read"]`)
	readOnlyID := itoa(int64(readOnly["key_id"].(float64)))

	r := h.Do(t, "POST", "/v1/keys/"+itoa(a.KeyID)+"/rotate", keysOnly, `{}`)
	require.Equal(t, 201, r.Status, string(r.Body))
	rot := object(t, r)
	require.Equal(t, []any{"keys"}, rot["scopes"], "only the scopes both keys hold")
	require.Equal(t, []any{"keys"}, object(t, h.Do(t, "GET", "/v1/whoami", rot["key"].(string), ""))["scopes"])

	// A key holding none of the presenting key's scopes is not rotated, and stays valid.
	r = h.Do(t, "POST", "/v1/keys/"+readOnlyID+"/rotate", keysOnly, `{}`)
	require.Equal(t, 422, r.Status, string(r.Body))
	require.Equal(t, []any{"body", "scopes"}, object(t, r)["detail"].([]any)[0].(map[string]any)["loc"])
	require.Equal(t, 200, h.Do(t, "GET", "/v1/whoami", readOnly["key"].(string), "").Status)
	// Asking for a scope the presenting key lacks is refused too.
	require.Equal(t, 422, h.Do(t, "POST", "/v1/keys/"+readOnlyID+"/rotate", keysOnly, `{"scopes":["read"]}`).Status)
}

// The replacement inherits the rotated key's limits: a key that hit its per-minute limit and is
// rotated by a sibling does not come back as a replacement that answers 200 at once.
func TestRotationHandsLimitsToTheReplacement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t, searchStub(1))
	a := h.Account(t, "starter")
	three := int64(3) // per key; the account's ceiling is AccountKeys times that
	require.NoError(t, oltp.SetCallsPerMinute(ctx, h.Pool, a.AccountID, &three))
	sameMinute(t)
	sib := object(t, h.Do(t, "POST", "/v1/keys", a.Key, `{}`))["key"].(string)
	var r apitest.Response
	for i := 0; i < 5 && r.Status != 429; i++ {
		r = h.Do(t, "GET", "/v1/reqs/search", a.Key, "")
	}
	require.Equal(t, 429, r.Status, "the key spent its minute")

	r = h.Do(t, "POST", "/v1/keys/"+itoa(a.KeyID)+"/rotate", sib, `{}`)
	require.Equal(t, 201, r.Status, string(r.Body))
	repl := object(t, r)["key"].(string)
	r = h.Do(t, "GET", "/v1/reqs/search", repl, "")
	require.Equal(t, 429, r.Status, "the replacement inherits the spent window")
	require.Equal(t, "3", r.Header["Ratelimit-Limit"])
	require.Equal(t, 200, h.Do(t, "GET", "/v1/reqs/search", sib, "").Status, "the sibling has its own window")
}

// Limits hold per account as well as per key, so minting keys does not multiply what an account
// draws. A Free account's keys share one key's worth per minute and per day, and a refusal
// names the account's limit in the spec's 429 and 402 shapes.
func TestAccountCeilingHoldsAcrossKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := start(t, searchStub(1))
	sameMinute(t)

	a := h.Account(t, "free")
	keys := []string{a.Key}
	for i := 0; i < 3; i++ { // three calls of the account's 20 per minute
		keys = append(keys, object(t, h.Do(t, "POST", "/v1/keys", a.Key, `{}`))["key"].(string))
	}
	ok := 0
	var last apitest.Response
	for i := 0; i < 40; i++ {
		if last = h.Do(t, "GET", "/v1/reqs/search", keys[i%len(keys)], ""); last.Status == 200 {
			ok++
		}
	}
	require.Equal(t, 20-3, ok, "four keys draw one key's worth per minute")
	require.Equal(t, 429, last.Status)
	d := object(t, last)["detail"].(map[string]any)
	require.Equal(t, "rate_limited", d["reason"])
	require.Equal(t, "/v1/reqs/search", d["endpoint"])
	require.Contains(t, d["message"], "account")
	require.Equal(t, "20", last.Header["Ratelimit-Limit"])
	require.NotEmpty(t, last.Header["Retry-After"])

	b := h.Account(t, "free")
	big := int64(1000)
	require.NoError(t, oltp.SetCallsPerMinute(ctx, h.Pool, b.AccountID, &big))
	second := object(t, h.Do(t, "POST", "/v1/keys", b.Key, `{}`))["key"].(string)
	for i := 0; i < 60; i++ {
		require.Equal(t, 200, h.Do(t, "GET", "/v1/reqs/search", b.Key, "").Status)
	}
	for i := 0; i < 40; i++ {
		require.Equal(t, 200, h.Do(t, "GET", "/v1/reqs/search", second, "").Status)
	}
	last = h.Do(t, "GET", "/v1/reqs/search", second, "")
	require.Equal(t, 402, last.Status, "the second key spent 40 of its 100, the account all of its 100")
	d = object(t, last)["detail"].(map[string]any)
	require.Equal(t, "quota_exceeded", d["reason"])
	require.Equal(t, "/v1/reqs/search", d["endpoint"])
	require.EqualValues(t, 100, d["quota"].(map[string]any)["limit"])
	require.Contains(t, d["message"], "account")
}
