package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// RunTick crawls every region of the simulator's directory at baseURL at tick (tick < 0: its
// current tick), one region's cycle after another, and logs each cycle.
func (c *Crawler) RunTick(ctx context.Context, baseURL string, tick int) ([]CycleStats, error) {
	dir, err := FetchDirectory(ctx, c.fetch.Client(), baseURL, tick)
	if err != nil {
		return nil, err
	}
	return c.RunDirectory(ctx, dir)
}

// RunDirectory crawls every region of dir, one region's cycle after another, and logs each
// cycle.
func (c *Crawler) RunDirectory(ctx context.Context, dir *Directory) ([]CycleStats, error) {
	out, err := c.RunRegions(ctx, dir, dir.Regions)
	if err != nil {
		return out, err
	}
	for _, st := range out {
		region := st.Region
		if st.Skipped {
			c.log.Debug("cycle already committed; skipped", "region", region, "tick", dir.Tick)
			continue
		}
		c.log.Debug("cycle committed", "region", region, "tick", st.Tick, "cycle_time", st.CycleTime.Format(time.RFC3339),
			"sources", st.Sources, "failed", st.SourcesFailed, "postings", st.Postings, "malformed", st.Malformed,
			"unresolved", st.Unresolved, "salary_dropped", st.SalaryDropped, "live", st.ReqsLive, "events", st.Events, "took", st.Duration.Round(time.Millisecond))
	}
	return out, nil
}

// PinSimTick pins the simulator's virtual clock (backfills and tests replay ticks this way).
func PinSimTick(ctx context.Context, client *http.Client, baseURL string, tick int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, fmt.Sprintf("%s/_sim/tick?tick=%d", baseURL, tick), nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("cannot pin the simulator clock at %s (is `hiringsignal simulate` running? flag --sim-url): %w", baseURL, err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("cannot pin the simulator clock: status %d", resp.StatusCode)
	}
	return nil
}

// SimTick reads the simulator's clock at baseURL (GET /_sim/tick): the tick it serves (its pinned
// tick, once pinned) and that tick's start.
func SimTick(ctx context.Context, client *http.Client, baseURL string) (int, time.Time, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/_sim/tick", nil)
	if err != nil {
		return 0, time.Time{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("cannot read the simulator's tick at %s: %w", baseURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, time.Time{}, fmt.Errorf("cannot read the simulator's tick at %s: status %d", baseURL, resp.StatusCode)
	}
	var t struct {
		Tick      *int      `json:"tick"`
		CycleTime time.Time `json:"cycle_time"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<10)).Decode(&t); err != nil || t.Tick == nil || t.CycleTime.IsZero() {
		return 0, time.Time{}, fmt.Errorf("cannot read the simulator's tick at %s: not {\"tick\":N,\"cycle_time\":T}", baseURL)
	}
	return *t.Tick, t.CycleTime.UTC(), nil
}
