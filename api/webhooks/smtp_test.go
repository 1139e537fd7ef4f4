package webhooks_test

import (
	"bufio"
	"crypto/tls"
	"encoding/base64"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testca"
)

// mailbox is a loopback SMTP receiver: it speaks the server's side of the dialogue net/smtp
// holds (EHLO, STARTTLS, AUTH PLAIN, MAIL, RCPT, DATA, RSET, QUIT) and keeps every message it
// accepted with its envelope.
type mailbox struct {
	t    *testing.T
	addr string
	tls  *tls.Config // offered through STARTTLS; nil: not offered
	// RootCAs verify its certificate (the client's TLS configuration).
	client *tls.Config

	mu       sync.Mutex
	msgs     []message
	auth     []string       // the PLAIN credentials sent, "user:password"
	refuseTo map[string]int // RCPT TO address -> the reply code refusing it
}

type message struct {
	from, to string
	data     string
	tls      bool
}

// newMailbox listens on loopback; withTLS offers STARTTLS with a certificate of a test CA.
func newMailbox(t *testing.T, withTLS bool) *mailbox {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	m := &mailbox{t: t, addr: ln.Addr().String(), refuseTo: map[string]int{}}
	if withTLS {
		ca, err := testca.New()
		require.NoError(t, err)
		leaf, err := ca.Leaf([]string{"127.0.0.1"})
		require.NoError(t, err)
		m.tls = &tls.Config{Certificates: []tls.Certificate{leaf}, MinVersion: tls.VersionTLS12}
		m.client = &tls.Config{RootCAs: ca.Pool(), ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { m.serve(c) })
		}
	})
	return m
}

func (m *mailbox) refuse(to string, code int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refuseTo[to] = code
}

func (m *mailbox) received() []message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]message(nil), m.msgs...)
}

func (m *mailbox) serve(c net.Conn) {
	defer func() { _ = c.Close() }()
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	reply := func(s string) { _, _ = w.WriteString(s + "\r\n"); _ = w.Flush() }
	reply("220 127.0.0.1 loopback mailbox")
	var cur message
	secure := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			ext := []string{"250-127.0.0.1", "250-8BITMIME"}
			if m.tls != nil && !secure {
				ext = append(ext, "250-STARTTLS")
			}
			ext = append(ext, "250 AUTH PLAIN")
			for _, e := range ext {
				_, _ = w.WriteString(e + "\r\n")
			}
			_ = w.Flush()
		case "STARTTLS":
			reply("220 go ahead")
			tc := tls.Server(c, m.tls)
			if err := tc.Handshake(); err != nil {
				return
			}
			c, secure = tc, true
			r, w = bufio.NewReader(tc), bufio.NewWriter(tc)
		case "AUTH":
			mech, resp, _ := strings.Cut(arg, " ")
			raw, err := base64.StdEncoding.DecodeString(resp)
			if mech != "PLAIN" || err != nil {
				reply("535 5.7.8 bad credentials")
				continue
			}
			parts := strings.Split(string(raw), "\x00")
			m.mu.Lock()
			m.auth = append(m.auth, parts[len(parts)-2]+":"+parts[len(parts)-1])
			m.mu.Unlock()
			reply("235 2.7.0 ok")
		case "MAIL":
			from, _, _ := strings.Cut(strings.TrimPrefix(arg, "FROM:<"), ">")
			cur = message{from: from, tls: secure}
			reply("250 2.1.0 ok")
		case "RCPT":
			to, _, _ := strings.Cut(strings.TrimPrefix(arg, "TO:<"), ">")
			m.mu.Lock()
			code := m.refuseTo[to]
			m.mu.Unlock()
			if code != 0 {
				reply(strings.TrimSpace(strings.Join([]string{itoa(int64(code)), "5.1.1 no such mailbox"}, " ")))
				continue
			}
			cur.to = to
			reply("250 2.1.5 ok")
		case "DATA":
			reply("354 end with <CRLF>.<CRLF>")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			cur.data = b.String()
			m.mu.Lock()
			m.msgs = append(m.msgs, cur)
			m.mu.Unlock()
			reply("250 2.0.0 queued")
		case "RSET", "NOOP":
			reply("250 ok")
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("502 5.5.2 not implemented")
		}
	}
}
