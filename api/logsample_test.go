package api

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A store outage answers 503 to every request; the log gets one WARN per route per interval,
// and the next line counts what was held back.
func TestUnavailableLogIsSampledPerRoute(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	l := newLogSampler(10 * time.Second)
	t0 := time.Unix(1_800_000_000, 0)
	for i := range 1000 {
		l.log(log, slog.LevelWarn, "reqs.search", t0.Add(time.Duration(i)*time.Millisecond), "request answered 503", "route", "reqs.search")
	}
	l.log(log, slog.LevelWarn, "whoami", t0, "request answered 503", "route", "whoami")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 2, buf.String())
	require.Contains(t, lines[0], "level=WARN")
	require.NotContains(t, lines[0], "suppressed")

	buf.Reset()
	l.log(log, slog.LevelWarn, "reqs.search", t0.Add(11*time.Second), "request answered 503", "route", "reqs.search")
	require.Contains(t, buf.String(), "suppressed=999")
}
