package destination

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/internal/payload"
)

// MaxEmailLength is the longest address accepted (RFC 5321's path limit less its brackets).
const MaxEmailLength = 254

// EmailRefusal is why an address is refused: a sentence saying what to send instead.
type EmailRefusal struct{ Msg string }

func (r *EmailRefusal) Error() string { return r.Msg }

// CheckEmail validates an address a digest is sent to and returns it as stored (the domain
// lower-cased): a bare addr-spec (no display name, no comments), printable ASCII of at most
// MaxEmailLength bytes, a local part of at most 64, and a domain of DNS labels with at least one
// dot (no address literal: the relay decides the route).
func CheckEmail(s string) (string, error) {
	refuse := func(why string) (string, error) {
		return "", &EmailRefusal{Msg: "email must be one address such as alerts@example.com: " + why}
	}
	if s == "" || len(s) > MaxEmailLength || !printable(s) || strings.ContainsAny(s, " <>\"(),;:\\[]") {
		return refuse(fmt.Sprintf("printable ASCII of at most %d characters, without display name, spaces, quotes or brackets", MaxEmailLength))
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return refuse("it does not parse as an address (RFC 5322 addr-spec)")
	}
	local, domain, ok := strings.Cut(s, "@")
	if !ok || local == "" || len(local) > 64 || strings.Contains(domain, "@") {
		return refuse("a local part of 1 to 64 characters before a single @")
	}
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return refuse("the domain must have a dot (example.com)")
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return refuse("the domain must be DNS labels of 1 to 63 letters, digits and inner hyphens")
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-') {
				return refuse("the domain must be DNS labels of 1 to 63 letters, digits and inner hyphens")
			}
		}
	}
	return local + "@" + strings.ToLower(domain), nil
}

// Digest is one email message: the day's changes of an endpoint (or a test message).
type Digest struct {
	From, To   string
	MessageID  string    // "<...@...>": the same on every send of this digest
	Date       time.Time // the Date header: when the digest was recorded, so a resend is the same message
	Through    time.Time // the digest's moment: it lists the changes up to it
	EndpointID int64
	Changes    []payload.Body
}

// Subject is the digest's subject line.
func (d *Digest) Subject() string {
	if len(d.Changes) == 1 && d.Changes[0].Event == payload.EventTest {
		return "Test message from hiringsignal"
	}
	n := "1 hiring change"
	if len(d.Changes) != 1 {
		n = fmt.Sprintf("%d hiring changes", len(d.Changes))
	}
	return fmt.Sprintf("%s, daily digest of %s", n, d.Through.UTC().Format("2 Jan 2006"))
}

// Message is the digest as sent over SMTP: headers and a multipart/alternative body (plain text,
// then HTML), quoted-printable UTF-8, CRLF line ends. The boundary comes from the Message-ID, so
// the same digest renders the same bytes.
func (d *Digest) Message() []byte {
	var buf bytes.Buffer
	sum := sha256.Sum256([]byte(d.MessageID))
	boundary := "hs-" + hex.EncodeToString(sum[:12])
	h := func(k, v string) { fmt.Fprintf(&buf, "%s: %s\r\n", k, v) }
	h("From", d.From)
	h("To", d.To)
	h("Subject", mime.QEncoding.Encode("utf-8", d.Subject()))
	h("Date", d.Date.UTC().Format(time.RFC1123Z))
	h("Message-ID", d.MessageID)
	h("MIME-Version", "1.0")
	h("Auto-Submitted", "auto-generated")
	h("Content-Type", `multipart/alternative; boundary="`+boundary+`"`)
	buf.WriteString("\r\n")
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary(boundary); err != nil {
		panic(err) // a fixed, valid boundary
	}
	part := func(typ, body string) {
		p, _ := w.CreatePart(textproto.MIMEHeader{"Content-Type": {typ + "; charset=utf-8"}, "Content-Transfer-Encoding": {"quoted-printable"}})
		q := quotedprintable.NewWriter(p)
		_, _ = q.Write([]byte(strings.ReplaceAll(body, "\n", "\r\n")))
		_ = q.Close()
	}
	part("text/plain", d.text())
	part("text/html", d.html())
	_ = w.Close()
	return buf.Bytes()
}

func (d *Digest) intro() string {
	if len(d.Changes) == 1 && d.Changes[0].Event == payload.EventTest {
		return fmt.Sprintf("This address receives the daily digest of the watches on endpoint %d. Nothing changed: this is a test.", d.EndpointID)
	}
	word := "changes"
	if len(d.Changes) == 1 {
		word = "change"
	}
	return fmt.Sprintf("%d hiring %s up to %s.", len(d.Changes), word, d.Through.UTC().Format("2 Jan 2006 15:04 UTC"))
}

func (d *Digest) footer() string {
	return fmt.Sprintf("Sent by hiringsignal, once a day, for webhook endpoint %d. Cancel its watches (DELETE /v1/watches/{id}) or delete the endpoint to stop it.", d.EndpointID)
}

// text is the plain-text part.
func (d *Digest) text() string {
	var b strings.Builder
	b.WriteString(d.intro() + "\n\n")
	for i := range d.Changes {
		c := &d.Changes[i]
		if c.Event == payload.EventTest {
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", EventLabel(c.Event), titleOf(c))
		line := companyOf(c)
		if c.Location != "" {
			line += " · " + c.Location
		}
		if c.DetectedOn != "" {
			line += " · seen on " + c.DetectedOn
		}
		b.WriteString("  " + line + "\n")
		if u := linkable(c.URL); u != "" {
			b.WriteString("  " + u + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("-- \n" + d.footer() + "\n")
	return b.String()
}

// html is the HTML part: the same changes as a list.
func (d *Digest) html() string {
	e := html.EscapeString
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><body style=\"font-family:sans-serif\">\n<p>" + e(d.intro()) + "</p>\n")
	if len(d.Changes) > 0 && d.Changes[0].Event != payload.EventTest {
		b.WriteString("<ul>\n")
		for i := range d.Changes {
			c := &d.Changes[i]
			title := e(titleOf(c))
			if u := linkable(c.URL); u != "" {
				title = `<a href="` + e(u) + `">` + title + `</a>`
			}
			place := e(companyOf(c))
			if c.Location != "" {
				place += " &middot; " + e(c.Location)
			}
			if c.DetectedOn != "" {
				place += " &middot; seen on " + e(c.DetectedOn)
			}
			fmt.Fprintf(&b, "<li><strong>%s</strong>: %s<br>%s</li>\n", e(EventLabel(c.Event)), title, place)
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("<p style=\"color:#666;font-size:small\">" + e(d.footer()) + "</p>\n</body></html>\n")
	return b.String()
}
