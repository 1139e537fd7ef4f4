package destination

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/planehq/hiringsignal/internal/payload"
)

// SlackHost is the host of every Slack incoming-webhook URL.
const SlackHost = "hooks.slack.com"

// Slack's limits on one message (Block Kit): at most 50 blocks, a header's text at most 150
// characters, a section's text at most 3,000.
const (
	slackMaxBlocks  = 50
	slackHeaderMax  = 150
	slackSectionMax = 3000
)

// MaxSlackChanges is how many changes one Slack message lists: a header block, one section per
// change and a context block stay within Slack's 50 blocks.
const MaxSlackChanges = slackMaxBlocks - 2

// Why a Slack URL is refused (the ctx.reason of its 422).
const (
	ReasonNotSlackHost = "not_slack_host" // the host is not hooks.slack.com
	ReasonNotSlackPath = "not_slack_path" // the path is not /services/<team>/<bot>/<token>
)

// SlackRefusal is why a Slack URL is refused: Reason a code, Msg a sentence saying what to send
// instead that never repeats the URL (its path is a token).
type SlackRefusal struct{ Reason, Msg string }

func (r *SlackRefusal) Error() string { return r.Msg }

// CheckSlackURL checks that u (already through the egress policy) is a Slack incoming-webhook
// URL: https://hooks.slack.com/services/<team>/<bot>/<token>, each part letters and digits.
// anyHost (dev: a loopback receiver stands in for Slack) accepts any host with that path.
func CheckSlackURL(u *url.URL, anyHost bool) error {
	if !anyHost && (u.Scheme != "https" || !strings.EqualFold(u.Hostname(), SlackHost) || u.Port() != "") {
		return &SlackRefusal{Reason: ReasonNotSlackHost, Msg: "a Slack endpoint's url is the incoming-webhook URL Slack gives (https://" + SlackHost +
			"/services/...): create one under the Slack app's Incoming Webhooks and send it as it is"}
	}
	parts := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	ok := len(parts) == 4 && parts[0] == "services" && u.RawQuery == "" && u.Fragment == ""
	for _, p := range parts[1:] {
		ok = ok && p != "" && len(p) <= 64 && alnum(p)
	}
	if !ok {
		return &SlackRefusal{Reason: ReasonNotSlackPath, Msg: "a Slack incoming-webhook URL's path is /services/<team id>/<bot id>/<token> without query: " +
			"copy the whole URL from the Slack app's Incoming Webhooks page"}
	}
	return nil
}

func alnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// MaskSlackURL is what every answer shows of a Slack URL: its host and ids, the token reduced
// to its last 4 characters (a person tells two of their channels apart; the token stays secret).
func MaskSlackURL(raw string) string {
	i := strings.LastIndexByte(raw, '/')
	if i < 0 {
		return "****"
	}
	token := raw[i+1:]
	last := ""
	if len(token) > 8 {
		last = token[len(token)-4:]
	}
	return raw[:i+1] + "****" + last
}

// slackLabels name each event in a message.
var slackLabels = map[string]string{"opened": "Opened", "reobserved": "Still open", "reposted": "Reposted", "closed": "Closed", payload.EventTest: "Test"}

// EventLabel is how a message names event e (the event itself when it has no label).
func EventLabel(e string) string {
	if l, ok := slackLabels[e]; ok {
		return l
	}
	return e
}

// slackEscape escapes the three characters Slack's mrkdwn reads as markup.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// clip cuts s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// linkable is u when it is an http(s) URL a link may carry, else "".
func linkable(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return ""
	}
	// Slack ends a link at '|' or '>': keep them out of the address.
	return strings.NewReplacer("|", "%7C", ">", "%3E", "<", "%3C").Replace(u)
}

type slackText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type slackBlock struct {
	Type     string      `json:"type"`
	Text     *slackText  `json:"text,omitempty"`
	Elements []slackText `json:"elements,omitempty"`
}

// SlackMessage is the message posted to a Slack incoming webhook for bodies (at most
// MaxSlackChanges; more are cut): {"text": fallback, "blocks": [...]}, a header saying how many
// changes, one section per change (what changed, the company, the req title linking the posting,
// the place and the board) and a context block naming the sender.
func SlackMessage(bodies []payload.Body) []byte {
	if len(bodies) > MaxSlackChanges {
		bodies = bodies[:MaxSlackChanges]
	}
	header := fmt.Sprintf("%d hiring changes", len(bodies))
	switch {
	case len(bodies) == 1 && bodies[0].Event == payload.EventTest:
		header = "Test message from hiringsignal"
	case len(bodies) == 1:
		header = "1 hiring change"
	}
	blocks := []slackBlock{{Type: "header", Text: &slackText{Type: "plain_text", Text: clip(header, slackHeaderMax)}}}
	var fallback []string
	watches := map[int64]bool{}
	var watchIDs []string
	for i := range bodies {
		b := &bodies[i]
		blocks = append(blocks, slackBlock{Type: "section", Text: &slackText{Type: "mrkdwn", Text: clip(slackSection(b), slackSectionMax)}})
		fallback = append(fallback, plainLine(b))
		if b.WatchID != nil && !watches[*b.WatchID] {
			watches[*b.WatchID] = true
			watchIDs = append(watchIDs, fmt.Sprint(*b.WatchID))
		}
	}
	footer := "Sent by hiringsignal"
	if len(watchIDs) > 0 {
		footer += " for watch " + strings.Join(watchIDs, ", ")
	}
	if len(bodies) > 0 {
		footer += fmt.Sprintf(" · endpoint %d", bodies[0].WebhookID)
	}
	blocks = append(blocks, slackBlock{Type: "context", Elements: []slackText{{Type: "mrkdwn", Text: slackEscape(footer)}}})
	text := header
	if len(fallback) > 0 {
		text = clip(header+": "+strings.Join(fallback, "; "), 1000)
	}
	out, err := json.Marshal(struct {
		Text   string       `json:"text"`
		Blocks []slackBlock `json:"blocks"`
	}{text, blocks})
	if err != nil {
		panic(fmt.Sprintf("destination: cannot encode a Slack message: %v", err)) // strings only: cannot happen
	}
	return out
}

// slackSection is one change in mrkdwn.
func slackSection(b *payload.Body) string {
	if b.Event == payload.EventTest {
		return fmt.Sprintf("*Test* · this channel receives the hiring changes of the watches on endpoint %d. Nothing changed.", b.WebhookID)
	}
	title := slackEscape(clip(titleOf(b), 300))
	if u := linkable(b.URL); u != "" {
		title = "<" + u + "|" + title + ">"
	}
	line := "*" + slackEscape(EventLabel(b.Event)) + "* · *" + slackEscape(clip(companyOf(b), 200)) + "*\n" + title
	var place []string
	if b.Location != "" {
		place = append(place, slackEscape(clip(b.Location, 200)))
	}
	if b.DetectedOn != "" {
		place = append(place, "seen on "+slackEscape(clip(b.DetectedOn, 100)))
	}
	if len(place) > 0 {
		line += "\n" + strings.Join(place, " · ")
	}
	return line
}

// plainLine is one change in plain text (Slack's notification fallback, the digest's subject).
func plainLine(b *payload.Body) string {
	if b.Event == payload.EventTest {
		return "test message, nothing changed"
	}
	s := EventLabel(b.Event) + ": " + titleOf(b) + " at " + companyOf(b)
	if b.Location != "" {
		s += " (" + b.Location + ")"
	}
	return s
}

func titleOf(b *payload.Body) string {
	if b.RawTitle == "" {
		return "(untitled posting)"
	}
	return b.RawTitle
}

func companyOf(b *payload.Body) string {
	if b.Company == "" {
		return "(company not named)"
	}
	return b.Company
}

// SlackAnswer says what a Slack answer to a message means. Slack answers 200 "ok" when it posted
// the message, else a status and a short text (invalid_token, channel_not_found, ...):
// gone (the URL no longer posts anywhere: 403, 404, 410) disables the endpoint, bad (400: the
// message itself was refused) fails it without a retry, and anything else is retried (429 after
// its Retry-After). summary is what to record, never the URL.
func SlackAnswer(status int, text string) (gone, bad bool, summary string) {
	text = strings.TrimSpace(text)
	if len(text) > 80 || !printable(text) {
		text = ""
	}
	summary = fmt.Sprintf("Slack answered %d", status)
	if text != "" {
		summary += " " + text
	}
	switch status {
	case 403, 404, 410:
		return true, false, summary
	case 400:
		return false, true, summary
	}
	return false, false, summary
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
