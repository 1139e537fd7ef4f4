package admission

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/planehq/hiringsignal/internal/plans"
)

// LeaseStore is the shared counter store (oltp.RateWindows in production).
type LeaseStore interface {
	Lease(ctx context.Context, scope string, windowStart, expiresAt, want, limit int64) (granted, used int64, err error)
	Expire(ctx context.Context, nowUnix int64) error
}

// Limiter enforces fixed windows (60 s rate, 1 day quota) across API instances. Each instance
// leases blocks of calls from a shared Postgres counter and spends them from memory, so the sum
// admitted by all instances never passes the limit and most calls never touch Postgres. Once a
// lease comes back short the window is marked exhausted locally until it ends. Tokens leased but
// not spent when a window ends are lost (under-admission bounded by one block per instance, a
// block and a quarter for windows that prefetch: see prefetch).
// No lock is held across a lease: one call of a window leases while the others of that window
// wait for it (or for their context to end), and refunds and sweeps go on meanwhile.
type Limiter struct {
	store   LeaseStore
	log     *slog.Logger
	buckets sync.Map // scope -> *bucket
	mu      sync.Mutex
	warned  time.Time
}

// NewLimiter returns a limiter over store.
func NewLimiter(store LeaseStore, log *slog.Logger) *Limiter {
	return &Limiter{store: store, log: log}
}

type bucket struct {
	mu        sync.Mutex
	window    int64 // start, unix seconds
	length    int64 // window length, seconds
	local     int64 // leased, not yet spent
	used      int64 // the shared count at the last lease
	exhausted bool
	leasing   chan struct{} // closed when the lease in flight for window returns; nil when none
}

// Decision is the verdict on one call in one window.
type Decision struct {
	OK        bool // the call was taken from the window
	Limit     int64
	Remaining int64
	ResetAt   time.Time // when the window ends
	Used      int64
	Account   bool // the window is the account's ceiling (all its keys), not the key's own
}

// ResetSeconds is the RateLimit-Reset / Retry-After value: whole seconds, at least 1.
func (d Decision) ResetSeconds(now time.Time) int64 {
	s := int64((d.ResetAt.Sub(now) + time.Second - 1) / time.Second)
	return max(1, s)
}

func leaseSize(limit int64, window time.Duration) int64 {
	div := int64(20)
	if window > time.Minute {
		div = 50
	}
	return min(max(1, limit/div), 1000)
}

// Take spends one call of scope's current window under limit.
func (l *Limiter) Take(ctx context.Context, scope string, limit int64, window time.Duration, now time.Time) Decision {
	w := int64(window / time.Second)
	start := now.Unix() / w * w
	d := Decision{Limit: limit, ResetAt: time.Unix(start+w, 0)}
	v, ok := l.buckets.Load(scope)
	if !ok {
		v, _ = l.buckets.LoadOrStore(scope, &bucket{})
	}
	b := v.(*bucket)
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		if b.window != start {
			b.window, b.length, b.local, b.used, b.exhausted, b.leasing = start, w, 0, 0, false, nil
		}
		if b.local > 0 {
			b.local--
			d.OK = true
			d.Used = b.used - b.local
			d.Remaining = max(0, limit-b.used) + b.local
			if want := leaseSize(limit, window); want >= prefetchFrom && b.local <= want/4 && b.leasing == nil && !b.exhausted {
				b.prefetch(l, scope, start, w, limit, want)
			}
			return d
		}
		if b.exhausted {
			d.Used = max(b.used, limit)
			return d
		}
		if wait := b.leasing; wait != nil {
			b.mu.Unlock()
			select {
			case <-wait:
				b.mu.Lock()
			case <-ctx.Done():
				// Our context ended while another call leases: decide from this instance's
				// own count, as when the store is unreachable.
				b.mu.Lock()
				if b.window == start && b.local == 0 && b.used < limit {
					b.used++
					b.local++
				}
				if b.window == start && b.local == 0 {
					d.Used = max(b.used, limit)
					return d
				}
			}
			continue
		}
		b.lease(ctx, l, scope, start, w, limit, leaseSize(limit, window))
	}
}

// lease asks the store for want more calls of the window starting at start, without holding
// b.mu across the round trip (b.mu is held on entry and on return).
func (b *bucket) lease(ctx context.Context, l *Limiter, scope string, start, w, limit, want int64) {
	done, before := b.beginLease()
	b.mu.Unlock()
	granted, used := l.leaseFrom(ctx, scope, start, w, limit, want, before)
	b.mu.Lock()
	b.endLease(done, start, granted, used)
}

// Prefetching. A window whose blocks are large (a high limit: at least prefetchFrom calls a
// lease) leases its next block in the background once a quarter of the block is left, so its
// calls do not all wait for the Postgres round trip each time a block runs out (at 20,000
// calls a second, 40 such stalls a second for a key and its account). An instance then holds
// at most a block and a quarter of a window, which is what it can leave unspent at the window's
// end; windows of smaller blocks lease as before.
const (
	prefetchFrom    = 100
	prefetchTimeout = 5 * time.Second
)

// prefetch leases the next block of the window in the background (b.mu is held).
func (b *bucket) prefetch(l *Limiter, scope string, start, w, limit, want int64) {
	done, before := b.beginLease()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), prefetchTimeout)
		granted, used := l.leaseFrom(ctx, scope, start, w, limit, want, before)
		cancel()
		b.mu.Lock()
		b.endLease(done, start, granted, used)
		b.mu.Unlock()
	}()
}

// beginLease marks a lease in flight (b.mu is held); before is the shared count it starts from.
func (b *bucket) beginLease() (done chan struct{}, before int64) {
	done = make(chan struct{})
	b.leasing = done
	return done, b.used
}

// leaseFrom is the store's lease of want calls, or, when Postgres is unreachable, this
// instance's own count, so limits still hold per instance (and a warning says so).
func (l *Limiter) leaseFrom(ctx context.Context, scope string, start, w, limit, want, before int64) (granted, used int64) {
	granted, used, err := l.store.Lease(ctx, scope, start, start+w, want, limit)
	if err != nil {
		l.warn("rate-limit store unreachable; enforcing per instance until it answers", err)
		granted, used = min(want, max(0, limit-before)), before+want
	}
	return granted, used
}

// endLease adds a lease's calls to the window (b.mu is held) and wakes the calls waiting for it.
func (b *bucket) endLease(done chan struct{}, start, granted, used int64) {
	if b.leasing == done {
		b.leasing = nil
	}
	close(done)
	if b.window != start { // the window ended meanwhile: the lease is lost
		return
	}
	b.local += granted
	b.used = max(b.used, used)
	if granted == 0 {
		b.exhausted = true
	}
}

// refund gives back a call taken in the window of d (a call that did not count: its handler
// failed or it was not metered).
func (l *Limiter) refund(scope string, d Decision, window time.Duration) {
	v, ok := l.buckets.Load(scope)
	if !ok {
		return
	}
	b := v.(*bucket)
	start := d.ResetAt.Unix() - int64(window/time.Second)
	b.mu.Lock()
	if b.window == start {
		b.local++
		b.exhausted = false
	}
	b.mu.Unlock()
}

func (l *Limiter) warn(msg string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Since(l.warned) > 10*time.Second {
		l.warned = time.Now()
		l.log.Warn(msg, "err", err)
	}
}

// Sweep forgets buckets of ended windows and expires the shared rows (Forget, then Expire).
func (l *Limiter) Sweep(ctx context.Context, now time.Time) {
	l.Forget(now)
	l.Expire(ctx, now)
}

// Forget drops this instance's buckets of windows that ended more than a minute before now.
// Every instance forgets its own.
func (l *Limiter) Forget(now time.Time) {
	l.buckets.Range(func(k, v any) bool {
		b := v.(*bucket)
		b.mu.Lock()
		old := b.window+b.length < now.Unix()-60
		b.mu.Unlock()
		if old {
			l.buckets.Delete(k)
		}
		return true
	})
}

// Expire deletes the shared rows of windows that ended more than a minute before now: one
// instance's sweep serves every instance (the janitor's lease).
func (l *Limiter) Expire(ctx context.Context, now time.Time) {
	if err := l.store.Expire(ctx, now.Unix()-60); err != nil {
		l.warn("cannot expire rate windows", err)
	}
}

// EnterprisePerMinute is the per-key limit of a plan that lists none (Enterprise) and of an
// account without a contract override (accounts.calls_per_minute).
const EnterprisePerMinute = 10000

// Rate is the 60-second window a call counts in and its limit: per key lineage by plan (the
// account's calls_per_minute overrides it), per IP for the demo key and for keyless calls (k nil).
func Rate(k *Key, ip string) (scope string, limit int64) {
	if k == nil || k.Auth.IsDemo {
		return "ip:" + ip, plans.KeylessPerMinute
	}
	limit = int64(k.Plan.PerMinute)
	if k.Auth.CallsPerMinute != nil {
		limit = *k.Auth.CallsPerMinute
	}
	if limit <= 0 {
		limit = EnterprisePerMinute
	}
	if k.rateScope != "" {
		return k.rateScope, limit
	}
	return rateScope(k.Auth.LimitID), limit
}

// rateScope is the rate window's scope of the key lineage limitID; accountScope the account
// ceiling's of accountID.
func rateScope(limitID int64) string      { return "rk:" + strconv.FormatInt(limitID, 10) }
func accountScope(accountID int64) string { return "ra:" + strconv.FormatInt(accountID, 10) }

// AccountRate is the 60-second window all keys of k's account count in together, and its limit:
// the plan's AccountKeys times the per-key limit (Rate). ok is false when none applies (no key,
// the demo key, a plan without an account ceiling).
func AccountRate(k *Key) (scope string, limit int64, ok bool) {
	if k == nil || k.Auth.IsDemo || k.Plan.AccountKeys <= 0 {
		return "", 0, false
	}
	_, perKey := Rate(k, "")
	scope = k.accountScope
	if scope == "" {
		scope = accountScope(k.Auth.AccountID)
	}
	return scope, int64(k.Plan.AccountKeys) * perKey, true
}

// rateWindow is the length of the rate-limit window.
const rateWindow = plans.WindowSeconds * time.Second

// TakeRate spends one call of the 60-second windows of a call by k (nil: keyless) from ip: the
// key lineage's (or the address's), then the account's ceiling. A refusal by the account gives
// the key's call back and is marked Account. When both admit, the Decision is the window with
// fewer calls remaining.
func (l *Limiter) TakeRate(ctx context.Context, k *Key, ip string, now time.Time) Decision {
	scope, limit := Rate(k, ip)
	d := l.Take(ctx, scope, limit, rateWindow, now)
	acct, alimit, ok := AccountRate(k)
	if !d.OK || !ok {
		return d
	}
	ad := l.Take(ctx, acct, alimit, rateWindow, now)
	ad.Account = true
	if !ad.OK {
		l.refund(scope, d, rateWindow)
		return ad
	}
	if ad.Remaining < d.Remaining {
		return ad
	}
	return d
}

// ProtocolRate is the 60-second window of the requests a caller makes of a mounted interface's
// own protocol, apart from the calls of routes they run (the agent interface's initialize,
// tools/list, ping, and tool calls refused before they run one): per key lineage, per IP for the
// demo key. It is not the rate window: protocol requests neither spend nor are refused by the
// calls of the minute.
func ProtocolRate(k *Key, ip string) string {
	if k == nil || k.Auth.IsDemo {
		return "pip:" + ip
	}
	return "pk:" + strconv.FormatInt(k.Auth.LimitID, 10)
}

// TakeProtocol spends one request of the protocol window of k (nil: keyless) from ip, under
// limit (ProtocolRate).
func (l *Limiter) TakeProtocol(ctx context.Context, k *Key, ip string, limit int64, now time.Time) Decision {
	return l.Take(ctx, ProtocolRate(k, ip), limit, rateWindow, now)
}
