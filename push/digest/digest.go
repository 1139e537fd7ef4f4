// Package digest sends the daily email digest of every email endpoint (oltp.KindEmail): once a
// day, at Config.Hour UTC, one plain text and HTML message per endpoint listing its pending watch
// deliveries (the changes since its last digest), through the operator's SMTP relay; and a test
// delivery to an email endpoint at once, as a message of its own.
//
// Once a day per endpoint, across restarts and instances: the digest is recorded before it is
// sent (oltp.RecordDigest: one row per endpoint and day, with its Message-ID and the deliveries
// it lists), sent from that row under a lease (oltp.ClaimDigests), and marked sent together with
// its deliveries delivered and billed (oltp.DigestSent). A crash after the server accepted the
// message and before that record sends the same message again, with the same Message-ID (mail
// clients show one), at most once per such crash; nothing else sends a day's digest twice.
//
// It owns the schedule, the SMTP dialogue and what a failed try means. It must not decide what
// is delivered (the notifier does: the fire limit, the wall and the cap apply to email endpoints
// as to any other), render (package destination does), or send webhooks or Slack messages
// (package dispatch does; it parks email deliveries for this package).
package digest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/internal/destination"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/oltp"
)

// Config is a Digester's. Pool, Box and SMTP are required; zero values take the defaults named.
type Config struct {
	Pool *pgxpool.Pool
	Box  oltp.SecretSealer // opens the endpoints' addresses
	SMTP SMTP
	Hour int              // the hour (UTC, 0..23) of the daily digest (flag --digest-hour)
	Now  func() time.Time // default time.Now
	Poll time.Duration    // how often it looks for work (default 30 s)
	// Retry says how long after its failures-th failed try a digest or a test is tried again, and
	// false when it has failed for good (default DefaultRetry).
	Retry   func(failures int) (time.Duration, bool)
	Log     *slog.Logger // default: discard
	Metrics *metrics.Set // nil: a set of its own
}

// DefaultRetry retries a digest the server did not take 1 min, 5 min, 30 min, 2 h and 5 h after
// its failed tries, then gives up (before the next day's digest is due).
func DefaultRetry(failures int) (time.Duration, bool) {
	delays := [...]time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour}
	if failures < 1 || failures > len(delays) {
		return 0, false
	}
	return delays[failures-1], true
}

// Digester is the long-running part; Start and Stop follow package lifecycle.
type Digester struct {
	cfg                    Config
	loop                   lifecycle.Loop
	nSent, nFailed, nTests *metrics.Counter
}

// New makes a Digester; it does nothing until Start.
func New(cfg Config) (*Digester, error) {
	if cfg.Pool == nil || cfg.Box == nil {
		return nil, errors.New("cannot make the email digest: a Postgres pool and the webhook secret box are required")
	}
	if err := cfg.SMTP.Check(); err != nil {
		return nil, err
	}
	if cfg.Hour < 0 || cfg.Hour > 23 {
		return nil, fmt.Errorf("cannot send email digests at hour %d: --digest-hour (env HS_DIGEST_HOUR) is 0 to 23 (UTC)", cfg.Hour)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 30 * time.Second
	}
	if cfg.Retry == nil {
		cfg.Retry = DefaultRetry
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.NewSet()
	}
	g := &Digester{cfg: cfg,
		nSent:   cfg.Metrics.GetOrCreateCounter("hs_email_digests_sent_total"),
		nFailed: cfg.Metrics.GetOrCreateCounter("hs_email_digests_failed_total"),
		nTests:  cfg.Metrics.GetOrCreateCounter("hs_email_tests_sent_total")}
	g.loop.Run = g.run
	return g, nil
}

// Start starts the schedule; a second Start does nothing.
func (g *Digester) Start(ctx context.Context) error { return g.loop.Start(ctx) }

// Stop stops it and returns once the message being sent, if any, is done or abandoned (its
// digest is sent again by the next run: the same message).
func (g *Digester) Stop(ctx context.Context) error { return g.loop.Stop(ctx) }

func (g *Digester) run(ctx context.Context) {
	t := time.NewTicker(g.cfg.Poll)
	defer t.Stop()
	for {
		if err := g.Tick(ctx); err != nil && ctx.Err() == nil {
			g.cfg.Log.Warn("email digests: retrying at the next poll", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Moment is the latest digest moment at or before now for hour (UTC): today's at hour once it
// has passed, else yesterday's. Its date is the digest's day.
func Moment(now time.Time, hour int) time.Time {
	now = now.UTC()
	m := time.Date(now.Year(), now.Month(), now.Day(), hour, 0, 0, 0, time.UTC)
	if m.After(now) {
		m = m.AddDate(0, 0, -1)
	}
	return m
}

// lease is how long a runner holds a digest or a test it is sending.
func (g *Digester) lease() time.Duration {
	t := g.cfg.SMTP.Timeout
	if t <= 0 {
		t = 30 * time.Second
	}
	return t + time.Minute
}

// Tick does what is due now: records the digests of the latest moment not yet recorded, sends
// the digests and the test messages due. Tests and the binary's loop call it.
func (g *Digester) Tick(ctx context.Context) error {
	moment := Moment(g.cfg.Now(), g.cfg.Hour)
	for {
		ids, err := oltp.DueDigests(ctx, g.cfg.Pool, moment, moment, 100)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, _, err := oltp.RecordDigest(ctx, g.cfg.Pool, id, moment, moment, g.messageID("digest", id, moment.Format("20060102"))); err != nil {
				return err
			}
		}
		if len(ids) < 100 {
			break
		}
	}
	for {
		ds, err := oltp.ClaimDigests(ctx, g.cfg.Pool, g.cfg.Box, g.lease(), 10)
		if err != nil {
			return err
		}
		for i := range ds {
			if err := g.send(ctx, &ds[i]); err != nil {
				return err
			}
		}
		if len(ds) < 10 {
			break
		}
	}
	tests, err := oltp.ClaimEmailTests(ctx, g.cfg.Pool, g.cfg.Box, g.lease(), 20)
	if err != nil {
		return err
	}
	var results []oltp.AttemptResult
	for _, t := range tests {
		results = append(results, g.test(ctx, &t))
	}
	if len(results) > 0 {
		if _, err := oltp.RecordEmailAttempts(context.WithoutCancel(ctx), g.cfg.Pool, results); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// messageID is the Message-ID of a message: kind and id and, for a digest, its day; at the
// domain of --smtp-from.
func (g *Digester) messageID(kind string, id int64, day string) string {
	domain := "hiringsignal.invalid"
	if a, err := mail.ParseAddress(g.cfg.SMTP.From); err == nil {
		if _, d, ok := strings.Cut(a.Address, "@"); ok {
			domain = d
		}
	}
	if day != "" {
		return fmt.Sprintf("<%s.%d.%s@%s>", kind, id, day, domain)
	}
	return fmt.Sprintf("<%s.%d@%s>", kind, id, domain)
}

// send sends one claimed digest and records what came of it.
func (g *Digester) send(ctx context.Context, d *oltp.DigestToSend) error {
	started := time.Now()
	day := d.Day
	if len(d.Deliveries) == 0 {
		// Every delivery it listed was failed or replayed meanwhile: nothing left to say.
		_, err := oltp.DigestSent(ctx, g.cfg.Pool, d.EndpointID, day, nil, started, 0)
		return err
	}
	if d.ToErr != nil {
		g.cfg.Log.Warn("cannot open an email endpoint's address; its digest is retried", "endpoint_id", d.EndpointID, "err", d.ToErr)
		return g.failed(ctx, d, "cannot open the endpoint's address (is --webhook-secret-keys the key that sealed it?)", false, false, started)
	}
	m := destination.Digest{From: g.cfg.SMTP.From, To: d.To, MessageID: d.MessageID, Date: d.RecordedAt, Through: time.Date(day.Year(), day.Month(), day.Day(), g.cfg.Hour, 0, 0, 0, time.UTC),
		EndpointID: d.EndpointID, Changes: bodies(d.Bodies)}
	err := g.cfg.SMTP.Send(ctx, d.To, m.Message())
	if err != nil && ctx.Err() != nil {
		return ctx.Err() // stopping: the digest is sent again by the next run
	}
	if err == nil {
		rec, err := oltp.DigestSent(context.WithoutCancel(ctx), g.cfg.Pool, d.EndpointID, day, d.Deliveries, started, time.Since(started))
		if err != nil {
			return fmt.Errorf("the digest of endpoint %d was sent but cannot be recorded (it will be sent again, with the same Message-ID): %w", d.EndpointID, err)
		}
		g.nSent.Inc()
		g.cfg.Log.Info("email digest sent", "endpoint_id", d.EndpointID, "day", day.Format(time.DateOnly), "changes", len(d.Deliveries), "billed", rec.Billed)
		return nil
	}
	var se *SendError
	permanent, gone := false, false
	if errors.As(err, &se) {
		permanent, gone = se.Permanent(), se.AddressRefused()
	}
	return g.failed(ctx, d, err.Error(), permanent, gone, started)
}

// failed records a failed try of d: retried on the schedule unless it is permanent (or the
// schedule is spent), then failed with its deliveries; gone disables the endpoint.
func (g *Digester) failed(ctx context.Context, d *oltp.DigestToSend, why string, permanent, gone bool, started time.Time) error {
	var retry time.Duration
	if !permanent {
		if r, ok := g.cfg.Retry(d.Attempts + 1); ok {
			retry = max(r, time.Second)
		}
	}
	if _, err := oltp.DigestFailed(context.WithoutCancel(ctx), g.cfg.Pool, d.EndpointID, d.Day, d.Deliveries, why, retry, gone, started); err != nil {
		return err
	}
	g.cfg.Log.Warn("email digest not sent", "endpoint_id", d.EndpointID, "day", d.Day.Format(time.DateOnly), "err", why, "retry_in", retry, "address_refused", gone)
	if retry == 0 {
		g.nFailed.Inc()
	}
	return nil
}

// test mails one test delivery and says what to record.
func (g *Digester) test(ctx context.Context, t *oltp.EmailTest) oltp.AttemptResult {
	started := time.Now()
	r := oltp.AttemptResult{DeliveryID: t.DeliveryID, EndpointID: t.EndpointID, StartedAt: started}
	var err error
	if t.ToErr != nil {
		err = errors.New("cannot open the endpoint's address (is --webhook-secret-keys the key that sealed it?)")
	} else {
		m := destination.Digest{From: g.cfg.SMTP.From, To: t.To, MessageID: g.messageID("test", t.DeliveryID, ""), Date: t.CreatedAt, Through: t.CreatedAt,
			EndpointID: t.EndpointID, Changes: bodies([][]byte{t.Body})}
		err = g.cfg.SMTP.Send(ctx, t.To, m.Message())
	}
	r.ResponseMS = int(time.Since(started).Milliseconds())
	if err == nil {
		g.nTests.Inc()
		r.Outcome = oltp.OutcomeDelivered
		return r
	}
	if ctx.Err() != nil {
		r.Outcome = oltp.OutcomeReleased
		return r
	}
	r.Error = err.Error()
	var se *SendError
	if errors.As(err, &se) && se.Permanent() {
		r.Outcome, r.Gone = oltp.OutcomeFailed, se.AddressRefused()
		return r
	}
	r.Outcome = oltp.OutcomeFailed
	// A test is retried on the schedule like a digest (the dispatcher parks it again when due).
	if d, ok := g.cfg.Retry(t.AttemptCount + 1); ok {
		r.Outcome, r.RetryIn = oltp.OutcomeRetry, d
	}
	return r
}

// bodies decodes stored delivery bodies (one that does not decode is listed as what it says of
// itself: nothing).
func bodies(raw [][]byte) []payload.Body {
	out := make([]payload.Body, len(raw))
	for i, b := range raw {
		_ = json.Unmarshal(b, &out[i])
	}
	return out
}
