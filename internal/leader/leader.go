// Package leader runs a part of the process on one instance at a time: every instance competes
// for a named role's lease in a shared store (package oltp's leader_leases in production), the
// holder runs the part and renews the lease by heartbeat, the others wait and take the lease over
// once it lapses. A holder that cannot renew stops its part before the lease can have lapsed in
// the store (its deadline counts from before the renewal was sent, on this process's monotonic
// clock), and every lease carries a fencing token that grows with each new holder, so a write
// only the holder may make checks it (Token): a holder paused or cut off past its lease is
// refused by the store even if its part is still running.
//
// Bounds, for a TTL t: the holder renews every t/3 and stops its part once t - t/5 passed since
// the last renewal it sent that succeeded; a candidate tries every t/3, so a holder that dies is
// replaced within t + t/3 of its last renewal (20 s at the default 15 s), one that stops cleanly
// (Stop releases the lease) within t/3.
//
// It knows neither the parts it runs nor the store's SQL; of the product it imports
// internal/lifecycle only. An Elector follows the lifecycle contract, and the part it runs must
// start again after a Stop (a lifecycle.Loop does).
package leader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/planehq/hiringsignal/internal/lifecycle"
)

// DefaultTTL is the lease's length when Config.TTL is zero.
const DefaultTTL = 15 * time.Second

// Store keeps the leases (oltp.Leases). Times are the store's: one clock for every instance.
type Store interface {
	// Acquire takes role for owner until ttl from now when nobody holds it, its holder's lease
	// lapsed, or owner holds it already (a renewal whose answer was lost); each acquisition
	// gets a new, larger token. ok is false while another owner holds an unexpired lease.
	Acquire(ctx context.Context, role, owner string, ttl time.Duration) (token int64, ok bool, err error)
	// Renew extends the lease owner holds under token to ttl from now; ok is false when it is
	// not that lease any more (it lapsed, or another took it over).
	Renew(ctx context.Context, role, owner string, token int64, ttl time.Duration) (ok bool, err error)
	// Release ends the lease owner holds under token at once (a clean stop), so the next
	// candidate need not wait for it to lapse. A lease no longer held is left alone.
	Release(ctx context.Context, role, owner string, token int64) error
}

// Config configures an Elector; Store, Role, Owner and Part are required.
type Config struct {
	Store Store
	Role  string            // the lease's name: "notifier", "janitor"
	Owner string            // this instance, as operators see it in the store (host, pid)
	Part  lifecycle.Service // started while this instance holds the lease, stopped when it stops holding it
	TTL   time.Duration     // the lease's length (DefaultTTL)
	// PartStop bounds the part's Stop when the lease is lost or the Elector stops (default 30 s).
	PartStop time.Duration
	Log      *slog.Logger // default: discard
	// Metrics receives hs_leader{role} (1 while this instance holds the lease) and
	// hs_leader_acquired_total{role} (nil: a set of its own).
	Metrics *metrics.Set
}

// Elector competes for one role's lease and runs its part while it holds it.
type Elector struct {
	cfg   Config
	every time.Duration // renewals and candidate tries
	hold  time.Duration // how long after a renewal was sent the part may run without another
	loop  lifecycle.Loop

	acquired *metrics.Counter

	mu    sync.Mutex
	token int64 // while leading; 0 otherwise
	warn  time.Time
}

// New returns a stopped Elector.
func New(cfg Config) *Elector {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.PartStop <= 0 {
		cfg.PartStop = 30 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.NewSet()
	}
	e := &Elector{cfg: cfg, every: cfg.TTL / 3, hold: cfg.TTL - cfg.TTL/5}
	e.acquired = cfg.Metrics.GetOrCreateCounter(`hs_leader_acquired_total{role="` + cfg.Role + `"}`)
	cfg.Metrics.GetOrCreateGauge(`hs_leader{role="`+cfg.Role+`"}`, func() float64 {
		if _, ok := e.Token(); ok {
			return 1
		}
		return 0
	})
	e.loop.Run = e.run
	return e
}

// Start competes for the lease in the background and returns at once. A second Start does
// nothing.
func (e *Elector) Start(ctx context.Context) error {
	if e.cfg.Store == nil || e.cfg.Role == "" || e.cfg.Owner == "" || e.cfg.Part == nil {
		return errors.New("cannot compete for a lease: the elector needs a store, a role, an owner and a part")
	}
	return e.loop.Start(ctx)
}

// Stop stops the part when this instance leads, releases the lease so another instance takes
// over at its next try, and waits. A second Stop, or a Stop before Start, does nothing.
func (e *Elector) Stop(ctx context.Context) error {
	if err := e.loop.Stop(ctx); err != nil {
		return fmt.Errorf("cannot stop the %s elector: %w", e.cfg.Role, err)
	}
	return nil
}

// Token is the fencing token of the lease this instance holds; ok is false when it holds none
// (its part is stopped or stopping: it must write nothing a holder alone may write).
func (e *Elector) Token() (token int64, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.token, e.token != 0
}

func (e *Elector) setToken(t int64) {
	e.mu.Lock()
	e.token = t
	e.mu.Unlock()
}

func (e *Elector) run(ctx context.Context) {
	waiting := false
	for {
		sent := time.Now()
		actx, cancel := context.WithTimeout(ctx, e.every)
		token, ok, err := e.cfg.Store.Acquire(actx, e.cfg.Role, e.cfg.Owner, e.cfg.TTL)
		cancel()
		if ctx.Err() != nil {
			return
		}
		switch {
		case err != nil:
			e.warnf("cannot compete for the lease; retrying", "err", err, "retry_in", e.every)
		case ok:
			waiting = false
			e.lead(ctx, token, sent)
			if ctx.Err() != nil {
				return
			}
		case !waiting:
			waiting = true
			e.cfg.Log.Info("another instance holds the lease: this one waits to take it over", "role", e.cfg.Role, "owner", e.cfg.Owner,
				"retry_every", e.every)
		}
		t := time.NewTimer(e.every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// lead runs the part under the lease of token, acquired by a request sent at sent, until the
// lease is lost or ctx ends.
func (e *Elector) lead(ctx context.Context, token int64, sent time.Time) {
	log := e.cfg.Log.With("role", e.cfg.Role, "owner", e.cfg.Owner, "token", token)
	e.acquired.Inc()
	e.setToken(token)
	if err := e.cfg.Part.Start(ctx); err != nil {
		e.setToken(0)
		log.Error("took the lease but cannot start its part; releasing the lease", "err", err)
		e.release(token)
		return
	}
	log.Info("lease taken: this instance runs the part", "ttl", e.cfg.TTL)
	deadline := sent.Add(e.hold)
	expire := time.NewTimer(time.Until(deadline))
	defer expire.Stop()
	tick := time.NewTicker(e.every)
	defer tick.Stop()
	why := ""
	for why == "" {
		select {
		case <-ctx.Done():
			why = "stopping"
		case <-expire.C:
			why = "the lease was not renewed in time; another instance may take it over"
		case <-tick.C:
			at := time.Now()
			rctx, cancel := context.WithDeadline(ctx, deadline)
			ok, err := e.cfg.Store.Renew(rctx, e.cfg.Role, e.cfg.Owner, token, e.cfg.TTL)
			cancel()
			switch {
			case ctx.Err() != nil:
				why = "stopping"
			case err != nil:
				log.Warn("cannot renew the lease; the part stops if it is not renewed by the deadline", "err", err, "deadline", deadline)
			case !ok:
				why = "the lease lapsed or another instance took it over"
			default:
				deadline = at.Add(e.hold)
				expire.Reset(time.Until(deadline))
			}
		}
	}
	// From here on the token is refused to the part's writes, before its Stop even begins.
	e.setToken(0)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.cfg.PartStop)
	err := e.cfg.Part.Stop(sctx)
	cancel()
	if err != nil {
		log.Error("cannot stop the part after the lease ended; its writes are fenced", "err", err)
	}
	if ctx.Err() != nil {
		e.release(token)
		log.Info("lease released: this instance stopped")
		return
	}
	log.Warn("lease lost: this instance stopped the part and competes again", "why", why)
}

// release ends the lease at once, with a deadline of its own (the caller's context has ended).
func (e *Elector) release(token int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := e.cfg.Store.Release(ctx, e.cfg.Role, e.cfg.Owner, token); err != nil {
		e.cfg.Log.Warn("cannot release the lease; another instance takes it over once it lapses", "role", e.cfg.Role, "err", err, "ttl", e.cfg.TTL)
	}
}

// warnf logs a failed try at most once a minute: a store that is down (or not migrated yet)
// fails every try.
func (e *Elector) warnf(msg string, args ...any) {
	e.mu.Lock()
	now := time.Now()
	quiet := now.Sub(e.warn) < time.Minute
	if !quiet {
		e.warn = now
	}
	e.mu.Unlock()
	if !quiet {
		e.cfg.Log.Warn(msg, append([]any{"role", e.cfg.Role}, args...)...)
	}
}
