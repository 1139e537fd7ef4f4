package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/deliveries"
	"github.com/planehq/hiringsignal/api/webhooks"
	"github.com/planehq/hiringsignal/internal/destination"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/secretbox"
	"github.com/planehq/hiringsignal/internal/testkit/apitest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/digest"
	"github.com/planehq/hiringsignal/push/dispatch"
)

// startDest serves the webhook and delivery routes with email digests on (digest hour 8) under
// policy, its delivery ids from a random high start (a dispatcher's leases are advisory locks,
// shared by every schema of the database).
func startDest(t *testing.T, policy egress.Policy) *harness {
	t.Helper()
	box, err := secretbox.New(secretbox.GenerateKey())
	require.NoError(t, err)
	log, lb := apitest.DebugLog()
	srv := apitest.StartServer(t, apitest.Options{DB: "webhooks", Config: func(c *api.Config) { c.Log = log },
		Register: func(srv *api.Server, pool *pgxpool.Pool) {
			webhooks.Register(srv, webhooks.Deps{Pool: pool, Log: log, Box: box, Egress: policy, Email: true, DigestHour: 8})
			deliveries.Register(srv, deliveries.Deps{Pool: pool, Log: log})
		}})
	start := (rand.Int64N(1<<20) + 1) << 32
	_, err = srv.Pool.Exec(context.Background(), "SELECT setval(pg_get_serial_sequence('webhook_deliveries', 'delivery_id'), $1, false)", start)
	require.NoError(t, err)
	return &harness{Server: srv, box: box, log: lb}
}

// debug logs into the harness's log buffer at every level (what the tests say is never logged
// is looked for there).
func (h *harness) debug() *slog.Logger {
	return slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

var devPolicy = egress.Policy{AllowHTTP: true, AllowPrivate: true, LookupNetIP: apitest.FakeDNS}

// slackReceiver stands in for Slack on loopback: it keeps every message and answers as told
// (200 "ok" by default).
type slackReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	msgs   []slackMsg
	answer func(w http.ResponseWriter)
}

type slackMsg struct {
	Text   string `json:"text"`
	Blocks []struct {
		Type string `json:"type"`
		Text *struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"text"`
	} `json:"blocks"`
}

func newSlack(t *testing.T) *slackReceiver {
	s := &slackReceiver{answer: func(w http.ResponseWriter) { _, _ = io.WriteString(w, "ok") }}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m slackMsg
		if r.URL.Path != "/services/T0HS1/B0HS2/tok3nS3cretXYZ9" || r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(body, &m) != nil {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, "invalid_payload")
			return
		}
		s.mu.Lock()
		s.msgs = append(s.msgs, m)
		answer := s.answer
		s.mu.Unlock()
		answer(w)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *slackReceiver) url() string { return s.srv.URL + "/services/T0HS1/B0HS2/tok3nS3cretXYZ9" }

func (s *slackReceiver) received() []slackMsg {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]slackMsg(nil), s.msgs...)
}

func (s *slackReceiver) setAnswer(f func(w http.ResponseWriter)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answer = f
}

// watchOn makes a company watch of a on endpoint (every event type).
func watchOn(t *testing.T, h *harness, a oltp.NewAccount, endpoint int64) int64 {
	t.Helper()
	company := int64(7)
	w, _, _, err := oltp.CreateWatch(context.Background(), h.Pool, h.box, oltp.NewWatch{CustomerID: a.CustomerID, AccountID: a.AccountID, KeyID: a.KeyID,
		Allowance: 100, EndpointID: endpoint, CompanyID: &company, EventTypes: []string{"opened", "reobserved", "reposted", "closed"}, MaxFiresPerHour: 1000})
	require.NoError(t, err)
	return w.ID
}

// burst writes n pending deliveries of watch w to endpoint as the notifier writes them (one
// notifier batch, NOTIFY included), with bodies naming Acme's reqs 1..n; it returns their ids.
func burst(t *testing.T, h *harness, a oltp.NewAccount, endpoint, w int64, from, n int) []int64 {
	t.Helper()
	ctx := context.Background()
	pos, err := oltp.InitNotifierPosition(ctx, h.Pool, 0)
	require.NoError(t, err)
	b, err := oltp.BeginNotifierBatch(ctx, h.Pool, pos)
	require.NoError(t, err)
	defer b.Rollback(ctx)
	ids, err := b.NextDeliveryIDs(ctx, n)
	require.NoError(t, err)
	ds := make([]oltp.NewDelivery, n)
	events := []string{"opened", "closed", "reposted", "reobserved"}
	for i := range n {
		seq := uint64(from + i)
		key := payload.EventKey(w, seq)
		body := payload.Body{Event: events[i%4], Company: "Acme & Sons", RawTitle: fmt.Sprintf("Backend <Engineer> %d", seq), Location: "Berlin, Germany",
			DetectedOn: "greenhouse", URL: fmt.Sprintf("https://boards.example.com/acme/%d", seq), EventSeq: &seq, WatchID: &w, WebhookID: endpoint,
			DeliveryID: ids[i], IdempotencyKey: key, OccurredAt: time.Now().UTC().Format(time.RFC3339)}
		ds[i] = oltp.NewDelivery{ID: ids[i], IdempotencyKey: key, CustomerID: a.CustomerID, AccountID: a.AccountID, KeyID: a.KeyID, EndpointID: endpoint,
			WatchID: w, EventSeq: seq, EventType: body.Event, Status: oltp.DeliveryPending, Body: body.Marshal()}
	}
	_, err = b.Insert(ctx, ds, time.Now())
	require.NoError(t, err)
	require.NoError(t, b.Commit(ctx, pos+uint64(n)))
	return ids
}

func startDispatcher(t *testing.T, h *harness, policy egress.Policy) {
	t.Helper()
	d, err := dispatch.New(dispatch.Config{Pool: h.Pool, Listener: h.Listener, Box: h.box, Egress: policy, Log: h.debug(), Poll: 50 * time.Millisecond,
		Schedule: func(n int) (time.Duration, bool) { return 0, n < 3 }})
	require.NoError(t, err)
	require.NoError(t, d.Start(context.Background()))
	t.Cleanup(func() { _ = d.Stop(context.Background()) })
}

func statusOf(t *testing.T, h *harness, id int64) (status string, billed bool) {
	t.Helper()
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT status, billed_at IS NOT NULL FROM webhook_deliveries WHERE delivery_id = $1", id).Scan(&status, &billed))
	return status, billed
}

func TestASlackEndpointGetsABurstAsOneBlockKitMessage(t *testing.T) {
	t.Parallel()
	h := startDest(t, devPolicy)
	a := h.RoomyAccount(t, "growth")
	slack := newSlack(t)

	// Registered: 201, no secret, the URL masked wherever it is shown.
	r := h.Post(t, "/v1/webhooks", a.Key, map[string]any{"kind": "slack", "url": slack.url()})
	h.Conforms(t, "POST", "/v1/webhooks", r)
	require.Equal(t, 201, r.Status, string(r.Body))
	e := apitest.Object(t, r)
	id := idOf(t, e)
	require.Equal(t, "slack", e["kind"])
	require.Nil(t, e["secret"])
	require.Nil(t, e["email"])
	require.Equal(t, slack.srv.URL+"/services/T0HS1/B0HS2/****XYZ9", e["url"])
	again := h.Post(t, "/v1/webhooks", a.Key, map[string]any{"kind": "slack", "url": slack.url()})
	require.Equal(t, 200, again.Status, "the same Slack URL again is the same endpoint")
	require.Equal(t, id, idOf(t, apitest.Object(t, again)))
	list := h.Get(t, "/v1/webhooks", a.Key, nil)
	h.Conforms(t, "GET", "/v1/webhooks", list)
	require.NotContains(t, string(list.Body), "tok3nS3cret")
	var stored, shown string
	var sealed []byte
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT url, shown_url, secret_sealed FROM webhook_endpoints WHERE endpoint_id = $1", id).Scan(&stored, &shown, &sealed))
	require.NotContains(t, stored, "tok3nS3cret", "the url column keeps only the URL's digest")
	require.NotContains(t, string(sealed), "tok3nS3cret", "sealed at rest")
	rot := h.Post(t, "/v1/webhooks/"+itoa(id)+"/rotate-secret", a.Key, map[string]any{})
	h.Conforms(t, "POST", "/v1/webhooks/{id}/rotate-secret", rot)
	require.Equal(t, 409, rot.Status)
	require.Contains(t, string(rot.Body), webhooks.ReasonNoSigningSecret)

	// A burst of 60 changes: two messages (48 changes, then 12), not 60.
	w := watchOn(t, h, a, id)
	ids := burst(t, h, a, id, w, 1, 60)
	startDispatcher(t, h, devPolicy)
	require.Eventually(t, func() bool {
		for _, d := range ids {
			if st, _ := statusOf(t, h, d); st != oltp.DeliveryDelivered {
				return false
			}
		}
		return true
	}, 20*time.Second, 50*time.Millisecond)
	msgs := slack.received()
	require.Len(t, msgs, 2)
	require.Len(t, msgs[0].Blocks, 50, "a header, 48 changes and a context block: Slack's limit")
	require.Len(t, msgs[1].Blocks, 14)
	require.Equal(t, "48 hiring changes", msgs[0].Blocks[0].Text.Text)
	require.Equal(t, "12 hiring changes", msgs[1].Blocks[0].Text.Text)
	first := msgs[0].Blocks[1].Text.Text
	require.Equal(t, "*Opened* · *Acme &amp; Sons*\n<https://boards.example.com/acme/1|Backend &lt;Engineer&gt; 1>\nBerlin, Germany · seen on greenhouse", first)
	require.Contains(t, msgs[0].Blocks[2].Text.Text, "*Closed*")
	require.True(t, strings.HasPrefix(msgs[0].Text, "48 hiring changes: Opened: Backend <Engineer> 1 at Acme & Sons (Berlin, Germany)"), msgs[0].Text)
	for _, d := range ids {
		_, billed := statusOf(t, h, d)
		require.True(t, billed, "each change in an accepted message is a delivered change")
	}

	// A test delivery is a message of its own.
	require.Equal(t, 201, h.Post(t, "/v1/webhooks/"+itoa(id)+"/test", a.Key, nil).Status)
	require.Eventually(t, func() bool { return len(slack.received()) == 3 }, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, "Test message from hiringsignal", slack.received()[2].Blocks[0].Text.Text)

	// Slack answering 404 channel_not_found disables the endpoint: nothing more is sent.
	slack.setAnswer(func(w http.ResponseWriter) { w.WriteHeader(404); _, _ = io.WriteString(w, "channel_not_found") })
	gone := burst(t, h, a, id, w, 61, 2)
	require.Eventually(t, func() bool { st, _ := statusOf(t, h, gone[1]); return st == oltp.DeliveryFailed }, 10*time.Second, 20*time.Millisecond)
	var reason, attemptErr string
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT disabled_reason FROM webhook_endpoints WHERE endpoint_id = $1", id).Scan(&reason))
	require.Equal(t, oltp.DisabledGone, reason)
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT error FROM webhook_delivery_attempts WHERE delivery_id = $1", gone[0]).Scan(&attemptErr))
	require.Equal(t, "Slack answered 404 channel_not_found", attemptErr)
	require.Len(t, slack.received(), 4, "one message for the two, refused")
	require.NotContains(t, h.log.String(), "tok3nS3cret", "the Slack URL is never logged")
}

// problems decodes a 422 and returns its items, each with the five members of the spec's shape.
func problems(t *testing.T, r apitest.Response) []map[string]any {
	t.Helper()
	require.Equal(t, 422, r.Status, string(r.Body))
	var body struct {
		Detail []map[string]any `json:"detail"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &body))
	require.NotEmpty(t, body.Detail)
	for _, d := range body.Detail {
		for _, k := range []string{"type", "loc", "msg", "input", "ctx"} {
			require.Contains(t, d, k)
		}
	}
	return body.Detail
}

func TestBadSlackURLsAndEmailsAreClear422s(t *testing.T) {
	t.Parallel()
	// Production: hooks.slack.com resolves, as a rebinding attacker would have it, to a private
	// address; hooks.example.com is public.
	lookup := func(ctx context.Context, network, host string) ([]netip.Addr, error) {
		if host == destination.SlackHost {
			return []netip.Addr{netip.MustParseAddr("10.0.0.7")}, nil
		}
		return apitest.FakeDNS(ctx, network, host)
	}
	h := startDest(t, egress.Policy{LookupNetIP: lookup})
	a := h.RoomyAccount(t, "growth")
	post := func(body map[string]any) apitest.Response {
		r := h.Post(t, "/v1/webhooks", a.Key, body)
		h.Conforms(t, "POST", "/v1/webhooks", r)
		return r
	}
	cases := []struct {
		name        string
		body        map[string]any
		loc, typ    string
		reason      string
		msgContains string
	}{
		{"a Slack host resolving to a private address", map[string]any{"kind": "slack", "url": "https://hooks.slack.com/services/T1/B2/abcdefghijkl"},
			"url", "url_refused", egress.ReasonNoPublicAddress, "hooks.slack.com"},
		{"a loopback Slack URL", map[string]any{"kind": "slack", "url": "https://127.0.0.1/services/T1/B2/abcdefghijkl"},
			"url", "url_refused", egress.ReasonPrivateAddress, ""},
		{"not Slack's host", map[string]any{"kind": "slack", "url": "https://hooks.example.com/services/T1/B2/abcdefghijkl"},
			"url", "url_refused", destination.ReasonNotSlackHost, "hooks.slack.com"},
		{"not a Slack URL at all", map[string]any{"kind": "slack", "url": "not a url"}, "url", "url_refused", egress.ReasonInvalidURL, ""},
		{"no url", map[string]any{"kind": "slack"}, "url", "missing", "", "Field required"},
		{"a secret for Slack", map[string]any{"kind": "slack", "url": "https://hooks.example.com/services/T1/B2/abcdefghijkl", "secret": "whsec_x"},
			"secret", "extra_forbidden", "", "kind slack"},
		{"an address without domain", map[string]any{"kind": "email", "email": "alerts"}, "email", "email_invalid", "", "one address such as"},
		{"an address with a display name", map[string]any{"kind": "email", "email": "Alerts <alerts@example.com>"}, "email", "email_invalid", "", "display name"},
		{"an address with a single-label domain", map[string]any{"kind": "email", "email": "alerts@localhost"}, "email", "email_invalid", "", "dot"},
		{"an address with a header break", map[string]any{"kind": "email", "email": "a@example.com\r\nBcc: x@example.com"}, "email", "email_invalid", "", ""},
		{"no address", map[string]any{"kind": "email"}, "email", "missing", "", "Field required"},
		{"a url for email", map[string]any{"kind": "email", "email": "alerts@example.com", "url": "https://hooks.example.com/x"}, "url", "extra_forbidden", "", "kind email"},
		{"an unknown kind", map[string]any{"kind": "pager", "url": "https://hooks.example.com/x"}, "kind", "enum", "", "webhook"},
	}
	for _, c := range cases {
		items := problems(t, post(c.body))
		require.Len(t, items, 1, c.name)
		it := items[0]
		require.Equal(t, []any{"body", c.loc}, it["loc"], c.name)
		require.Equal(t, c.typ, it["type"], c.name)
		if c.reason != "" {
			require.Equal(t, c.reason, it["ctx"].(map[string]any)["reason"], c.name)
		}
		require.Contains(t, it["msg"], c.msgContains, c.name)
		require.NotContains(t, fmt.Sprint(it["input"]), "abcdefghijkl", "%s: a Slack URL is echoed masked", c.name)
	}
	var n int
	require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT count(*) FROM webhook_endpoints").Scan(&n))
	require.Zero(t, n, "nothing refused was written")

	// Without a relay, an email endpoint is 503 naming the flag.
	plain := start(t, false)
	pa := plain.RoomyAccount(t, "growth")
	r := plain.Post(t, "/v1/webhooks", pa.Key, map[string]any{"kind": "email", "email": "alerts@example.com"})
	require.Equal(t, 503, r.Status)
	require.Contains(t, string(r.Body), "--smtp-addr")
}

// parsed is a digest as a mail client reads it: headers, the plain text and the HTML part.
type parsed struct {
	header     mail.Header
	text, html string
}

func parseMail(t *testing.T, raw string) parsed {
	t.Helper()
	m, err := mail.ReadMessage(strings.NewReader(raw))
	require.NoError(t, err)
	mt, params, err := mime.ParseMediaType(m.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, "multipart/alternative", mt)
	p := parsed{header: m.Header}
	mr := multipart.NewReader(m.Body, params["boundary"])
	for {
		part, err := mr.NextPart() // decodes quoted-printable
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		b, err := io.ReadAll(part)
		require.NoError(t, err)
		switch ct := part.Header.Get("Content-Type"); {
		case strings.HasPrefix(ct, "text/plain"):
			p.text = strings.ReplaceAll(string(b), "\r\n", "\n")
		case strings.HasPrefix(ct, "text/html"):
			p.html = strings.ReplaceAll(string(b), "\r\n", "\n")
		}
	}
	return p
}

func TestAnEmailEndpointGetsOneDigestADayEvenAcrossRestarts(t *testing.T) {
	t.Parallel()
	h := startDest(t, devPolicy)
	a := h.RoomyAccount(t, "growth")
	box := newMailbox(t, true)

	r := h.Post(t, "/v1/webhooks", a.Key, map[string]any{"kind": "email", "email": "Alerts@Example.COM"})
	h.Conforms(t, "POST", "/v1/webhooks", r)
	require.Equal(t, 201, r.Status, string(r.Body))
	e := apitest.Object(t, r)
	id := idOf(t, e)
	require.Equal(t, "email", e["kind"])
	require.Equal(t, "Alerts@example.com", e["email"], "the domain lower-cased, the local part as sent")
	require.Nil(t, e["secret"])
	require.Equal(t, 200, h.Post(t, "/v1/webhooks", a.Key, map[string]any{"kind": "email", "email": "Alerts@example.com"}).Status)

	w := watchOn(t, h, a, id)
	ids := burst(t, h, a, id, w, 1, 5)
	// The dispatcher parks them for the digest: nothing is sent before the hour.
	startDispatcher(t, h, devPolicy)
	require.Eventually(t, func() bool {
		var parked int
		require.NoError(t, h.Pool.QueryRow(context.Background(), "SELECT count(*) FROM webhook_deliveries WHERE delivery_id = ANY($1) AND status = 'pending' AND next_attempt_at IS NULL", ids).Scan(&parked))
		return parked == 5
	}, 10*time.Second, 20*time.Millisecond)

	tomorrow := time.Now().UTC().AddDate(0, 0, 1)
	at := time.Date(tomorrow.Year(), tomorrow.Month(), tomorrow.Day(), 8, 0, 30, 0, time.UTC)
	now := func() time.Time { return at }
	newDigester := func() *digest.Digester {
		d, err := digest.New(digest.Config{Pool: h.Pool, Box: h.box, Hour: 8, Now: now, Log: h.debug(),
			SMTP: digest.SMTP{Addr: box.addr, From: "Hiring signal <digest@hs.example.com>", Username: "relay", Password: "p4ss", TLS: box.client, Timeout: 5 * time.Second}})
		require.NoError(t, err)
		return d
	}
	ctx := context.Background()
	g := newDigester()
	require.NoError(t, g.Tick(ctx))
	require.NoError(t, g.Tick(ctx), "a second look the same day sends nothing")
	require.NoError(t, newDigester().Tick(ctx), "nor does a restarted digester")
	got := box.received()
	require.Len(t, got, 1)
	require.True(t, got[0].tls, "STARTTLS was offered and used")
	require.Equal(t, "Alerts@example.com", got[0].to)
	require.Equal(t, "digest@hs.example.com", got[0].from)
	box.mu.Lock()
	require.Equal(t, []string{"relay:p4ss"}, box.auth, "AUTH PLAIN, over TLS")
	box.mu.Unlock()
	m := parseMail(t, got[0].data)
	day := at.Format("20060102")
	require.Equal(t, fmt.Sprintf("<digest.%d.%s@hs.example.com>", id, day), m.header.Get("Message-ID"))
	require.Equal(t, "5 hiring changes, daily digest of "+at.Format("2 Jan 2006"), m.header.Get("Subject"))
	require.Contains(t, m.text, "Opened: Backend <Engineer> 1\n  Acme & Sons · Berlin, Germany · seen on greenhouse\n  https://boards.example.com/acme/1\n")
	require.Contains(t, m.text, "Closed: Backend <Engineer> 2")
	require.Contains(t, m.html, `<a href="https://boards.example.com/acme/5">Backend &lt;Engineer&gt; 5</a>`)
	require.Contains(t, m.html, "Acme &amp; Sons")
	for _, d := range ids {
		st, billed := statusOf(t, h, d)
		require.Equal(t, oltp.DeliveryDelivered, st)
		require.True(t, billed, "each change in an accepted digest is a delivered change, billed once")
		var rs *int
		require.NoError(t, h.Pool.QueryRow(ctx, "SELECT response_status FROM webhook_delivery_attempts WHERE delivery_id = $1", d).Scan(&rs))
		require.Nil(t, rs, "mailed: no HTTP response status")
	}

	// The next day: a crash after the server accepted the digest and before it was recorded
	// (the row left sending) sends the same message again, once, and bills nothing twice.
	more := burst(t, h, a, id, w, 6, 2)
	at = at.AddDate(0, 0, 1)
	require.NoError(t, g.Tick(ctx))
	require.Len(t, box.received(), 2)
	var units int
	require.NoError(t, h.Pool.QueryRow(ctx, "SELECT count(*) FROM usage_events WHERE account_id = $1 AND meter_class = $2", a.AccountID, oltp.MeterDeliveredChange).Scan(&units))
	require.Equal(t, 7, units)
	_, err := h.Pool.Exec(ctx, "UPDATE email_digests SET status = 'sending', sent_at = NULL WHERE endpoint_id = $1 AND digest_day = $2::date", id, at.Format(time.DateOnly))
	require.NoError(t, err)
	_, err = h.Pool.Exec(ctx, "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = NULL WHERE delivery_id = ANY($1)", more)
	require.NoError(t, err)
	require.NoError(t, newDigester().Tick(ctx))
	require.NoError(t, newDigester().Tick(ctx))
	got = box.received()
	require.Len(t, got, 3, "sent again once")
	require.Equal(t, parseMail(t, got[1].data).header.Get("Message-ID"), parseMail(t, got[2].data).header.Get("Message-ID"), "the same message, which mail clients show once")
	require.Equal(t, got[1].data, got[2].data, "byte for byte")
	require.NoError(t, h.Pool.QueryRow(ctx, "SELECT count(*) FROM usage_events WHERE account_id = $1 AND meter_class = $2", a.AccountID, oltp.MeterDeliveredChange).Scan(&units))
	require.Equal(t, 7, units, "billed once")

	// A test delivery is mailed at once; an address the server refuses disables the endpoint.
	require.Equal(t, 201, h.Post(t, "/v1/webhooks/"+itoa(id)+"/test", a.Key, nil).Status)
	require.Eventually(t, func() bool {
		require.NoError(t, g.Tick(ctx)) // a test the dispatcher is parking right now is taken at the next look
		return len(box.received()) == 4
	}, 10*time.Second, 20*time.Millisecond)
	got = box.received()
	require.Equal(t, "Test message from hiringsignal", parseMail(t, got[3].data).header.Get("Subject"))
	box.refuse("Alerts@example.com", 550)
	last := burst(t, h, a, id, w, 8, 1)
	at = at.AddDate(0, 0, 1)
	require.NoError(t, g.Tick(ctx))
	st, billed := statusOf(t, h, last[0])
	require.Equal(t, oltp.DeliveryFailed, st)
	require.False(t, billed)
	var reason string
	require.NoError(t, h.Pool.QueryRow(ctx, "SELECT disabled_reason FROM webhook_endpoints WHERE endpoint_id = $1", id).Scan(&reason))
	require.Equal(t, oltp.DisabledGone, reason)
	require.NotContains(t, h.log.String(), "p4ss")
}
