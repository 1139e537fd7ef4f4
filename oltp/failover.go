package oltp

import (
	"context"
	"errors"
	"io"
	"net"
	"reflect"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A Postgres primary with streaming standbys (docs/deployment.md, "Postgres"): every pool and
// connection of the service writes, so each must reach the primary, and find the new one after a
// promotion without a restart.
//
//   - The URL may name several hosts (postgres://u@pg-a:5432,pg-b:5432/db): they are tried in
//     order and a connection is kept only on a server that takes writes
//     (target_session_attrs=read-write, the default Open sets for a multi-host URL; read-only,
//     standby and prefer-standby are refused at start). A host that does not answer is given up
//     after connect_timeout (ConnectTimeout unless the URL sets it).
//   - A statement that finds its server gone or read-only (a promoted standby's old primary
//     fenced with default_transaction_read_only, an admin shutdown) resets the pool (Reset: the
//     idle connections close, those in use close when released), so the next statements connect
//     again through the host list to whichever server is the primary now.
//   - Such errors are Unavailable: the API answers 503 with Retry-After, not 500, while a switch
//     is under way, and recovers once a primary answers.
//
// What holds a connection of its own follows the same URL: the process's LISTEN connection
// (package pglisten checks at every ping that its server still takes writes) and the dispatcher's
// lease connection (Leaser.KeepAlive does the same).

// ConnectTimeout bounds one host's connection attempt on a multi-host URL that sets no
// connect_timeout: a primary that vanished without a word is given up in time for the next host
// to answer within a call's store deadline.
const ConnectTimeout = 2 * time.Second

// configureHosts applies the multi-host rules above to cfg.
func configureHosts(cfg *pgxpool.Config) error {
	cc := cfg.ConnConfig
	multi := false
	for _, fb := range cc.Fallbacks {
		if fb.Host != cc.Host || fb.Port != cc.Port {
			multi = true
		}
	}
	if v := cc.ValidateConnect; v != nil && !sameFunc(v, pgconn.ValidateConnectTargetSessionAttrsReadWrite) &&
		!sameFunc(v, pgconn.ValidateConnectTargetSessionAttrsPrimary) {
		return errors.New("cannot use the Postgres URL: its target_session_attrs picks a server that may not take writes; " +
			"the service writes on every connection: use target_session_attrs=read-write (or primary), or leave it out")
	}
	if !multi {
		return nil
	}
	if cc.ValidateConnect == nil {
		cc.ValidateConnect = pgconn.ValidateConnectTargetSessionAttrsReadWrite
	}
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = ConnectTimeout
	}
	return nil
}

func sameFunc(a pgconn.ValidateConnectFunc, b pgconn.ValidateConnectFunc) bool {
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}

// Unavailable reports whether err says Postgres cannot serve the statement now but may soon:
// no server could be connected (or none that takes writes), the connection broke, the server is
// shutting down or starting, or it is read-only (a standby, or a primary fenced during a switch).
// Deadlines are not among them (a store that is slow is the caller's timeout).
func Unavailable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return unavailableCode(pe.Code)
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	if pgconn.SafeToRetry(err) { // nothing reached the server: a closed or refused connection
		return true
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne *net.OpError
	return errors.As(err, &ne) && !ne.Timeout()
}

// unavailableCode: connection exceptions (class 08), the server shutting down or starting
// (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now), a read-only
// transaction (25006), too many connections (53300).
func unavailableCode(code string) bool {
	switch code {
	case "25006", "57P01", "57P02", "57P03", "53300":
		return true
	}
	return len(code) == 5 && code[:2] == "08"
}

// resetOnFailover resets its pool when a statement's error says its server is gone or no longer
// the primary, at most once a second.
type resetOnFailover struct {
	pool atomic.Pointer[pgxpool.Pool]
	last atomic.Int64 // unix nanoseconds of the last reset
}

func (r *resetOnFailover) seen(err error) {
	if err == nil || !Unavailable(err) {
		return
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "53300" {
		return // the server is there, only full
	}
	now := time.Now().UnixNano()
	last := r.last.Load()
	if now-last < int64(time.Second) || !r.last.CompareAndSwap(last, now) {
		return
	}
	if p := r.pool.Load(); p != nil {
		go p.Reset() // not on the statement's goroutine: Reset waits for nothing, but takes the pool's lock
	}
}

func (r *resetOnFailover) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

func (r *resetOnFailover) TraceQueryEnd(_ context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	r.seen(d.Err)
}

func (r *resetOnFailover) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (r *resetOnFailover) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	r.seen(d.Err)
}

func (r *resetOnFailover) TraceBatchEnd(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchEndData) {
	r.seen(d.Err)
}
