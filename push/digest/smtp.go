package digest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"strings"
	"time"
)

// SMTP is the relay digests are sent through (flags --smtp-addr, --smtp-from, --smtp-username,
// --smtp-password): the operator's server, so it is not held to the egress policy (it may well
// be on a private network). STARTTLS is used whenever the server offers it; credentials are sent
// only over TLS (or to a loopback server), as net/smtp's PLAIN auth insists.
type SMTP struct {
	Addr     string // host:port
	From     string // the From header; its address is the envelope sender
	Username string // "": no AUTH
	Password string
	// TLS is the STARTTLS configuration; nil: the host of Addr verified against the system's
	// roots. Tests give a root of their own.
	TLS       *tls.Config
	Timeout   time.Duration // one message, connect to QUIT (default 30 s)
	HelloName string        // the EHLO name (default "localhost")
}

// Check says what is wrong with s, naming the flag to change.
func (s SMTP) Check() error {
	if _, _, err := net.SplitHostPort(s.Addr); err != nil {
		return fmt.Errorf("cannot send email digests: --smtp-addr (env HS_SMTP_ADDR) must be host:port: %w", err)
	}
	if _, err := mail.ParseAddress(s.From); err != nil {
		return fmt.Errorf("cannot send email digests: --smtp-from (env HS_SMTP_FROM) must be an address such as \"Hiring signal <digest@example.com>\": %w", err)
	}
	return nil
}

// SendError is a refusal of the SMTP server: the step it refused (connect, starttls, auth, mail,
// rcpt, data) and its reply code (0: no reply, a network failure).
type SendError struct {
	Step string
	Code int
	Msg  string
}

func (e *SendError) Error() string {
	if e.Code == 0 {
		return fmt.Sprintf("the SMTP server could not be reached at %s: %s", e.Step, e.Msg)
	}
	return fmt.Sprintf("the SMTP server refused %s: %d %s", e.Step, e.Code, e.Msg)
}

// Permanent says a retry gets the same answer (a 5xx reply).
func (e *SendError) Permanent() bool { return e.Code >= 500 }

// AddressRefused says the server refused the recipient itself (550, 551, 553 at RCPT): the
// endpoint's address takes no mail.
func (e *SendError) AddressRefused() bool {
	return e.Step == "rcpt" && (e.Code == 550 || e.Code == 551 || e.Code == 553)
}

func stepErr(step string, err error) *SendError {
	var tp *textproto.Error
	if errors.As(err, &tp) {
		return &SendError{Step: step, Code: tp.Code, Msg: oneLine(tp.Msg)}
	}
	return &SendError{Step: step, Msg: oneLine(err.Error())}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// Send sends msg (headers and body, CRLF line ends) to the address to through s: EHLO,
// STARTTLS when offered, AUTH PLAIN when a username is set, MAIL, RCPT, DATA, QUIT. A refusal is a
// *SendError.
func (s SMTP) Send(ctx context.Context, to string, msg []byte) error {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	from, err := mail.ParseAddress(s.From)
	if err != nil {
		return &SendError{Step: "mail", Msg: "--smtp-from is not an address"}
	}
	host, _, err := net.SplitHostPort(s.Addr)
	if err != nil {
		return &SendError{Step: "connect", Msg: "--smtp-addr is not host:port"}
	}
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "tcp", s.Addr)
	if err != nil {
		return stepErr("connect", err)
	}
	deadline := time.Now().Add(timeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		_ = conn.Close()
		return stepErr("connect", err)
	}
	defer c.Close()
	hello := s.HelloName
	if hello == "" {
		hello = "localhost"
	}
	if err := c.Hello(hello); err != nil {
		return stepErr("ehlo", err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		cfg := s.TLS
		if cfg == nil {
			cfg = &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
		}
		if err := c.StartTLS(cfg); err != nil {
			return stepErr("starttls", err)
		}
	}
	if s.Username != "" {
		if ok, _ := c.Extension("AUTH"); !ok {
			return &SendError{Step: "auth", Msg: "the server offers no AUTH, but --smtp-username is set"}
		}
		if err := c.Auth(smtp.PlainAuth("", s.Username, s.Password, host)); err != nil {
			return stepErr("auth", err)
		}
	}
	if err := c.Mail(from.Address); err != nil {
		return stepErr("mail", err)
	}
	if err := c.Rcpt(to); err != nil {
		return stepErr("rcpt", err)
	}
	w, err := c.Data()
	if err != nil {
		return stepErr("data", err)
	}
	if _, err := w.Write(msg); err != nil {
		return stepErr("data", err)
	}
	if err := w.Close(); err != nil {
		return stepErr("data", err)
	}
	_ = c.Quit() // the message is accepted once DATA's reply came; QUIT's answer changes nothing
	return nil
}
