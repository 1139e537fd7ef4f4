// Package admission decides whether a call may run, before the API serves it: who the presented
// key is (a cache of key lookups that every instance invalidates per key or account on a change,
// with a bounded memory of unknown keys), whether the caller is within its rate limit and daily
// quota, per key lineage and per account (fixed windows shared across instances through Postgres
// leases), within the protocol window of a mounted interface (ProtocolRate), and whether its
// account is under its hard spend cap.
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

	"github.com/VictoriaMetrics/metrics"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/apikey"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
)

// Key is a cached authentication of one key: its record and its plan.
type Key struct {
	Auth     oltp.KeyAuth
	Plan     plans.Tier
	loadedAt time.Time
	inflight *atomic.Int64 // calls of the key's lineage in flight on this instance (key_throttled)
}

// Enter counts one more call of the key in flight on this instance and returns the count; Leave
// undoes it. The count is the key lineage's (Auth.LimitID): a rotation replacement inherits it.
func (k *Key) Enter() int64 { return k.inflight.Add(1) }

// Leave ends a call counted by Enter.
func (k *Key) Leave() { k.inflight.Add(-1) }

// Auth caches key lookups by key hash. Every change to keys or accounts (revoke, rotate, pause,
// resume) sends a NOTIFY on oltp.AuthChannel in its transaction naming what it touched (keys,
// accounts, or everything: oltp.AuthChange); each instance LISTENs, drops the cached keys the
// change touched and acknowledges on oltp.AuthAckChannel. The instance that made the change
// answers only once every live instance (api_instances heartbeat) has acknowledged, so the very
// next call on any instance sees the change. While an instance's listener is down its cache is
// bypassed (every call reads Postgres); entries also expire after entryTTL as a last resort.
// Calls in flight are counted per key lineage apart from the cache: dropping an entry keeps them.
//
// Unknown keys (well-formed: the checksum is public) are remembered for missTTL, at most
// maxMisses of them, so repeating one costs no Postgres read; and each client address may make
// MissesPerMinute lookups that find no usable key per minute on one instance before its
// uncached keys are refused unread (MissLimitError). A key can only be unknown before it exists:
// minted keys are random, so no one presents one before it is minted; the configured demo key is
// installed with an everything-notification, which drops remembered misses too.
//
// Start runs the listener and the heartbeat (the lifecycle contract); without them every lookup
// reads Postgres. The heartbeat also sweeps what expired, so the cache holds the keys in use,
// not every key ever presented.
type Auth struct {
	pool *pgxpool.Pool
	log  *slog.Logger
	loop lifecycle.Loop

	ttl     time.Duration // entryTTL
	missTTL time.Duration // missTTL
	maxMiss int           // maxMisses
	mu      sync.RWMutex
	entries map[[32]byte]*Key
	misses  map[[32]byte]time.Time     // unknown keys, until when each miss is trusted
	gen     uint64                     // bumped by every invalidation
	changes [changeLog]oltp.AuthChange // the latest invalidations, at gen % changeLog

	flightMu sync.Mutex
	flight   map[int64]*atomic.Int64 // calls in flight per key lineage (limit_id) authenticated here

	budget missBudget
	stats  authStats

	id      string // this instance, in api_instances
	healthy atomic.Bool
	waitMu  sync.Mutex
	waiters map[string]*Waiter
}

const (
	// entryTTL is how long a cached key is trusted without a notification (Auth.ttl).
	entryTTL = 60 * time.Second
	// missTTL is how long an unknown key is remembered (Auth.missTTL).
	missTTL = 30 * time.Second
	// maxMisses bounds the unknown keys remembered (Auth.maxMiss).
	maxMisses = 10000
	// changeLog is how many invalidations a lookup in flight can be checked against; a lookup
	// that saw more pass does not cache its result.
	changeLog = 64
)

// authStats counts lookups served from the cache (hits), lookups that read Postgres, and
// refusals by reason. The cache hit ratio is hits / (hits + lookups).
type authStats struct {
	hits, lookups, malformed, unknown, unknownCached, revoked, missLimited *metrics.Counter
}

// NewAuth returns the key cache of one instance; it counts its Postgres lookups and refusals in
// set (nil: a set of its own, served nowhere).
func NewAuth(pool *pgxpool.Pool, log *slog.Logger, set *metrics.Set) *Auth {
	if set == nil {
		set = metrics.NewSet()
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	refused := func(reason string) *metrics.Counter {
		return set.GetOrCreateCounter(`hs_auth_refused_total{reason="` + reason + `"}`)
	}
	a := &Auth{pool: pool, log: log, ttl: entryTTL, missTTL: missTTL, maxMiss: maxMisses,
		entries: map[[32]byte]*Key{}, misses: map[[32]byte]time.Time{}, flight: map[int64]*atomic.Int64{},
		waiters: map[string]*Waiter{}, id: "api-" + hex.EncodeToString(b[:]),
		stats: authStats{hits: set.GetOrCreateCounter("hs_auth_cache_hits_total"), lookups: set.GetOrCreateCounter("hs_auth_postgres_lookups_total"), malformed: refused("malformed"),
			unknown: refused("unknown"), unknownCached: refused("unknown_cached"), revoked: refused("revoked"), missLimited: refused("miss_limited")}}
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

// Lookup authenticates key presented from address ip. It returns nil for a malformed, unknown
// or revoked key, and a *MissLimitError (see MissLimited), reading nothing, when ip already
// presented MissesPerMinute keys this minute that were unknown or revoked.
func (a *Auth) Lookup(ctx context.Context, key, ip string) (*Key, error) {
	if !apikey.WellFormed(key) {
		a.stats.malformed.Inc()
		return nil, nil
	}
	h := sha256.Sum256([]byte(key))
	now := time.Now()
	useCache := a.healthy.Load()
	a.mu.RLock()
	e := a.entries[h]
	missUntil, missed := a.misses[h]
	gen := a.gen
	a.mu.RUnlock()
	if useCache && e != nil && now.Sub(e.loadedAt) < a.ttl {
		a.stats.hits.Inc()
		if e.Auth.Revoked {
			a.stats.revoked.Inc()
			return nil, nil
		}
		return e, nil
	}
	if useCache && missed && now.Before(missUntil) {
		a.stats.unknownCached.Inc()
		return nil, nil
	}
	if err := a.budget.check(ip, now); err != nil {
		a.stats.missLimited.Inc()
		return nil, err
	}
	a.stats.lookups.Inc()
	k, found, err := oltp.LookupKey(ctx, a.pool, h[:])
	if err != nil {
		return nil, err
	}
	if !found {
		a.stats.unknown.Inc()
		a.budget.spend(ip, now)
		if useCache {
			a.storeMiss(h, gen, now)
		}
		return nil, nil
	}
	plan, ok := plans.ByID(k.Tier)
	if !ok {
		plan, _ = plans.ByID("tier_0")
	}
	e = &Key{Auth: k, Plan: plan, loadedAt: now, inflight: a.inFlight(k.LimitID)}
	if useCache {
		a.mu.Lock()
		switch old := a.entries[h]; {
		case old != nil && !old.Auth.Revoked && now.Sub(old.loadedAt) < a.ttl:
			e = old // a concurrent loader was first: use its entry
		case !a.changedSince(gen, &k):
			a.entries[h] = e
			delete(a.misses, h)
		}
		a.mu.Unlock()
	}
	if k.Revoked {
		a.stats.revoked.Inc()
		a.budget.spend(ip, now)
		return nil, nil
	}
	return e, nil
}

// inFlight is the in-flight count of the key lineage limitID; it outlives cache entries.
func (a *Auth) inFlight(limitID int64) *atomic.Int64 {
	a.flightMu.Lock()
	defer a.flightMu.Unlock()
	c := a.flight[limitID]
	if c == nil {
		c = new(atomic.Int64)
		a.flight[limitID] = c
	}
	return c
}

// storeMiss remembers that the key hashing to h is unknown, unless everything was invalidated
// since the lookup began (gen). When maxMiss are remembered, an expired or arbitrary one goes.
func (a *Auth) storeMiss(h [32]byte, gen uint64, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.changedSince(gen, nil) {
		return
	}
	if _, ok := a.misses[h]; !ok && len(a.misses) >= a.maxMiss {
		n := 0
		var victim [32]byte
		for k, until := range a.misses { // map order is random: a sample of a few entries
			victim = k
			if n++; !now.Before(until) || n == 8 {
				break
			}
		}
		delete(a.misses, victim)
	}
	a.misses[h] = now.Add(a.missTTL)
}

// changedSince reports whether an invalidation after gen touched k (nil: an unknown key, which
// only an everything-invalidation touches). a.mu is held.
func (a *Auth) changedSince(gen uint64, k *oltp.KeyAuth) bool {
	if a.gen-gen > changeLog {
		return true
	}
	for g := gen + 1; g <= a.gen; g++ {
		c := a.changes[g%changeLog]
		if c.All || (k != nil && c.Covers(k.KeyID, k.AccountID)) {
			return true
		}
	}
	return false
}

// invalidate drops what c touched: the cached keys it names, those of the accounts it names, or
// everything (remembered misses included). In-flight counts are kept.
func (a *Auth) invalidate(c oltp.AuthChange) {
	c.Token = ""
	a.mu.Lock()
	defer a.mu.Unlock()
	a.gen++
	a.changes[a.gen%changeLog] = c
	if c.All {
		a.entries = map[[32]byte]*Key{}
		a.misses = map[[32]byte]time.Time{}
		return
	}
	for h, e := range a.entries {
		if c.Covers(e.Auth.KeyID, e.Auth.AccountID) {
			delete(a.entries, h)
		}
	}
}

// Flush drops every cached key and remembered miss (after a change this instance made outside
// Expect and Settle, such as installing the demo key).
func (a *Auth) Flush() { a.invalidate(oltp.AuthChange{All: true}) }

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

// Settle is called after a change committed: it waits (bounded) until every live instance,
// this one included, acknowledged dropping what the change touched, so the next call anywhere
// sees it. Should this instance not acknowledge in time, it drops its whole cache. A nil w
// (nothing changed) only forgets the token.
func (a *Auth) Settle(token string, w *Waiter) {
	if w != nil && w.waitFor > 0 {
		select {
		case <-w.done:
		case <-time.After(ackTimeout):
			a.log.Warn("not every API instance acknowledged a key/account change in time; a silent instance may serve it stale until its cache entry expires", "timeout", ackTimeout)
		}
	}
	a.waitMu.Lock()
	delete(a.waiters, token)
	selfPending := w != nil && w.need[a.id]
	a.waitMu.Unlock()
	if selfPending {
		a.Flush()
	}
}

const ackTimeout = 2 * time.Second

// acked reads an acknowledgement, "<token> <instance_id>" (the token is the first field and the
// instance the last, whatever an older instance put between them).
func (a *Auth) acked(payload string) {
	token, _, ok := strings.Cut(payload, " ")
	if !ok {
		return
	}
	inst := payload[strings.LastIndexByte(payload, ' ')+1:]
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
		a.sweep(time.Now())
	}
}

// sweep drops what the cache keeps past its use: entries expired (a later lookup reads Postgres
// anyway), remembered misses expired, and the in-flight counters of key lineages with no call in
// flight and no cached entry. Without it every key ever presented stayed in memory until a
// change touched it. A call that took an entry from the cache just before the sweep and has not
// entered yet may count on a dropped counter while a reload counts on a new one: the cap is
// loose by those calls for that moment, never stuck.
func (a *Auth) sweep(now time.Time) {
	live := map[int64]bool{}
	a.mu.Lock()
	for h, e := range a.entries {
		if now.Sub(e.loadedAt) >= a.ttl {
			delete(a.entries, h)
			continue
		}
		live[e.Auth.LimitID] = true
	}
	for h, until := range a.misses {
		if !now.Before(until) {
			delete(a.misses, h)
		}
	}
	a.mu.Unlock()
	a.flightMu.Lock()
	for id, c := range a.flight {
		if !live[id] && c.Load() == 0 {
			delete(a.flight, id)
		}
	}
	a.flightMu.Unlock()
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
		c := oltp.ParseAuthChange(n.Payload)
		a.invalidate(c)
		if _, err := conn.Exec(ctx, "SELECT pg_notify($1, $2)", oltp.AuthAckChannel, c.Token+" "+a.id); err != nil {
			return err
		}
	}
}

// Listening reports whether the cache listener is connected (the cache is in use).
func (a *Auth) Listening() bool { return a.healthy.Load() }
