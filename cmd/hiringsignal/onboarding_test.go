package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/oltp"
)

// requireOnboardingOnDev runs the quickstart against a running dev stack at base (its world on
// an accelerated clock): the curl snippet answers as pasted, and GET /v1/onboarding moves from
// watching to delivered once the watched company's next change reached a loopback receiver that
// verified its signature with the secret the quickstart answered.
func requireOnboardingOnDev(t *testing.T, pg, base string) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pg)
	require.NoError(t, err)
	defer pool.Close()
	acct, err := oltp.CreateAccount(ctx, pool, "growth", fmt.Sprintf("onboarding-%d@example.com", time.Now().UnixNano()))
	require.NoError(t, err)

	var secret atomic.Value
	var accepted, refused atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s, _ := secret.Load().(string)
		if s == "" || !signing.VerifyPlane(s, r.Header.Get("X-Plane-Signature"), body) {
			refused.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		accepted.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	hook := recv.URL + "/hooks"

	call := func(method, path string, body any, out any) int {
		var rd io.Reader
		if body != nil {
			b, err := json.Marshal(body)
			require.NoError(t, err)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequest(method, base+path, rd)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+acct.Key)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		if resp.StatusCode == http.StatusOK {
			require.NoError(t, json.Unmarshal(b, out), string(b))
		}
		return resp.StatusCode
	}
	var q struct {
		Snippets      map[string]string `json:"snippets"`
		WebhookSecret *string           `json:"webhook_secret"`
		Watch         struct {
			CompanyID int64 `json:"company_id"`
		} `json:"watch"`
	}
	require.Equal(t, http.StatusOK, call(http.MethodPost, "/v1/quickstart", map[string]any{"webhook_url": hook}, &q))
	require.NotNil(t, q.WebhookSecret)
	secret.Store(*q.WebhookSecret)

	out, err := exec.Command("sh", "-c", q.Snippets["curl"]).Output()
	require.NoError(t, err, string(out))
	var isHiring map[string]any
	require.NoError(t, json.Unmarshal(out, &isHiring), string(out))
	require.EqualValues(t, q.Watch.CompanyID, isHiring["company_id"])
	if _, err := exec.LookPath("python3"); err == nil { // the Python snippet prints a dict; printed as JSON here to compare
		py := strings.Replace(q.Snippets["python"], "print(json.load(r))", "print(json.dumps(json.load(r)))", 1)
		out, err := exec.Command("python3", "-c", py).Output()
		require.NoError(t, err, string(out))
		var v map[string]any
		require.NoError(t, json.Unmarshal(out, &v), string(out))
		require.EqualValues(t, q.Watch.CompanyID, v["company_id"])
	}

	var st struct {
		Step                  string `json:"step"`
		FirstWebhookDelivered bool   `json:"first_webhook_delivered"`
	}
	path := "/v1/onboarding?webhook_url=" + url.QueryEscape(hook)
	require.Equal(t, http.StatusOK, call(http.MethodGet, path, nil, &st))
	require.Contains(t, []string{"watching", "delivered"}, st.Step)
	require.Eventually(t, func() bool {
		return call(http.MethodGet, path, nil, &st) == http.StatusOK && st.Step == "delivered"
	}, 2*time.Minute, 500*time.Millisecond, "a change of company %d delivered within a minute of world cycles", q.Watch.CompanyID)
	require.True(t, st.FirstWebhookDelivered)
	require.Positive(t, accepted.Load())
	require.Zero(t, refused.Load(), "every delivery's signature verified")
}
