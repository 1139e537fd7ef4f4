package admission

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/apikey"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/internal/plans"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/oltp"
)

// Regression tests of key and admission attacks: each failed before its fix.

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// keyReads counts the statements that read api_keys (key lookups) on a pool.
type keyReads struct{ n atomic.Int64 }

func (r *keyReads) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if strings.Contains(d.SQL, "FROM api_keys k JOIN accounts") {
		r.n.Add(1)
	}
	return ctx
}

func (r *keyReads) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// tracedPool is a migrated test schema whose key lookups are counted.
func tracedPool(t *testing.T) (*pgxpool.Pool, *keyReads) {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(storetest.PostgresURL(t, "admission"))
	require.NoError(t, err)
	reads := &keyReads{}
	cfg.ConnConfig.Tracer = reads
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	require.NoError(t, oltp.Migrate(ctx, pool, nil))
	return pool, reads
}

// listeningAuth is the key cache of an instance with a Postgres listener of its own (a process
// of its own), started, with its cache in use; both stop when t ends.
func listeningAuth(t *testing.T, pool *pgxpool.Pool) (*Auth, *pglisten.Listener) {
	t.Helper()
	l := pglisten.New(pglisten.Config{ConnConfig: pool.Config().ConnConfig, Log: quiet()})
	require.NoError(t, l.Start(context.Background()))
	a := NewAuth(pool, l, quiet(), nil)
	require.NoError(t, a.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, a.Stop(ctx))
		require.NoError(t, l.Stop(ctx))
	})
	require.Eventually(t, a.Listening, 5*time.Second, 10*time.Millisecond)
	return a, l
}

// change runs a key or account change the way api.Call.ChangeKeys does.
func change(t *testing.T, a *Auth, f func(token string) error) {
	t.Helper()
	token, w := a.Expect(context.Background())
	require.NoError(t, f(token))
	a.Settle(token, w)
}

// Rotating a key does not reset its minute window, daily quota or in-flight count (they were
// keyed by key_id): the replacement joins the rotated key's lineage and inherits them.
func TestRotationHandsLimitsToTheReplacement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.Postgres(t, "admission")
	acct, err := oltp.CreateAccount(ctx, pool, "starter", "rotate@example.com")
	require.NoError(t, err)
	a := NewAuth(pool, nil, quiet(), nil)
	l := NewLimiter(oltp.RateWindows{Pool: pool}, quiet())
	old, err := a.Lookup(ctx, acct.Key, "")
	require.NoError(t, err)
	require.NotNil(t, old)
	now := time.Now()
	spend := func(take func() bool) (n int64) {
		for take() {
			n++
			require.Less(t, n, int64(1_000_000))
		}
		return n
	}
	require.EqualValues(t, old.Plan.PerMinute, spend(func() bool { return l.TakeRate(ctx, old, "", now).OK }))
	require.EqualValues(t, *old.Plan.DailyQuota, spend(func() bool {
		q := l.TakeDaily(ctx, old, now)
		q.Commit()
		return q.OK
	}))
	old.Enter()

	rot, err := oltp.RotateKey(ctx, pool, acct.CustomerID, acct.KeyID, nil, oltp.DefaultScopes, "t")
	require.NoError(t, err)
	repl, err := a.Lookup(ctx, rot.Secret, "")
	require.NoError(t, err)
	require.NotNil(t, repl)
	require.Equal(t, old.Auth.LimitID, repl.Auth.LimitID, "the replacement joins the rotated key's lineage")
	d := l.TakeRate(ctx, repl, "", now)
	require.False(t, d.OK, "the replacement inherits the spent minute window")
	require.False(t, d.Account, "refused by the key's own window, not the account's")
	q := l.TakeDaily(ctx, repl, now)
	require.False(t, q.OK, "the replacement inherits the spent daily quota")
	require.False(t, q.Account)
	require.EqualValues(t, 2, repl.Enter(), "the replacement inherits the calls in flight")

	// A second rotation stays in the lineage.
	rot2, err := oltp.RotateKey(ctx, pool, acct.CustomerID, rot.KeyID, nil, oltp.DefaultScopes, "t")
	require.NoError(t, err)
	repl2, err := a.Lookup(ctx, rot2.Secret, "")
	require.NoError(t, err)
	require.Equal(t, old.Auth.LimitID, repl2.Auth.LimitID)
	// A minted sibling heads its own lineage.
	sib, err := oltp.IssueKey(ctx, pool, repl2.Auth, []string{"read"})
	require.NoError(t, err)
	sk, err := a.Lookup(ctx, sib.Secret, "")
	require.NoError(t, err)
	require.Equal(t, sib.KeyID, sk.Auth.LimitID)
}

// Limits per key only would let minting keys multiply what an account draws. All keys of an
// account share its ceiling (plans.Tier.AccountKeys times the per-key limits).
func TestAccountCeilingBoundsAllKeysTogether(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := NewLimiter(counter{}, quiet())
	now := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	free, _ := plans.ByID("tier_0")
	starter, _ := plans.ByID("tier_2")
	key := func(id, account int64, p plans.Tier) *Key {
		return &Key{Auth: oltp.KeyAuth{KeyID: id, LimitID: id, AccountID: account}, Plan: p}
	}
	// Free: 50 keys draw no more than one key's limits.
	admitted, daily := 0, 0
	for id := int64(1); id <= 50; id++ {
		k := key(id, 1, free)
		for i := 0; i < free.PerMinute; i++ {
			if l.TakeRate(ctx, k, "", now).OK {
				admitted++
			}
		}
		for i := 0; i < *free.DailyQuota; i++ {
			q := l.TakeDaily(ctx, k, now)
			if q.OK {
				daily++
				q.Commit()
			}
		}
	}
	require.Equal(t, free.PerMinute, admitted)
	require.Equal(t, *free.DailyQuota, daily)
	d := l.TakeRate(ctx, key(51, 1, free), "", now)
	require.False(t, d.OK)
	require.True(t, d.Account, "the refusal names the account's limit")
	require.EqualValues(t, free.PerMinute, d.Limit)
	q := l.TakeDaily(ctx, key(51, 1, free), now)
	require.False(t, q.OK)
	require.True(t, q.Account)
	// Another account is untouched.
	require.True(t, l.TakeRate(ctx, key(52, 2, free), "", now).OK)

	// Starter: AccountKeys keys' worth per minute.
	admitted = 0
	for id := int64(100); id < 110; id++ {
		for i := 0; i < starter.PerMinute; i++ {
			if l.TakeRate(ctx, key(id, 3, starter), "", now).OK {
				admitted++
			}
		}
	}
	require.Equal(t, starter.AccountKeys*starter.PerMinute, admitted)
}

// Well-formed forged keys must not each cost a Postgres read before any limit. Misses are
// remembered (bounded, short-lived, dropped when a key is installed), each address gets
// MissesPerMinute reads that find nothing, and both are counted.
func TestForgedKeysAreRememberedBoundedAndBudgeted(t *testing.T) {
	// Not parallel: it counts key reads while listening on AuthChannel, the database's: a sibling's
	// key change or demo key install would drop the misses it counts on.
	if s := time.Now().Second(); s >= 55 { // the miss budget's minute must not turn mid-test
		time.Sleep(time.Duration(61-s) * time.Second)
	}
	ctx := context.Background()
	pool, reads := tracedPool(t)
	a, _ := listeningAuth(t, pool)
	forge := func() string {
		k, err := apikey.New()
		require.NoError(t, err)
		return k
	}

	forged := forge()
	for i := 0; i < 5; i++ {
		k, err := a.Lookup(ctx, forged, "203.0.113.1")
		require.NoError(t, err)
		require.Nil(t, k)
	}
	require.EqualValues(t, 1, reads.n.Load(), "a repeated unknown key is read once")
	require.EqualValues(t, 1, a.stats.unknown.Get())
	require.EqualValues(t, 4, a.stats.unknownCached.Get())

	// A key installed after it was remembered as unknown works at once.
	demo := forge()
	k, err := a.Lookup(ctx, demo, "203.0.113.2")
	require.NoError(t, err)
	require.Nil(t, k)
	_, err = oltp.UpsertDemoKey(ctx, pool, apikey.Hash(demo), apikey.Display(demo))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		k, err := a.Lookup(ctx, demo, "203.0.113.2")
		return err == nil && k != nil
	}, 5*time.Second, 10*time.Millisecond)

	// Bounded in number and in time.
	a.maxMiss = 4
	for i := 0; i < 10; i++ {
		_, err := a.Lookup(ctx, forge(), "203.0.113.3")
		require.NoError(t, err)
	}
	a.mu.RLock()
	require.LessOrEqual(t, len(a.misses), 4)
	a.mu.RUnlock()
	a.missTTL = 20 * time.Millisecond
	short := forge()
	_, _ = a.Lookup(ctx, short, "203.0.113.4")
	time.Sleep(30 * time.Millisecond)
	before := reads.n.Load()
	_, _ = a.Lookup(ctx, short, "203.0.113.4")
	require.Equal(t, before+1, reads.n.Load(), "an expired miss is read again")

	// One address gets MissesPerMinute reads that find nothing; then its uncached keys are
	// refused unread, while keys already cached and other addresses go on.
	acct, err := oltp.CreateAccount(ctx, pool, "growth", "budget@example.com")
	require.NoError(t, err)
	cached, err := a.Lookup(ctx, acct.Key, "198.51.100.9")
	require.NoError(t, err)
	require.NotNil(t, cached)
	for i := 0; i < MissesPerMinute; i++ {
		k, err := a.Lookup(ctx, forge(), "198.51.100.9")
		require.NoError(t, err, "miss %d", i)
		require.Nil(t, k)
	}
	before = reads.n.Load()
	_, err = a.Lookup(ctx, forge(), "198.51.100.9")
	ml, limited := MissLimited(err)
	require.True(t, limited, "%v", err)
	require.EqualValues(t, MissesPerMinute, ml.Limit)
	require.Equal(t, before, reads.n.Load(), "a refused lookup reads nothing")
	require.EqualValues(t, 1, a.stats.missLimited.Get())
	k, err = a.Lookup(ctx, acct.Key, "198.51.100.9")
	require.NoError(t, err)
	require.Same(t, cached, k, "a cached key still works from that address")
	k, err = a.Lookup(ctx, forge(), "198.51.100.10")
	require.NoError(t, err)
	require.Nil(t, k)
}

// A revoke, rotate, pause or resume drops only what it touched: it does not flush every
// tenant's cached keys on every instance, nor reset per-key in-flight counts.
func TestKeyChangesInvalidateOnlyWhatTheyTouch(t *testing.T) {
	// Not parallel: it counts key reads while listening on AuthChannel, the database's: a sibling's
	// key change or demo key install would drop the entries it requires kept.
	ctx := context.Background()
	pool, reads := tracedPool(t)
	a, _ := listeningAuth(t, pool)
	x, err := oltp.CreateAccount(ctx, pool, "growth", "x@example.com")
	require.NoError(t, err)
	y, err := oltp.CreateAccount(ctx, pool, "growth", "y@example.com")
	require.NoError(t, err)
	lookup := func(key string) *Key {
		t.Helper()
		k, err := a.Lookup(ctx, key, "")
		require.NoError(t, err)
		return k
	}
	kx, ky := lookup(x.Key), lookup(y.Key)
	sib, err := oltp.IssueKey(ctx, pool, kx.Auth, []string{"read"})
	require.NoError(t, err)
	require.NotNil(t, lookup(sib.Secret))
	kx.Enter()
	ky.Enter()

	// A loop of pauses and resumes of y leaves x's cached key alone.
	before := reads.n.Load()
	for i := 0; i < 10; i++ {
		change(t, a, func(token string) error {
			_, err := oltp.SetPaused(ctx, pool, y.CustomerID, y.AccountID, i%2 == 0, token)
			return err
		})
		require.Same(t, kx, lookup(x.Key), "another account's change keeps x cached")
	}
	require.Equal(t, before, reads.n.Load(), "x was never read again")
	ry := lookup(y.Key)
	require.NotSame(t, ky, ry, "y's own change drops y's entry")
	require.False(t, ry.Auth.Paused, "and the reload sees it (10 changes: resumed)")
	require.EqualValues(t, 1, ry.inflight.Load(), "y's calls in flight are still counted")

	// Revoking x's sibling keeps x's key cached.
	change(t, a, func(token string) error { return oltp.RevokeKey(ctx, pool, x.CustomerID, sib.KeyID, token) })
	require.Nil(t, lookup(sib.Secret), "the revoked key is refused at once")
	require.Same(t, kx, lookup(x.Key))
	require.EqualValues(t, 1, kx.inflight.Load())

	// Pausing x drops every key of x.
	change(t, a, func(token string) error {
		_, err := oltp.SetPaused(ctx, pool, x.CustomerID, x.AccountID, true, token)
		return err
	})
	px := lookup(x.Key)
	require.True(t, px.Auth.Paused)
	require.EqualValues(t, 1, px.inflight.Load())
}

// The limiter holds no bucket mutex across the Postgres round trip of a lease: if it did, a
// slow lease would stall every other call of the window (regardless of their contexts), its
// refunds and the janitor's sweep. Here the lease is held up by a row lock.
func TestLimiterHoldsNoLockAcrossALease(t *testing.T) {
	// Not parallel: it waits for a lock wait in pg_stat_activity, which shows the whole database's.
	ctx := context.Background()
	pool := storetest.Postgres(t, "admission")
	l := NewLimiter(oltp.RateWindows{Pool: pool}, quiet())
	now := time.Now()
	const scope = "rk:lease-test"
	start := now.Unix() / 60 * 60
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	_, err = tx.Exec(ctx, "INSERT INTO rate_windows (scope, window_start, used, expires_at) VALUES ($1, $2, 0, $3)", scope, start, start+60)
	require.NoError(t, err)

	first := make(chan Decision, 1)
	go func() { first <- l.Take(ctx, scope, 100, time.Minute, now) }()
	require.Eventually(t, func() bool { // the first call's lease waits on the row lock
		var n int
		_ = pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO rate_windows%'`).Scan(&n)
		return n > 0
	}, 5*time.Second, 10*time.Millisecond)

	returns := func(name string, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { f(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			require.Fail(t, name+" waited for another call's lease")
		}
	}
	returns("a call whose context ends", func() {
		cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		l.Take(cctx, scope, 100, time.Minute, now)
	})
	returns("a refund", func() { l.refund(scope, Decision{ResetAt: time.Unix(start+60, 0)}, time.Minute) })
	returns("the sweep", func() { l.Sweep(ctx, now) })
	returns("another window", func() { require.True(t, l.Take(ctx, "rk:other", 100, time.Minute, now).OK) })

	require.NoError(t, tx.Rollback(ctx))
	select {
	case d := <-first:
		require.True(t, d.OK)
	case <-time.After(5 * time.Second):
		require.Fail(t, "the first call never got its lease")
	}
	require.True(t, l.Take(ctx, scope, 100, time.Minute, now).OK)
}
