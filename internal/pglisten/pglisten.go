// Package pglisten owns the one Postgres LISTEN connection of a process (after river's
// internal/notifier): one goroutine holds one dedicated connection, LISTENs the union of the
// channels its subscribers asked for (adding and removing channels as they come and go), hands
// every notification to the subscribers of its channel, and, when the connection fails,
// reconnects with exponential backoff and jitter, LISTENs every channel again and tells every
// subscriber that notifications may have been lost in between, so each re-reads its state. Its
// periodic ping also checks that the server still is what the URL asks for (a primary, with
// target_session_attrs=read-write), so after a promotion it reconnects to the new primary.
// Its health is on the process's metrics (hs_pg_listener_*) and its reconnects in the log.
//
// It knows channels and payloads only: it must not know what a channel means, send
// notifications, or import the parts that subscribe (the key cache, the webhook dispatcher);
// of the product it imports internal/lifecycle only. It follows the lifecycle contract.
package pglisten

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/jackc/pgx/v5"

	"github.com/planehq/hiringsignal/internal/lifecycle"
)

// Defaults of Config.
const (
	DefaultName       = "hiringsignal-listener"
	DefaultPingEvery  = 5 * time.Second
	DefaultMinBackoff = 100 * time.Millisecond
	DefaultMaxBackoff = 5 * time.Second
	DefaultTimeout    = 10 * time.Second
)

// Config configures a Listener. ConnConfig is required; zero values take the defaults.
type Config struct {
	// ConnConfig is the Postgres connection to hold (a pool's: pool.Config().ConnConfig). It is
	// copied; the copy's application_name is Name.
	ConnConfig *pgx.ConnConfig
	// Name is the connection's application_name, as pg_stat_activity shows it (DefaultName).
	Name string
	Log  *slog.Logger // default: discard
	// Metrics receives hs_pg_listener_connected, _channels, _reconnects_total and
	// _notifications_total (nil: a set of its own). A set takes one Listener.
	Metrics *metrics.Set
	// PingEvery is how long the connection may wait for a notification before it is pinged, so
	// a connection that died without a word is found out (DefaultPingEvery).
	PingEvery time.Duration
	// MinBackoff and MaxBackoff bound the wait before a reconnect: it doubles from MinBackoff
	// after every failed attempt, up to MaxBackoff, with jitter (DefaultMinBackoff, DefaultMaxBackoff).
	MinBackoff, MaxBackoff time.Duration
	// Timeout bounds a connect, a LISTEN and a ping (DefaultTimeout).
	Timeout time.Duration
}

// Event is what a subscriber is told about the connection its channel is LISTENed on.
type Event int

const (
	// Listening: the channel is LISTENed, for the first time or again on a new connection after
	// a lost one. Notifications sent before may never have arrived: re-read what they announce.
	Listening Event = iota + 1
	// Lost: the connection is gone. Nothing is delivered until the next Listening; notifications
	// sent meanwhile are lost.
	Lost
)

func (e Event) String() string {
	switch e {
	case Listening:
		return "listening"
	case Lost:
		return "lost"
	}
	return fmt.Sprintf("Event(%d)", int(e))
}

// Listener is the process's LISTEN connection; Start and Stop follow package lifecycle.
type Listener struct {
	cfg  Config
	loop lifecycle.Loop

	// callMu is held while subscribers' functions run (always on the loop's goroutine), so
	// Unlisten can wait for a call in flight.
	callMu sync.Mutex

	mu        sync.Mutex
	subs      map[string][]*Subscription // by channel
	dirty     bool                       // subs changed since the loop last LISTENed
	interrupt context.CancelFunc         // ends the loop's current wait for a notification
	connected bool                       // the loop holds a connection (LISTENs may still be due)
	pid       uint32                     // the connection's backend, 0 when none

	channels      atomic.Int64 // LISTENed on the current connection
	reconnects    *metrics.Counter
	notifications *metrics.Counter
}

// Subscription is one subscriber's interest in one channel; Unlisten ends it.
type Subscription struct {
	l       *Listener
	channel string
	notify  func(channel, payload string)
	status  func(Event)

	told    bool          // told Listening on the current connection (under l.mu)
	settled chan struct{} // closed once LISTENed or the connection it waited for was lost
	once    sync.Once
}

func (s *Subscription) settle() { s.once.Do(func() { close(s.settled) }) }

// New returns a stopped Listener.
func New(cfg Config) *Listener {
	if cfg.Name == "" {
		cfg.Name = DefaultName
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.NewSet()
	}
	if cfg.PingEvery <= 0 {
		cfg.PingEvery = DefaultPingEvery
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(DefaultMaxBackoff, cfg.MinBackoff)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	l := &Listener{cfg: cfg, subs: map[string][]*Subscription{}}
	l.reconnects = cfg.Metrics.NewCounter("hs_pg_listener_reconnects_total")
	l.notifications = cfg.Metrics.NewCounter("hs_pg_listener_notifications_total")
	cfg.Metrics.NewGauge("hs_pg_listener_connected", func() float64 {
		if l.Connected() {
			return 1
		}
		return 0
	})
	cfg.Metrics.NewGauge("hs_pg_listener_channels", func() float64 { return float64(l.channels.Load()) })
	l.loop.Run = l.run
	return l
}

// Start runs the connection's goroutine and returns at once: it connects (and retries) by
// itself. A second Start does nothing.
func (l *Listener) Start(ctx context.Context) error {
	if l.cfg.ConnConfig == nil {
		return errors.New("cannot start the Postgres listener: it needs the Postgres connection config (Config.ConnConfig)")
	}
	return l.loop.Start(ctx)
}

// Stop closes the connection and waits for the goroutine. Subscribers still listening are told
// Lost. A second Stop, or a Stop before Start, does nothing.
func (l *Listener) Stop(ctx context.Context) error {
	if err := l.loop.Stop(ctx); err != nil {
		return fmt.Errorf("cannot stop the Postgres listener: %w", err)
	}
	return nil
}

// Connected reports whether the listener holds a connection.
func (l *Listener) Connected() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.connected
}

// PID is the backend process of the listener's connection (pg_stat_activity.pid), 0 when none.
func (l *Listener) PID() uint32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pid
}

// Listen subscribes to channel: notify receives every notification on it, status (nil: none)
// what happens to the connection (Listening, Lost). Both run on the listener's goroutine, one
// call at a time in the order of the notifications: they must return quickly and must not call
// Listen or Unlisten.
//
// When the listener is connected, Listen returns once channel is LISTENed (status was told
// Listening) or the connection was lost meanwhile; otherwise at once. Either way the
// subscription holds: it is told Listening whenever the channel is LISTENed on a connection.
// It fails only when ctx ends first (nothing is then subscribed) or the channel is no name.
func (l *Listener) Listen(ctx context.Context, channel string, notify func(channel, payload string), status func(Event)) (*Subscription, error) {
	if channel == "" || len(channel) > 63 {
		return nil, fmt.Errorf("cannot LISTEN %q: a channel is a name of 1 to 63 bytes", channel)
	}
	if notify == nil {
		return nil, fmt.Errorf("cannot LISTEN %s: no function to notify", channel)
	}
	s := &Subscription{l: l, channel: channel, notify: notify, status: status, settled: make(chan struct{})}
	l.mu.Lock()
	l.subs[channel] = append(slices.Clip(l.subs[channel]), s)
	l.dirty = true
	wait := l.connected
	if l.interrupt != nil {
		l.interrupt()
	}
	l.mu.Unlock()
	if !wait {
		return s, nil
	}
	select {
	case <-s.settled:
		return s, nil
	case <-ctx.Done():
		s.Unlisten()
		return nil, fmt.Errorf("cannot LISTEN %s: %w", channel, ctx.Err())
	}
}

// Unlisten ends the subscription: once it returns, its functions are not called again. The
// channel is UNLISTENed once no subscription holds it. A second Unlisten does nothing. It must
// not be called from a subscriber's function.
func (s *Subscription) Unlisten() {
	l := s.l
	l.mu.Lock()
	subs := l.subs[s.channel]
	if i := slices.Index(subs, s); i >= 0 {
		subs = slices.Delete(slices.Clone(subs), i, i+1)
		if len(subs) == 0 {
			delete(l.subs, s.channel)
		} else {
			l.subs[s.channel] = subs
		}
		l.dirty = true
		if l.interrupt != nil {
			l.interrupt()
		}
	}
	l.mu.Unlock()
	s.settle()
	// A call that began before the subscription was removed ends before Unlisten returns.
	l.callMu.Lock()
	l.callMu.Unlock() //nolint:staticcheck // an empty critical section: a barrier
}

// run connects, serves the connection until it fails and reconnects after a backoff, until
// ctx ends.
func (l *Listener) run(ctx context.Context) {
	attempt, connects := 0, 0
	var lostAt time.Time
	for {
		conn, err := l.connect(ctx)
		served := err == nil
		if served {
			if connects++; connects > 1 {
				l.reconnects.Inc()
				l.cfg.Log.Info("postgres listener reconnected", "pid", conn.PgConn().PID(), "down_for", time.Since(lostAt).Round(time.Millisecond))
			}
			err = l.serve(ctx, conn, &attempt)
			cctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = conn.Close(cctx)
			cancel()
			l.lost()
			lostAt = time.Now()
		}
		if ctx.Err() != nil {
			return
		}
		wait := l.backoff(attempt)
		attempt++
		if served {
			l.cfg.Log.Warn("postgres listener lost its connection; reconnecting, and its subscribers re-read their state once it has", "err", err, "retry_in", wait)
		} else {
			l.cfg.Log.Warn("cannot connect the postgres listener; retrying", "err", err, "attempt", attempt, "retry_in", wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// backoff is the wait before reconnect attempt n (0 the first): MinBackoff doubled n times, at
// most MaxBackoff, less a random part of up to a half so that processes spread out.
func (l *Listener) backoff(n int) time.Duration {
	d := l.cfg.MinBackoff
	for i := 0; i < n && d < l.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, l.cfg.MaxBackoff)
	return d/2 + rand.N(d/2+1)
}

func (l *Listener) connect(ctx context.Context) (*pgx.Conn, error) {
	cc := l.cfg.ConnConfig.Copy()
	if cc.RuntimeParams == nil {
		cc.RuntimeParams = map[string]string{}
	}
	cc.RuntimeParams["application_name"] = l.cfg.Name
	cctx, cancel := context.WithTimeout(ctx, l.cfg.Timeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(cctx, cc)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to Postgres: %w", err)
	}
	l.mu.Lock()
	l.connected, l.pid = true, conn.PgConn().PID()
	l.mu.Unlock()
	return conn, nil
}

// serve keeps conn LISTENing to what the subscriptions ask for and hands out its notifications,
// until ctx ends or conn fails. Once it LISTENs, the backoff starts over (attempt).
func (l *Listener) serve(ctx context.Context, conn *pgx.Conn, attempt *int) error {
	on := map[string]bool{} // LISTENed on conn
	for {
		if err := l.sync(ctx, conn, on); err != nil {
			return err
		}
		*attempt = 0
		l.mu.Lock()
		if l.dirty {
			l.mu.Unlock()
			continue
		}
		wctx, cancel := context.WithTimeout(ctx, l.cfg.PingEvery)
		l.interrupt = cancel
		l.mu.Unlock()
		n, err := conn.WaitForNotification(wctx)
		l.mu.Lock()
		l.interrupt = nil
		l.mu.Unlock()
		pinging := errors.Is(wctx.Err(), context.DeadlineExceeded)
		cancel()
		switch {
		case n != nil:
			l.deliver(n.Channel, n.Payload)
		case ctx.Err() != nil:
			return ctx.Err()
		case conn.IsClosed() || wctx.Err() == nil:
			return fmt.Errorf("cannot wait for notifications: %w", err)
		case pinging: // nothing came for PingEvery: is the connection still there?
			pctx, cancel := context.WithTimeout(ctx, l.cfg.Timeout)
			err := l.ping(pctx, conn)
			cancel()
			if err != nil {
				return fmt.Errorf("cannot ping the listening connection: %w", err)
			}
		}
		// Otherwise a subscription changed: LISTEN again.
	}
}

// ping checks that conn still answers and, when connecting asked something of its server
// (ConnConfig.ValidateConnect: target_session_attrs=read-write), that its server still is such a
// server: notifications are sent on the primary, so a connection left on a server that turned
// read-only (a fenced old primary after a promotion) would hear nothing, and must reconnect
// through the host list to the new one.
func (l *Listener) ping(ctx context.Context, conn *pgx.Conn) error {
	if v := l.cfg.ConnConfig.ValidateConnect; v != nil {
		if err := v(ctx, conn.PgConn()); err != nil {
			return fmt.Errorf("its server no longer is what the URL asks for (target_session_attrs): %w", err)
		}
		return nil
	}
	return conn.Ping(ctx)
}

// sync LISTENs the channels subscribed to and not yet on conn, UNLISTENs those no longer
// subscribed to, and tells every subscription of a channel now LISTENed that it is.
func (l *Listener) sync(ctx context.Context, conn *pgx.Conn, on map[string]bool) error {
	l.mu.Lock()
	l.dirty = false
	var stmts []string
	add, drop := []string{}, []string{}
	for ch := range l.subs {
		if !on[ch] {
			add = append(add, ch)
			stmts = append(stmts, "LISTEN "+pgx.Identifier{ch}.Sanitize())
		}
	}
	for ch := range on {
		if _, ok := l.subs[ch]; !ok {
			drop = append(drop, ch)
			stmts = append(stmts, "UNLISTEN "+pgx.Identifier{ch}.Sanitize())
		}
	}
	l.mu.Unlock()
	if len(stmts) > 0 {
		sctx, cancel := context.WithTimeout(ctx, l.cfg.Timeout)
		_, err := conn.Exec(sctx, strings.Join(stmts, "; "))
		cancel()
		if err != nil {
			return fmt.Errorf("cannot LISTEN %s: %w", strings.Join(add, ", "), err)
		}
		for _, ch := range add {
			on[ch] = true
		}
		for _, ch := range drop {
			delete(on, ch)
		}
		l.channels.Store(int64(len(on)))
	}

	l.callMu.Lock()
	defer l.callMu.Unlock()
	var tell []*Subscription
	l.mu.Lock()
	for ch, subs := range l.subs {
		if !on[ch] {
			continue
		}
		for _, s := range subs {
			if !s.told {
				s.told = true
				tell = append(tell, s)
			}
		}
	}
	l.mu.Unlock()
	for _, s := range tell {
		if s.status != nil {
			s.status(Listening)
		}
		s.settle()
	}
	return nil
}

// deliver hands one notification to every subscription of its channel.
func (l *Listener) deliver(channel, payload string) {
	l.notifications.Inc()
	l.callMu.Lock()
	defer l.callMu.Unlock()
	l.mu.Lock()
	subs := l.subs[channel] // never changed in place: Listen and Unlisten make new slices
	l.mu.Unlock()
	for _, s := range subs {
		s.notify(channel, payload)
	}
}

// lost marks the connection gone and tells every subscription told Listening.
func (l *Listener) lost() {
	l.channels.Store(0)
	l.callMu.Lock()
	defer l.callMu.Unlock()
	var tell, all []*Subscription
	l.mu.Lock()
	l.connected, l.pid = false, 0
	for _, subs := range l.subs {
		for _, s := range subs {
			all = append(all, s)
			if s.told {
				s.told = false
				tell = append(tell, s)
			}
		}
	}
	l.mu.Unlock()
	for _, s := range tell {
		if s.status != nil {
			s.status(Lost)
		}
	}
	for _, s := range all {
		s.settle()
	}
}
