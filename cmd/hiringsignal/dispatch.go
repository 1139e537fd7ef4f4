package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/dispatch"
)

// dispatchFlags tune the webhook dispatcher of serve and dev.
type dispatchFlags struct {
	workers, perEndpoint, perCustomer *int
	timeout                           *time.Duration
}

func addDispatchFlags(fs *flagenv.Set) *dispatchFlags {
	return &dispatchFlags{
		workers:     fs.Int("delivery-workers", 64, "webhook deliveries in flight at once on this instance (also the connections kept alive per receiving host)"),
		perEndpoint: fs.Int("delivery-per-endpoint", 0, "webhook deliveries in flight to one endpoint at most, so a receiver that answers slowly holds only this many workers (0: a quarter of --delivery-workers)"),
		perCustomer: fs.Int("delivery-per-customer", 0, "webhook deliveries in flight to one customer's endpoints at most (0: half of --delivery-workers)"),
		timeout:     fs.Duration("delivery-timeout", 15*time.Second, "one webhook delivery attempt, connect to last byte; past it the attempt failed (no response status) and is retried"),
	}
}

// addDispatcher adds the webhook dispatcher to g (after the API: it stops first). It has a
// Postgres pool of its own, so a burst of deliveries never takes the API's connections, and
// hears of due deliveries through the process's listener. It starts sending once ready says the
// migrations are applied, and polls for that meanwhile.
func addDispatcher(ctx context.Context, g *lifecycle.Group, log *slog.Logger, f *storeFlags, df *dispatchFlags, set *metrics.Set, push pushDeps, listener *pglisten.Listener, ready func() bool) error {
	pool, err := oltp.Open(ctx, *f.postgresURL)
	if err != nil {
		return err
	}
	d, err := dispatch.New(dispatch.Config{Pool: pool, Listener: listener, Box: push.box, Egress: push.egress, Log: log.With("part", "dispatch"),
		Metrics: set, Workers: *df.workers, PerEndpoint: *df.perEndpoint, PerCustomer: *df.perCustomer, Timeout: *df.timeout})
	if err != nil {
		pool.Close()
		return err
	}
	g.Add("webhook dispatcher", &lifecycle.Loop{Run: func(ctx context.Context) {
		defer pool.Close()
		for !ready() {
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
		if err := d.Start(ctx); err != nil {
			log.Error("cannot start the webhook dispatcher", "err", err)
			return
		}
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err := d.Stop(sctx); err != nil {
			log.Error("cannot stop the webhook dispatcher", "err", err)
		}
	}})
	return nil
}
