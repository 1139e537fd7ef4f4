// Package pgproxy stands in for one host of a multi-host Postgres URL in tests: a loopback TCP
// proxy to a real server that can forward, refuse every connection (the host is down) or forward
// as a read-only server (each new session starts with default_transaction_read_only on, as a
// standby or a fenced old primary answers target_session_attrs=read-write). Changing the mode
// closes every connection it carries, as a server restart or a promotion does. Two proxies to
// one database play a primary and its standby switching places.
//
// It must not be imported by non-test code.
package pgproxy

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"

	"github.com/planehq/hiringsignal/internal/testkit/tcpproxy"
)

// Mode is what a Proxy does with a connection.
type Mode int

const (
	Forward  Mode = iota // pass every byte through
	Refuse               // accept and close at once: the host is down
	ReadOnly             // forward, each session read-only (startup options -c default_transaction_read_only=on)
)

// Proxy is one loopback host in front of a Postgres server.
type Proxy struct {
	l      *tcpproxy.Listener
	target string

	mu    sync.Mutex
	mode  Mode
	conns map[net.Conn]bool // client and server sides of the connections carried
	live  int               // connections carried now
	total int               // connections forwarded since the start
}

// Start listens on 127.0.0.1 and carries connections to target (host:port) in mode; it stops
// when tb ends.
func Start(tb testing.TB, target string, mode Mode) *Proxy {
	tb.Helper()
	p := &Proxy{target: target, mode: mode, conns: map[net.Conn]bool{}}
	p.l = tcpproxy.Listen(tb, "Postgres", p.carry)
	tb.Cleanup(func() { p.l.Stop(func() { p.Set(Refuse) }) })
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.l.Addr() }

// Set switches the mode and closes every connection carried.
func (p *Proxy) Set(m Mode) {
	p.mu.Lock()
	p.mode = m
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
}

// Live is how many connections the proxy carries now; Total how many it forwarded in all.
func (p *Proxy) Live() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live
}

// Total is how many connections the proxy forwarded since it started.
func (p *Proxy) Total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}

// carry serves one client connection in the mode of its arrival.
func (p *Proxy) carry(c net.Conn) {
	p.mu.Lock()
	mode := p.mode
	p.mu.Unlock()
	if mode == Refuse {
		_ = c.Close()
		return
	}
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	if !p.track(c, s) {
		return
	}
	defer p.untrack(c, s)
	if mode == ReadOnly {
		if err := readOnlyStartup(c, s); err != nil {
			return
		}
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(s, c); _ = s.Close(); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, s); _ = c.Close(); done <- struct{}{} }()
	<-done
	<-done
}

// track records the pair, unless the mode changed since the connection arrived (then both close).
func (p *Proxy) track(c, s net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == Refuse {
		_ = c.Close()
		_ = s.Close()
		return false
	}
	p.conns[c], p.conns[s] = true, true
	p.live++
	p.total++
	return true
}

func (p *Proxy) untrack(c, s net.Conn) {
	_ = c.Close()
	_ = s.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, s)
	p.live--
	p.mu.Unlock()
}

const (
	protocol3  = 196608   // the startup message of protocol 3.0
	sslRequest = 80877103 // a client asking for TLS first
	gssRequest = 80877104 // a client asking for GSS encryption first
)

// readOnlyStartup copies the client's startup message to the server with
// "-c default_transaction_read_only=on" added to its options; a TLS or GSS request first is
// answered "no".
func readOnlyStartup(c, s net.Conn) error {
	for {
		var head [8]byte
		if _, err := io.ReadFull(c, head[:]); err != nil {
			return err
		}
		n := binary.BigEndian.Uint32(head[:4])
		code := binary.BigEndian.Uint32(head[4:])
		if n < 8 || n > 1<<16 {
			return errors.New("pgproxy: not a startup message")
		}
		body := make([]byte, n-8)
		if _, err := io.ReadFull(c, body); err != nil {
			return err
		}
		switch code {
		case sslRequest, gssRequest:
			if _, err := c.Write([]byte{'N'}); err != nil {
				return err
			}
			continue
		case protocol3:
		default:
			return errors.New("pgproxy: unknown startup protocol")
		}
		var params [][2]string
		rest := body
		for len(rest) > 1 {
			k, after, ok := cut(rest)
			if !ok {
				return errors.New("pgproxy: malformed startup parameters")
			}
			v, after2, ok := cut(after)
			if !ok {
				return errors.New("pgproxy: malformed startup parameters")
			}
			params, rest = append(params, [2]string{k, v}), after2
		}
		const ro = "-c default_transaction_read_only=on"
		set := false
		for i := range params {
			if params[i][0] == "options" {
				params[i][1] += " " + ro
				set = true
			}
		}
		if !set {
			params = append(params, [2]string{"options", ro})
		}
		out := binary.BigEndian.AppendUint32(nil, 0)
		out = binary.BigEndian.AppendUint32(out, protocol3)
		for _, kv := range params {
			out = append(append(append(append(out, kv[0]...), 0), kv[1]...), 0)
		}
		out = append(out, 0)
		binary.BigEndian.PutUint32(out[:4], uint32(len(out)))
		_, err := s.Write(out)
		return err
	}
}

// cut splits a NUL-terminated string off b.
func cut(b []byte) (string, []byte, bool) {
	for i, x := range b {
		if x == 0 {
			return string(b[:i]), b[i+1:], true
		}
	}
	return "", nil, false
}
