// Package tcpproxy is the loopback listener of the test proxies (internal/testkit/chproxy,
// internal/testkit/pgproxy): it accepts connections on 127.0.0.1 and hands each to the proxy's
// carry function in its own goroutine, and Stop stops accepting and waits until every carry has
// returned. It owns no protocol and no connection a carry makes.
//
// It must not be imported by non-test code.
package tcpproxy

import (
	"net"
	"sync"
	"testing"
)

// Listener accepts the connections of one proxy.
type Listener struct {
	ln net.Listener
	wg sync.WaitGroup
}

// Listen listens on 127.0.0.1 and calls carry with every connection accepted, until Stop; what
// names the proxy in the error that fails tb when it cannot listen.
func Listen(tb testing.TB, what string, carry func(net.Conn)) *Listener {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("cannot listen for a %s proxy: %v", what, err)
	}
	l := &Listener{ln: ln}
	l.wg.Add(1)
	go l.accept(carry)
	return l
}

// Addr is the listener's host:port.
func (l *Listener) Addr() string { return l.ln.Addr().String() }

// Stop stops accepting, calls closeConns (which closes what the carries hold, so that they
// return) and waits for every carry to return.
func (l *Listener) Stop(closeConns func()) {
	_ = l.ln.Close()
	closeConns()
	l.wg.Wait()
}

func (l *Listener) accept(carry func(net.Conn)) {
	defer l.wg.Done()
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			carry(c)
		}()
	}
}
