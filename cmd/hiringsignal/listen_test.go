package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
)

// syncBuffer is listen's stdout under test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// send POSTs body to url as the dispatcher does: X-Plane-Signature and the Standard Webhooks
// headers, signed with secrets at ts (a fake sender: the dispatcher is built elsewhere).
func send(t *testing.T, url string, planeSecrets, stdSecrets []string, id string, ts time.Time, body []byte) int {
	t.Helper()
	sig, err := signing.Sign(stdSecrets, id, ts, body)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(signing.HeaderPlaneSignature, signing.PlaneSignature(planeSecrets, body))
	req.Header.Set("X-Plane-Idempotency-Key", id)
	req.Header.Set(signing.HeaderID, id)
	req.Header.Set(signing.HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set(signing.HeaderSignature, sig)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// listen against the real API on loopback: it registers its receiver and a watch, prints a
// delivery whose two signatures verify, answers 401 (and prints nothing) to one whose X-Plane-
// or Standard Webhooks signature or timestamp does not, forwards when asked, and on stop
// cancels the watch, then deletes the endpoint.
func TestListenVerifiesPrintsAndCleansUp(t *testing.T) {
	t.Parallel()
	srv := apitest.StartServer(t, apitest.Options{DB: "cmd_listen", Push: &apitest.Push{Egress: egress.Policy{AllowHTTP: true, AllowPrivate: true}}})
	acct := srv.Account(t, "growth")
	out := &syncBuffer{}
	l := &listener{api: &apiClient{base: srv.Base, key: acct.Key, http: &http.Client{Timeout: 10 * time.Second}},
		addr: "127.0.0.1:0", q: "engineer", out: out, log: apitest.Quiet()}
	ctx := context.Background()
	require.NoError(t, l.Start(ctx))
	require.NotZero(t, l.endpointID)
	require.NotZero(t, l.watchID)
	require.Contains(t, out.String(), "Ready:")

	var listed struct {
		Endpoints []struct {
			ID  int64  `json:"id"`
			URL string `json:"url"`
		} `json:"endpoints"`
	}
	srv.Get(t, "/v1/webhooks", acct.Key, nil).Decode(t, 200, &listed)
	require.Len(t, listed.Endpoints, 1)
	require.Equal(t, l.url, listed.Endpoints[0].URL)

	// What the dispatcher will sign with: the endpoint's secret as the API stored it.
	secrets, err := oltp.SigningSecrets(ctx, srv.Pool, srv.Box, l.endpointID, time.Now())
	require.NoError(t, err)
	seq, cid, watch := uint64(42), uint64(7), l.watchID
	b := payload.Body{Event: "opened", Company: "Acme Robotics", RawTitle: "Senior Engineer, Platform", Location: "Berlin, Germany",
		DetectedOn: "greenhouse", URL: "https://boards.example/acme/1", EventSeq: &seq, CompanyID: &cid, OccurredAt: "2026-11-23T15:00:00Z",
		WatchID: &watch, WebhookID: l.endpointID, DeliveryID: 901, IdempotencyKey: payload.EventKey(watch, seq)}
	body := b.Marshal()
	key := b.IdempotencyKey
	other := []string{signing.NewSecret()}

	require.Equal(t, 401, send(t, l.url, other, secrets, key, time.Now(), body), "X-Plane-Signature under another secret")
	require.Equal(t, 401, send(t, l.url, secrets, other, key, time.Now(), body), "Standard Webhooks signature under another secret")
	require.Equal(t, 401, send(t, l.url, secrets, secrets, key, time.Now().Add(-10*time.Minute), body), "a timestamp outside the tolerance (replay)")
	tampered := bytes.Replace(body, []byte("Senior"), []byte("Junior"), 1)
	sig, err := signing.Sign(secrets, key, time.Now(), body)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, l.url, bytes.NewReader(tampered))
	require.NoError(t, err)
	req.Header.Set(signing.HeaderPlaneSignature, signing.PlaneSignature(secrets, body))
	req.Header.Set(signing.HeaderID, key)
	req.Header.Set(signing.HeaderTimestamp, strconv.FormatInt(time.Now().Unix(), 10))
	req.Header.Set(signing.HeaderSignature, sig)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 401, resp.StatusCode, "a body changed after signing")
	require.NotContains(t, out.String(), "signatures ok", "nothing refused is printed")

	require.Equal(t, 200, send(t, l.url, secrets, secrets, key, time.Now(), body))
	printed := out.String()
	require.Contains(t, printed, `opened company="Acme Robotics" raw_title="Senior Engineer, Platform" location="Berlin, Germany" detected_on="greenhouse" url=https://boards.example/acme/1 delivery_id=901 signatures ok`)
	require.Equal(t, 1, strings.Count(printed, "signatures ok"))

	// --forward-to: the same body and signature headers reach the target; its status is answered.
	var got http.Header
	var gotBody []byte
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		gotBody, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer target.Close()
	l.recv.forwardTo = target.URL
	require.Equal(t, 202, send(t, l.url, secrets, secrets, key, time.Now(), body))
	require.Equal(t, body, gotBody)
	require.Equal(t, key, got.Get(signing.HeaderID))
	require.NotEmpty(t, got.Get(signing.HeaderSignature))
	require.Contains(t, out.String(), "forwarded: 202")

	addr := strings.SplitN(strings.TrimPrefix(l.url, "http://"), "/", 2)[0]
	require.NoError(t, l.Stop(ctx))
	require.NoError(t, l.Stop(ctx), "a second Stop is a no-op")
	requireClosed(t, addr)
	var watches struct {
		Watches []any `json:"watches"`
	}
	srv.Get(t, "/v1/watches", acct.Key, nil).Decode(t, 200, &watches)
	require.Empty(t, watches.Watches, "the watch is canceled")
	srv.Get(t, "/v1/webhooks", acct.Key, nil).Decode(t, 200, &listed)
	require.Empty(t, listed.Endpoints, "the endpoint is deleted")
}

// listen refuses a receiver address off loopback: deliveries are for this machine only.
func TestListenRefusesNonLoopback(t *testing.T) {
	t.Parallel()
	_, err := listenLoopback("0.0.0.0:0")
	require.ErrorContains(t, err, "--listen must be a loopback address")
	ln, err := listenLoopback("127.0.0.1:0")
	require.NoError(t, err)
	ln.Close()
}
