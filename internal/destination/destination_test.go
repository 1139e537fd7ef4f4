package destination

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/payload"
)

func TestCheckSlackURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://hooks.slack.com/services/T0001/B0002/abcdefghijklmnopqrstuvwx": "",
		"https://HOOKS.slack.com/services/T0001/B0002/abcdefghijklmnopqrstuvwx": "",
		"http://hooks.slack.com/services/T0001/B0002/abc":                       ReasonNotSlackHost,
		"https://hooks.slack.com:8443/services/T0001/B0002/abc":                 ReasonNotSlackHost,
		"https://hooks.slack.com.evil.example/services/T0001/B0002/abc":         ReasonNotSlackHost,
		"https://hooks.slack.com/workflows/T0001/A0002/abc":                     ReasonNotSlackPath,
		"https://hooks.slack.com/services/T0001/B0002":                          ReasonNotSlackPath,
		"https://hooks.slack.com/services/T0001/B0002/abc/extra":                ReasonNotSlackPath,
		"https://hooks.slack.com/services/T0001/B0002/abc?x=1":                  ReasonNotSlackPath,
		"https://hooks.slack.com/services/T0001/B0002/a%2Fb":                    ReasonNotSlackPath,
	} {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		err = CheckSlackURL(u, false)
		if want == "" {
			require.NoError(t, err, raw)
			continue
		}
		var r *SlackRefusal
		require.ErrorAs(t, err, &r, raw)
		require.Equal(t, want, r.Reason, raw)
		require.NotContains(t, r.Msg, "abc", "a refusal never repeats the token")
	}
	u, _ := url.Parse("http://127.0.0.1:4000/services/T1/B2/abc")
	require.NoError(t, CheckSlackURL(u, true), "dev: a loopback stand-in")
	require.Equal(t, "https://hooks.slack.com/services/T1/B2/****uvwx", MaskSlackURL("https://hooks.slack.com/services/T1/B2/abcdefghijklmnopqrstuvwx"))
	require.Equal(t, "https://hooks.slack.com/services/T1/B2/****", MaskSlackURL("https://hooks.slack.com/services/T1/B2/short"), "a short token shows nothing")
}

type message struct {
	Text   string `json:"text"`
	Blocks []struct {
		Type     string `json:"type"`
		Text     *struct{ Type, Text string }
		Elements []struct{ Type, Text string }
	} `json:"blocks"`
}

func TestSlackMessagesStayWithinSlacksLimits(t *testing.T) {
	t.Parallel()
	w := int64(9)
	long := strings.Repeat("Engineer ", 1000)
	var bodies []payload.Body
	for range 70 {
		bodies = append(bodies, payload.Body{Event: "opened", Company: "A <b> & c", RawTitle: long, Location: strings.Repeat("x", 5000),
			URL: "https://jobs.example.com/a|b>c", WatchID: &w, WebhookID: 3})
	}
	var m message
	require.NoError(t, json.Unmarshal(SlackMessage(bodies), &m))
	require.Len(t, m.Blocks, 50)
	require.Equal(t, "header", m.Blocks[0].Type)
	require.Equal(t, "context", m.Blocks[49].Type)
	require.Equal(t, "Sent by hiringsignal for watch 9 · endpoint 3", m.Blocks[49].Elements[0].Text)
	for _, b := range m.Blocks[1:49] {
		require.Equal(t, "section", b.Type)
		require.LessOrEqual(t, len([]rune(b.Text.Text)), 3000)
		require.Contains(t, b.Text.Text, "*A &lt;b&gt; &amp; c*")
		require.Contains(t, b.Text.Text, "<https://jobs.example.com/a%7Cb%3Ec|")
	}
	require.LessOrEqual(t, len([]rune(m.Text)), 1000)

	require.NoError(t, json.Unmarshal(SlackMessage([]payload.Body{{Event: "closed", RawTitle: "Nurse", URL: "javascript:alert(1)"}}), &m))
	require.Equal(t, "1 hiring change", m.Blocks[0].Text.Text)
	require.Equal(t, "*Closed* · *(company not named)*\nNurse", m.Blocks[1].Text.Text, "only http(s) links")
}

func TestCheckEmail(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"alerts@example.com":                     "alerts@example.com",
		"Alerts+hs@Sub.Example.COM":              "Alerts+hs@sub.example.com",
		"a.b-c_d@x-y.example.org":                "a.b-c_d@x-y.example.org",
		"alerts":                                 "",
		"alerts@":                                "",
		"@example.com":                           "",
		"alerts@localhost":                       "",
		"alerts@[127.0.0.1]":                     "",
		"Alerts <alerts@example.com>":            "",
		"a@b@example.com":                        "",
		"alerts@-example.com":                    "",
		"alerts@example..com":                    "",
		"a b@example.com":                        "",
		"a@example.com\r\nBcc: x@y.z":            "",
		"élan@example.com":                       "",
		strings.Repeat("a", 65) + "@example.com": "",
	} {
		got, err := CheckEmail(in)
		if want == "" {
			var r *EmailRefusal
			require.ErrorAs(t, err, &r, in)
			continue
		}
		require.NoError(t, err, in)
		require.Equal(t, want, got)
	}
}

func TestADigestIsTheSameMessageEveryTimeItIsRendered(t *testing.T) {
	t.Parallel()
	d := Digest{From: "HS <d@hs.example.com>", To: "a@example.com", MessageID: "<digest.1.20261128@hs.example.com>",
		Date: time.Date(2026, 11, 28, 8, 0, 1, 0, time.UTC), Through: time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC), EndpointID: 1,
		Changes: []payload.Body{{Event: "opened", Company: "Zürich AG", RawTitle: "Ingenieur:in", Location: "Zürich", URL: "https://x.example/1"}}}
	a, b := d.Message(), d.Message()
	require.Equal(t, a, b)
	s := string(a)
	require.Contains(t, s, "Message-ID: <digest.1.20261128@hs.example.com>\r\n")
	require.Contains(t, s, "Subject: 1 hiring change, daily digest of 28 Nov 2026\r\n")
	require.NotContains(t, strings.ReplaceAll(s, "\r\n", ""), "\n", "CRLF line ends only")
	for _, l := range strings.Split(s, "\r\n") {
		require.LessOrEqual(t, len(l), 998, "SMTP's line limit")
	}
}
