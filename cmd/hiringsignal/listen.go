package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/internal/payload"
	"github.com/planehq/hiringsignal/internal/signing"
)

// `hiringsignal listen` is a webhook receiver for trying push on a laptop, like a payment
// provider's CLI: it registers a loopback endpoint (the dev API accepts http and loopback URLs),
// keeps the secret it is answered in memory, optionally creates a watch, verifies both signatures
// of every delivery and prints each event on one line. Ctrl-C deletes what it registered.

// maxDeliveryBytes bounds a delivery body read by listen (a real one is about 1 KiB).
const maxDeliveryBytes = 1 << 20

func runListen(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("listen", "Receive webhook deliveries on loopback: register a receiver with POST /v1/webhooks (the dev API accepts http and loopback), optionally watch a company (--company-id) or a search (--q), verify both signatures of each delivery (X-Plane-Signature and Standard Webhooks), answer 401 to one that does not verify, and print each verified event on one line. Ctrl-C deletes the watch, then the endpoint.")
	apiBase := fs.String("api", "http://127.0.0.1:8080", "base URL of the API (the dev server's by default)")
	key := fs.FlagSet.String("key", flagenv.Env("HS_API_KEY", ""), "API key registering the endpoint and the watch (env HS_API_KEY)")
	// Not HS_LISTEN: that is the API's address in serve and dev, often exported in the same shell.
	listenAddr := fs.FlagSet.String("listen", flagenv.Env("HS_RECEIVER_LISTEN", "127.0.0.1:0"), "loopback address the receiver listens on (port 0: any free port) (env HS_RECEIVER_LISTEN)")
	forwardTo := fs.String("forward-to", "", "URL each verified delivery is forwarded to, with its body and signature headers; its status is answered to the sender (empty: answer 200)")
	companyID := fs.Int("company-id", 0, "create a watch of this company delivering to the receiver (0: none)")
	q := fs.String("q", "", "create a watch of this search (criteria.req.q) delivering to the receiver (empty: none)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *key == "" {
		return errors.New("cannot register a receiver without an API key: pass --key (env HS_API_KEY), e.g. the key `hiringsignal dev` prints")
	}
	if *companyID != 0 && *q != "" {
		return errors.New("cannot watch both a company and a search: pass --company-id or --q, not both")
	}
	l := &listener{api: &apiClient{base: strings.TrimRight(*apiBase, "/"), key: *key, http: &http.Client{Timeout: 15 * time.Second}},
		addr: *listenAddr, forwardTo: *forwardTo, companyID: int64(*companyID), q: *q, out: os.Stdout, log: log}
	var g lifecycle.Group
	g.Add("listener", l)
	return runUntilSignal(ctx, log, &g)
}

// listener is listen's one part: Start listens, registers the endpoint, serves, creates the
// watch; Stop stops serving and deletes the watch, then the endpoint.
type listener struct {
	api                *apiClient
	addr, forwardTo, q string
	companyID          int64
	out                io.Writer
	log                *slog.Logger

	srv        *http.Server
	served     chan struct{}
	url        string
	endpointID int64
	watchID    int64
	recv       *receiver
}

func (l *listener) Start(ctx context.Context) error {
	if l.srv != nil {
		return nil
	}
	ln, err := listenLoopback(l.addr)
	if err != nil {
		return err
	}
	token := make([]byte, 8)
	_, _ = rand.Read(token)
	// A fresh path on every run: the url is always new, so registering it answers its secret.
	l.url = fmt.Sprintf("http://%s/hooks/%s", ln.Addr(), hex.EncodeToString(token))
	var reg struct {
		ID     int64   `json:"id"`
		Secret *string `json:"secret"`
	}
	if err := l.api.call(ctx, "POST", "/v1/webhooks", map[string]any{"url": l.url}, 201, &reg); err != nil {
		ln.Close()
		return fmt.Errorf("cannot register the receiver %s (--api, --key): %w", l.url, err)
	}
	l.endpointID = reg.ID
	if reg.Secret == nil {
		ln.Close()
		return fmt.Errorf("cannot register the receiver %s: the API answered no secret", l.url)
	}
	wh, err := standardwebhooks.NewWebhook(*reg.Secret)
	if err != nil {
		ln.Close()
		return fmt.Errorf("cannot use the endpoint's secret: %w", err)
	}
	l.recv = &receiver{secret: *reg.Secret, wh: wh, out: l.out, log: l.log, forwardTo: l.forwardTo,
		client: &http.Client{Timeout: 15 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	l.srv = &http.Server{Handler: l.recv, ReadHeaderTimeout: 10 * time.Second}
	l.served = make(chan struct{})
	go func() {
		defer close(l.served)
		if err := l.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			l.log.Error("receiver stopped", "err", err)
		}
	}()
	l.log.Info("receiver registered", "url", l.url, "webhook_endpoint_id", l.endpointID)
	if l.companyID != 0 || l.q != "" {
		body := map[string]any{"webhook_endpoint_id": l.endpointID}
		if l.companyID != 0 {
			body["company_id"] = l.companyID
		} else {
			body["q"] = l.q
		}
		var w struct {
			WatchID int64 `json:"watch_id"`
		}
		if err := l.api.call(ctx, "POST", "/v1/watches", body, 201, &w); err != nil {
			// A part whose Start fails is not stopped: undo the registration here.
			return errors.Join(fmt.Errorf("cannot create the watch (--company-id, --q): %w", err), l.Stop(context.WithoutCancel(ctx)))
		}
		l.watchID = w.WatchID
		l.log.Info("watch created", "watch_id", l.watchID, "company_id", l.companyID, "q", l.q)
	}
	fmt.Fprintf(l.out, "Ready: deliveries to webhook endpoint %d (%s) are verified and printed here. Ctrl-C to stop.\n", l.endpointID, l.url)
	return nil
}

// Stop stops serving (deliveries in flight finish), then deletes the watch and the endpoint it
// registered; it runs once, a second call is a no-op.
func (l *listener) Stop(ctx context.Context) error {
	if l.srv == nil {
		return nil
	}
	err := l.srv.Shutdown(ctx)
	<-l.served
	l.srv = nil
	if l.watchID != 0 {
		if derr := l.api.call(ctx, "DELETE", fmt.Sprintf("/v1/watches/%d", l.watchID), nil, 204, nil); derr != nil {
			err = errors.Join(err, fmt.Errorf("cannot cancel watch %d: %w", l.watchID, derr))
		} else {
			l.log.Info("watch canceled", "watch_id", l.watchID)
		}
		l.watchID = 0
	}
	if derr := l.api.call(ctx, "DELETE", fmt.Sprintf("/v1/webhooks/%d", l.endpointID), nil, 204, nil); derr != nil {
		err = errors.Join(err, fmt.Errorf("cannot delete webhook endpoint %d: %w", l.endpointID, derr))
	} else {
		l.log.Info("webhook endpoint deleted", "webhook_endpoint_id", l.endpointID)
	}
	return err
}

// listenLoopback listens on addr, which must be a loopback address: the receiver is for this
// machine only.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %q: --listen is host:port, e.g. 127.0.0.1:0: %w", addr, err)
	}
	if ip, err := netip.ParseAddr(host); host != "localhost" && (err != nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("cannot listen on %s: --listen must be a loopback address (127.0.0.1:port or [::1]:port)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s (--listen): %w", addr, err)
	}
	return ln, nil
}

// receiver verifies and prints deliveries.
type receiver struct {
	secret    string
	wh        *standardwebhooks.Webhook
	out       io.Writer
	log       *slog.Logger
	forwardTo string
	client    *http.Client
	mu        sync.Mutex // one printed line at a time
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		http.Error(w, "deliveries are POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxDeliveryBytes+1))
	if err != nil || len(body) > maxDeliveryBytes {
		http.Error(w, "cannot read the body", http.StatusBadRequest)
		return
	}
	// Both signatures, or nothing: the body-only HMAC and the Standard Webhooks one (which also
	// refuses a timestamp more than 5 minutes away: replay protection).
	plane := signing.VerifyPlane(r.secret, req.Header.Get(signing.HeaderPlaneSignature), body)
	stdErr := r.wh.Verify(body, req.Header)
	if !plane || stdErr != nil {
		r.log.Warn("delivery refused: a signature does not verify (401)", "x_plane_signature_ok", plane, "standard_webhooks_err", stdErr,
			"webhook_id", req.Header.Get(signing.HeaderID))
		http.Error(w, "signature verification failed", http.StatusUnauthorized)
		return
	}
	var b payload.Body
	if err := json.Unmarshal(body, &b); err != nil {
		r.log.Warn("delivery with signatures ok but a body that is not a delivery", "err", err)
	}
	status := http.StatusOK
	forwarded := ""
	if r.forwardTo != "" {
		status, forwarded = r.forward(req.Context(), req.Header, body)
	}
	r.print(time.Now(), &b, forwarded)
	w.WriteHeader(status)
}

// forward POSTs the delivery to --forward-to and returns the status to answer (502 when it
// could not be reached) and a note for the printed line.
func (r *receiver) forward(ctx context.Context, h http.Header, body []byte) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.forwardTo, bytes.NewReader(body))
	if err != nil {
		return http.StatusBadGateway, "forward failed: " + err.Error()
	}
	for _, name := range []string{"Content-Type", signing.HeaderPlaneSignature, "X-Plane-Idempotency-Key", signing.HeaderID, signing.HeaderTimestamp, signing.HeaderSignature} {
		if v := h.Values(name); len(v) > 0 {
			req.Header[http.CanonicalHeaderKey(name)] = v
		}
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return http.StatusBadGateway, "forward failed: " + err.Error()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDeliveryBytes))
	resp.Body.Close()
	return resp.StatusCode, fmt.Sprintf("forwarded: %d", resp.StatusCode)
}

// print writes one line per verified event.
func (r *receiver) print(at time.Time, b *payload.Body, forwarded string) {
	line := fmt.Sprintf("%s %s company=%q raw_title=%q location=%q detected_on=%q url=%s delivery_id=%d signatures ok",
		at.UTC().Format(time.RFC3339), b.Event, b.Company, b.RawTitle, b.Location, b.DetectedOn, b.URL, b.DeliveryID)
	if forwarded != "" {
		line += " " + forwarded
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintln(r.out, line)
}

// apiClient calls the API with a key.
type apiClient struct {
	base, key string
	http      *http.Client
}

// call sends body (JSON, nil: none) and decodes a `want` answer into out (nil: discarded); any
// other status is an error carrying the answer's detail.
func (a *apiClient) call(ctx context.Context, method, path string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("X-API-Key", a.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s answered %d: %s", method, path, resp.StatusCode, bytes.TrimSpace(b))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}
