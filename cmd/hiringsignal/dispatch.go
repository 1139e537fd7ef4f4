package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/internal/pglisten"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/push/digest"
	"github.com/planehq/hiringsignal/push/dispatch"
)

// dispatchFlags tune the webhook dispatcher of serve and dev, and the email digest's relay.
type dispatchFlags struct {
	workers, perEndpoint, perCustomer *int
	timeout                           *time.Duration
	smtpAddr, smtpFrom, smtpUsername  *string
	digestHour                        *int
}

func addDispatchFlags(fs *flagenv.Set) *dispatchFlags {
	return &dispatchFlags{
		smtpAddr:     fs.String("smtp-addr", "", "host:port of the SMTP relay email digests are sent through (STARTTLS whenever it offers it); empty: no email endpoints (registering one answers 503)"),
		smtpFrom:     fs.String("smtp-from", "", "From of the email digests, e.g. \"Hiring signal <digest@example.com>\" (required with --smtp-addr); its domain ends every Message-ID"),
		smtpUsername: fs.String("smtp-username", "", "user of the SMTP relay's AUTH PLAIN (sent only over TLS or to loopback); the password is read from HS_SMTP_PASSWORD only, never a flag"),
		digestHour:   fs.Int("digest-hour", 8, "hour of the day (UTC, 0 to 23) at which every email endpoint gets its daily digest"),
		workers:      fs.Int("delivery-workers", 64, "webhook deliveries in flight at once on this instance (also the connections kept alive per receiving host)"),
		perEndpoint:  fs.Int("delivery-per-endpoint", 0, "webhook deliveries in flight to one endpoint at most, so a receiver that answers slowly holds only this many workers (0: a quarter of --delivery-workers)"),
		perCustomer:  fs.Int("delivery-per-customer", 0, "webhook deliveries in flight to one customer's endpoints at most (0: half of --delivery-workers)"),
		timeout:      fs.Duration("delivery-timeout", 15*time.Second, "one webhook delivery attempt, connect to last byte; past it the attempt failed (no response status) and is retried"),
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
	g.Add("webhook dispatcher", startedWhenReady(log, "the webhook dispatcher", pool, ready, d.Start, d.Stop))
	return nil
}

// startedWhenReady is a loop that waits until ready says the migrations are applied, starts a
// part with start, and stops it with stop when the group stops, closing pool last; name says
// which part in its logs.
func startedWhenReady(log *slog.Logger, name string, pool *pgxpool.Pool, ready func() bool, start, stop func(context.Context) error) *lifecycle.Loop {
	return &lifecycle.Loop{Run: func(ctx context.Context) {
		defer pool.Close()
		for !ready() {
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
		if err := start(ctx); err != nil {
			log.Error("cannot start "+name, "err", err)
			return
		}
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err := stop(sctx); err != nil {
			log.Error("cannot stop "+name, "err", err)
		}
	}}
}

// mail is the email digest's configuration from the flags, nil without --smtp-addr.
func (df *dispatchFlags) mail() (*mailDeps, error) {
	if *df.smtpAddr == "" {
		return nil, nil
	}
	m := &mailDeps{smtp: digest.SMTP{Addr: *df.smtpAddr, From: *df.smtpFrom, Username: *df.smtpUsername, Password: flagenv.Env("HS_SMTP_PASSWORD", "")},
		hour: *df.digestHour}
	if err := m.smtp.Check(); err != nil {
		return nil, err
	}
	if m.hour < 0 || m.hour > 23 {
		return nil, fmt.Errorf("cannot send email digests at hour %d: --digest-hour (env HS_DIGEST_HOUR) is 0 to 23 (UTC)", m.hour)
	}
	return m, nil
}

// mailDeps are the relay and the hour of the email digest.
type mailDeps struct {
	smtp digest.SMTP
	hour int
}

// addDigest adds the email digest to g (after the API: it stops first) when push has a relay,
// on the dispatcher's kind of pool of its own; it starts once ready says the migrations are
// applied.
func addDigest(ctx context.Context, g *lifecycle.Group, log *slog.Logger, f *storeFlags, set *metrics.Set, push pushDeps, ready func() bool) error {
	if push.mail == nil {
		return nil
	}
	pool, err := oltp.Open(ctx, *f.postgresURL)
	if err != nil {
		return err
	}
	d, err := digest.New(digest.Config{Pool: pool, Box: push.box, SMTP: push.mail.smtp, Hour: push.mail.hour, Log: log.With("part", "digest"), Metrics: set})
	if err != nil {
		pool.Close()
		return err
	}
	g.Add("email digest", startedWhenReady(log, "the email digest", pool, ready, d.Start, d.Stop))
	return nil
}
