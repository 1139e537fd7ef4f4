// Package admission decides whether a call may run, before the API serves it: who the presented
// key is (a cache of key lookups that every instance drops on a key or account change), whether
// the caller is within its rate limit and daily quota (fixed windows shared across instances
// through Postgres leases) and whether its account is under its hard spend cap.
//
// It returns decisions and typed results; package api turns them into HTTP answers. It must not
// import api nor know HTTP. It reads keys, rate windows and monthly units through package oltp.
package admission

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/apikey"
	"github.com/planehq/hiringsignal/lifecycle"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/plans"
)

// Key is a cached authentication of one key: its record and its plan.
type Key struct {
	Auth     oltp.KeyAuth
	Plan     plans.Tier
	loadedAt time.Time
	inflight *atomic.Int64 // calls of this key in flight on this instance (key_throttled); shared by reloads of the key
}

// Enter counts one more call of the key in flight on this instance and returns the count; Leave
// undoes it.
func (k *Key) Enter() int64 { return k.inflight.Add(1) }

// Leave ends a call counted by Enter.
func (k *Key) Leave() { k.inflight.Add(-1) }

// Auth caches key lookups by key hash. Every change to keys or accounts (revoke, rotate, pause,
// resume) sends a NOTIFY on oltp.AuthChannel in its transaction; each instance LISTENs, drops its
// whole cache when one arrives and acknowledges on oltp.AuthAckChannel. The instance that made
// the change answers only once every live instance (api_instances heartbeat) has acknowledged,
// so the very next call on any instance sees the change. While an instance's listener is down
// its cache is bypassed (every call reads Postgres); entries also expire after entryTTL as a last
// resort. Start runs the listener and the heartbeat (the lifecycle contract); without them every
// lookup reads Postgres.
type Auth struct {
	pool *pgxpool.Pool
	log  *slog.Logger
	loop lifecycle.Loop

	ttl     time.Duration // entryTTL
	mu      sync.RWMutex
	entries map[[32]byte]*Key
	gen     uint64 // bumped by every flush; a lookup stores its result only if gen did not move

	id      string // this instance, in api_instances
	healthy atomic.Bool
	waitMu  sync.Mutex
	waiters map[string]*Waiter
}

// entryTTL is how long a cached key is trusted without a notification (Auth.ttl).
const entryTTL = 60 * time.Second

// NewAuth returns the key cache of one instance.
func NewAuth(pool *pgxpool.Pool, log *slog.Logger) *Auth {
	var b [8]byte
	_, _ = rand.Read(b[:])
	a := &Auth{pool: pool, log: log, ttl: entryTTL, entries: map[[32]byte]*Key{}, waiters: map[string]*Waiter{}, id: "api-" + hex.EncodeToString(b[:])}
	a.loop.Run = a.run
	return a
}

// Start runs the change listener and the instance heartbeat until Stop.
func (a *Auth) Start(ctx context.Context) error { return a.loop.Start(ctx) }

// Stop ends the listener and the heartbeat (deregistering the instance) and waits for both.
func (a *Auth) Stop(ctx context.Context) error { return a.loop.Stop(ctx) }

func (a *Auth) run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a.listen(ctx) }()
	go func() { defer wg.Done(); a.heartbeat(ctx) }()
	wg.Wait()
}

// Lookup authenticates key. It returns nil for a malformed, unknown or revoked key.
func (a *Auth) Lookup(ctx context.Context, key string) (*Key, error) {
	if !apikey.WellFormed(key) {
		return nil, nil
	}
	h := sha256.Sum256([]byte(key))
	useCache := a.healthy.Load()
	a.mu.RLock()
	e := a.entries[h]
	gen := a.gen
	a.mu.RUnlock()
	if useCache && e != nil && time.Since(e.loadedAt) < a.ttl {
		if e.Auth.Revoked {
			return nil, nil
		}
		return e, nil
	}
	k, found, err := oltp.LookupKey(ctx, a.pool, h[:])
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, nil
	}
	plan, ok := plans.ByID(k.Tier)
	if !ok {
		plan, _ = plans.ByID("tier_0")
	}
	e = &Key{Auth: k, Plan: plan, loadedAt: time.Now(), inflight: new(atomic.Int64)}
	if useCache {
		a.mu.Lock()
		if a.gen == gen {
			switch old := a.entries[h]; {
			case old != nil && !old.Auth.Revoked && time.Since(old.loadedAt) < a.ttl:
				e = old // a concurrent loader was first: use its entry
			case old != nil:
				e.inflight = old.inflight // a reload of an expired entry keeps counting the calls in flight
				a.entries[h] = e
			default:
				a.entries[h] = e
			}
		}
		a.mu.Unlock()
	}
	if k.Revoked {
		return nil, nil
	}
	return e, nil
}

// Flush drops every cached key (after a change this instance made outside Expect and Settle,
// such as installing the demo key).
func (a *Auth) Flush() {
	a.mu.Lock()
	a.entries = map[[32]byte]*Key{}
	a.gen++
	a.mu.Unlock()
}

// Waiter collects the acknowledgements of one change from every live instance.
type Waiter struct {
	need    map[string]bool // guarded by Auth.waitMu
	waitFor int             // len(need) at registration
	done    chan struct{}
}

// Expect registers a change about to be committed: its notification token (the change's
// transaction sends it with its NOTIFY) and the live instances that must acknowledge it.
func (a *Auth) Expect(ctx context.Context) (token string, w *Waiter) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	token = hex.EncodeToString(b[:])
	w = &Waiter{need: map[string]bool{}, done: make(chan struct{})}
	live, err := oltp.LiveInstances(ctx, a.pool)
	if err != nil {
		a.log.Warn("cannot list API instances; waiting for this instance only", "err", err)
	}
	for _, id := range live {
		w.need[id] = true
	}
	if a.healthy.Load() {
		w.need[a.id] = true
	}
	w.waitFor = len(w.need)
	a.waitMu.Lock()
	a.waiters[token] = w
	a.waitMu.Unlock()
	return token, w
}

// Settle is called after a change committed: it drops this instance's cache and waits (bounded)
// until every live instance acknowledged dropping its own, so the next call anywhere sees it. A
// nil w (nothing changed) only drops the cache and forgets the token.
func (a *Auth) Settle(token string, w *Waiter) {
	a.Flush()
	if w != nil && w.waitFor > 0 {
		select {
		case <-w.done:
		case <-time.After(ackTimeout):
			a.log.Warn("not every API instance acknowledged a key/account change in time; a silent instance may serve it stale until its cache entry expires", "timeout", ackTimeout)
		}
	}
	a.waitMu.Lock()
	delete(a.waiters, token)
	a.waitMu.Unlock()
	a.Flush()
}

const ackTimeout = 2 * time.Second

func (a *Auth) acked(payload string) {
	token, inst, ok := strings.Cut(payload, " ")
	if !ok {
		return
	}
	a.waitMu.Lock()
	defer a.waitMu.Unlock()
	w := a.waiters[token]
	if w == nil || !w.need[inst] {
		return
	}
	delete(w.need, inst)
	if len(w.need) == 0 {
		close(w.done)
	}
}

// heartbeat keeps this instance in api_instances while its listener is up.
func (a *Auth) heartbeat(ctx context.Context) {
	t := time.NewTicker(oltp.InstanceTTLSeconds * time.Second / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = oltp.DeregisterInstance(dctx, a.pool, a.id)
			cancel()
			return
		case <-t.C:
		}
		if a.healthy.Load() {
			if err := oltp.HeartbeatInstance(ctx, a.pool, a.id); err != nil && ctx.Err() == nil {
				a.log.Warn("cannot heartbeat", "err", err)
			}
		}
	}
}

// listen keeps a LISTEN connection open until ctx ends, reconnecting with backoff.
func (a *Auth) listen(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		if err := a.listenOnce(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("auth cache listener lost; the cache is bypassed until it reconnects", "err", err, "retry_in", backoff)
		}
		a.healthy.Store(false)
		a.Flush()
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (a *Auth) listenOnce(ctx context.Context) error {
	pc, err := a.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	conn := pc.Hijack()
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+oltp.AuthChannel+"; LISTEN "+oltp.AuthAckChannel); err != nil {
		return err
	}
	if err := oltp.HeartbeatInstance(ctx, a.pool, a.id); err != nil {
		return err
	}
	a.Flush()
	a.healthy.Store(true)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if n.Channel == oltp.AuthAckChannel {
			a.acked(n.Payload)
			continue
		}
		a.Flush()
		if _, err := conn.Exec(ctx, "SELECT pg_notify($1, $2)", oltp.AuthAckChannel, n.Payload+" "+a.id); err != nil {
			return err
		}
	}
}

// Listening reports whether the cache listener is connected (the cache is in use).
func (a *Auth) Listening() bool { return a.healthy.Load() }
