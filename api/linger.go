package api

import (
	"io"
	"net"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// Lingering close. An answer sent before the request was read to its end (413 past
// MaxBodyBytes, 401 or 404 on a request with a body, 408, 503 past the body bytes in flight,
// fasthttp's 431 and 400) closes the connection while the client may still be sending. Closing a
// socket with unread bytes makes the kernel reset the connection, and a client that writes its
// whole body before it reads (Python's urllib and requests, most blocking clients) then sees
// "connection reset by peer" instead of the answer. So such a connection lingers, as nginx's
// lingering_close does: once the answer is written, the server half-closes it (the client reads
// the answer and its end) and reads and discards what the client still sends, until the client
// closes, LingerTimeout has passed or LingerBytes were discarded, then closes it. A client that
// sends forever is cut at the bound (and then sees the reset). The lingering runs in the
// connection's own worker, so lingering connections count against MaxConns.

// Defaults of Config's lingering bounds.
const (
	DefaultLingerTimeout = 5 * time.Second // from the end of the answer to the close, at most
	DefaultLingerBytes   = 8 << 20         // discarded at most per connection
)

// lingerListener wraps every accepted connection in a lingerConn and cuts the lingering short
// once the server stops.
type lingerListener struct {
	net.Listener
	timeout time.Duration
	bytes   int64

	mu       sync.Mutex
	stopping bool
	active   map[*lingerConn]struct{} // lingering now
	wg       sync.WaitGroup
}

func lingerOnClose(ln net.Listener, timeout time.Duration, bytes int64) *lingerListener {
	return &lingerListener{Listener: ln, timeout: timeout, bytes: bytes, active: map[*lingerConn]struct{}{}}
}

func (l *lingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &lingerConn{Conn: c, l: l}, nil
}

// stop ends the lingering under way (the connections close at once) and makes the connections
// closed from now on close without lingering, then waits for the lingering ones to close.
func (l *lingerListener) stop() {
	l.mu.Lock()
	l.stopping = true
	for c := range l.active {
		_ = c.Conn.SetReadDeadline(time.Now())
	}
	l.mu.Unlock()
	l.wg.Wait()
}

// lingerConn is a served connection; Close lingers when the answer was marked (lingerAfter).
// fasthttp serves a connection, its handler included, and closes it from one goroutine.
type lingerConn struct {
	net.Conn
	l      *lingerListener
	linger bool
}

// NetConn is the connection wrapped (as tls.Conn's).
func (c *lingerConn) NetConn() net.Conn { return c.Conn }

func (c *lingerConn) Close() error {
	if c.linger {
		c.linger = true
		c.drain()
	}
	return c.Conn.Close()
}

// drain half-closes the connection and discards what the client still sends, within the bounds.
func (c *lingerConn) drain() {
	l := c.l
	l.mu.Lock()
	cw, ok := innermost(c.Conn).(interface{ CloseWrite() error })
	if l.stopping || !ok || cw.CloseWrite() != nil || c.Conn.SetReadDeadline(time.Now().Add(l.timeout)) != nil {
		l.mu.Unlock()
		return
	}
	l.active[c] = struct{}{}
	l.wg.Add(1)
	l.mu.Unlock()
	_, _ = io.CopyN(io.Discard, c.Conn, l.bytes)
	l.mu.Lock()
	delete(l.active, c)
	l.mu.Unlock()
	l.wg.Done()
}

// innermost unwraps the connections of this package's listeners down to the network's own.
func innermost(c net.Conn) net.Conn {
	for {
		w, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return c
		}
		c = w.NetConn()
	}
}

// closeUnread closes the connection after the answer, which is sent before the request was read
// to its end: the connection lingers (see above) before it closes.
func closeUnread(ctx *fasthttp.RequestCtx) {
	ctx.SetConnectionClose()
	if c, ok := ctx.Conn().(*lingerConn); ok {
		c.linger = true
	}
}
