package api

import (
	"bytes"
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
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/apikey"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/plans"
)

// keyEntry is a cached authentication of one key.
type keyEntry struct {
	auth     oltp.KeyAuth
	plan     plans.Tier
	loadedAt time.Time
	inflight *atomic.Int64 // calls of this key in flight on this instance (key_throttled); shared by reloads of the key
}

// authCache caches key lookups by key hash. Every change to keys or accounts (revoke, rotate,
// pause, resume) sends a NOTIFY on oltp.AuthChannel in its transaction; each instance LISTENs,
// drops its whole cache when one arrives and acknowledges on oltp.AuthAckChannel. The instance
// that made the change answers only once every live instance (api_instances heartbeat) has
// acknowledged, so the very next call on any instance sees the change. While an instance's
// listener is down its cache is bypassed (every call reads Postgres); entries also expire after
// entryTTL as a last resort.
type authCache struct {
	pool *pgxpool.Pool
	log  *slog.Logger

	ttl     time.Duration // entryTTL
	mu      sync.RWMutex
	entries map[[32]byte]*keyEntry
	gen     uint64 // bumped by every flush; a lookup stores its result only if gen did not move

	id      string // this instance, in api_instances
	healthy atomic.Bool
	waitMu  sync.Mutex
	waiters map[string]*waiter
}

// entryTTL is how long a cached key is trusted without a notification (authCache.ttl).
const entryTTL = 60 * time.Second

func newAuthCache(pool *pgxpool.Pool, log *slog.Logger) *authCache {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &authCache{pool: pool, log: log, ttl: entryTTL, entries: map[[32]byte]*keyEntry{}, waiters: map[string]*waiter{}, id: "api-" + hex.EncodeToString(b[:])}
}

// presentedKey returns the key of X-API-Key or Authorization: Bearer (X-API-Key wins when both
// are sent) and whether any was sent.
func presentedKey(ctx *fasthttp.RequestCtx) (string, bool) {
	if v := bytes.TrimSpace(ctx.Request.Header.Peek("X-API-Key")); len(v) > 0 {
		return string(v), true
	}
	if v := bytes.TrimSpace(ctx.Request.Header.Peek("Authorization")); len(v) > 7 && bytes.EqualFold(v[:7], []byte("bearer ")) {
		if k := bytes.TrimSpace(v[7:]); len(k) > 0 {
			return string(k), true
		}
	}
	return "", false
}

// lookup authenticates key. It returns nil for a malformed, unknown or revoked key.
func (a *authCache) lookup(ctx context.Context, key string) (*keyEntry, error) {
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
		if e.auth.Revoked {
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
	e = &keyEntry{auth: k, plan: plan, loadedAt: time.Now(), inflight: new(atomic.Int64)}
	if useCache {
		a.mu.Lock()
		if a.gen == gen {
			switch old := a.entries[h]; {
			case old != nil && !old.auth.Revoked && time.Since(old.loadedAt) < a.ttl:
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

func (a *authCache) flush() {
	a.mu.Lock()
	a.entries = map[[32]byte]*keyEntry{}
	a.gen++
	a.mu.Unlock()
}

// waiter collects the acknowledgements of one change from every live instance.
type waiter struct {
	need    map[string]bool // guarded by authCache.waitMu
	waitFor int             // len(need) at registration
	done    chan struct{}
}

// expect registers a change about to be committed: its notification token and the live
// instances that must acknowledge it.
func (a *authCache) expect(ctx context.Context) (token string, w *waiter) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	token = hex.EncodeToString(b[:])
	w = &waiter{need: map[string]bool{}, done: make(chan struct{})}
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

// settle is called after a change committed: it drops this instance's cache and waits (bounded)
// until every live instance acknowledged dropping its own, so the next call anywhere sees it.
func (a *authCache) settle(token string, w *waiter) {
	a.flush()
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
	a.flush()
}

const ackTimeout = 2 * time.Second

func (a *authCache) acked(payload string) {
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
func (a *authCache) heartbeat(ctx context.Context) {
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
func (a *authCache) listen(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		if err := a.listenOnce(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("auth cache listener lost; the cache is bypassed until it reconnects", "err", err, "retry_in", backoff)
		}
		a.healthy.Store(false)
		a.flush()
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (a *authCache) listenOnce(ctx context.Context) error {
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
	a.flush()
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
		a.flush()
		if _, err := conn.Exec(ctx, "SELECT pg_notify($1, $2)", oltp.AuthAckChannel, n.Payload+" "+a.id); err != nil {
			return err
		}
	}
}

// listening reports whether the cache listener is connected (the cache is in use).
func (a *authCache) listening() bool { return a.healthy.Load() }
