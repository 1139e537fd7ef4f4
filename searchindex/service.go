package searchindex

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
)

// Config configures a Service.
type Config struct {
	ClickHouse driver.Conn
	Log        *slog.Logger
	Poll       time.Duration // how often the committed watermark is checked (default 5s)
}

// Service keeps the current Index: it polls the committed watermark and, when it moved, builds a
// new index off to the side and swaps it in atomically. Readers call Current and never wait on a
// build. Start, then Stop; one goroutine.
type Service struct {
	cfg    Config
	log    *slog.Logger
	cur    atomic.Pointer[Index]
	mu     sync.Mutex // one build at a time
	cancel context.CancelFunc
	done   chan struct{}
}

// New returns a stopped Service.
func New(cfg Config) *Service {
	if cfg.Poll <= 0 {
		cfg.Poll = 5 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Service{cfg: cfg, log: cfg.Log}
}

// Current is the latest built index, or nil before the first build finished.
func (s *Service) Current() *Index { return s.cur.Load() }

// Refresh builds a new index when the committed watermark differs from the current index's (or
// there is none yet) and swaps it in. It reports whether it swapped.
func (s *Service) Refresh(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	wm, at, err := analytics.Watermark(ctx, s.cfg.ClickHouse)
	if err != nil {
		return false, err
	}
	if cur := s.cur.Load(); cur != nil && cur.Watermark == wm && cur.CycleTime.Equal(at.UTC()) {
		return false, nil
	}
	x, err := BuildAt(ctx, s.cfg.ClickHouse, wm, at)
	if err != nil {
		return false, err
	}
	s.cur.Store(x)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st := x.Stats()
	s.log.Info("search index swapped", "watermark", wm, "cycle_time", x.CycleTime.Format(time.RFC3339), "reqs", st.Reqs, "live", st.LiveReqs,
		"companies", st.Companies, "titles", st.Titles, "took", x.BuildTook.Round(time.Millisecond), "heap_mib", ms.HeapAlloc>>20)
	return true, nil
}

// Start launches the polling goroutine; the first build starts at once.
func (s *Service) Start(ctx context.Context) error {
	if s.cfg.ClickHouse == nil {
		return errors.New("cannot start the search index: no ClickHouse connection")
	}
	if s.done != nil {
		return fmt.Errorf("cannot start the search index: already started")
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		t := time.NewTicker(s.cfg.Poll)
		defer t.Stop()
		for {
			if _, err := s.Refresh(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("search index refresh failed; serving the previous build", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return nil
}

// Stop ends the polling goroutine (a build in progress is canceled) and waits for it.
func (s *Service) Stop(ctx context.Context) error {
	if s.cancel == nil {
		return nil
	}
	s.cancel()
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("cannot stop the search index: %w", ctx.Err())
	}
}
