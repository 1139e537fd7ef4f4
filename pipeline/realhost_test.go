package pipeline

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/planehq/hiringsignal/pipeline/ats"
)

// hits counts requests by host and path.
type hits struct {
	mu sync.Mutex
	n  map[string]int
}

func (h *hits) add(r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == nil {
		h.n = map[string]int{}
	}
	h.n[r.Host+r.URL.Path]++
}

func (h *hits) get(hostPath string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n[hostPath]
}

func TestRobotsDecidesWhatIsFetched(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		robots   func(w http.ResponseWriter)
		status   sourceStatus
		reason   string
		pageHits int
	}{
		{"disallowed", func(w http.ResponseWriter) { fmt.Fprint(w, "User-agent: *\nDisallow: /jobs\n") }, sourceBlocked, "robots.txt disallows /jobs", 0},
		{"404 allows all", func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) }, sourceOK, "", 1},
		{"403 allows all", func(w http.ResponseWriter) { w.WriteHeader(http.StatusForbidden) }, sourceOK, "", 1},
		{"429 blocks", func(w http.ResponseWriter) { w.WriteHeader(http.StatusTooManyRequests) }, sourceBlocked, "robots.txt unavailable (status 429)", 0},
		{"503 blocks", func(w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) }, sourceBlocked, "robots.txt unavailable (status 503)", 0},
		{"other paths allowed", func(w http.ResponseWriter) { fmt.Fprint(w, "User-agent: *\nDisallow: /private\n") }, sourceOK, "", 1},
		{"our product token's group", func(w http.ResponseWriter) {
			fmt.Fprint(w, "User-agent: *\nDisallow: /\n\nUser-agent: hiringsignal-crawler\nDisallow: /private\n")
		}, sourceOK, "", 1},
		{"our product token disallowed", func(w http.ResponseWriter) {
			fmt.Fprint(w, "User-agent: *\nAllow: /\n\nUser-agent: hiringsignal-crawler\nDisallow: /jobs\n")
		}, sourceBlocked, "robots.txt disallows /jobs", 0},
		{"query matched", func(w http.ResponseWriter) { fmt.Fprint(w, "User-agent: *\nDisallow: /jobs?page=\n") }, sourceBlocked, "robots.txt disallows /jobs", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var h hits
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.add(r)
				if r.URL.Path == "/robots.txt" {
					tc.robots(w)
					return
				}
				w.Write([]byte(htmlPage("")))
			}))
			defer srv.Close()
			c := quietCrawler(t, Config{Fetch: FetchConfig{Backoff: time.Millisecond}})
			src := Source{Key: "jsonld:a", Vendor: "jsonld", Kind: "board", URL: srv.URL + "/jobs?page=1"}
			status, st := collectSources(t, context.Background(), c, src)
			require.Equal(t, tc.status, status[src.Key])
			require.Equal(t, tc.pageHits, h.get(strings.TrimPrefix(srv.URL, "http://")+"/jobs"), "a page robots.txt keeps us from is never requested")
			require.Equal(t, 1, h.get(strings.TrimPrefix(srv.URL, "http://")+"/robots.txt"))
			if tc.status == sourceBlocked {
				require.Equal(t, 1, st.Blocked)
				require.Zero(t, st.SourcesFailed, "blocked is not failed")
				require.Empty(t, st.FailedSources)
				require.Equal(t, map[string]string{src.Key: tc.reason}, st.FailedReasons)
				require.EqualValues(t, 1, st.row().SourcesFailed, "the cycles row counts every source not read")
			} else {
				require.Equal(t, 1, st.SourcesOK)
				require.Empty(t, st.FailedReasons)
			}
			// Asked once per origin: a second pass reads the kept copy.
			collectSources(t, context.Background(), c, src)
			require.Equal(t, 1, h.get(strings.TrimPrefix(srv.URL, "http://")+"/robots.txt"))
		})
	}
}

func TestRobotsKeepsTheLastGoodCopyWhileTheOriginFails(t *testing.T) {
	t.Parallel()
	var down, delay atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
		if delay.Load() {
			fmt.Fprint(w, "Crawl-delay: 10\n")
		}
	}))
	defer srv.Close()
	f := testFetcher(t, FetchConfig{})
	ctx := context.Background()
	page, _ := url.Parse(srv.URL + "/jobs")
	private, _ := url.Parse(srv.URL + "/private/x")
	require.NoError(t, f.robotsAllow(ctx, page))
	require.Equal(t, errBlocked{reason: "robots.txt disallows /private/x"}, f.robotsAllow(ctx, private))
	expire := func(f *Fetcher) {
		f.robotsMu.Lock()
		f.robots[origin(page)].until = time.Now().Add(-time.Second)
		f.robotsMu.Unlock()
	}

	// Past its 24 h the copy is asked for again; a 503 keeps the last good copy.
	expire(f)
	down.Store(true)
	require.NoError(t, f.robotsAllow(ctx, page), "the last good copy stands while the origin answers 5xx")
	require.Error(t, f.robotsAllow(ctx, private))

	// Without a good copy, a 503 blocks everything, for a while.
	g := testFetcher(t, FetchConfig{})
	require.Equal(t, errBlocked{reason: "robots.txt unavailable (status 503)"}, g.robotsAllow(ctx, page))
	down.Store(false)
	require.Error(t, g.robotsAllow(ctx, page), "the failure stands a while: not asked again at once")
	expire(g)
	require.NoError(t, g.robotsAllow(ctx, page), "asked again after robotsRetry")

	// Crawl-delay lowers the host's rate, or sets one on an unlimited host.
	delay.Store(true)
	expire(g)
	require.NoError(t, g.robotsAllow(ctx, page))
	require.InDelta(t, 0.1, g.gate(page).current(), 1e-9, "Crawl-delay: 10 is one request per 10 s")
	h := testFetcher(t, FetchConfig{HostRate: 4})
	require.NoError(t, h.robotsAllow(ctx, page))
	require.InDelta(t, 0.1, h.gate(page).current(), 1e-9)
}

// redirectServer answers every host (the fetcher's ConnectTo sends them all to it): paths
// /r/N/HOST redirect to /r/N-1/HOST on HOST, /r/0 is a page, and /to?u=URL redirects to URL.
func redirectServer(t *testing.T, h *hits) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.add(r)
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
		case r.URL.Path == "/to":
			http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/r/"):
			parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/r/"), "/", 2)
			n, _ := strconv.Atoi(parts[0])
			if n == 0 {
				w.Write([]byte(htmlPage("/p2"))) // relative: on the host the page was read from
				return
			}
			code := []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect}[n%5]
			http.Redirect(w, r, fmt.Sprintf("http://%s/r/%d/%s", parts[1], n-1, parts[1]), code)
		default:
			w.Write([]byte(htmlPage("")))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRedirectsStayWithinTheSourcesDomain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		src     Source
		status  sourceStatus
		reason  string
		pages   int
		never   string // a host+path that must not be requested
		reached string // a host+path that must be
	}{
		{name: "within the domain", src: Source{URL: "http://jobs.acme.example/to?u=http://careers.acme.example/r/2/www.acme.example"},
			status: sourceOK, pages: 2, reached: "www.acme.example/p2"},
		{name: "to the company's domain", src: Source{URL: "http://api.vendor.example/to?u=http://careers.acme.example/r/0/x", CompanyDomain: "acme.example"},
			status: sourceOK, pages: 2, reached: "careers.acme.example/p2"},
		{name: "off the domain", src: Source{URL: "http://jobs.acme.example/to?u=http://other.example/r/0/x"},
			status: sourceFailed, reason: "redirect to other.example refused: off the source's domain (acme.example)", never: "other.example/r/0/x"},
		{name: "five hops", src: Source{URL: "http://jobs.acme.example/r/5/jobs.acme.example"}, status: sourceOK, pages: 2},
		{name: "six hops", src: Source{URL: "http://jobs.acme.example/r/6/jobs.acme.example"}, status: sourceFailed,
			reason: "redirect to jobs.acme.example refused: more than 5 redirects", never: "jobs.acme.example/r/0/jobs.acme.example"},
		{name: "not http", src: Source{URL: "http://jobs.acme.example/to?u=file:///etc/passwd"}, status: sourceFailed,
			reason: `redirect to "file:///etc/passwd" refused: not an http(s) URL`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var h hits
			srv := redirectServer(t, &h)
			c := quietCrawler(t, Config{Fetch: FetchConfig{Backoff: time.Millisecond, ConnectTo: []string{":=" + srv.Listener.Addr().String()}}})
			tc.src.Key, tc.src.Vendor, tc.src.Kind = "jsonld:a", "jsonld", "board"
			status, st := collectSources(t, context.Background(), c, tc.src)
			require.Equal(t, tc.status, status["jsonld:a"], st.FailedReasons)
			require.Equal(t, tc.pages, st.Pages)
			if tc.reason != "" {
				require.Equal(t, tc.reason, st.FailedReasons["jsonld:a"])
			}
			if tc.never != "" {
				require.Zero(t, h.get(tc.never))
			}
			if tc.reached != "" {
				require.Equal(t, 1, h.get(tc.reached))
			}
		})
	}
}

func TestRedirectTarget(t *testing.T) {
	t.Parallel()
	lever := redirectScope(&Source{URL: "https://api.lever.co/v0/postings/acme?mode=json", CompanyDomain: "acme.com"})
	require.Equal(t, []string{"lever.co", "acme.com"}, lever)
	require.Equal(t, []string{"personio.de"}, redirectScope(&Source{URL: "https://acme.jobs.personio.de/xml"}))
	require.Equal(t, []string{"127.0.0.1"}, redirectScope(&Source{URL: "http://127.0.0.1:7070/lever/v0/postings/x"}))
	cur, _ := url.Parse("https://api.lever.co/v0/postings/acme")
	for _, tc := range []struct {
		loc  string
		hops int
		want string // the URL followed, or the refusal
	}{
		{"/v0/postings/acme2", 0, "https://api.lever.co/v0/postings/acme2"},
		{"https://jobs.lever.co/acme", 4, "https://jobs.lever.co/acme"},
		{"https://careers.acme.com/jobs#top", 0, "https://careers.acme.com/jobs"},
		{"https://jobs.lever.co/acme", 5, "redirect to jobs.lever.co refused: more than 5 redirects"},
		{"http://api.lever.co/v0/postings/acme", 0, "redirect to api.lever.co refused: https to http"},
		{"https://lever.co.evil.example/", 0, "redirect to lever.co.evil.example refused: off the source's domain (lever.co, acme.com)"},
		{"https://169.254.169.254/latest/meta-data/", 0, "redirect to 169.254.169.254 refused: off the source's domain (lever.co, acme.com)"},
		{"ftp://api.lever.co/x", 0, `redirect to "ftp://api.lever.co/x" refused: not an http(s) URL`},
	} {
		next, err := redirectTarget(cur, tc.loc, tc.hops, lever)
		if err != nil {
			require.Equal(t, tc.want, err.Error(), tc.loc)
			continue
		}
		require.Equal(t, tc.want, next.String(), tc.loc)
	}
}

// writeCert makes a self-signed certificate for hosts, writes it as PEM under dir and returns
// it for a server.
func writeCert(t *testing.T, dir string, hosts ...string) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: hosts[0]}, DNSNames: hosts,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	path := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, path
}

func TestConnectToSendsARealHostToALocalServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cert, caFile := writeCert(t, dir, "boards-api.greenhouse.io")
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Host+" "+r.URL.Path+" "+r.Header.Get("User-Agent"))
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /internal\n")
			return
		}
		fmt.Fprint(w, `{"jobs":[{"id":1,"title":"Backend Engineer","location":{"name":"Berlin"},"absolute_url":"https://boards.greenhouse.io/acme/jobs/1"}],"meta":{"total":1}}`)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	defer srv.Close()
	ad, ok := ats.For("greenhouse")
	require.True(t, ok)
	const page = "https://boards-api.greenhouse.io/v1/boards/acme/jobs?content=true"
	cfg := FetchConfig{ConnectTo: []string{"boards-api.greenhouse.io:443=" + srv.Listener.Addr().String()}, CAFile: caFile,
		UserAgent: "HiringSignalBot/1.0 (+https://example.com/bot; crawler@example.com)"} // AllowPrivate false: production
	f, err := NewFetcher(cfg)
	require.NoError(t, err)
	res, err := f.fetchPage(context.Background(), ad, page, validators{}, nil)
	require.NoError(t, err)
	require.Len(t, res.page.Postings, 1)
	require.Equal(t, []string{
		"boards-api.greenhouse.io /robots.txt HiringSignalBot/1.0 (+https://example.com/bot; crawler@example.com)",
		"boards-api.greenhouse.io /v1/boards/acme/jobs HiringSignalBot/1.0 (+https://example.com/bot; crawler@example.com)",
	}, seen, "robots.txt, then the page, both for the real host, with the configured User-Agent")

	// curl's own form routes alike.
	cfg.ConnectTo = []string{"boards-api.greenhouse.io:443:" + srv.Listener.Addr().String()}
	f, err = NewFetcher(cfg)
	require.NoError(t, err)
	_, err = f.fetchPage(context.Background(), ad, page, validators{}, nil)
	require.NoError(t, err)

	// TLS still verifies the host: without the CA file the local server's certificate is refused.
	cfg.CAFile = ""
	f, err = NewFetcher(cfg)
	require.NoError(t, err)
	_, err = f.fetchPage(context.Background(), ad, page, validators{}, nil)
	require.ErrorContains(t, err, "certificate")

	// A CA file that cannot be read, or holds no certificate, is named.
	cfg.CAFile = filepath.Join(dir, "missing.pem")
	_, err = NewFetcher(cfg)
	require.ErrorContains(t, err, "missing.pem")
	junk := filepath.Join(dir, "junk.pem")
	require.NoError(t, os.WriteFile(junk, []byte("not a certificate"), 0o600))
	cfg.CAFile = junk
	_, err = NewFetcher(cfg)
	require.ErrorContains(t, err, "junk.pem holds no PEM certificate")
}

func TestPrivateAddressesAreRefusedAtDial(t *testing.T) {
	t.Parallel()
	var h hits
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.add(r)
		w.Write([]byte(htmlPage("")))
	}))
	defer srv.Close()
	c, err := newCrawler(nil, newState(), Config{Fetch: FetchConfig{Backoff: time.Millisecond}, Log: slog.New(slog.DiscardHandler)}) // AllowPrivate false
	require.NoError(t, err)
	status, st := collectSources(t, context.Background(), c,
		Source{Key: "jsonld:loopback", Vendor: "jsonld", Kind: "board", URL: srv.URL + "/jobs"},
		Source{Key: "jsonld:localhost", Vendor: "jsonld", Kind: "board", URL: strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/jobs"})
	require.Equal(t, sourceFailed, status["jsonld:loopback"], "refused, not blocked: robots.txt was never asked")
	require.Equal(t, sourceFailed, status["jsonld:localhost"])
	require.Zero(t, len(h.n), "nothing reaches the server")
	require.Contains(t, st.FailedReasons["jsonld:loopback"], "refusing to connect")
	require.Contains(t, st.FailedReasons["jsonld:localhost"], "refusing to connect")

	// The same source through an explicit --connect-to mapping is the operator's choice: dialled.
	host, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	c, err = newCrawler(nil, newState(), Config{Fetch: FetchConfig{ConnectTo: []string{"jobs.acme.example:80=" + net.JoinHostPort(host, port)}}, Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	status, _ = collectSources(t, context.Background(), c, Source{Key: "jsonld:mapped", Vendor: "jsonld", Kind: "board", URL: "http://jobs.acme.example/jobs"})
	require.Equal(t, sourceOK, status["jsonld:mapped"])
	require.Equal(t, 1, h.get("jobs.acme.example/jobs"))
}

func TestParseConnectTo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		entry string
		want  ConnectRoute
		err   string
	}{
		{entry: "boards-api.greenhouse.io:443=127.0.0.1:8443", want: ConnectRoute{Host: "boards-api.greenhouse.io", Port: "443", Addr: "127.0.0.1:8443"}},
		{entry: "API.Lever.co.:443=127.0.0.1:1", want: ConnectRoute{Host: "api.lever.co", Port: "443", Addr: "127.0.0.1:1"}},
		{entry: ":443=127.0.0.1:8443", want: ConnectRoute{Port: "443", Addr: "127.0.0.1:8443"}},
		{entry: "acme.recruitee.com:=127.0.0.1:8443", want: ConnectRoute{Host: "acme.recruitee.com", Addr: "127.0.0.1:8443"}},
		{entry: ":=[::1]:8443", want: ConnectRoute{Addr: "[::1]:8443"}},
		{entry: "[::1]:443=127.0.0.1:8443", want: ConnectRoute{Host: "::1", Port: "443", Addr: "127.0.0.1:8443"}},
		{entry: "api.ashbyhq.com:443:127.0.0.1:8443", want: ConnectRoute{Host: "api.ashbyhq.com", Port: "443", Addr: "127.0.0.1:8443"}},
		{entry: "::127.0.0.1:8443", want: ConnectRoute{Addr: "127.0.0.1:8443"}},
		{entry: "api.ashbyhq.com:443:[::1]:8443", want: ConnectRoute{Host: "api.ashbyhq.com", Port: "443", Addr: "[::1]:8443"}},
		{entry: "api.lever.co=127.0.0.1:8443", err: `"api.lever.co" has no :PORT after HOST`},
		{entry: "api.lever.co:443=127.0.0.1", err: `"127.0.0.1" is not ADDR:PORT`},
		{entry: "api.lever.co:443=:8443", err: `":8443" is not ADDR:PORT`},
		{entry: "api.lever.co:https=127.0.0.1:8443", err: `port "https" is not a number from 1 to 65535`},
		{entry: "api.lever.co:443=127.0.0.1:0", err: `port "0" is not a number from 1 to 65535`},
		{entry: "api.lever.co:443", err: "no ADDR:PORT after HOST:PORT"},
		{entry: "", err: `"" has no :PORT after HOST`},
	} {
		got, err := ParseConnectTo([]string{tc.entry})
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.entry)
			require.ErrorContains(t, err, fmt.Sprintf("connect-to entry %q", tc.entry))
			require.ErrorContains(t, err, "HOST:PORT=ADDR:PORT", "the error shows the form expected")
			continue
		}
		require.NoError(t, err, tc.entry)
		require.Equal(t, []ConnectRoute{tc.want}, got, tc.entry)
	}
	routes, err := ParseConnectTo([]string{"api.lever.co:443=10.0.0.1:1", ":443=10.0.0.2:2"})
	require.NoError(t, err)
	for addr, want := range map[string]string{"api.lever.co:443": "10.0.0.1:1", "API.LEVER.CO:443": "10.0.0.1:1", "api.ashbyhq.com:443": "10.0.0.2:2", "api.lever.co:80": ""} {
		to, mapped := route(routes, addr)
		require.Equal(t, want != "", mapped, addr)
		if mapped {
			require.Equal(t, want, to, addr)
		}
	}
}

func TestBodyHashReplaysAnUnchangedPageWithoutValidators(t *testing.T) {
	t.Parallel()
	var body atomic.Value
	body.Store(htmlPage(""))
	var conditional atomic.Int32
	srv := httptest.NewServer(noRobots(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
			conditional.Add(1)
		}
		if r.URL.Path != "/jobs" || r.URL.RawQuery != "" {
			w.Write([]byte(htmlPage("")))
			return
		}
		w.Write([]byte(body.Load().(string))) // no ETag, no Last-Modified
	}))
	defer srv.Close()
	c := quietCrawler(t, Config{})
	src := Source{Key: "jsonld:a", Vendor: "jsonld", Kind: "board", URL: srv.URL + "/jobs"}
	_, st := collectSources(t, context.Background(), c, src)
	require.Zero(t, st.NotModified)
	require.NotNil(t, c.pages.get(src.URL), "a page without validators is kept, with its hash")

	_, st = collectSources(t, context.Background(), c, src)
	require.Equal(t, 1, st.NotModified, "the same body is replayed as a 304 would be")
	require.Equal(t, 1, st.BodyUnchanged)

	body.Store(htmlPage("/jobs?page=2"))
	_, st = collectSources(t, context.Background(), c, src)
	require.Zero(t, st.NotModified, "a changed body is parsed")
	require.Zero(t, st.BodyUnchanged)
	require.Equal(t, 2, st.Pages, "its next link is followed: it was parsed")
	require.Zero(t, conditional.Load(), "nothing to send without validators")
}

func TestConditionalRequestsSendIfModifiedSinceAndKeepNewValidators(t *testing.T) {
	t.Parallel()
	const lastModified = "Mon, 02 Nov 2026 10:00:00 GMT"
	var n atomic.Int32
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(noRobots(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path+" inm="+r.Header.Get("If-None-Match")+" ims="+r.Header.Get("If-Modified-Since"))
		mu.Unlock()
		switch r.URL.Path {
		case "/lm":
			if r.Header.Get("If-Modified-Since") == lastModified {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("Last-Modified", lastModified)
		case "/etag": // an ETag that changes on every answer, over the same body
			w.Header().Set("ETag", fmt.Sprintf(`"v%d"`, n.Add(1)))
		}
		w.Write([]byte(htmlPage("")))
	}))
	defer srv.Close()
	c := quietCrawler(t, Config{})
	lm := Source{Key: "jsonld:lm", Vendor: "jsonld", Kind: "board", URL: srv.URL + "/lm"}
	et := Source{Key: "jsonld:etag", Vendor: "jsonld", Kind: "board", URL: srv.URL + "/etag"}
	for range 3 {
		collectSources(t, context.Background(), c, lm)
		collectSources(t, context.Background(), c, et)
	}
	_, st := collectSources(t, context.Background(), c, lm)
	require.Equal(t, 1, st.NotModified)
	require.Zero(t, st.BodyUnchanged, "a 304, not a hash match")
	require.Equal(t, []string{
		"/lm inm= ims=", "/etag inm= ims=",
		"/lm inm= ims=" + lastModified, `/etag inm="v1" ims=`,
		"/lm inm= ims=" + lastModified, `/etag inm="v2" ims=`, // the new ETag of an unchanged body is kept
		"/lm inm= ims=" + lastModified,
	}, got)
}

func TestHostRateHalvesOn429AndRecovers(t *testing.T) {
	t.Parallel()
	floor := 1 / rateFloorEvery.Seconds()
	a := newAIMD(1)
	require.Equal(t, 1.0, a.cur)
	a.throttled()
	require.Equal(t, 0.5, a.cur)
	a.throttled()
	require.Equal(t, 0.25, a.cur)
	for range 20 {
		a.throttled()
	}
	require.Equal(t, floor, a.cur, "never below one request per 20 s")
	steps := 0
	for a.cur < 1 {
		a.succeeded()
		steps++
	}
	require.Equal(t, 1.0, a.cur, "never above the configured rate")
	require.Equal(t, 48, steps, "additive: a fiftieth of the ceiling per success")
	a.succeeded()
	require.Equal(t, 1.0, a.cur)

	// Crawl-delay lowers the ceiling at once and, lifted, lets the rate creep back.
	a.setCrawlDelay(4 * time.Second)
	require.Equal(t, 0.25, a.cur)
	a.throttled()
	require.Equal(t, 0.125, a.cur)
	a.setCrawlDelay(0)
	require.Equal(t, 0.125, a.cur)
	a.succeeded()
	require.InDelta(t, 0.145, a.cur, 1e-9)

	// Unlimited (the simulator's): a 429 changes nothing; a Crawl-delay sets a ceiling; and a
	// ceiling below the floor is the floor.
	u := newAIMD(0)
	u.throttled()
	u.succeeded()
	require.Zero(t, u.cur)
	require.Equal(t, rate.Inf, u.rateLimit())
	u.setCrawlDelay(60 * time.Second)
	require.InDelta(t, 1.0/60, u.cur, 1e-12)
	u.throttled()
	require.InDelta(t, 1.0/60, u.cur, 1e-12, "a Crawl-delay slower than the floor is kept")

	// In the fetcher: a 429 halves the host's rate, a success adds a step, and both are counted.
	var calls atomic.Int32
	srv := httptest.NewServer(noRobots(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Write([]byte(htmlPage("")))
	}))
	defer srv.Close()
	c := quietCrawler(t, Config{Fetch: FetchConfig{HostRate: 1000, Backoff: time.Millisecond}})
	status, st := collectSources(t, context.Background(), c, Source{Key: "jsonld:a", Vendor: "jsonld", Kind: "board", URL: srv.URL + "/jobs"})
	require.Equal(t, sourceOK, status["jsonld:a"])
	require.Equal(t, 1, st.Throttled)
	u2, _ := url.Parse(srv.URL)
	require.InDelta(t, 1000.0/2+1000.0/50, c.fetch.gate(u2).current(), 1e-9, "halved by the 429, a step up for the page")
}

func TestFailedReasonsAreBoundedAndBlockedSourcesCloseNothing(t *testing.T) {
	t.Parallel()
	var sources []*Source
	status := map[string]sourceStatus{}
	reasons := map[string]string{}
	for i := range 150 {
		s := &Source{Key: fmt.Sprintf("s%03d", i), Vendor: "lever", Region: "eu"}
		sources = append(sources, s)
		status[s.Key] = []sourceStatus{sourceOK, sourceFailed, sourceBlocked}[i%3]
		if status[s.Key] != sourceOK {
			reasons[s.Key] = "why " + s.Key
		}
	}
	st := &CycleStats{}
	countSources(sources, status, reasons, map[string]*CycleStats{"eu": st})
	require.Equal(t, 50, st.SourcesOK)
	require.Equal(t, 50, st.SourcesFailed)
	require.Equal(t, 50, st.Blocked)
	require.Len(t, st.FailedSources, 50)
	require.Len(t, st.FailedReasons, 100)
	require.Equal(t, "why s001", st.FailedReasons["s001"])
	require.Equal(t, "why s002", st.FailedReasons["s002"])

	prev := &reqState{sources: []string{"s001"}}
	in := map[string]bool{"s001": true}
	require.False(t, closable(prev, map[string]sourceStatus{"s001": sourceBlocked}, in), "a blocked source closes nothing")
	require.False(t, closable(prev, map[string]sourceStatus{"s001": sourceFailed}, in))
	require.True(t, closable(prev, map[string]sourceStatus{"s001": sourceOK}, in))
}
