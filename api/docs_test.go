package api_test

import (
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
)

// chromium finds Debian's Chromium (make deps installs the package chromium). Without it the
// test is skipped, except under CI, where a missing browser is a failure of the setup.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("HS_CHROMIUM"), "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "headless Chromium not found: install the Debian package chromium (make deps does; or set HS_CHROMIUM to its path)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// The reference at /docs, opened in headless Chromium with every outside host unresolvable,
// renders every documented route (its method and path), the Authorize button of the
// document's securitySchemes and the server "/" that "try it" calls; the page loads nothing
// from elsewhere. The screenshot is kept in the test's temporary directory (-v logs its path).
func TestDocsRenderEveryRouteInHeadlessChromium(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	h := newHarness(t, func(_ *api.Config, s *api.Server) {
		if s == nil {
			return
		}
		for _, rt := range declared() {
			rt.Handler = func(c *api.Call) (int, error) { return 0, c.NoContent() }
			s.Register(rt)
		}
	})
	routes := h.srv.Routes()
	require.Greater(t, len(routes), 30)

	page := h.do("GET", api.DocsPath, "", "")
	require.Equal(t, 200, page.status)
	require.Contains(t, page.header["Content-Type"], "text/html")
	require.NotRegexp(t, regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//`), string(page.body), "the page loads nothing from another host")
	require.Contains(t, string(page.body), `"/openapi.json"`)

	// Two runs of Chromium: the DOM once the page has rendered, then the screenshot (one run
	// doing both can wait for ever on the screenshot's frame on a loaded machine).
	dir := t.TempDir()
	shot := filepath.Join(dir, "docs.png")
	start := time.Now()
	dom := runChromium(t, bin, dir, "dom", "--dump-dom", h.s.Base+api.DocsPath)
	runChromium(t, bin, dir, "screenshot", "--screenshot="+shot, h.s.Base+api.DocsPath)
	t.Logf("chromium rendered /docs in %s; screenshot %s", time.Since(start).Round(time.Millisecond), shot)
	html := string(dom)
	require.Contains(t, html, "opblock-summary-path", "Swagger UI rendered no operation: %.2000s", html)
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?s)class="opblock opblock-(\w+)".*?data-path="([^"]*)"`).FindAllStringSubmatch(html, -1) {
		listed[strings.ToUpper(m[1])+" "+m[2]] = true
	}
	want := map[string]bool{}
	for _, rt := range routes {
		want[rt.Method+" "+rt.Path] = true
	}
	require.Equal(t, want, listed, "every route listed, once, with its method")
	require.Equal(t, len(routes), strings.Count(html, `class="opblock-summary-path"`))
	require.Contains(t, html, "authorize", "the Authorize button of the securitySchemes")
	require.Contains(t, html, `<option value="/">/</option>`, `"try it" calls the server the page came from`)

	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	b := img.Bounds()
	colours := map[string]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[fmt.Sprint(r>>12, g>>12, bl>>12)] = true
		}
	}
	require.Greater(t, len(colours), 8, "the screenshot is not a blank page")
}

// runChromium runs headless Chromium on args with every outside host unresolvable, a profile of
// its own and 10 s of virtual time for the page's scripts, and returns what it printed.
func runChromium(t *testing.T, bin, dir, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--user-data-dir=" + filepath.Join(dir, name+"-profile"), "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"--window-size=1280,2400", "--virtual-time-budget=10000"}, args...)
	cmd := exec.CommandContext(ctx, bin, args...)
	// Files, not pipes: Chromium's helper processes inherit them and may outlive it.
	out, err := os.Create(filepath.Join(dir, name+".out"))
	require.NoError(t, err)
	defer out.Close()
	errs, err := os.Create(filepath.Join(dir, name+".log"))
	require.NoError(t, err)
	defer errs.Close()
	cmd.Stdout, cmd.Stderr, cmd.WaitDelay = out, errs, 5*time.Second
	err = cmd.Run()
	log, _ := os.ReadFile(errs.Name())
	require.NoError(t, err, "chromium (%s): %s", name, log)
	b, err := os.ReadFile(out.Name())
	require.NoError(t, err)
	return b
}
