package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/require"
)

// TestGetReadsAPageWithTheFetchersPoliteness: robots.txt decides per origin (and is itself always
// readable), redirects are followed to other hosts and recorded, each hop asking its own origin's
// robots.txt, every status is an answer, and bodies are decoded and bounded.
func TestGetReadsAPageWithTheFetchersPoliteness(t *testing.T) {
	t.Parallel()
	var h hits
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.add(r)
		host := r.Host
		if hh, _, err := net.SplitHostPort(r.Host); err == nil {
			host = hh
		}
		switch {
		case r.URL.Path == "/robots.txt" && host == "down.example":
			w.WriteHeader(http.StatusServiceUnavailable)
		case r.URL.Path == "/robots.txt" && host == "shy.example":
			fmt.Fprint(w, "User-agent: *\nDisallow: /\nSitemap: http://shy.example/sitemap.xml\n")
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
		case r.URL.Path == "/careers":
			http.Redirect(w, r, "http://board.example/acme", http.StatusFound)
		case r.URL.Path == "/to-shy":
			http.Redirect(w, r, "http://shy.example/board", http.StatusFound)
		case r.URL.Path == "/acme":
			fmt.Fprint(w, "<html>board</html>")
		case r.URL.Path == "/gz":
			w.Header().Set("Content-Encoding", "gzip")
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write([]byte(strings.Repeat("a", 1000)))
			zw.Close()
			w.Write(b.Bytes())
		case r.URL.Path == "/huge":
			w.Write(bytes.Repeat([]byte("x"), GetMaxBody+1))
		case r.URL.Path == "/gone":
			w.WriteHeader(http.StatusGone)
			fmt.Fprint(w, "gone")
		default:
			fmt.Fprint(w, "ok")
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	routes := []string{}
	for _, host := range []string{"acme.example", "board.example", "shy.example", "down.example", "learn.example"} {
		routes = append(routes, host+":80="+net.JoinHostPort("127.0.0.1", port))
	}
	f := testFetcher(t, FetchConfig{ConnectTo: routes})
	ctx := context.Background()

	res, err := f.Get(ctx, "http://acme.example/careers")
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.Status)
	require.Equal(t, "http://board.example/acme", res.FinalURL)
	require.Equal(t, []string{"http://board.example/acme"}, res.Redirects)
	require.Equal(t, "<html>board</html>", string(res.Body))
	require.Equal(t, 1, h.get("board.example/robots.txt"), "the hop's own origin was asked")

	_, err = f.Get(ctx, "http://acme.example/private/x")
	require.ErrorIs(t, err, ErrRobotsDisallow)
	require.Zero(t, h.get("acme.example/private/x"), "nothing is sent for a disallowed URL")

	res, err = f.Get(ctx, "http://acme.example/to-shy")
	require.ErrorIs(t, err, ErrRobotsDisallow, "a hop is asked of its origin's robots.txt")
	require.Equal(t, []string{"http://shy.example/board"}, res.Redirects, "the refused hop is still seen")
	require.Zero(t, h.get("shy.example/board"))

	res, err = f.Get(ctx, "http://shy.example/robots.txt")
	require.NoError(t, err, "robots.txt itself is always read")
	require.Contains(t, string(res.Body), "Sitemap: http://shy.example/sitemap.xml")

	// A robots.txt read through Get is the origin's rules from then on: not asked for twice.
	res, err = f.Get(ctx, "http://learn.example/robots.txt")
	require.NoError(t, err)
	require.Equal(t, "User-agent: *\nDisallow: /private\n", string(res.Body))
	_, err = f.Get(ctx, "http://learn.example/private/x")
	require.ErrorIs(t, err, ErrRobotsDisallow)
	_, err = f.Get(ctx, "http://learn.example/open")
	require.NoError(t, err)
	require.Equal(t, 1, h.get("learn.example/robots.txt"))
	require.Zero(t, h.get("learn.example/private/x"))

	_, err = f.Get(ctx, "http://down.example/")
	require.ErrorIs(t, err, ErrRobotsUnavailable)
	require.False(t, errors.Is(err, ErrRobotsDisallow), "unavailable is not a rule")
	require.Zero(t, h.get("down.example/"))

	res, err = f.Get(ctx, "http://acme.example/gone")
	require.NoError(t, err, "a 410 is an answer")
	require.Equal(t, http.StatusGone, res.Status)
	require.Equal(t, "gone", string(res.Body))

	res, err = f.Get(ctx, "http://acme.example/gz")
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("a", 1000), string(res.Body), "gzip decoded")

	_, err = f.Get(ctx, "http://acme.example/huge")
	require.ErrorIs(t, err, ErrBodyTooLarge)

	_, err = f.Get(ctx, "mailto:x@acme.example")
	require.ErrorContains(t, err, "want an absolute http(s) URL")
}

// TestGetRefusesPrivateAddressesWithoutAnOverride: Get dials through the egress policy like
// every page the fetcher reads.
func TestGetRefusesPrivateAddressesWithoutAnOverride(t *testing.T) {
	t.Parallel()
	var h hits
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.add(r) }))
	defer srv.Close()
	f, err := NewFetcher(FetchConfig{}) // AllowPrivate false
	require.NoError(t, err)
	_, err = f.Get(context.Background(), srv.URL+"/")
	require.ErrorContains(t, err, "refusing to connect")
	require.Zero(t, len(h.n))
}

// TestPostSendsItsBodyWithGetsPoliteness: Post sends its body and content type (Workday's list
// answers a POST only), asks robots.txt as Get does, repeats itself on a 307 and becomes a GET
// without the body on a 302; Get stays a GET.
func TestPostSendsItsBodyWithGetsPoliteness(t *testing.T) {
	t.Parallel()
	type seen struct{ method, ctype, body string }
	var mu sync.Mutex
	got := map[string][]seen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[r.URL.Path] = append(got[r.URL.Path], seen{r.Method, r.Header.Get("Content-Type"), string(b)})
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
		case "/jobs":
			if r.Method != http.MethodPost {
				w.Header().Set("Allow", http.MethodPost)
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			fmt.Fprintf(w, `{"total":1,"echo":%q}`, b)
		case "/moved-temporarily":
			http.Redirect(w, r, "/jobs", http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, "/landing", http.StatusFound)
		default:
			fmt.Fprint(w, "ok")
		}
	}))
	defer srv.Close()
	f := testFetcher(t, FetchConfig{})
	ctx := context.Background()
	body := []byte(`{"appliedFacets":{},"limit":20,"offset":0,"searchText":""}`)

	res, err := f.Post(ctx, srv.URL+"/jobs", "application/json", body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.Status)
	require.Contains(t, string(res.Body), `"total":1`)
	require.Equal(t, []seen{{http.MethodPost, "application/json", string(body)}}, got["/jobs"])

	res, err = f.Get(ctx, srv.URL+"/jobs")
	require.NoError(t, err)
	require.Equal(t, http.StatusMethodNotAllowed, res.Status, "Get stays a GET")

	res, err = f.Post(ctx, srv.URL+"/moved-temporarily", "application/json", body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.Status, "a 307 repeats the POST with its body")
	require.Equal(t, []string{srv.URL + "/jobs"}, res.Redirects)

	res, err = f.Post(ctx, srv.URL+"/moved", "application/json", body)
	require.NoError(t, err)
	require.Equal(t, "ok", string(res.Body))
	require.Equal(t, []seen{{http.MethodGet, "", ""}}, got["/landing"], "a 302 answers a POST with a GET without the body")

	_, err = f.Post(ctx, srv.URL+"/private/jobs", "application/json", body)
	require.ErrorIs(t, err, ErrRobotsDisallow)
	require.Empty(t, got["/private/jobs"], "nothing is sent for a disallowed URL")
	require.Len(t, got["/robots.txt"], 1)
}
