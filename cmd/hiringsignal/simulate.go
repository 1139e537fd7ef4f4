package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/planehq/hiringsignal/internal/devstack"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/internal/testca"
	"github.com/planehq/hiringsignal/sim"
)

type simFlags struct {
	listen                                                   *string
	seed, companies                                          *int
	serverError, rateLimit, slow, badRecord, badBody, vanish *float64
	slowDelay                                                *time.Duration
	epoch                                                    *string
	descCacheMiB                                             *int
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
		descCacheMiB: fs.Int("sim-description-cache", sim.DefaultDescriptionCache>>20,
			"MiB of its reqs' descriptions the world keeps between renders, as the feeds wrote them (0: none; the bodies are the same)"),
	}
}

// config is the world's configuration on clock (nil: the wall clock) served at base.
func (f *simFlags) config(clock *sim.Clock, base string) (sim.Config, error) {
	epoch, err := time.Parse(time.RFC3339, *f.epoch)
	if err != nil {
		return sim.Config{}, fmt.Errorf("cannot parse --sim-epoch: %w", err)
	}
	if *f.descCacheMiB < 0 {
		return sim.Config{}, fmt.Errorf("cannot use --sim-description-cache %d: give MiB, 0 for none", *f.descCacheMiB)
	}
	descCache := *f.descCacheMiB << 20
	if descCache == 0 {
		descCache = -1 // none
	}
	return sim.Config{Seed: int64(*f.seed), Companies: *f.companies, Epoch: epoch, BaseURL: base,
		FaultServerError: *f.serverError, FaultRateLimit: *f.rateLimit, FaultSlow: *f.slow,
		FaultMalformedRecord: *f.badRecord, FaultMalformedBody: *f.badBody, FaultVanish: *f.vanish, SlowDelay: *f.slowDelay, Clock: clock,
		DescriptionCache: descCache}, nil
}

// start builds the world on clock (nil: the wall clock) and serves it on its listener.
func (f *simFlags) start(log *slog.Logger, clock *sim.Clock) (*sim.World, *http.Server, string, error) {
	return f.startWith(log, clock, nil)
}

// startWith is start with edit applied to the world's configuration first (nil: none).
func (f *simFlags) startWith(log *slog.Logger, clock *sim.Clock, edit func(*sim.Config)) (*sim.World, *http.Server, string, error) {
	cfg, err := f.config(clock, "")
	if err != nil {
		return nil, nil, "", err
	}
	ln, err := net.Listen("tcp", *f.listen)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, nil, "", fmt.Errorf("cannot listen on %s: the port is already in use; pass --sim-listen (env HS_SIM_LISTEN) to use another", *f.listen)
		}
		return nil, nil, "", fmt.Errorf("cannot listen on %s: %w", *f.listen, err)
	}
	base := "http://" + ln.Addr().String()
	cfg.BaseURL = base
	if edit != nil {
		edit(&cfg)
	}
	t0 := time.Now()
	w := sim.New(cfg)
	srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("simulator stopped", "err", err)
		}
	}()
	log.Info("simulator serving", "url", base, "companies", *f.companies, "seed", *f.seed, "host_mode", cfg.HostMode, "built_in", time.Since(t0).Round(time.Millisecond))
	return w, srv, base, nil
}

func runSimulate(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("simulate", "Serve the simulated 7-region world (ATS tenants, boards, an aggregator) in the real public formats, with its directory, clock and ground truth under /_sim/. With --host-mode it also answers at the vendors' real hostnames over TLS (a crawler reaches it with --connect-to :443=<--tls-listen> and --ca-file <--tls-dir>/ca.pem); --export-registry writes the world as the source registry's CSV and exits.")
	sf := addSimFlags(fs)
	hostMode := fs.Bool("host-mode", false, "render every URL of the world as the real one (the vendors' API hosts, the boards' and the aggregator's own hosts) and serve them over TLS on --tls-listen with a fresh test CA; --sim-listen keeps plain HTTP for /_sim/* and the simulator's own paths")
	tlsListen := fs.String("tls-listen", "127.0.0.1:7443", "address of the TLS listener of --host-mode (a crawler's --connect-to :443=ADDR)")
	tlsDir := fs.String("tls-dir", "", "directory where --host-mode writes ca.pem, the test CA's certificate for a crawler's --ca-file (default: <run dir>/sim-tls, else a new temporary directory)")
	export := fs.String("export-registry", "", "write the world's source registry as CSV to FILE (- for stdout) and exit without serving: one row per company (with its ATS tenant at the tick when it has one), board and aggregator feed")
	exportTick := fs.Int("export-tick", -1, "tick whose ATS tenants --export-registry writes (-1: the world's current tick by the wall clock)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *export != "" {
		return exportRegistry(log, sf, *export, *exportTick)
	}
	w, srv, _, err := sf.startWith(log, nil, func(c *sim.Config) { c.HostMode = *hostMode })
	if err != nil {
		return err
	}
	servers := []*http.Server{srv}
	if *hostMode {
		tlsSrv, err := serveHostMode(log, w, *tlsListen, *tlsDir)
		if err != nil {
			_ = shutdown(servers)
			return err
		}
		servers = append(servers, tlsSrv)
	}
	<-ctx.Done()
	return shutdown(servers)
}

func shutdown(servers []*http.Server) error {
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.Shutdown(sctx))
	}
	return errors.Join(errs...)
}

// serveHostMode serves w over TLS on listen with a certificate of a fresh test CA for every host
// the world answers on (and the listener's own address), and writes the CA's certificate to
// dir/ca.pem.
func serveHostMode(log *slog.Logger, w *sim.World, listen, dir string) (*http.Server, error) {
	dir, err := simTLSDir(dir)
	if err != nil {
		return nil, err
	}
	ca, err := testca.New()
	if err != nil {
		return nil, err
	}
	caFile := filepath.Join(dir, "ca.pem")
	if err := ca.WritePEM(caFile); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("cannot listen on %s: the port is already in use; pass --tls-listen (env HS_TLS_LISTEN) to use another", listen)
		}
		return nil, fmt.Errorf("cannot listen on %s: %w", listen, err)
	}
	hosts := append(sim.HostNames(), "localhost")
	if h, _, err := net.SplitHostPort(ln.Addr().String()); err == nil && net.ParseIP(h) != nil && !net.ParseIP(h).IsUnspecified() {
		hosts = append(hosts, h)
	}
	leaf, err := ca.Leaf(hosts)
	if err != nil {
		ln.Close()
		return nil, err
	}
	srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{leaf}, GetCertificate: ca.GetCertificate(w.ServesSite), MinVersion: tls.VersionTLS12}}
	go func() {
		if err := srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("simulator's TLS listener stopped", "err", err)
		}
	}()
	addr := ln.Addr().String()
	log.Info("simulator serving the real hostnames over TLS", "addr", addr, "ca_file", caFile,
		"crawl_with", "--connect-to :443="+addr+" --ca-file "+caFile)
	return srv, nil
}

// simTLSDir returns dir, created if needed; when empty, <run dir>/sim-tls, else a new temporary
// directory.
func simTLSDir(dir string) (string, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("cannot create --tls-dir %s: %w", dir, err)
		}
		return dir, nil
	}
	if d := filepath.Join(devstack.DefaultRunDir(), "sim-tls"); os.MkdirAll(d, 0o755) == nil {
		return d, nil
	}
	d, err := os.MkdirTemp("", "hiringsignal-sim-tls-")
	if err != nil {
		return "", fmt.Errorf("cannot create a directory for the test CA: %w; pass --tls-dir (env HS_TLS_DIR)", err)
	}
	return d, nil
}

// exportRegistry writes the world's source registry at tick (-1: the current tick) to path ("-":
// stdout).
func exportRegistry(log *slog.Logger, sf *simFlags, path string, tick int) (err error) {
	cfg, err := sf.config(nil, "")
	if err != nil {
		return err
	}
	w := sim.New(cfg)
	if tick < 0 {
		tick = w.CurrentTick()
	}
	if path == "-" {
		return w.RegistryCSV(os.Stdout, tick)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot create --export-registry file: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("cannot write --export-registry file: %w", cerr)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := w.RegistryCSV(bw, tick); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("cannot write --export-registry file: %w", err)
	}
	log.Info("source registry written", "file", path, "tick", tick, "companies", *sf.companies, "seed", *sf.seed)
	return nil
}
