package lifecycle

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type recorder struct {
	mu  sync.Mutex
	log []string
}

func (r *recorder) add(s string) { r.mu.Lock(); r.log = append(r.log, s); r.mu.Unlock() }

type part struct {
	name     string
	r        *recorder
	startErr error
}

func (p *part) Start(context.Context) error {
	if p.startErr != nil {
		return p.startErr
	}
	p.r.add("start " + p.name)
	return nil
}
func (p *part) Stop(context.Context) error { p.r.add("stop " + p.name); return nil }

func TestGroupStartsInOrderStopsInReverse(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	var g Group
	g.Add("a", &part{name: "a", r: r})
	g.Add("b", &part{name: "b", r: r})
	require.NoError(t, g.Start(context.Background()))
	require.NoError(t, g.Stop(context.Background()))
	require.NoError(t, g.Stop(context.Background()), "a second Stop does nothing")
	require.Equal(t, []string{"start a", "start b", "stop b", "stop a"}, r.log)
}

func TestGroupStopsStartedPartsWhenOneFails(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	var g Group
	g.Add("a", &part{name: "a", r: r})
	g.Add("b", &part{name: "b", r: r, startErr: errors.New("port taken")})
	err := g.Start(context.Background())
	require.ErrorContains(t, err, "cannot start b: port taken")
	require.Equal(t, []string{"start a", "stop a"}, r.log)
}

func TestLoopStopWaitsForRun(t *testing.T) {
	t.Parallel()
	finished := make(chan struct{})
	l := &Loop{Run: func(ctx context.Context) {
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond)
		close(finished)
	}}
	require.NoError(t, l.Stop(context.Background()), "Stop before Start does nothing")
	require.NoError(t, l.Start(context.Background()))
	require.NoError(t, l.Start(context.Background()), "a second Start does nothing")
	require.True(t, l.Running())
	require.NoError(t, l.Stop(context.Background()))
	select {
	case <-finished:
	default:
		t.Fatal("Stop returned before Run did")
	}
	require.False(t, l.Running())
}

func TestLoopIgnoresStartContextCancellation(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	l := &Loop{Run: func(ctx context.Context) { <-ctx.Done(); close(ended) }}
	require.NoError(t, l.Start(ctx))
	cancel()
	select {
	case <-ended:
		t.Fatal("the loop ended with its start context; only Stop may end it")
	case <-time.After(20 * time.Millisecond):
	}
	require.NoError(t, l.Stop(context.Background()))
}

func TestLoopStopHonoursDeadline(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	l := &Loop{Run: func(ctx context.Context) { <-release }}
	require.NoError(t, l.Start(context.Background()))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, l.Stop(ctx), context.DeadlineExceeded)
	close(release)
}
