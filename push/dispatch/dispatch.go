// Package dispatch sends due webhook and Slack deliveries: it claims them from webhook_deliveries (an
// oltp.Leaser: a lock per delivery on a connection of its own, so several instances share the
// work and a claim writes no row), signs each (X-Plane-Signature and the
// Standard Webhooks headers, under the endpoint's current and, during an overlap, previous
// secret), POSTs the stored body through the egress policy's dialer, and records every attempt:
// delivered and billed once on a 2xx, retried on a schedule of about three days otherwise, failed
// with the endpoint disabled on a 410 or after days of failures. It wakes on NOTIFY
// hs_deliveries, heard through the process's Postgres listener (package pglisten), claims at once
// whenever that listener LISTENs again after a lost connection (notifications may have been
// missed), and polls every second as a backstop. Attempts keep each endpoint and each
// customer within a share of the workers (Config.PerEndpoint, Config.PerCustomer), so a receiver
// that answers slowly, or not until the attempt's timeout, delays only its own deliveries.
//
// A Slack endpoint (oltp.KindSlack) gets no signature: its deliveries claimed together go as one
// Block Kit message (package destination) of up to destination.MaxSlackChanges changes, one
// message at a time per endpoint, and Slack's answer decides for every change in it (200 ok
// delivers; 403, 404 and 410 disable the endpoint; 400 fails; 429 waits for its Retry-After).
// Deliveries to an email endpoint are never sent here: a claim parks them for their daily
// digest (package push/digest).
//
// It owns the sending and the retry policy only: it must not create deliveries (the notifier,
// the test route and replays do), decide what is delivered (fire limits, the wall, the cap) or
// read secrets other than through oltp. The rows' statements are in oltp/dispatch.go.
package dispatch

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/destination"
	"github.com/planehq/hiringsignal/internal/egress"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/oltp"
)

// Config is a Dispatcher's. Pool, Box and Listener are required; zero values take the defaults
// named.
type Config struct {
	Pool    *pgxpool.Pool
	Box     oltp.SecretSealer // opens the endpoints' secrets
	Egress  egress.Policy     // the zero value is production: private addresses refused at dial time
	Log     *slog.Logger      // default: discard
	Metrics *metrics.Set      // nil: a set of its own, served nowhere
	// Listener is the process's Postgres listener: NOTIFY hs_deliveries wakes the claims.
	Listener *pglisten.Listener

	Workers       int           // deliveries in flight at once (default 64); also the connections kept per host
	PerEndpoint   int           // deliveries in flight to one endpoint at most (default Workers/4, at least 1)
	PerCustomer   int           // deliveries in flight to one customer's endpoints at most (default Workers/2, at least 1)
	Timeout       time.Duration // one attempt, connect to last byte (default 15 s)
	Poll          time.Duration // backstop poll when no NOTIFY comes (default 1 s)
	Schedule      Schedule      // retry delays (default DefaultSchedule); tests make them 0
	MaxRetryAfter time.Duration // a Retry-After is honoured up to this (default 1 h)
	DisableAfter  time.Duration // an endpoint failing every attempt this long is disabled (default 72 h)
	StoreTimeout  time.Duration // one claim or one record (default 10 s)
}

func (c *Config) defaults() {
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Metrics == nil {
		c.Metrics = metrics.NewSet()
	}
	if c.Workers <= 0 {
		c.Workers = 64
	}
	if c.PerEndpoint <= 0 {
		c.PerEndpoint = max(1, c.Workers/4)
	}
	if c.PerCustomer <= 0 {
		c.PerCustomer = max(1, c.Workers/2)
	}
	if c.Timeout <= 0 {
		c.Timeout = 15 * time.Second
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Schedule == nil {
		c.Schedule = DefaultSchedule
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = time.Hour
	}
	if c.DisableAfter <= 0 {
		c.DisableAfter = 72 * time.Hour
	}
	if c.StoreTimeout <= 0 {
		c.StoreTimeout = 10 * time.Second
	}
}

// Dispatcher is the long-running sender; Start and Stop follow package lifecycle.
type Dispatcher struct {
	cfg    Config
	client *http.Client
	m      *meters
	loop   lifecycle.Loop
}

// New makes a Dispatcher; it does nothing until Start.
func New(cfg Config) (*Dispatcher, error) {
	if cfg.Pool == nil || cfg.Box == nil || cfg.Listener == nil {
		return nil, errors.New("cannot make the dispatcher: a Postgres pool, the process's Postgres listener and the webhook secret box are required")
	}
	cfg.defaults()
	x := &Dispatcher{cfg: cfg, client: newClient(cfg.Egress, cfg.Timeout, cfg.Workers)}
	x.m = newMeters(cfg.Metrics)
	x.loop.Run = x.run
	return x, nil
}

// Start starts claiming and sending; a second Start does nothing.
func (x *Dispatcher) Start(ctx context.Context) error { return x.loop.Start(ctx) }

// Stop stops claiming, abandons the attempts in flight (their deliveries are due again at once,
// no attempt counted), records what was done and returns once every goroutine has.
func (x *Dispatcher) Stop(ctx context.Context) error {
	err := x.loop.Stop(ctx)
	x.client.CloseIdleConnections()
	return err
}

// job is a claimed delivery and when it was claimed; a Slack job also carries the deliveries
// sent in the same message (more: same endpoint, claimed together).
type job struct {
	d         oltp.DueDelivery
	more      []oltp.DueDelivery
	claimedAt time.Time
}

// size is how many deliveries j sends.
func (j *job) size() int { return 1 + len(j.more) }

// all is every delivery of j, the first first.
func (j *job) all() []oltp.DueDelivery {
	return append([]oltp.DueDelivery{j.d}, j.more...)
}

// queue is what the claimer, the workers and the recorders of one run share.
type queue struct {
	leases      *oltp.Leaser
	wake, freed chan struct{} // a NOTIFY (or a retry due soon); room for another claim
	jobs        chan job
	results     chan []oltp.AttemptResult // one job's results: a Slack message's are recorded together
	outstanding atomic.Int64              // claimed and not yet attempted or abandoned
	capacity    int                       // outstanding at most (about)
	batch       int                       // rows a claim asks for at most
	shares      *shares                   // hands the claimed deliveries to the workers (jobs)
}

// run claims due deliveries in batches of up to 4 x Workers and hands them to the workers within
// their shares (shares.go); outstanding deliveries (claimed and not yet attempted) stay under
// 16 x Workers, one customer's under half of that. One claimer
// (its claims are reads on the lease connection) and two recorders run, so one recorder's round
// trip to Postgres overlaps the other's. A delivery's lease ends once its attempt is recorded,
// and every lease when the run ends.
func (x *Dispatcher) run(ctx context.Context) {
	lease := x.cfg.Timeout + time.Minute // how long a dispatcher that stopped running keeps its leases
	q := &queue{leases: oltp.NewLeaser(x.cfg.Pool, lease), wake: make(chan struct{}, 1), freed: make(chan struct{}, 1),
		capacity: 16 * x.cfg.Workers, batch: 4 * x.cfg.Workers}
	defer q.leases.Close()
	q.jobs = make(chan job, q.capacity)
	q.shares = newShares(x.cfg.PerEndpoint, x.cfg.PerCustomer, q.jobs)
	q.results = make(chan []oltp.AttemptResult, q.capacity)
	x.m.inFlight(&q.outstanding)

	// A notification wakes the claimer; so does the channel being LISTENed again after a lost
	// connection, since notifications may have been missed meanwhile.
	sub, err := x.cfg.Listener.Listen(ctx, oltp.DeliveriesChannel, func(string, string) { signal(q.wake) },
		func(e pglisten.Event) {
			if e == pglisten.Listening {
				signal(q.wake)
			}
		})
	if err == nil {
		defer sub.Unlisten()
	}
	var workers, claimers, recorders sync.WaitGroup
	for range x.cfg.Workers {
		workers.Go(func() {
			for j := range q.jobs {
				rs := x.deliver(ctx, j)
				if q.shares.end(&j) {
					signal(q.wake) // its endpoint or customer may take a claim's worth more
				}
				q.results <- rs
				n := int64(j.size())
				if left := q.outstanding.Add(-n); left <= int64(q.capacity-q.batch) && left+n > int64(q.capacity-q.batch) {
					signal(q.freed)
				}
			}
		})
	}
	claimers.Go(func() { x.claim(ctx, q) })
	for range 2 {
		recorders.Go(func() { x.record(ctx, q) })
	}
	claimers.Wait()
	q.shares.close()
	workers.Wait()
	close(q.results)
	recorders.Wait()
}

// signal wakes whoever waits on c, once.
func signal(c chan<- struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// claim claims due deliveries while there is room, until ctx ends. Between claims it waits for
// a NOTIFY, the poll, or room when the last claim left more due.
func (x *Dispatcher) claim(ctx context.Context, q *queue) {
	poll := time.NewTicker(x.cfg.Poll)
	defer poll.Stop()
	more := true
	for ctx.Err() == nil {
		if n := int(q.outstanding.Load()); n <= q.capacity-q.batch {
			limit := q.batch
			cctx, cancel := context.WithTimeout(ctx, x.cfg.StoreTimeout)
			t0 := time.Now()
			claimed, err := q.leases.ClaimDueWithin(cctx, x.cfg.Box, limit, q.shares.claimShares())
			cancel()
			x.cfg.Log.Debug("claimed due deliveries", "n", len(claimed), "limit", limit, "took", time.Since(t0))
			if err != nil && ctx.Err() == nil {
				x.cfg.Log.Warn("cannot claim due deliveries; retrying at the next poll", "err", err)
			}
			now := time.Now()
			for _, j := range jobs(claimed, now) {
				if j.d.Gone {
					x.m.failed.Inc()
					continue
				}
				q.outstanding.Add(int64(j.size()))
				q.shares.add(j)
			}
			more = err == nil && len(claimed) == limit
			if more && int(q.outstanding.Load()) <= q.capacity-q.batch {
				continue
			}
		}
		select {
		case <-ctx.Done():
		case <-q.wake:
		case <-poll.C:
			x.keepAlive(ctx, q.leases)
		case <-q.freed:
			if !more {
				// Nothing was left due at the last claim: wait for news instead.
				select {
				case <-ctx.Done():
				case <-q.wake:
				case <-poll.C:
				}
			}
		}
	}
}

// keepAlive keeps the lease connection from the server's idle timeout while the dispatcher runs.
func (x *Dispatcher) keepAlive(ctx context.Context, l *oltp.Leaser) {
	kctx, cancel := context.WithTimeout(ctx, x.cfg.StoreTimeout)
	defer cancel()
	if err := l.KeepAlive(kctx); err != nil && ctx.Err() == nil {
		x.cfg.Log.Warn("delivery leases lost; their deliveries may be sent again by another dispatcher", "err", err)
	}
}

// jobs groups what one claim returned into jobs: a webhook delivery is a job of its own; the
// deliveries of one Slack endpoint go in messages of at most destination.MaxSlackChanges
// changes, oldest first, so a burst is a few messages rather than one per change.
func jobs(claimed []oltp.DueDelivery, at time.Time) []job {
	var out []job
	slack := map[int64]int{} // endpoint -> its job being filled in out
	for _, d := range claimed {
		if d.Kind != oltp.KindSlack || d.Gone {
			out = append(out, job{d: d, claimedAt: at})
			continue
		}
		if i, ok := slack[d.EndpointID]; ok && out[i].size() < destination.MaxSlackChanges {
			out[i].more = append(out[i].more, d)
			continue
		}
		slack[d.EndpointID] = len(out)
		out = append(out, job{d: d, claimedAt: at})
	}
	return out
}

// deliver makes one attempt of j and says what to record for each of its deliveries.
func (x *Dispatcher) deliver(ctx context.Context, j job) []oltp.AttemptResult {
	ds := j.all()
	released := func() []oltp.AttemptResult {
		out := make([]oltp.AttemptResult, len(ds))
		for i, d := range ds {
			out[i] = oltp.AttemptResult{DeliveryID: d.ID, EndpointID: d.EndpointID, Outcome: oltp.OutcomeReleased}
		}
		return out
	}
	if ctx.Err() != nil {
		return released()
	}
	started := time.Now()
	var a attempt
	var ok bool
	if j.d.Kind == oltp.KindSlack {
		a, ok = x.sendSlack(ctx, ds)
	} else {
		a, ok = x.send(ctx, &j.d)
	}
	if !ok {
		return released()
	}
	took := time.Since(started)
	out := make([]oltp.AttemptResult, len(ds))
	for i := range ds {
		x.m.attempt(a.kind, time.Since(j.claimedAt))
		out[i] = x.result(&ds[i], a, started, took)
	}
	return out
}

// record writes results in batches (whatever arrived while the last batch was written) until
// results is closed, retrying a batch the store refused (see writeBatch), then ends the batch's
// leases. A batch holding a retry due before the next poll wakes the claim loop.
func (x *Dispatcher) record(ctx context.Context, q *queue) {
	const maxBatch = 1000
	results, wake := q.results, q.wake
	batch := make([]oltp.AttemptResult, 0, maxBatch)
	ids := make([]int64, 0, maxBatch)
	for rs := range results {
		// A job's results stay in one batch: a Slack message that disabled its endpoint must not
		// fail, unrecorded, the other changes it carried.
		batch = append(batch[:0], rs...)
	fill:
		for len(batch) < maxBatch {
			select {
			case rs, ok := <-results:
				if !ok {
					break fill
				}
				batch = append(batch, rs...)
			default:
				break fill
			}
		}
		x.writeBatch(ctx, batch)
		ids = ids[:0]
		for _, r := range batch {
			ids = append(ids, r.DeliveryID)
		}
		if err := q.leases.Release(ids); err != nil {
			x.cfg.Log.Warn("delivery leases lost; their deliveries may be sent again by another dispatcher", "err", err)
		}
		for _, r := range batch {
			if r.Outcome == oltp.OutcomeRetry && r.RetryIn < x.cfg.Poll {
				select {
				case wake <- struct{}{}:
				default:
				}
				break
			}
		}
	}
}

// writeBatch records one batch, retrying with backoff for up to a minute, or trying once when
// the dispatcher is stopping (run's ctx ended), so a Stop waits one StoreTimeout at most for it.
func (x *Dispatcher) writeBatch(run context.Context, batch []oltp.AttemptResult) {
	backoff := 100 * time.Millisecond
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), x.cfg.StoreTimeout)
		t0 := time.Now()
		rec, err := oltp.RecordAttempts(ctx, x.cfg.Pool, batch, x.cfg.DisableAfter)
		cancel()
		x.cfg.Log.Debug("recorded delivery attempts", "n", len(batch), "took", time.Since(t0), "err", err)
		if err == nil {
			x.m.recorded(rec)
			for _, id := range rec.DisabledGone {
				x.cfg.Log.Warn("webhook endpoint disabled: it answered 410 Gone", "endpoint_id", id)
			}
			for _, id := range rec.DisabledFailing {
				x.cfg.Log.Warn("webhook endpoint disabled: every attempt failed for too long", "endpoint_id", id, "limit", x.cfg.DisableAfter)
			}
			return
		}
		if time.Now().After(deadline) || run.Err() != nil {
			x.cfg.Log.Error("cannot record delivery attempts; their leases end, so their deliveries are sent again",
				"deliveries", len(batch), "err", err)
			return
		}
		x.cfg.Log.Warn("cannot record delivery attempts; retrying", "deliveries", len(batch), "err", err)
		select {
		case <-run.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}
