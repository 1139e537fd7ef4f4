// Package snapshot owns the read side's one poller and its one pointer: it polls the committed
// watermark and, when a cycle committed and the ClickHouse replica it reads holds all of its
// events (analytics.ReadWatermark: a lagging replica delays a build, never tears one), builds a
// new Snapshot of the company read model (package readmodel) and the search index (package
// searchindex) from the ledger's rows (package analytics) and swaps them in together, with the
// gaps in the crawl's committed cycles that both mark partial weeks by and the history headers
// name. Every answer therefore comes from one watermark. Bursts of commits and nudges coalesce: at
// most one build waits behind the one running.
//
// A commit is applied, not rebuilt (Update): its presence check counts only the events above the
// bound the current snapshot's proved, while the same ClickHouse replica answers
// (analytics.ReadWatermarkAbove; after a failover or a restart it counts from the first event);
// it reads which companies the rows committed since the current snapshot touch
// (analytics.TouchedCompanies), reads those companies' reqs at the ledger positions the current
// snapshot carries for each req, with the commits' own events folded in
// (analytics.StreamCompanyLedgerReqsAbove: a read of the commit, not of the companies' history),
// and builds the new model and index over the current ones: every untouched company's structures
// are shared with the current snapshot, which its readers keep as it was; the role demand and the
// touched companies' momentum add the commits' events to the current series. The first build, an operator's forced refresh
// (Config.Policy, HS_READ_FULL_REBUILDS), a commit that touched more than a share of the
// companies, one that moved a region's coverage start, a run of applied commits (Policy.MaxDeltas:
// 64), one over an index whose dictionaries grew past Policy.MaxDictionary entries, and a failed
// application are full builds (Build): the whole ledger read once and fed to both builders. A full
// build starts a lineage: the index's dictionaries (searchindex.Dictionaries, the small ids of the
// reqs' repeated strings and of the read model's companies', handed from the index's builder to
// the model's) are new, every applied commit until the next full build adds to the
// same ones (the records it carries keep their ids), and the lineage's are dropped with its last
// snapshot; the build log counts their entries (dictionary_entries).
//
// Beside the snapshot it serves one read that stays in ClickHouse: the cleaned descriptions of a
// page's reqs (Descriptions), by the hashes the snapshot holds, so no description is held in memory.
//
// It owns the polling, the build orchestration (which reads run, and beside what; applied or
// full) and the swap; it must not hold model or index rules (readmodel and searchindex do; it only
// joins the two, in Snapshot.PulseUnder: a pulse without the reqs a freshness floor hides), serve
// HTTP, or write any store. Service follows the lifecycle contract (package lifecycle).
package snapshot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/lifecycle"
	"github.com/planehq/hiringsignal/read/readmodel"
)

// DefaultPoll is how often the committed watermark is checked.
const DefaultPoll = 5 * time.Second

// Config configures a Service.
type Config struct {
	ClickHouse driver.Conn
	Log        *slog.Logger  // default: discard
	Poll       time.Duration // how often the committed watermark is checked (default DefaultPoll)
	// OnBuild, when set, is told of every build: how long it took and whether it failed
	// (operator metrics).
	OnBuild func(took time.Duration, err error)
	// MinGap, when set, is the least time from the start of one build to the next check, polled
	// or nudged (a nudge within it waits it out; Refresh is not held back): dev sets it while it
	// backfills its demo history, so rebuilds of a ledger growing every second do not take the
	// CPU the backfill needs.
	MinGap func() time.Duration
	// Policy says when a commit is applied to the current snapshot and when it is rebuilt whole
	// (Update).
	Policy Policy
}

// Service keeps the current Snapshot: one goroutine polls the committed watermark every Poll (or
// at once after a Nudge) and, when the watermark or the latest cycle time moved, builds a new
// Snapshot off to the side and swaps it in atomically. Readers call Current and never wait on a
// build; a failed build is logged and retried on the next poll while the previous Snapshot
// keeps serving.
type Service struct {
	cfg   Config
	empty *Snapshot // served before the first build
	cur   atomic.Pointer[Snapshot]
	mu    sync.Mutex    // one build at a time
	nudge chan struct{} // capacity 1: at most one rebuild request waits behind a running build
	loop  lifecycle.Loop
	build func(context.Context, driver.Conn) (*Snapshot, error) // nil: Update over the current snapshot; tests set Build, wrapped
	// present is the watermark the current snapshot was built at, or found present and already
	// served (Refresh, under mu): a poll whose committed watermark is the same costs no event
	// count; lagging is the last committed one found not yet present (logged once).
	present, lagging mark
	behind           bool // the last Refresh found the replica lagging
}

// lagRecheck is the least time between two presence checks of a lagging replica.
const lagRecheck = 2 * time.Second

// lags reports whether the last Refresh found the replica lagging: the committed cycles' watermark
// not present yet.
func (s *Service) lags() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.behind
}

// mark is a watermark and the latest cycle time at it.
type mark struct {
	wm uint64
	at time.Time
}

func (m mark) same(o mark) bool { return m.wm == o.wm && m.at.Equal(o.at) }

// New returns a stopped Service.
func New(cfg Config) *Service {
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Service{cfg: cfg, empty: &Snapshot{Model: readmodel.Empty()}, nudge: make(chan struct{}, 1)}
	s.loop.Run = s.run
	return s
}

// Current is the latest Snapshot. Before the first build it is an empty one: Model holds no
// company and Index is nil.
func (s *Service) Current() *Snapshot {
	if c := s.cur.Load(); c != nil {
		return c
	}
	return s.empty
}

// Ready reports whether a Snapshot was built.
func (s *Service) Ready() bool { return s.cur.Load() != nil }

// Nudge asks the running Service to check the watermark now (e.g. after a crawl committed)
// instead of at the next poll. It never blocks; nudges that arrive while a build runs result in
// one check after it, not one each.
func (s *Service) Nudge() {
	select {
	case s.nudge <- struct{}{}:
	default:
	}
}

// Refresh builds and swaps in a new Snapshot now when the committed watermark or the latest
// cycle time moved since the current one (or there is none, or force is set): the commits since
// the current one applied to it, or a full rebuild (Update; force rebuilds whole). It waits for a
// build in progress first. It reports whether a new Snapshot was installed.
func (s *Service) Refresh(ctx context.Context, force bool) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The committed cycles' watermark first (no event count): when it is the one last found
	// present, nothing moved. Otherwise the watermark whose events the replica holds, which a
	// lagging replica keeps below the committed one until it catches up (analytics, presence.go).
	seen, seenAt, err := analytics.TickWatermark(ctx, s.cfg.ClickHouse, math.MaxUint64)
	if err != nil {
		return false, err
	}
	cur := s.cur.Load()
	if cur != nil && !force && s.present.same(mark{seen, seenAt}) {
		return false, nil
	}
	// Counted above the bound the current snapshot's check proved while the same replica answers.
	var known analytics.Present
	if cur != nil {
		known = cur.present
	}
	wm, at, p, err := analytics.ReadWatermarkAbove(ctx, s.cfg.ClickHouse, known)
	if err != nil {
		return false, err
	}
	if known.Watermark > 0 && p.Watermark > 0 && !p.Replica.Same(known.Replica) {
		s.cfg.Log.Info("another ClickHouse replica answers, or it restarted: the presence check counted the ledger from its first event",
			"was", known.Replica.Host+"/"+known.Replica.Macro, "now", p.Replica.Host+"/"+p.Replica.Macro)
	}
	s.behind = !(mark{wm, at}).same(mark{seen, seenAt})
	if s.behind && !s.lagging.same(mark{seen, seenAt}) {
		s.lagging = mark{seen, seenAt}
		s.cfg.Log.Warn("ClickHouse replica lags: the read snapshot waits for the events of the cycles it has committed",
			"committed", seen, "present", wm)
	}
	if cur != nil && !force && cur.Watermark == wm && cur.AsOf.Equal(at.UTC()) {
		if !s.behind {
			s.present = mark{wm, at}
		}
		return false, nil
	}
	t0 := time.Now()
	var snap *Snapshot
	if s.build != nil {
		snap, err = s.build(ctx, s.cfg.ClickHouse)
	} else {
		p := s.cfg.Policy
		p.Full = p.Full || force // an operator's forced refresh rebuilds whole
		snap, err = Update(ctx, s.cfg.ClickHouse, cur, p)
	}
	if s.cfg.OnBuild != nil {
		s.cfg.OnBuild(time.Since(t0), err)
	}
	if err != nil {
		return false, fmt.Errorf("cannot build the read snapshot: %w", err)
	}
	s.cur.Store(snap)
	s.present = mark{snap.Watermark, snap.AsOf} // built whole at it
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st := snap.Index.Stats()
	s.cfg.Log.Info("read snapshot built", "watermark", snap.Watermark, "as_of", snap.AsOf.Format(time.RFC3339),
		"companies", snap.Model.Companies(), "live_reqs", snap.Model.LiveReqs(), "indexed_reqs", st.Reqs,
		"indexed_companies", st.Companies, "titles", st.Titles, "dictionary_entries", st.DictionaryEntries, "took", snap.BuildTook.Round(time.Millisecond),
		"heap_mib", ms.HeapAlloc>>20, "phases", snap.Phases, "kind", snap.Kind, "touched", snap.Touched, "full_because", snap.Reason)
	return true, nil
}

// Start starts the polling goroutine and returns at once; the first build starts in it at once.
// A second Start does nothing.
func (s *Service) Start(ctx context.Context) error {
	if s.cfg.ClickHouse == nil {
		return errors.New("cannot start the read snapshot: no ClickHouse connection")
	}
	return s.loop.Start(ctx)
}

// Stop cancels a build in progress, ends polling and waits for the goroutine (or ctx). A second
// Stop, or a Stop before Start, does nothing.
func (s *Service) Stop(ctx context.Context) error {
	if err := s.loop.Stop(ctx); err != nil {
		return fmt.Errorf("cannot stop the read snapshot: %w", err)
	}
	return nil
}

func (s *Service) run(ctx context.Context) {
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	var last time.Time // start of the latest build
	for {
		if s.cfg.MinGap != nil && !last.IsZero() {
			if wait := s.cfg.MinGap() - time.Since(last); wait > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
			}
		}
		start := time.Now()
		built, err := s.Refresh(ctx, false)
		if err != nil && ctx.Err() == nil {
			s.cfg.Log.Warn("cannot rebuild the read snapshot; serving the previous one", "err", err)
		}
		if built {
			last = start
		}
		if s.lags() {
			// The replica lags: its next presence check (a count over the ledger) waits a little,
			// however many nudges arrive meanwhile.
			select {
			case <-ctx.Done():
				return
			case <-time.After(lagRecheck):
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.nudge:
		}
	}
}

// DescriptionTimeout bounds the one read of a page's descriptions.
const DescriptionTimeout = 2 * time.Second

// Descriptions reads the cleaned descriptions want names (req_key → the description hash the
// current snapshot holds for it; at most analytics.MaxDescriptionsRead) in one query bounded by
// DescriptionTimeout: the texts stay in ClickHouse, and a page reads only its own. A req whose
// text is not found is absent from the answer.
func (s *Service) Descriptions(ctx context.Context, want map[string]uint64) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, DescriptionTimeout)
	defer cancel()
	return analytics.ReadDescriptions(ctx, s.cfg.ClickHouse, want)
}
