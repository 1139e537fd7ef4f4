package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/planehq/hiringsignal/internal/testca"
	"github.com/planehq/hiringsignal/sim"
)

// The world runs in a child process (this binary with --serve-world), as crawlbench's
// simulator does, so that the RSS and CPU the parent measures are the crawl's own. The child
// builds the host-mode world, writes its registry CSV and its CA's PEM into a directory, serves
// the world over TLS on loopback with the injected latency, and answers a plain-HTTP control
// listener: GET /stats (its CPU and the requests served), POST /record (start recording the
// URLs requested) and GET /urls (stop and list them). It exits when its stdin closes.

// worldReady is the line the child prints once it serves.
type worldReady struct {
	TLS       string        `json:"tls"`     // the world's TLS address
	Control   string        `json:"control"` // the control listener's address
	CAFile    string        `json:"ca_file"`
	CSVFile   string        `json:"csv_file"`
	CycleTime time.Time     `json:"cycle_time"` // the served tick's cycle time
	Built     time.Duration `json:"built"`
}

// worldStats is what GET /stats answers.
type worldStats struct {
	CPU      time.Duration `json:"cpu"` // user + system CPU of the child so far
	Requests int64         `json:"requests"`
	MaxRSS   int64         `json:"max_rss"` // bytes
}

func cpuOf(who int) (time.Duration, int64) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(who, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Maxrss << 10
}

// serveWorld is the child: it never returns before its stdin closes.
func serveWorld(companies int, seed int64, tick int, latency time.Duration, dir string) error {
	start := time.Now()
	w := sim.New(sim.Config{Seed: seed, Companies: companies, HostMode: true})
	w.Pin(tick)
	_ = w.Truth(tick) // builds the tick's snapshot, so no timed request pays for it
	csvPath := filepath.Join(dir, "registry.csv")
	f, err := os.Create(csvPath)
	if err != nil {
		return fmt.Errorf("cannot write the registry CSV (change --world-dir): %w", err)
	}
	bw := bufio.NewWriter(f)
	if err := w.RegistryCSV(bw, tick); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("cannot write the registry CSV: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot write the registry CSV: %w", err)
	}
	ca, err := testca.New()
	if err != nil {
		return err
	}
	leaf, err := ca.Leaf(sim.HostNames())
	if err != nil {
		return err
	}
	caPath := filepath.Join(dir, "ca.pem")
	if err := ca.WritePEM(caPath); err != nil {
		return err
	}

	var requests atomic.Int64
	var recording atomic.Bool
	var mu sync.Mutex
	var urls []string
	h := w.Handler()
	slow := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if recording.Load() {
			u := "https://" + r.Host + r.URL.RequestURI()
			if r.Method != http.MethodGet { // Workday's list: "POST URL BODY", the body one line of JSON
				body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
				r.Body = io.NopCloser(bytes.NewReader(body))
				u = r.Method + " " + u + " " + string(body)
			}
			mu.Lock()
			urls = append(urls, u)
			mu.Unlock()
		}
		if latency > 0 {
			t := time.NewTimer(latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		h.ServeHTTP(rw, r)
	})
	quiet := log.New(io.Discard, "", 0) // clients closing idle connections are not news
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: slow, TLSConfig: &tls.Config{Certificates: []tls.Certificate{leaf}}, ErrorLog: quiet}
	go func() { _ = srv.ServeTLS(ln, "", "") }()

	ctl := http.NewServeMux()
	ctl.HandleFunc("GET /stats", func(rw http.ResponseWriter, r *http.Request) {
		cpu, rss := cpuOf(syscall.RUSAGE_SELF)
		_ = json.NewEncoder(rw).Encode(worldStats{CPU: cpu, Requests: requests.Load(), MaxRSS: rss})
	})
	ctl.HandleFunc("POST /record", func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		urls = urls[:0]
		mu.Unlock()
		recording.Store(true)
	})
	ctl.HandleFunc("GET /urls", func(rw http.ResponseWriter, r *http.Request) {
		recording.Store(false)
		mu.Lock()
		defer mu.Unlock()
		bw := bufio.NewWriter(rw)
		for _, u := range urls {
			_, _ = bw.WriteString(u)
			_ = bw.WriteByte('\n')
		}
		_ = bw.Flush()
	})
	cln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = (&http.Server{Handler: ctl, ErrorLog: quiet}).Serve(cln) }()

	ready := worldReady{TLS: ln.Addr().String(), Control: cln.Addr().String(), CAFile: caPath, CSVFile: csvPath,
		CycleTime: w.CycleTime(tick), Built: time.Since(start)}
	if err := json.NewEncoder(os.Stdout).Encode(ready); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, os.Stdin) // the parent closes it, or goes
	return nil
}

// world is the parent's handle on the child.
type world struct {
	worldReady
	cmd   *exec.Cmd
	stdin io.WriteCloser
	ctl   *http.Client
}

// startWorld starts the child and waits until it serves.
func startWorld(companies int, seed int64, tick int, latency time.Duration, dir string) (*world, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot find this binary to start the world: %w", err)
	}
	cmd := exec.Command(exe, "--serve-world", "--companies", strconv.Itoa(companies), "--seed", strconv.FormatInt(seed, 10),
		"--tick", strconv.Itoa(tick), "--latency", latency.String(), "--world-dir", dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the world: %w", err)
	}
	w := &world{cmd: cmd, stdin: stdin, ctl: &http.Client{Timeout: time.Minute}}
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		w.stop()
		return nil, fmt.Errorf("the world did not come up (see its error above): %w", err)
	}
	if err := json.Unmarshal(line, &w.worldReady); err != nil {
		w.stop()
		return nil, fmt.Errorf("cannot read the world's address: %w", err)
	}
	return w, nil
}

func (w *world) stop() {
	_ = w.stdin.Close()
	done := make(chan struct{})
	go func() { _ = w.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = w.cmd.Process.Kill()
		<-done
	}
}

func (w *world) stats(ctx context.Context) (worldStats, error) {
	var s worldStats
	b, err := w.call(ctx, http.MethodGet, "/stats")
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(b, &s)
}

func (w *world) record(ctx context.Context) error {
	_, err := w.call(ctx, http.MethodPost, "/record")
	return err
}

// recorded stops recording and returns the requests made since record: a URL for a GET, and
// "METHOD URL BODY" for any other (Workday's list is a POST).
func (w *world) recorded(ctx context.Context) ([]string, error) {
	b, err := w.call(ctx, http.MethodGet, "/urls")
	if err != nil {
		return nil, err
	}
	return strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' }), nil
}

func (w *world) call(ctx context.Context, method, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://"+w.Control+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := w.ctl.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the world's control listener: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = errors.New("the world's control listener answered " + resp.Status)
	}
	return b, err
}
