package leader_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/leader"
)

// store is an in-memory lease table; cut owners get an error from every call (a partition).
type store struct {
	mu      sync.Mutex
	owner   string
	token   int64
	expires time.Time
	cut     map[string]bool
}

var errCut = errors.New("connection refused")

func (s *store) Acquire(_ context.Context, _, owner string, ttl time.Duration) (int64, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cut[owner] {
		return 0, false, errCut
	}
	if s.owner != "" && s.owner != owner && time.Now().Before(s.expires) {
		return 0, false, nil
	}
	s.owner, s.token, s.expires = owner, s.token+1, time.Now().Add(ttl)
	return s.token, true, nil
}

func (s *store) Renew(_ context.Context, _, owner string, token int64, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cut[owner] {
		return false, errCut
	}
	if s.owner != owner || s.token != token || !time.Now().Before(s.expires) {
		return false, nil
	}
	s.expires = time.Now().Add(ttl)
	return true, nil
}

func (s *store) Release(_ context.Context, _, owner string, token int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cut[owner] {
		return errCut
	}
	if s.owner == owner && s.token == token {
		s.expires = time.Now()
	}
	return nil
}

func (s *store) setCut(owner string, cut bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cut == nil {
		s.cut = map[string]bool{}
	}
	s.cut[owner] = cut
}

// part counts its runs; running says whether it is started.
type part struct {
	running atomic.Bool
	starts  atomic.Int64
}

func (p *part) Start(context.Context) error { p.running.Store(true); p.starts.Add(1); return nil }
func (p *part) Stop(context.Context) error  { p.running.Store(false); return nil }

func elector(t *testing.T, s *store, owner string, p *part) *leader.Elector {
	t.Helper()
	e := leader.New(leader.Config{Store: s, Role: "notifier", Owner: owner, Part: p, TTL: 300 * time.Millisecond})
	require.NoError(t, e.Start(context.Background()))
	t.Cleanup(func() { _ = e.Stop(context.Background()) })
	return e
}

// Two candidates: one runs the part, the other waits; stopping the holder releases the lease
// and the other takes over, with a larger token.
func TestOneRunsThePartAndAStoppedHolderHandsOver(t *testing.T) {
	t.Parallel()
	s := &store{}
	pa, pb := &part{}, &part{}
	a := elector(t, s, "a", pa)
	require.Eventually(t, pa.running.Load, 10*time.Second, 5*time.Millisecond)
	b := elector(t, s, "b", pb)
	ta, ok := a.Token()
	require.True(t, ok)
	_, ok = b.Token()
	require.False(t, ok)
	require.False(t, pb.running.Load())

	require.NoError(t, a.Stop(context.Background()))
	require.False(t, pa.running.Load(), "Stop stops the part")
	_, ok = a.Token()
	require.False(t, ok)
	require.Eventually(t, pb.running.Load, 10*time.Second, 5*time.Millisecond)
	tb, ok := b.Token()
	require.True(t, ok)
	require.Greater(t, tb, ta)
}

// A holder cut off from the store stops its part and gives up its token once it cannot renew;
// the other candidate takes the lease over when it lapses, and the first competes again (and
// waits) once the store answers.
func TestACutOffHolderStopsItsPartAndAnotherTakesOver(t *testing.T) {
	t.Parallel()
	s := &store{}
	pa, pb := &part{}, &part{}
	a := elector(t, s, "a", pa)
	require.Eventually(t, pa.running.Load, 10*time.Second, 5*time.Millisecond)
	b := elector(t, s, "b", pb)

	s.setCut("a", true)
	require.Eventually(t, func() bool { _, ok := a.Token(); return !ok && !pa.running.Load() }, 10*time.Second, 5*time.Millisecond)
	require.Eventually(t, pb.running.Load, 10*time.Second, 5*time.Millisecond)
	s.setCut("a", false)
	_, ok := b.Token()
	require.True(t, ok)
	require.EqualValues(t, 1, pa.starts.Load(), "a waits for b's lease")
}

// A renewal the store refuses (the lease was taken over meanwhile) stops the part at once.
func TestARefusedRenewalStopsThePart(t *testing.T) {
	t.Parallel()
	s := &store{}
	p := &part{}
	a := elector(t, s, "a", p)
	require.Eventually(t, p.running.Load, 10*time.Second, 5*time.Millisecond)
	s.mu.Lock()
	s.owner, s.token, s.expires = "other", s.token+1, time.Now().Add(time.Hour)
	s.mu.Unlock()
	require.Eventually(t, func() bool { _, ok := a.Token(); return !ok && !p.running.Load() }, 10*time.Second, 5*time.Millisecond)
}
