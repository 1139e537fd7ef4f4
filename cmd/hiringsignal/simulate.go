package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/sim"
)

type simFlags struct {
	listen                                                   *string
	seed, companies                                          *int
	serverError, rateLimit, slow, badRecord, badBody, vanish *float64
	slowDelay                                                *time.Duration
	epoch                                                    *string
}

func addSimFlags(fs *flagenv.Set) *simFlags {
	return &simFlags{
		listen:      fs.String("sim-listen", "127.0.0.1:7070", "address the simulator listens on"),
		seed:        fs.Int("sim-seed", 1, "world seed (same seed, same world)"),
		companies:   fs.Int("sim-companies", 2000, "number of companies in the world"),
		serverError: fs.Float("sim-fault-5xx", 0, "share of sources answering 503 for their first attempts each tick"),
		rateLimit:   fs.Float("sim-fault-429", 0, "share of sources answering 429 with Retry-After first each tick"),
		slow:        fs.Float("sim-fault-slow", 0, "share of sources slower than any sane timeout each tick"),
		badRecord:   fs.Float("sim-fault-bad-record", 0, "share of sources with one malformed record each tick"),
		badBody:     fs.Float("sim-fault-bad-body", 0, "share of sources with a malformed body each tick"),
		vanish:      fs.Float("sim-fault-vanish", 0, "share of sources answering 404 for one tick"),
		slowDelay:   fs.Duration("sim-slow-delay", 30*time.Second, "how long a slow source takes"),
		epoch:       fs.String("sim-epoch", "2026-01-05T00:00:00Z", "time of tick 0"),
	}
}

// start builds the world on clock (nil: the wall clock) and serves it on its listener.
func (f *simFlags) start(log *slog.Logger, clock *sim.Clock) (*sim.World, *http.Server, string, error) {
	epoch, err := time.Parse(time.RFC3339, *f.epoch)
	if err != nil {
		return nil, nil, "", fmt.Errorf("cannot parse --sim-epoch: %w", err)
	}
	ln, err := net.Listen("tcp", *f.listen)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, nil, "", fmt.Errorf("cannot listen on %s: the port is already in use; pass --sim-listen (env HS_SIM_LISTEN) to use another", *f.listen)
		}
		return nil, nil, "", fmt.Errorf("cannot listen on %s: %w", *f.listen, err)
	}
	base := "http://" + ln.Addr().String()
	t0 := time.Now()
	w := sim.New(sim.Config{Seed: int64(*f.seed), Companies: *f.companies, Epoch: epoch, BaseURL: base,
		FaultServerError: *f.serverError, FaultRateLimit: *f.rateLimit, FaultSlow: *f.slow,
		FaultMalformedRecord: *f.badRecord, FaultMalformedBody: *f.badBody, FaultVanish: *f.vanish, SlowDelay: *f.slowDelay, Clock: clock})
	srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("simulator stopped", "err", err)
		}
	}()
	log.Info("simulator serving", "url", base, "companies", *f.companies, "seed", *f.seed, "built_in", time.Since(t0).Round(time.Millisecond))
	return w, srv, base, nil
}

func runSimulate(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("simulate", "Serve the simulated 7-region world (ATS tenants, boards, an aggregator) in the real public formats, with its directory, clock and ground truth under /_sim/.")
	sf := addSimFlags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	_, srv, _, err := sf.start(log, nil)
	if err != nil {
		return err
	}
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(sctx)
}
