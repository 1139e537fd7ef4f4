package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/planehq/hiringsignal/analytics"
)

// LedgerHead keeps the ledger's committed event_seq head beside ClickHouse, and the commit in
// flight (oltp.LedgerHeads keeps them in Postgres). ClickHouse alone cannot say whether a write
// that gave up (its quorum wait, its connection) will still land: numbering the next cycle from
// ClickHouse's head could hand the same positions out twice, and the late write would then land
// over the next cycle's. The protocol, every step under the commit lock (Config.CommitLock):
//
//  1. Head: a pending write (one handed out and not acknowledged) is sent again, byte for byte,
//     until ClickHouse acknowledges it, then Done; the crawler's state, built before it, is then
//     stale and is reloaded. A head behind ClickHouse's acknowledged one is moved up to it
//     (Adopt); one ahead of it is an error (ClickHouse lost acknowledged commits).
//  2. Number from the committed head + 1 (nothing is pending now).
//  3. Hand: record the positions and the encoded write as pending, only if the head and "nothing
//     pending" still hold (else another commit moved the head: stale, rerun).
//  4. Write to ClickHouse; on acknowledgement, Done: the head moves to the write's last position.
//
// A position is handed out in step 2 only from committed head + 1 with nothing pending, and step
// 3 records it before any byte reaches ClickHouse; only Done clears a pending write, and it
// moves the head past it. So the highest position handed out never goes down and is never handed
// out again. A write whose status is unknown stays pending and is resent as recorded (same
// events, positions, version and blocks: ClickHouse drops a block it already has, and the
// ledger's reads keep one row per position), never renumbered.
type LedgerHead interface {
	// Head is the committed head (known false: none recorded yet) and the pending write (nil:
	// none), encoded by analytics.EncodeCycleWrite.
	Head(ctx context.Context) (head uint64, known bool, pending []byte, err error)
	// Adopt records ClickHouse's committed head when none is recorded, or the recorded one is
	// lower and nothing is pending.
	Adopt(ctx context.Context, head uint64) error
	// Hand records the positions after head up to to as handed out to the write of region's
	// window tick, while head is the committed head and nothing is pending; false otherwise.
	Hand(ctx context.Context, head, to uint64, region string, tick uint32, write []byte) (bool, error)
	// Done records the pending write ending at to as acknowledged.
	Done(ctx context.Context, to uint64) error
}

// ErrLedgerAhead is why no cycle commits when the ledger head says ClickHouse acknowledged
// commits that ClickHouse does not hold.
var ErrLedgerAhead = errors.New("the ledger head in Postgres is ahead of ClickHouse's committed head")

// checkHead is step 1 of the protocol (LedgerHead), under the commit lock: it resends a pending
// write and returns ClickHouse's committed head, which the head then agrees with. Without a
// LedgerHead it is ClickHouse's head.
func (c *Crawler) checkHead(ctx context.Context) (uint64, error) {
	wm, _, err := analytics.Watermark(ctx, c.ch)
	if err != nil || c.head == nil {
		return wm, err
	}
	head, known, pending, err := c.head.Head(ctx)
	if err != nil {
		return 0, err
	}
	if pending != nil {
		w, batch, err := analytics.DecodeCycleWrite(pending)
		if err != nil {
			return 0, fmt.Errorf("cannot resend the commit left in unknown state: %w", err)
		}
		c.log.Warn("a commit was left in unknown state (its write gave up): sending it again as it was numbered",
			"region", w.Cycle.Region, "tick", w.Cycle.Tick, "seq_from", w.Cycle.SeqFrom, "seq_to", w.Cycle.SeqTo)
		if err := analytics.WriteCycle(ctx, c.ch, w, batch); err != nil {
			return 0, fmt.Errorf("cannot resend cycle %s/%d, left in unknown state (it stays pending; no cycle commits before it): %w",
				w.Cycle.Region, w.Cycle.Tick, err)
		}
		if err := c.head.Done(ctx, w.Cycle.SeqTo); err != nil {
			return 0, err
		}
		if wm, _, err = analytics.Watermark(ctx, c.ch); err != nil {
			return 0, err
		}
		head, known = w.Cycle.SeqTo, true
	}
	switch {
	case !known || head < wm:
		// ClickHouse holds acknowledged commits the head does not: the ledger's first commit
		// under a head, a ledger an earlier release wrote, or a Postgres failover that lost the
		// head's last advance. They are committed: number after them.
		if err := c.head.Adopt(ctx, wm); err != nil {
			return 0, err
		}
	case head > wm:
		return 0, fmt.Errorf("%w: the head says event %d is committed, ClickHouse's committed head is %d; "+
			"ClickHouse lost acknowledged commits, or the head (crawl_ledger_heads) is another database's; "+
			"compare them with `hiringsignal ledger head`, and once ClickHouse holds all it will, `hiringsignal ledger head --reset --apply` "+
			"records its head (the windows after it are crawled again)", ErrLedgerAhead, head, wm)
	}
	return wm, nil
}

// write commits w (steps 3 and 4 of the protocol, LedgerHead), numbered from the head the state
// was built on, under the commit lock. Without a LedgerHead it is analytics.WriteCycle.
func (c *Crawler) write(ctx context.Context, w *analytics.CycleWrite) error {
	if c.head == nil {
		return analytics.WriteCycle(ctx, c.ch, w, c.batch)
	}
	w.Version = uint64(time.Now().UnixNano())
	w.Cycle.FinishedAt = time.Now().UTC()
	enc, err := analytics.EncodeCycleWrite(w, c.batch)
	if err != nil {
		return err
	}
	head := w.Cycle.SeqFrom - 1
	ok, err := c.head.Hand(ctx, head, w.Cycle.SeqTo, w.Cycle.Region, w.Cycle.Tick, enc)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: the ledger head moved past event %d before this cycle was handed out", ErrStaleState, head)
	}
	if err := analytics.WriteCycle(ctx, c.ch, w, c.batch); err != nil {
		return fmt.Errorf("%w (the write stays pending: the next commit sends it again as it was numbered)", err)
	}
	return c.head.Done(ctx, w.Cycle.SeqTo)
}

// settle sends a commit left in unknown state again before a cycle reads anything (checkHead,
// under the commit lock), and reloads the state it moved past. Without a LedgerHead, or with
// nothing pending, it does nothing. The caller holds c.mu.
func (c *Crawler) settle(ctx context.Context) error {
	if c.head == nil {
		return nil
	}
	if _, _, pending, err := c.head.Head(ctx); err != nil || pending == nil {
		return err
	}
	unlock := func() {}
	if c.lock != nil {
		var err error
		if unlock, err = c.lock(ctx); err != nil {
			return fmt.Errorf("cannot take the crawl's commit lock: %w", err)
		}
	}
	defer unlock()
	wm, err := c.checkHead(ctx)
	if err != nil {
		return err
	}
	if wm+1 != c.state.nextSeq {
		return c.reload(ctx)
	}
	return nil
}
