package readmodel

import (
	"context"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
)

// DefaultInterval is how often the store polls the committed watermark.
const DefaultInterval = 5 * time.Second

// Store keeps the current Model: it polls the committed watermark and, when a cycle committed
// (the watermark or the latest cycle time moved), rebuilds the whole model from ClickHouse and
// swaps it in atomically. Readers never wait on a build.
type Store struct {
	ch       driver.Conn
	log      *slog.Logger
	interval time.Duration

	cur atomic.Pointer[Model]

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// NewStore returns a stopped store; interval <= 0 selects DefaultInterval.
func NewStore(ch driver.Conn, log *slog.Logger, interval time.Duration) *Store {
	if interval <= 0 {
		interval = DefaultInterval
	}
	if log == nil {
		log = slog.Default()
	}
	return &Store{ch: ch, log: log, interval: interval}
}

// Current is the latest model (an empty one before the first build finished).
func (s *Store) Current() *Model {
	if m := s.cur.Load(); m != nil {
		return m
	}
	return emptyModel
}

var emptyModel = &Model{companies: map[uint64]*Company{}, byDomain: map[string][]*Company{}, byNameKey: map[string][]*Company{}}

// Ready reports whether a model was built.
func (s *Store) Ready() bool { return s.cur.Load() != nil }

// Refresh rebuilds the model now when the committed watermark moved since the current one (or
// when force is set) and swaps it in. It reports whether a new model was installed.
func (s *Store) Refresh(ctx context.Context, force bool) (bool, error) {
	wm, at, err := analytics.Watermark(ctx, s.ch)
	if err != nil {
		return false, err
	}
	if cur := s.cur.Load(); cur != nil && !force && cur.Watermark == wm && cur.AsOf.Equal(at.UTC()) {
		return false, nil
	}
	m, err := Build(ctx, s.ch)
	if err != nil {
		return false, err
	}
	s.cur.Store(m)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.log.Info("company read model built", "watermark", m.Watermark, "as_of", m.AsOf.Format(time.RFC3339),
		"companies", m.Companies(), "live_reqs", m.LiveReqs(), "took", m.BuildTook.Round(time.Millisecond),
		"heap_mib", ms.HeapAlloc>>20, "phases", m.Phases)
	return true, nil
}

// Start builds the first model in the background and then polls every interval until Stop.
// Failures are logged and retried on the next tick; the previous model keeps serving.
func (s *Store) Start(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		return
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go s.loop(ctx, s.done)
}

func (s *Store) loop(ctx context.Context, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		if _, err := s.Refresh(ctx, false); err != nil && ctx.Err() == nil {
			s.log.Warn("cannot rebuild the company read model; serving the previous one", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Stop ends polling and waits for a build in progress to stop.
func (s *Store) Stop() {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.cancel, s.done = nil, nil
	s.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}
