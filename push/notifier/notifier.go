package notifier

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/VictoriaMetrics/metrics"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// Defaults of Config.
const (
	DefaultPoll            = 100 * time.Millisecond
	DefaultBatchEvents     = 2000
	DefaultBatchDeliveries = 10_000
	DefaultFireWindow      = time.Hour
	DefaultStoreTimeout    = 30 * time.Second
	DefaultCommitPoll      = 250 * time.Millisecond // a max() over the small cycles table
	retryWait              = 2 * time.Second        // after a failed batch or start
)

// Snapshots gives the current read snapshot (*snapshot.Service implements it): its watermark
// bounds what the notifier reads, its index holds the reqs criteria watches are matched
// against and its read model names the companies.
type Snapshots interface {
	Current() *snapshot.Snapshot
}

// Config configures a Notifier.
type Config struct {
	Pool       *pgxpool.Pool
	ClickHouse driver.Conn
	Snapshots  Snapshots
	Log        *slog.Logger // default: discard
	Metrics    *metrics.Set // nil: a set of its own, served nowhere
	// Poll is how often the current snapshot is looked at when no Wake came (an in-memory read;
	// the stores are asked only when the snapshot's watermark is past the position).
	Poll time.Duration
	// The committed watermark is polled every CommitPoll: a cycle committed past the snapshot's
	// watermark (by this process or another: serve beside crawl) is matched at once on the fast
	// path (fast.go), within about CommitPoll of its commit, not after the snapshot's rebuild.
	// Nudge, when set, asks the read snapshot to rebuild then too (snapshot.Service.Nudge), so the
	// API's reads follow without waiting for the snapshot's own poll.
	Nudge      func()
	CommitPoll time.Duration
	// SnapshotOnly turns the fast path off: events are then matched only once the read snapshot
	// holds them (fast.go). The fast path writes the same rows; this is for comparing the two.
	SnapshotOnly bool
	// BatchEvents is the most ledger events one batch (one transaction) covers.
	BatchEvents int
	// BatchDeliveries bounds the delivery rows of one batch (one statement): a batch whose
	// events match more ends after the event that reaches it (all of that event's kept).
	BatchDeliveries int
	// FireWindow is the window of max_fires_per_hour (an hour; an accelerated dev clock may
	// shorten it in proportion).
	FireWindow time.Duration
	// StoreTimeout bounds every store call.
	StoreTimeout time.Duration
	// Now is the clock of the fire window and the billing month (default time.Now).
	Now func() time.Time
	// Fence, when set, is the notifier's lease (package internal/leader runs the notifier on the
	// instance holding oltp.RoleNotifier): each batch commits only while the fence it returns is
	// still the role's lease (oltp.ErrFenced otherwise: nothing written), and no batch begins
	// while ok is false. nil: unfenced (one process).
	Fence func() (f oltp.Fence, ok bool)
}

// Notifier tails the committed ledger and writes deliveries (see the package doc). Start it
// after the stores are migrated or not: until its position can be read it retries.
type Notifier struct {
	cfg  Config
	m    *meters
	loop lifecycle.Loop
	wake chan struct{}

	mu      sync.Mutex // guards pos for the lag gauge
	pos     uint64
	started bool

	watches   *watchIndex
	version   oltp.WatchesVersion
	loaded    bool
	committed commitMark // the latest committed watermark polled (the run goroutine's own)

	warnMu sync.Mutex
	warned map[warnKey]bool // allowance warnings raised, or found raised (warnings.go)
}

// New returns a stopped Notifier.
func New(cfg Config) *Notifier {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.BatchEvents <= 0 {
		cfg.BatchEvents = DefaultBatchEvents
	}
	if cfg.CommitPoll <= 0 {
		cfg.CommitPoll = DefaultCommitPoll
	}
	if cfg.BatchDeliveries <= 0 {
		cfg.BatchDeliveries = DefaultBatchDeliveries
	}
	if cfg.FireWindow <= 0 {
		cfg.FireWindow = DefaultFireWindow
	}
	if cfg.StoreTimeout <= 0 {
		cfg.StoreTimeout = DefaultStoreTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	n := &Notifier{cfg: cfg, wake: make(chan struct{}, 1)}
	n.m = newMeters(cfg.Metrics, n.lag)
	n.loop.Run = n.run
	return n
}

// Start starts the notifier's goroutine and returns at once. A second Start does nothing.
func (n *Notifier) Start(ctx context.Context) error {
	if n.cfg.Pool == nil || n.cfg.ClickHouse == nil || n.cfg.Snapshots == nil {
		return errors.New("cannot start the notifier: it needs Postgres, ClickHouse and the read snapshot")
	}
	return n.loop.Start(ctx)
}

// Stop cancels a batch in progress (its transaction rolls back: nothing of it is written) and
// waits for the goroutine, or ctx. A second Stop, or a Stop before Start, does nothing.
func (n *Notifier) Stop(ctx context.Context) error {
	if err := n.loop.Stop(ctx); err != nil {
		return fmt.Errorf("cannot stop the notifier: %w", err)
	}
	return nil
}

// Wake asks the notifier to look at the read snapshot now (a new one was built: the snapshot's
// OnBuild hook calls it). It never blocks.
func (n *Notifier) Wake() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Position is the event_seq up to which the notifier has written deliveries (0 before its
// start read it).
func (n *Notifier) Position() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.pos
}

func (n *Notifier) setPosition(p uint64) {
	n.mu.Lock()
	n.pos, n.started = p, true
	n.mu.Unlock()
}

// lag is the snapshot's watermark minus the position (0 before the start).
func (n *Notifier) lag() float64 {
	n.mu.Lock()
	pos, started := n.pos, n.started
	n.mu.Unlock()
	if s := n.cfg.Snapshots.Current(); started && s != nil && s.Watermark > pos {
		return float64(s.Watermark - pos)
	}
	return 0
}

func (n *Notifier) run(ctx context.Context) {
	for !n.init(ctx) {
		if !sleep(ctx, retryWait) {
			return
		}
	}
	t := time.NewTicker(n.cfg.Poll)
	defer t.Stop()
	commits := time.NewTicker(n.cfg.CommitPoll)
	defer commits.Stop()
	for {
		more, err := n.step(ctx)
		if ctx.Err() != nil {
			return
		}
		switch {
		case errors.Is(err, oltp.ErrFenced):
			n.m.fenced.Inc()
			n.cfg.Log.Warn("notifier batch refused: this instance no longer holds the notifier lease; nothing written", "position", n.Position())
			if !sleep(ctx, retryWait) {
				return
			}
			continue
		case err != nil:
			n.m.failures.Inc()
			n.cfg.Log.Warn("notifier batch failed; retrying", "position", n.Position(), "err", err)
			if !sleep(ctx, retryWait) {
				return
			}
			continue
		case more:
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-n.wake:
		case <-t.C:
		case <-commits.C:
			n.pollCommit(ctx)
		}
	}
}

// pollCommit reads the committed watermark (for the fast path) and nudges the read snapshot when
// it is past the snapshot's own.
func (n *Notifier) pollCommit(ctx context.Context) {
	if n.cfg.Nudge == nil && n.cfg.SnapshotOnly {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, n.cfg.StoreTimeout)
	defer cancel()
	wm, _, err := analytics.Watermark(ctx, n.cfg.ClickHouse)
	if err != nil {
		return // the snapshot's own poll reports ClickHouse trouble
	}
	if wm > n.committed.wm {
		// The fast path moves only as far as the replica holds every event (a lagging one holds a
		// commit row before its events): the check counts the events past what it knew present.
		pwm, at, err := analytics.PresentWatermark(ctx, n.cfg.ClickHouse, max(n.committed.wm, n.Position()))
		if err != nil {
			return
		}
		if pwm > n.committed.wm {
			n.committed = commitMark{wm: pwm, at: at.UTC()}
		}
	}
	if s := n.cfg.Snapshots.Current(); n.cfg.Nudge != nil && (s == nil || wm > s.Watermark) {
		n.cfg.Nudge()
	}
}

// init reads the position, setting it at the committed watermark on a new install.
func (n *Notifier) init(ctx context.Context) bool {
	sctx, cancel := context.WithTimeout(ctx, n.cfg.StoreTimeout)
	defer cancel()
	wm, _, err := analytics.Watermark(sctx, n.cfg.ClickHouse)
	if err == nil {
		var pos uint64
		if pos, err = oltp.InitNotifierPosition(sctx, n.cfg.Pool, wm); err == nil {
			n.setPosition(pos)
			n.cfg.Log.Info("notifier started", "position", pos, "watermark", wm)
			return true
		}
	}
	if ctx.Err() == nil {
		n.cfg.Log.Warn("cannot start the notifier yet (stores not ready or not migrated); retrying", "err", err)
	}
	return false
}

// step runs one batch when the snapshot, or else the committed watermark last polled (the fast
// path), is past the position; more says another is due at once.
func (n *Notifier) step(ctx context.Context) (more bool, err error) {
	if _, ok := n.fence(); !ok {
		return false, nil // the lease is being lost: the part is about to stop
	}
	snap := n.cfg.Snapshots.Current()
	pos := n.Position()
	var next, upper uint64
	switch {
	case snap != nil && snap.Index != nil && snap.Watermark > pos:
		upper = snap.Watermark
		next, err = n.batch(ctx, snap, pos)
	case !n.cfg.SnapshotOnly && n.committed.wm > pos:
		upper = n.committed.wm
		next, err = n.fastBatch(ctx, n.committed, pos)
	default:
		return false, nil
	}
	if errors.Is(err, oltp.ErrPositionMoved) {
		sctx, cancel := context.WithTimeout(ctx, n.cfg.StoreTimeout)
		defer cancel()
		p, err := oltp.NotifierPosition(sctx, n.cfg.Pool)
		if err != nil {
			return false, err
		}
		n.setPosition(p)
		return p < upper, nil
	}
	if err != nil {
		return false, err
	}
	n.setPosition(next)
	// A batch that did not move (the replica lacks the next event: ReadFeed ends a page before
	// a position it does not hold) waits for the next poll instead of asking again at once.
	return next < upper && next > pos, nil
}

// fence is the lease a batch commits under (the zero Fence without Config.Fence); ok is false
// while this instance does not hold it.
func (n *Notifier) fence() (oltp.Fence, bool) {
	if n.cfg.Fence == nil {
		return oltp.Fence{}, true
	}
	return n.cfg.Fence()
}

// sleep waits d or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
