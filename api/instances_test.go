package api_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
)

// Two instances on one Postgres. Instance a dies in the middle of a call carrying an
// Idempotency-Key (its server stops while the handler is stuck, so nothing renews its claim any
// more). The client's retry on instance b waits for the claim's lease to end, takes it over and
// runs the call; a's late end stores nothing over b's answer, and the next retry replays b's.
func TestAnIdempotencyClaimOfADeadInstanceIsTakenOver(t *testing.T) {
	t.Parallel()
	pool := storetest.Postgres(t, "api")
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	a := startOn(t, pool, func(cfg *api.Config, s *api.Server) {
		cfg.Instance, cfg.IdempotencyClaimLease = "instance-a", 300*time.Millisecond
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) {
				once.Do(func() { close(entered) })
				<-release
				return 1, c.JSON(200, map[string]any{"companies": []int{0}, "from": "a"})
			}))
		}
	})
	b := startOn(t, pool, func(cfg *api.Config, s *api.Server) {
		cfg.Instance = "instance-b"
		if s != nil {
			s.Register(stub("reqs.search", func(c *api.Call) (int, error) {
				return 1, c.JSON(200, map[string]any{"companies": []int{0}, "from": "b"})
			}))
		}
	})
	key := a.account("starter").Key

	var stuck sync.WaitGroup
	stuck.Add(1)
	go func() { // the client's first try, which a never answers (no require: not the test's goroutine)
		defer stuck.Done()
		req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(res)
		req.SetRequestURI(a.s.Base + "/v1/reqs/search")
		req.Header.Set("X-API-Key", key)
		req.Header.Set("Idempotency-Key", "retry-me")
		_ = fasthttp.DoTimeout(req, res, 30*time.Second)
	}()
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	_ = a.srv.Stop(ctx) // a dies: its call is stuck and its claims are no longer renewed
	cancel()

	r := b.do("GET", "/v1/reqs/search", key, "", "Idempotency-Key", "retry-me")
	require.Equal(t, 200, r.status, "%s", r.body)
	require.Equal(t, "b", r.json(t)["from"], "b ran the call once a's claim lapsed")
	require.Empty(t, r.header["Idempotent-Replayed"])

	close(release) // a's call ends late: its answer is not stored over b's
	stuck.Wait()
	r = b.do("GET", "/v1/reqs/search", key, "", "Idempotency-Key", "retry-me")
	require.Equal(t, 200, r.status, "%s", r.body)
	require.Equal(t, "true", r.header["Idempotent-Replayed"])
	require.Equal(t, "b", r.json(t)["from"])
}
