// Package admission decides whether a call may run, before the API serves it: who the presented
// key is (a cache of key lookups that every instance invalidates per key or account on a change,
// with a bounded memory of unknown keys), whether the caller is within its rate limit and daily
// quota, per key lineage and per account (fixed windows shared across instances through Postgres
// leases), within the protocol window of a mounted interface (ProtocolRate), and whether its
// account is under its hard spend cap (each instance spending from a hold of the month's units
// it leases from Postgres, spendcap.go).
//
// It returns decisions and typed results; package api turns them into HTTP answers. It must not
// import api nor know HTTP. It reads keys, rate windows, monthly units and spend holds through package oltp
// and hears of key and account changes through the process's Postgres listener (package
// pglisten), which it subscribes to but does not own.
package admission

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/apikey"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/oltp"
)

// Key is a cached authentication of one key: its record and its plan.
type Key struct {
	Auth     oltp.KeyAuth
	Plan     plans.Tier
	loadedAt time.Time
	inflight *atomic.Int64 // calls of the key's lineage in flight on this instance (key_throttled)

	// The key's rate-window scopes (Rate, AccountRate), made once per cached key rather than
	// on every call; empty in a Key built by hand, which makes them per call.
	rateScope, accountScope string
}

// Enter counts one more call of the key in flight on this instance and returns the count; Leave
// undoes it. The count is the key lineage's (Auth.LimitID): a rotation replacement inherits it.
func (k *Key) Enter() int64 { return k.inflight.Add(1) }

// Leave ends a call counted by Enter.
func (k *Key) Leave() { k.inflight.Add(-1) }

// Auth caches key lookups by key hash. Every change to keys or accounts (revoke, rotate, pause,
// resume) sends a NOTIFY on oltp.AuthChannel in its transaction naming what it touched (keys,
// accounts, or everything: oltp.AuthChange); each instance LISTENs (through the process's
// pglisten.Listener), drops the cached keys the change touched and acknowledges on
// oltp.AuthAckChannel. The instance that made the change answers only once every live instance
// (api_instances heartbeat) has acknowledged, so the very next call on any instance sees the
// change. While an instance's listener is down its cache is bypassed (every call reads
// Postgres) and emptied; once the listener LISTENs again the instance heartbeats and caches
// afresh. Entries also expire after entryTTL as a last resort.
// Calls in flight are counted per key lineage apart from the cache: dropping an entry keeps them.
//
// Unknown keys (well-formed: the checksum is public) are remembered for missTTL, at most
// maxMisses of them, so repeating one costs no Postgres read; and each client address may make
// MissesPerMinute lookups that find no usable key per minute on one instance before its
// uncached keys are refused unread (MissLimitError). A key can only be unknown before it exists:
// minted keys are random, so no one presents one before it is minted; the configured demo key is
// installed with an everything-notification, which drops remembered misses too.
//
// Start subscribes to the listener's channels and runs the heartbeat (the lifecycle contract);
// without them every lookup reads Postgres. The heartbeat also sweeps what expired, so the cache
// holds the keys in use, not every key ever presented.
type Auth struct {
	pool     *pgxpool.Pool
	listener *pglisten.Listener
	log      *slog.Logger
	loop     lifecycle.Loop

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

	id      string      // this instance, in api_instances
	healthy atomic.Bool // the cache is in use: the channels are LISTENed and the instance registered
	waitMu  sync.Mutex
	waiters map[string]*Waiter

	// What the listener tells (on its goroutine) and follow does (a round trip each).
	stateMu   sync.Mutex
	epoch     uint64 // bumped whenever the listener LISTENs again or loses its connection
	listening bool   // the change channel is LISTENed
	register  chan struct{}
	ackMu     sync.Mutex
	acks      []string // tokens of changes dropped and not acknowledged yet
	ack       chan struct{}
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

// NewAuth returns the key cache of one instance, told of changes by listener (the process's;
// nil: the cache is never used and every lookup reads Postgres); it counts its Postgres lookups
// and refusals in set (nil: a set of its own, served nowhere).
func NewAuth(pool *pgxpool.Pool, listener *pglisten.Listener, log *slog.Logger, set *metrics.Set) *Auth {
	if set == nil {
		set = metrics.NewSet()
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	refused := func(reason string) *metrics.Counter {
		return set.GetOrCreateCounter(`hs_auth_refused_total{reason="` + reason + `"}`)
	}
	a := &Auth{pool: pool, listener: listener, log: log, ttl: entryTTL, missTTL: missTTL, maxMiss: maxMisses,
		entries: map[[32]byte]*Key{}, misses: map[[32]byte]time.Time{}, flight: map[int64]*atomic.Int64{},
		waiters: map[string]*Waiter{}, id: "api-" + hex.EncodeToString(b[:]),
		register: make(chan struct{}, 1), ack: make(chan struct{}, 1),
		stats: authStats{hits: set.GetOrCreateCounter("hs_auth_cache_hits_total"), lookups: set.GetOrCreateCounter("hs_auth_postgres_lookups_total"), malformed: refused("malformed"),
			unknown: refused("unknown"), unknownCached: refused("unknown_cached"), revoked: refused("revoked"), missLimited: refused("miss_limited")}}
	a.loop.Run = a.run
	return a
}

// Start subscribes to the change channels and runs the instance heartbeat until Stop.
func (a *Auth) Start(ctx context.Context) error { return a.loop.Start(ctx) }

// Stop ends the subscriptions and the heartbeat (deregistering the instance) and waits for both.
func (a *Auth) Stop(ctx context.Context) error { return a.loop.Stop(ctx) }

func (a *Auth) run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { a.heartbeat(ctx) })
	if a.listener != nil {
		wg.Go(func() { a.follow(ctx) })
	}
	wg.Wait()
}

// Lookup authenticates key presented from address ip. It returns nil for a malformed, unknown
// or revoked key, and a *MissLimitError (see MissLimited), reading nothing, when ip already
// presented MissesPerMinute keys this minute that were unknown or revoked.
func (a *Auth) Lookup(ctx context.Context, key, ip string) (*Key, error) {
	return a.LookupAt(ctx, key, ip, time.Now())
}

// LookupAt is Lookup at now, the call's time as the caller read it.
func (a *Auth) LookupAt(ctx context.Context, key, ip string, now time.Time) (*Key, error) {
	if !apikey.WellFormed(key) {
		a.stats.malformed.Inc()
		return nil, nil
	}
	h := keyHash(key)
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
	k, found, err := oltp.LookupKey(ctx, a.pool, slices.Clone(h[:])) // a copy: h stays on the stack of every cached call
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
	e = &Key{Auth: k, Plan: plan, loadedAt: now, inflight: a.inFlight(k.LimitID),
		rateScope: rateScope(k.LimitID), accountScope: accountScope(k.AccountID)}
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

// keyHash is the SHA-256 of key (a well-formed key: apikey's length) hashed from the stack.
func keyHash(key string) [32]byte {
	var b [64]byte // []byte(key) of a key past 32 bytes would be allocated
	if len(key) > len(b) {
		return sha256.Sum256([]byte(key))
	}
	n := copy(b[:], key)
	return sha256.Sum256(b[:n])
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

// follow subscribes to the acknowledgement and change channels until ctx ends and does, for the
// listener's callbacks, what takes a round trip: registering the instance once the channels are
// LISTENed (only then is the cache used) and acknowledging the changes dropped.
func (a *Auth) follow(ctx context.Context) {
	acks, err := a.listener.Listen(ctx, oltp.AuthAckChannel, func(_, payload string) { a.acked(payload) }, nil)
	if err != nil {
		return // stopped before the listener LISTENed
	}
	defer acks.Unlisten()
	// The change channel second: when it is told Listening the acknowledgements are LISTENed too.
	changes, err := a.listener.Listen(ctx, oltp.AuthChannel, a.changed, a.connection)
	if err != nil {
		return
	}
	defer func() {
		changes.Unlisten()
		a.connection(pglisten.Lost)
	}()
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	backoff := 100 * time.Millisecond
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.ack:
			a.sendAcks(ctx)
			continue
		case <-a.register:
			backoff = 100 * time.Millisecond
		case <-retry.C:
		}
		if err := a.registerInstance(ctx); err != nil && ctx.Err() == nil {
			a.log.Warn("cannot register this API instance; its key cache is bypassed until it can", "err", err, "retry_in", backoff)
			retry.Reset(backoff)
			backoff = min(2*backoff, 5*time.Second)
		}
	}
}

// connection is told by the listener that the change channel is LISTENed (again) or that its
// connection is lost: either way changes may have gone unheard, so the cache is bypassed and
// emptied until the instance is registered again (registerInstance).
func (a *Auth) connection(e pglisten.Event) {
	a.stateMu.Lock()
	a.epoch++
	a.listening = e == pglisten.Listening
	a.healthy.Store(false)
	a.stateMu.Unlock()
	a.Flush()
	if e == pglisten.Listening {
		signal(a.register)
	}
}

// registerInstance heartbeats the instance (so others wait for its acknowledgements) and puts
// the cache in use, unless the listener lost or regained its connection meanwhile.
func (a *Auth) registerInstance(ctx context.Context) error {
	a.stateMu.Lock()
	epoch, listening := a.epoch, a.listening
	a.stateMu.Unlock()
	if !listening || a.healthy.Load() {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, registerTimeout)
	err := oltp.HeartbeatInstance(rctx, a.pool, a.id)
	cancel()
	if err != nil {
		return err
	}
	a.Flush()
	a.stateMu.Lock()
	if a.epoch == epoch && a.listening {
		a.healthy.Store(true)
	}
	a.stateMu.Unlock()
	return nil
}

const registerTimeout = 5 * time.Second

// changed is a notification on oltp.AuthChannel: drop what it touched, then acknowledge it.
func (a *Auth) changed(_, payload string) {
	c := oltp.ParseAuthChange(payload)
	a.invalidate(c)
	if c.Token == "" {
		return // a change no one waits for
	}
	a.ackMu.Lock()
	a.acks = append(a.acks, c.Token)
	a.ackMu.Unlock()
	signal(a.ack)
}

// sendAcks acknowledges the changes dropped since the last call.
func (a *Auth) sendAcks(ctx context.Context) {
	a.ackMu.Lock()
	tokens := a.acks
	a.acks = nil
	a.ackMu.Unlock()
	for _, token := range tokens {
		actx, cancel := context.WithTimeout(ctx, ackTimeout)
		err := oltp.AckAuthChange(actx, a.pool, token, a.id)
		cancel()
		if err != nil && ctx.Err() == nil {
			a.log.Warn("the instance that made a key/account change waits for this one's acknowledgement until its timeout", "err", err)
		}
	}
}

// signal wakes whoever waits on c, once.
func signal(c chan<- struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Listening reports whether the cache is in use: the change channel is LISTENed and the instance
// registered.
func (a *Auth) Listening() bool { return a.healthy.Load() }
