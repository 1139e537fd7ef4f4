// Package chproxy stands between a ClickHouse client and its server in tests: a loopback TCP
// proxy of the native protocol that forwards every byte, and can hold back one INSERT's data to
// play a write whose client gave up while the server still has it coming. Armed with HoldNext,
// it forwards the client's query that contains the marker (so the server answers the insert's
// header as usual), keeps every byte the client sends after it, and once the client has sent
// them all (quiet for a moment) closes the client's connection: the client's write fails with
// its status unknown. The server's connection stays open, waiting for the data, until Release
// sends it: the write lands then, later than anything the client did after it gave up.
//
// It must not be imported by non-test code.
package chproxy

import (
	"bytes"
	"errors"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/planehq/hiringsignal/internal/testkit/tcpproxy"
)

// quiet is how long the client sends nothing before its held write counts as all sent.
const quiet = 300 * time.Millisecond

// Proxy is one loopback address in front of a ClickHouse server's native port.
type Proxy struct {
	l      *tcpproxy.Listener
	target string

	mu      sync.Mutex
	marker  []byte // armed: hold what follows the next client chunk that contains it
	held    *held  // the write held back, until Release
	heldNow chan struct{}
	conns   map[net.Conn]bool
}

type held struct {
	server   net.Conn
	data     []byte
	answered chan struct{} // closed when the server answers after the data reached it
}

// Start listens on 127.0.0.1 and forwards connections to target (host:port); it stops when tb
// ends, closing every connection it carries.
func Start(tb testing.TB, target string) *Proxy {
	tb.Helper()
	p := &Proxy{target: target, conns: map[net.Conn]bool{}, heldNow: make(chan struct{})}
	p.l = tcpproxy.Listen(tb, "ClickHouse", p.carry)
	tb.Cleanup(func() { p.l.Stop(p.closeAll) })
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.l.Addr() }

// HoldNext arms the proxy: the data of the next query whose text contains marker (for example
// "INSERT INTO cycles") is held back and its client cut off, as the package doc says.
func (p *Proxy) HoldNext(marker string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marker = []byte(marker)
	p.heldNow = make(chan struct{})
}

// WaitHeld waits until a write is held back and its client cut off; it fails tb after timeout.
func (p *Proxy) WaitHeld(tb testing.TB, timeout time.Duration) {
	tb.Helper()
	p.mu.Lock()
	ch := p.heldNow
	p.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(timeout):
		tb.Fatalf("chproxy: no write was held back within %s", timeout)
	}
}

// Release sends the held write to the server and waits (up to timeout) for the server to answer
// it: the write has landed then. It fails tb when nothing is held or the server does not answer.
func (p *Proxy) Release(tb testing.TB, timeout time.Duration) {
	tb.Helper()
	p.mu.Lock()
	h := p.held
	p.held = nil
	p.mu.Unlock()
	if h == nil {
		tb.Fatal("chproxy: Release with no write held back")
	}
	defer h.server.Close()
	if _, err := h.server.Write(h.data); err != nil {
		tb.Fatalf("chproxy: cannot send the held write: %v", err)
	}
	select {
	case <-h.answered:
	case <-time.After(timeout):
		tb.Fatalf("chproxy: the server did not answer the released write within %s", timeout)
	}
}

// closeAll closes every connection carried and the held write's server side.
func (p *Proxy) closeAll() {
	p.mu.Lock()
	for c := range p.conns {
		_ = c.Close()
	}
	if p.held != nil {
		_ = p.held.server.Close()
	}
	p.mu.Unlock()
}

func (p *Proxy) track(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		p.conns[c] = true
	}
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
	}
}

// carry forwards one client connection, holding back a write when armed.
func (p *Proxy) carry(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.track(c, s)
	var cutMu sync.Mutex
	var cut *held // set once the client is cut off: the server's answer goes nowhere
	serverDone := make(chan struct{})
	go func() { // server → client
		defer close(serverDone)
		buf := make([]byte, 64<<10)
		for {
			n, err := s.Read(buf)
			if n > 0 {
				cutMu.Lock()
				h := cut
				cutMu.Unlock()
				if h != nil {
					select {
					case <-h.answered:
					default:
						close(h.answered)
					}
				} else if _, werr := c.Write(buf[:n]); werr != nil {
					cutMu.Lock()
					h = cut
					cutMu.Unlock()
					if h == nil {
						_ = s.Close()
						return
					}
				}
			}
			if err != nil {
				_ = c.Close()
				return
			}
		}
	}()
	// client → server
	holding := false
	var data []byte
	buf := make([]byte, 64<<10)
	for {
		if holding {
			_ = c.SetReadDeadline(time.Now().Add(quiet))
		}
		n, err := c.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			switch {
			case holding:
				data = append(data, chunk...)
			default:
				p.mu.Lock()
				arm := p.marker != nil && bytes.Contains(chunk, p.marker)
				if arm {
					p.marker = nil
				}
				p.mu.Unlock()
				if _, werr := s.Write(chunk); werr != nil {
					_ = c.Close()
					<-serverDone
					p.untrack(c, s)
					return
				}
				holding = arm
			}
		}
		if err != nil {
			if holding && len(data) > 0 && errors.Is(err, os.ErrDeadlineExceeded) {
				// Everything the client had to send is in: cut it off, keep the server waiting.
				h := &held{server: s, data: data, answered: make(chan struct{})}
				cutMu.Lock()
				cut = h
				cutMu.Unlock()
				_ = c.Close()
				p.mu.Lock()
				p.held = h
				delete(p.conns, c)
				delete(p.conns, s)
				close(p.heldNow)
				p.mu.Unlock()
				<-serverDone // until Release closes the server's side (or the test ends)
				return
			}
			if holding && errors.Is(err, os.ErrDeadlineExceeded) {
				continue // the client has not sent its data yet
			}
			_ = s.Close()
			<-serverDone
			p.untrack(c, s)
			return
		}
	}
}
