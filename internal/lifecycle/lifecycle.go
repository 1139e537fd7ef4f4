// Package lifecycle owns the one Start/Stop contract every long-running part of the service
// follows (the API server, the read snapshot, the metering log, the crawl loop, the crawl-job
// loop), a Group that starts parts in order and stops them in reverse, and Loop, a goroutine
// with that contract. It knows nothing of the parts themselves and must not import them.
//
// The contract (after river's startstop): Start(ctx) returns once the part runs or cannot; a
// second Start of a running part does nothing. Stop(ctx) returns after every goroutine the part
// started has returned (or ctx ended); a second Stop, or a Stop before Start, does nothing.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Service is a long-running part of the process.
type Service interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

// Named is a Service with the name a Group reports in errors and logs.
type Named struct {
	Name string
	Service
}

// Group starts its parts in the order they were added and stops them in reverse. It is not
// itself reusable after Stop.
type Group struct {
	mu      sync.Mutex
	parts   []Named
	started []Named
}

// Add appends a part; call it before Start.
func (g *Group) Add(name string, s Service) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.parts = append(g.parts, Named{Name: name, Service: s})
}

// Start starts every part in order. When one fails, the parts already started are stopped in
// reverse and the error names the part that failed.
func (g *Group) Start(ctx context.Context) error {
	g.mu.Lock()
	parts := g.parts[len(g.started):]
	g.mu.Unlock()
	for _, p := range parts {
		if err := p.Start(ctx); err != nil {
			serr := g.Stop(context.WithoutCancel(ctx))
			return errors.Join(fmt.Errorf("cannot start %s: %w", p.Name, err), serr)
		}
		g.mu.Lock()
		g.started = append(g.started, p)
		g.mu.Unlock()
	}
	return nil
}

// Stop stops every started part in reverse order, waiting for each, and joins their errors.
func (g *Group) Stop(ctx context.Context) error {
	g.mu.Lock()
	started := g.started
	g.started = nil
	g.parts = g.parts[len(started):]
	g.mu.Unlock()
	var errs []error
	for i := len(started) - 1; i >= 0; i-- {
		if err := started[i].Stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("cannot stop %s: %w", started[i].Name, err))
		}
	}
	return errors.Join(errs...)
}

// Loop runs one function in one goroutine from Start to Stop. Run must return when its
// context ends. Start and Stop are idempotent; Stop waits for Run to return.
type Loop struct {
	Run func(ctx context.Context)

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// Start runs Run in a goroutine with a context that Stop cancels. The context keeps ctx's
// values but not its cancellation: only Stop ends the loop, so a Group decides the order.
func (l *Loop) Start(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil {
		return nil
	}
	var lctx context.Context
	lctx, l.cancel = context.WithCancel(context.WithoutCancel(ctx))
	l.done = make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		l.Run(lctx)
	}(l.done)
	return nil
}

// Stop cancels the loop's context and waits for Run to return, or for ctx to end.
func (l *Loop) Stop(ctx context.Context) error {
	l.mu.Lock()
	cancel, done := l.cancel, l.done
	l.cancel, l.done = nil, nil
	l.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("loop still running after the stop deadline: %w", ctx.Err())
	}
}

// Running reports whether the loop was started and not stopped.
func (l *Loop) Running() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cancel != nil
}
