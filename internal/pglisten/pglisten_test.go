package pglisten

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// These tests run against the real Postgres (HS_POSTGRES_URL). Channels and the connection's
// application_name are unique per test, so tests running beside them on the same server (other
// packages' listeners included) neither see their notifications nor lose their connections.

func unique(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}

// admin is a connection of the test's own, to NOTIFY and to look at pg_stat_activity.
func admin(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, storetest.PostgresServerURL())
	require.NoError(t, err, "cannot reach Postgres: set HS_POSTGRES_URL")
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

type fixture struct {
	t     *testing.T
	l     *Listener
	set   *metrics.Set
	name  string
	admin *pgx.Conn
}

// newListener is a Listener on the test server, not yet started, with a short backoff.
func newListener(t *testing.T) *fixture {
	t.Helper()
	cc, err := pgx.ParseConfig(storetest.PostgresServerURL())
	require.NoError(t, err)
	f := &fixture{t: t, set: metrics.NewSet(), name: unique("hs_pglisten_test"), admin: admin(t)}
	f.l = New(Config{ConnConfig: cc, Name: f.name, Metrics: f.set, MinBackoff: 10 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, f.l.Stop(ctx))
	})
	return f
}

func (f *fixture) start() {
	f.t.Helper()
	require.NoError(f.t, f.l.Start(context.Background()))
	require.Eventually(f.t, f.l.Connected, 10*time.Second, 5*time.Millisecond)
}

func (f *fixture) notify(channel, payload string) {
	f.t.Helper()
	_, err := f.admin.Exec(context.Background(), "SELECT pg_notify($1, $2)", channel, payload)
	require.NoError(f.t, err)
}

// backends are the pids of the listener's connections, as Postgres sees them.
func (f *fixture) backends() []uint32 {
	f.t.Helper()
	rows, err := f.admin.Query(context.Background(), "SELECT pid FROM pg_stat_activity WHERE application_name = $1", f.name)
	require.NoError(f.t, err)
	pids, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
	require.NoError(f.t, err)
	return pids
}

func (f *fixture) metric(want string) bool {
	var b bytes.Buffer
	f.set.WritePrometheus(&b)
	return bytes.Contains(b.Bytes(), []byte(want))
}

// inbox records what one subscription was handed.
type inbox struct {
	mu     sync.Mutex
	got    []string // channel + " " + payload
	events []Event
}

func (in *inbox) notify(channel, payload string) {
	in.mu.Lock()
	in.got = append(in.got, channel+" "+payload)
	in.mu.Unlock()
}

func (in *inbox) status(e Event) {
	in.mu.Lock()
	in.events = append(in.events, e)
	in.mu.Unlock()
}

func (in *inbox) notes() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]string(nil), in.got...)
}

func (in *inbox) told() []Event {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]Event(nil), in.events...)
}

func (f *fixture) listen(channel string) (*inbox, *Subscription) {
	f.t.Helper()
	in := &inbox{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := f.l.Listen(ctx, channel, in.notify, in.status)
	require.NoError(f.t, err)
	return in, s
}

func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, 5*time.Millisecond, msg)
}

func TestANotificationReachesEverySubscriberOfItsChannelAndNoOther(t *testing.T) {
	f := newListener(t)
	f.start()
	a, b := unique("hs_a"), unique("hs_b")
	a1, _ := f.listen(a)
	a2, _ := f.listen(a)
	b1, _ := f.listen(b)
	for _, in := range []*inbox{a1, a2, b1} {
		require.Equal(t, []Event{Listening}, in.told(), "Listen returns once its channel is LISTENed")
	}

	f.notify(a, "first")
	f.notify(b, "second")
	eventually(t, func() bool { return len(b1.notes()) == 1 }, "b's subscriber never heard of b")
	eventually(t, func() bool { return len(a1.notes()) == 1 && len(a2.notes()) == 1 }, "a's subscribers never heard of a")
	require.Equal(t, []string{a + " first"}, a1.notes())
	require.Equal(t, []string{a + " first"}, a2.notes())
	require.Equal(t, []string{b + " second"}, b1.notes(), "a's notification did not reach b's subscriber")
	require.True(t, f.metric("hs_pg_listener_channels 2"))
	require.True(t, f.metric("hs_pg_listener_notifications_total 2"))
}

func TestUnlistenStopsDelivery(t *testing.T) {
	f := newListener(t)
	f.start()
	ch := unique("hs_c")
	gone, s := f.listen(ch)
	kept, keptSub := f.listen(ch)
	s.Unlisten()
	s.Unlisten() // a second Unlisten does nothing

	f.notify(ch, "after")
	eventually(t, func() bool { return len(kept.notes()) == 1 }, "the other subscriber of the channel still hears it")
	require.Empty(t, gone.notes(), "an ended subscription is handed nothing")

	// The last subscription gone, the channel is UNLISTENed.
	keptSub.Unlisten()
	eventually(t, func() bool { return f.metric("hs_pg_listener_channels 0") }, "the channel was never UNLISTENed")
	f.notify(ch, "unheard")
	other := unique("hs_d")
	probe, _ := f.listen(other)
	f.notify(other, "probe") // sent after "unheard": once it arrives, "unheard" would have
	eventually(t, func() bool { return len(probe.notes()) == 1 }, "the listener stopped hearing anything")
	require.Len(t, kept.notes(), 1)
	require.Empty(t, gone.notes())
}

// A subscription made while the listener waits for notifications is LISTENed before Listen
// returns: a notification sent at once is not lost.
func TestListenReturnsOnceTheChannelIsListened(t *testing.T) {
	f := newListener(t)
	f.start()
	f.listen(unique("hs_idle")) // the listener now waits on its connection
	for i := range 5 {
		ch := unique("hs_new")
		in, _ := f.listen(ch)
		f.notify(ch, "now")
		eventually(t, func() bool { return len(in.notes()) == 1 }, "a notification sent right after Listen was lost")
		require.Equal(t, []Event{Listening}, in.told(), "subscription %d", i)
	}
}

func TestItReconnectsAfterItsBackendIsKilled(t *testing.T) {
	f := newListener(t)
	ch := unique("hs_r")
	in, _ := f.listen(ch) // before Start: LISTENed once connected
	require.Empty(t, in.told())
	f.start()
	eventually(t, func() bool { return len(in.told()) == 1 }, "never told Listening")
	first := f.l.PID()
	require.Equal(t, []uint32{first}, f.backends(), "one connection, under its application_name")
	require.True(t, f.metric("hs_pg_listener_connected 1"))

	var killed bool
	require.NoError(t, f.admin.QueryRow(context.Background(), "SELECT pg_terminate_backend($1)", first).Scan(&killed))
	require.True(t, killed)
	eventually(t, func() bool { return len(in.told()) == 3 }, "never told the connection was lost and LISTENed again")
	require.Equal(t, []Event{Listening, Lost, Listening}, in.told(), "notifications may have been lost: the subscriber was told")
	second := f.l.PID()
	require.NotZero(t, second)
	require.NotEqual(t, first, second, "a new connection")
	require.Equal(t, []uint32{second}, f.backends())
	require.True(t, f.metric("hs_pg_listener_reconnects_total 1"))
	require.True(t, f.metric("hs_pg_listener_connected 1"))

	f.notify(ch, "later")
	eventually(t, func() bool { return len(in.notes()) == 1 }, "the channel was not LISTENed again")
	require.Equal(t, []string{ch + " later"}, in.notes())
}

// A server that stops being what the URL asks for (target_session_attrs=read-write: here a
// ValidateConnect the test turns) is found at the next ping and left: the listener reconnects
// through the host list, and only to a server that passes (the new primary after a switch).
func TestAServerThatTurnsReadOnlyIsLeftAtThePing(t *testing.T) {
	f := newListener(t)
	var fenced sync.Mutex
	readOnly := false
	f.l.cfg.PingEvery = 20 * time.Millisecond
	f.l.cfg.ConnConfig.ValidateConnect = func(ctx context.Context, c *pgconn.PgConn) error {
		fenced.Lock()
		defer fenced.Unlock()
		if readOnly {
			return pgconn.ErrReadOnlyConnection
		}
		return nil
	}
	ch := unique("hs_ro")
	in, _ := f.listen(ch)
	f.start()
	first := f.l.PID()
	fenced.Lock()
	readOnly = true
	fenced.Unlock()
	eventually(t, func() bool { return !f.l.Connected() }, "the listener stays on a read-only server")
	require.Equal(t, []Event{Listening, Lost}, in.told())
	fenced.Lock()
	readOnly = false
	fenced.Unlock()
	eventually(t, func() bool { return len(in.told()) == 3 }, "never LISTENed again once a server passed")
	require.NotEqual(t, first, f.l.PID())
	f.notify(ch, "after")
	eventually(t, func() bool { return len(in.notes()) == 1 }, "the channel was not LISTENed again")
}

// A connection that answers nothing for a while is pinged; a connection that stays is kept.
func TestAnIdleConnectionIsPingedAndKept(t *testing.T) {
	f := newListener(t)
	f.l.cfg.PingEvery = 20 * time.Millisecond
	ch := unique("hs_p")
	in, _ := f.listen(ch)
	f.start()
	pid := f.l.PID()
	time.Sleep(150 * time.Millisecond)
	require.Equal(t, pid, f.l.PID(), "still the same connection")
	require.Equal(t, []Event{Listening}, in.told())
	f.notify(ch, "x")
	eventually(t, func() bool { return len(in.notes()) == 1 }, "a pinged connection still delivers")
}

// running lists the goroutines that run code of this package or of pgx.
func running() []string {
	buf := make([]byte, 1<<20)
	var out []string
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "internal/pglisten.(*") || strings.Contains(g, "github.com/jackc/pgx") {
			out = append(out, g)
		}
	}
	return out
}

func TestStopLeavesNothingRunning(t *testing.T) {
	f := newListener(t)
	require.NoError(t, f.l.Stop(context.Background()), "Stop before Start does nothing")
	ch := unique("hs_s")
	in, _ := f.listen(ch)
	f.start()
	require.NoError(t, f.l.Start(context.Background()), "a second Start does nothing")
	eventually(t, func() bool { return len(in.told()) == 1 }, "never told Listening")
	require.Len(t, f.backends(), 1)
	require.NotEmpty(t, running(), "the listener's goroutine is seen while it runs")

	require.NoError(t, f.l.Stop(context.Background()))
	require.NoError(t, f.l.Stop(context.Background()), "a second Stop does nothing")
	require.False(t, f.l.loop.Running())
	require.False(t, f.l.Connected())
	require.Equal(t, []Event{Listening, Lost}, in.told(), "a subscriber still listening hears that nothing comes any more")
	require.True(t, f.metric("hs_pg_listener_connected 0"))
	eventually(t, func() bool { return len(f.backends()) == 0 }, "the connection was left open")
	eventually(t, func() bool { return len(running()) == 0 }, "goroutines were left running")

	f.notify(ch, "after stop")
	time.Sleep(50 * time.Millisecond)
	require.Empty(t, in.notes())
}

// Listen refuses what cannot be a channel and gives up when its context ends.
func TestListenRefusesNoName(t *testing.T) {
	f := newListener(t)
	_, err := f.l.Listen(context.Background(), "", func(string, string) {}, nil)
	require.ErrorContains(t, err, "a channel is a name")
	_, err = f.l.Listen(context.Background(), string(make([]byte, 64)), func(string, string) {}, nil)
	require.ErrorContains(t, err, "a channel is a name")
	_, err = f.l.Listen(context.Background(), "hs_x", nil, nil)
	require.ErrorContains(t, err, "no function")
}

func TestBackoffDoublesWithinItsBounds(t *testing.T) {
	l := New(Config{MinBackoff: 100 * time.Millisecond, MaxBackoff: 5 * time.Second})
	for n, ceiling := range []time.Duration{100, 200, 400, 800, 1600, 3200, 5000, 5000} {
		ceiling *= time.Millisecond
		for range 50 {
			d := l.backoff(n)
			require.GreaterOrEqual(t, d, ceiling/2, "attempt %d", n)
			require.LessOrEqual(t, d, ceiling, "attempt %d", n)
		}
	}
	require.LessOrEqual(t, l.backoff(1000), 5*time.Second)
}
