package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// A host's rate after 429s never drops below one request per rateFloorEvery (unless its ceiling
// is lower still), and each success raises it by a rateStepShare-th of its ceiling.
const (
	rateFloorEvery = 20 * time.Second
	rateStepShare  = 50
)

// aimd is one host's request rate, additive increase and multiplicative decrease: a 429 halves
// it (down to one request per rateFloorEvery), each success adds a fiftieth of the ceiling,
// and it never exceeds the ceiling, the lower of the configured rate and robots.txt's
// Crawl-delay. No ceiling at all (neither is set) is unlimited, and 429s then change nothing:
// the retries' backoff and Retry-After still apply. It is pure (no clock, no lock): hostGate
// serialises it and applies its rate.
type aimd struct {
	limit float64 // configured requests per second; 0: none
	delay float64 // robots.txt's Crawl-delay as requests per second; 0: none
	cur   float64 // the rate now; 0 while there is no ceiling
}

func newAIMD(limit float64) aimd {
	a := aimd{limit: max(0, limit)}
	a.cur = a.ceiling()
	return a
}

// ceiling is the highest rate allowed, 0 for unlimited.
func (a aimd) ceiling() float64 {
	switch {
	case a.limit == 0:
		return a.delay
	case a.delay == 0:
		return a.limit
	}
	return min(a.limit, a.delay)
}

// throttled halves the rate after a 429.
func (a *aimd) throttled() {
	c := a.ceiling()
	if c == 0 {
		return
	}
	a.cur = max(a.cur/2, min(1/rateFloorEvery.Seconds(), c))
}

// succeeded raises the rate by a step after a success.
func (a *aimd) succeeded() {
	c := a.ceiling()
	if c == 0 {
		return
	}
	a.cur = min(a.cur+c/rateStepShare, c)
}

// setCrawlDelay applies robots.txt's Crawl-delay (0: none). A lower ceiling lowers the rate at
// once; a higher one lets it creep up.
func (a *aimd) setCrawlDelay(d time.Duration) {
	a.delay = 0
	if d > 0 {
		a.delay = 1 / d.Seconds()
	}
	c := a.ceiling()
	if a.cur == 0 || a.cur > c {
		a.cur = c
	}
}

// limit is the rate for a rate.Limiter.
func (a aimd) rateLimit() rate.Limit {
	if a.cur == 0 || math.IsInf(a.cur, 1) {
		return rate.Inf
	}
	return rate.Limit(a.cur)
}

// HostTurns spaces the requests to one host across every process that shares it (crawl workers
// on several machines): Take reserves n consecutive turns, every apart, after every turn
// reserved before, and returns when the first may go. oltp.HostTurns keeps them in Postgres.
type HostTurns interface {
	Take(ctx context.Context, host string, n int, every time.Duration) (first time.Time, err error)
}

// turnBlock is how many turns a gate reserves at once: one round trip to the shared store per
// this many requests to a host.
const turnBlock = 4

// hostGate is what the fetcher keeps per host: PerHost requests in flight at most, and a
// request rate (aimd) across every worker of the fetcher or, with shared turns, across every
// process.
type hostGate struct {
	host  string
	slots chan struct{}
	lim   *rate.Limiter
	turns HostTurns // nil: the rate holds in this process only

	mu      sync.Mutex
	rate    aimd
	pending []time.Time // turns reserved and not used yet, earliest first
}

func newHostGate(host string, perHost int, limit float64, turns HostTurns) *hostGate {
	a := newAIMD(limit)
	return &hostGate{host: host, slots: make(chan struct{}, perHost), lim: rate.NewLimiter(a.rateLimit(), 1), rate: a, turns: turns}
}

// nextTurn is when this process's next request to the host may go under the shared turns, or
// the zero time when the host has no rate (nothing to space).
func (g *hostGate) nextTurn(ctx context.Context) (time.Time, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.rate.rateLimit()
	if r == rate.Inf || r <= 0 {
		return time.Time{}, nil
	}
	now := time.Now()
	for len(g.pending) > 0 && g.pending[0].Before(now.Add(-time.Second)) {
		g.pending = g.pending[1:] // a turn left unused long ago: another process may have the host now
	}
	if len(g.pending) == 0 {
		every := time.Duration(float64(time.Second) / float64(r))
		first, err := g.turns.Take(ctx, g.host, turnBlock, every)
		if err != nil {
			return time.Time{}, fmt.Errorf("cannot reserve requests to %s: %w", g.host, err)
		}
		for i := range turnBlock {
			g.pending = append(g.pending, first.Add(time.Duration(i)*every))
		}
	}
	t := g.pending[0]
	g.pending = g.pending[1:]
	return t, nil
}

// errNoTurn: the host's rate gives the request no turn before the source's deadline.
var errNoTurn = errors.New("the host's request rate leaves no turn before the source deadline")

// acquire takes a slot and waits for the host's rate; the caller calls release once the
// response is read. It fails with ctx's error, or errNoTurn when the wait would outlast ctx's
// deadline.
func (g *hostGate) acquire(ctx context.Context) error {
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if g.turns != nil {
		at, err := g.nextTurn(ctx)
		if err != nil {
			<-g.slots
			return err
		}
		if wait := time.Until(at); wait > 0 {
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
				<-g.slots
				return errNoTurn
			}
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				<-g.slots
				return ctx.Err()
			}
		}
		return nil
	}
	if err := g.lim.Wait(ctx); err != nil {
		<-g.slots
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errNoTurn
	}
	return nil
}

func (g *hostGate) release() { <-g.slots }

// observe adjusts the rate to a response's status: a 429 halves it, a success (2xx, 304)
// raises it.
func (g *hostGate) observe(status int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case status == 429:
		g.rate.throttled()
	case status/100 == 2 || status == 304:
		g.rate.succeeded()
	default:
		return
	}
	g.lim.SetLimit(g.rate.rateLimit())
}

// setCrawlDelay applies robots.txt's Crawl-delay for the host (0: none).
func (g *hostGate) setCrawlDelay(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rate.setCrawlDelay(d)
	g.lim.SetLimit(g.rate.rateLimit())
}

// current is the host's rate now (0: unlimited).
func (g *hostGate) current() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.rate.cur
}
