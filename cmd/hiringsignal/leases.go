package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/leader"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/oltp"
)

// instanceID names this process where instances share state (lease owners, idempotency claims):
// host, pid and a random suffix, so a restart on the same host and pid is another instance.
func instanceID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// leaderDeps are what every elector of a process shares: its store, its instance id, the
// lease's length, the log and the metrics.
type leaderDeps struct {
	pool     *pgxpool.Pool
	instance string
	ttl      time.Duration
	log      *slog.Logger
	set      *metrics.Set
}

// elector returns the elector that runs part on this instance while it holds role's lease.
func (d leaderDeps) elector(role string, part lifecycle.Service) *leader.Elector {
	return leader.New(leader.Config{Store: oltp.Leases{Pool: d.pool}, Role: role, Owner: d.instance, Part: part, TTL: d.ttl,
		Log: d.log.With("part", role+" lease"), Metrics: d.set})
}

// fence is the notifier's view of the lease el holds (notifier.Config.Fence).
func fence(role string, el *leader.Elector) func() (oltp.Fence, bool) {
	return func() (oltp.Fence, bool) {
		t, ok := el.Token()
		return oltp.Fence{Role: role, Token: t}, ok
	}
}

// afterMigrations runs s once ready says the migrations are applied (the lease table exists),
// polling for that, and stops it when stopped.
func afterMigrations(log *slog.Logger, s lifecycle.Service, ready func() bool) *lifecycle.Loop {
	return &lifecycle.Loop{Run: func(ctx context.Context) {
		for !ready() {
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
		if err := s.Start(ctx); err != nil {
			log.Error("cannot start", "err", err)
			return
		}
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		_ = s.Stop(sctx)
	}}
}
