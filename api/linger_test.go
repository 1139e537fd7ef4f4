package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
)

// oversize is a body well over the 1 MiB limit: the client is still sending it when the answer
// is written.
const oversize = 3 << 20

// mountedProbe mounts a trivial handler as the agent interface is mounted (Mount), so the body
// bounds of mounted handlers are held too.
func mountedProbe(_ *api.Config, s *api.Server) {
	if s != nil {
		s.Mount(&api.Route{Name: "probe", Method: "POST", Path: "/probe", Tag: "agent", Summary: "A mounted handler",
			Statuses: []int{200, 408, 413}, Response: map[string]any{"type": "object"}},
			func(rc *fasthttp.RequestCtx) { rc.SetBodyString(`{}`) }, nil)
	}
}

// sendWhole writes the request's header and a body of n bytes declared by Content-Length, all of
// it, in a goroutine, and only then reads the answer, as Python's urllib and requests do. The
// write must complete: the server reads the body it does not want rather than resetting the
// connection under the client.
func sendWhole(t *testing.T, addr, method, path, key string, n int) (int, map[string]any) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	head := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", method, path, n)
	if key != "" {
		head += "X-API-Key: " + key + "\r\n"
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := io.WriteString(c, head+"\r\n")
		if err == nil {
			_, err = io.Copy(c, io.LimitReader(zeros{}, int64(n)))
		}
		wrote <- err
	}()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	require.NoError(t, <-wrote, "%s %s: the whole body is sent", method, path)
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "%s %s: the answer is read after the body", method, path)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.True(t, res.Close, "%s %s: the answer closes the connection", method, path)
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m), "%s", body)
	return res.StatusCode, m
}

// zeros reads as an endless run of spaces (JSON whitespace).
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// An answer sent before the body was read (413 past MaxBodyBytes, 401 without a key, 404) reaches
// a client that writes its whole body before reading: the connection lingers, discarding the
// rest of the body, instead of being reset under it. Every POST route, a mounted one included.
func TestAnswersBeforeTheBodyReachAClientStillSending(t *testing.T) {
	t.Parallel()
	h := newHarness(t, mountedProbe)
	a := h.account("growth")
	addr := strings.TrimPrefix(h.s.Base, "http://")
	posts := 0
	for _, rt := range h.srv.Routes() {
		if rt.Method != "POST" {
			continue
		}
		posts++
		path := rt.Path
		for strings.Contains(path, "{") {
			i, j := strings.Index(path, "{"), strings.Index(path, "}")
			path = path[:i] + "1" + path[j+1:]
		}
		status, m := sendWhole(t, addr, "POST", path, a.Key, oversize)
		require.Equal(t, 413, status, "POST %s", rt.Path)
		require.Equal(t, "Request body too large: the limit is 1048576 bytes", m["detail"], "POST %s", rt.Path)
	}
	require.Greater(t, posts, 3)
	status, m := sendWhole(t, addr, "POST", "/v1/keys", "", oversize)
	require.Equal(t, 401, status)
	require.Contains(t, m, "detail")
	status, m = sendWhole(t, addr, "POST", "/v1/nope", a.Key, oversize)
	require.Equal(t, 404, status)
	require.Contains(t, m, "detail")
}

// Lingering is bounded: a client that sends forever, fast or slowly, is cut once LingerBytes are
// discarded or LingerTimeout has passed.
func TestALingeringConnectionIsCutAtItsBounds(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(cfg *api.Config, _ *api.Server) {
		cfg.LingerTimeout = 500 * time.Millisecond
		cfg.LingerBytes = 1 << 20
	})
	a := h.account("growth")
	addr := strings.TrimPrefix(h.s.Base, "http://")
	// forever writes the header of a 1 GiB body, then the body in chunks of size, each after
	// pause, until a write fails; it returns the bytes written.
	forever := func(size int, pause time.Duration) <-chan int64 {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		done := make(chan int64, 1)
		go func() {
			var n int64
			if _, err := fmt.Fprintf(c, "POST /v1/keys HTTP/1.1\r\nHost: x\r\nX-API-Key: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", a.Key, 1<<30); err != nil {
				done <- n
				return
			}
			chunk := bytes.Repeat([]byte(" "), size)
			for {
				_ = c.SetWriteDeadline(time.Now().Add(30 * time.Second))
				k, err := c.Write(chunk)
				n += int64(k)
				if err != nil {
					done <- n
					return
				}
				time.Sleep(pause)
			}
		}()
		return done
	}
	cut := func(done <-chan int64, what string) int64 {
		select {
		case n := <-done:
			return n
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: the connection was never cut", what)
			return 0
		}
	}
	// Fast: cut past LingerBytes (and what the two sockets buffer), not after a GiB.
	n := cut(forever(64<<10, 0), "fast sender")
	require.Less(t, n, int64(64<<20))
	// Slow: cut past LingerTimeout.
	cut(forever(1<<10, 20*time.Millisecond), "slow sender")
}

// Python's urllib and requests, which send the whole body before reading, read the 413 (skipped
// without python3; requests' part without requests). The body is 7 MiB: loopback's socket buffers
// take a few MiB before the server answers, which would hide a reset, and the lingering bound is
// 8 MiB.
func TestPythonClientsReadThe413(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	h := newHarness(t, nil)
	a := h.account("growth")
	const script = `
import json, sys, urllib.request, urllib.error
url, key = sys.argv[1], sys.argv[2]
body = b" " * (7 << 20)
try:
    urllib.request.urlopen(urllib.request.Request(url, data=body, method="POST",
        headers={"X-API-Key": key, "Content-Type": "application/json"}), timeout=30)
    print("urllib", 200)
except urllib.error.HTTPError as e:
    print("urllib", e.code, json.loads(e.read())["detail"])
try:
    import requests
except ImportError:
    sys.exit(0)
r = requests.post(url, data=body, headers={"X-API-Key": key, "Content-Type": "application/json"}, timeout=30)
print("requests", r.status_code, r.json()["detail"])
`
	out, err := exec.Command(py, "-c", script, h.s.Base+"/v1/keys", a.Key).CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Equal(t, "urllib 413 Request body too large: the limit is 1048576 bytes", lines[0])
	if len(lines) > 1 {
		require.Equal(t, "requests 413 Request body too large: the limit is 1048576 bytes", lines[1])
	}
}
