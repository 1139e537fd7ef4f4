package oltp

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// LedgerHeads keeps the crawl's ledger head of one ledger (Ledger: the ClickHouse database) in
// table crawl_ledger_heads: the highest event_seq an acknowledged commit holds, with its window,
// and the commit handed out whose write ClickHouse has not acknowledged yet (pending), with the
// write itself to send again. The crawl calls it under its commit lock (CrawlCommitLock); every
// change is also conditional on the head it read, so a holder that lost the lock changes
// nothing. It implements pipeline.LedgerHead.
type LedgerHeads struct {
	Pool   *pgxpool.Pool
	Ledger string
}

// Head returns the committed head (known false: no head recorded yet) and the pending write
// (nil: none).
func (h LedgerHeads) Head(ctx context.Context) (head uint64, known bool, pending []byte, err error) {
	var to int64
	err = h.Pool.QueryRow(ctx, `SELECT committed_to, pending_write FROM crawl_ledger_heads WHERE ledger = $1`, h.Ledger).Scan(&to, &pending)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil, nil
	}
	if err != nil {
		return 0, false, nil, fmt.Errorf("cannot read the crawl's ledger head: %w", err)
	}
	return uint64(to), true, pending, nil
}

// Adopt records head as committed, ClickHouse's committed head, when no head is recorded or the
// recorded one is lower and nothing is pending: the ledger's first commit under a head, a ledger
// an earlier release wrote, or a head a Postgres failover lost the last advance of.
func (h LedgerHeads) Adopt(ctx context.Context, head uint64) error {
	_, err := h.Pool.Exec(ctx, `INSERT INTO crawl_ledger_heads AS l (ledger, committed_to) VALUES ($1, $2)
		ON CONFLICT (ledger) DO UPDATE SET committed_to = EXCLUDED.committed_to, updated_at = now()
		WHERE l.committed_to < EXCLUDED.committed_to AND l.pending_write IS NULL`, h.Ledger, int64(head))
	if err != nil {
		return fmt.Errorf("cannot record the crawl's ledger head: %w", err)
	}
	return nil
}

// Hand records that the positions after head up to to are handed out to a commit of region's
// window tick, whose write (encoded) is about to go to ClickHouse: only while head is the
// committed head and nothing is pending (false otherwise: another commit moved the head).
func (h LedgerHeads) Hand(ctx context.Context, head, to uint64, region string, tick uint32, write []byte) (bool, error) {
	tag, err := h.Pool.Exec(ctx, `UPDATE crawl_ledger_heads SET pending_from = $2 + 1, pending_to = $3, pending_region = $4,
		pending_tick = $5, pending_write = $6, updated_at = now()
		WHERE ledger = $1 AND committed_to = $2 AND pending_write IS NULL`, h.Ledger, int64(head), int64(to), region, int64(tick), write)
	if err != nil {
		return false, fmt.Errorf("cannot record the commit handed out: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// Done records the pending commit ending at to as acknowledged: the committed head moves up to
// to, with its window, and nothing is pending. It does nothing when no such commit is pending.
func (h LedgerHeads) Done(ctx context.Context, to uint64) error {
	_, err := h.Pool.Exec(ctx, `UPDATE crawl_ledger_heads SET committed_to = pending_to, committed_region = pending_region,
		committed_tick = pending_tick, pending_from = NULL, pending_to = NULL, pending_region = NULL, pending_tick = NULL,
		pending_write = NULL, updated_at = now()
		WHERE ledger = $1 AND pending_to = $2 AND pending_write IS NOT NULL`, h.Ledger, int64(to))
	if err != nil {
		return fmt.Errorf("cannot record the commit acknowledged: %w", err)
	}
	return nil
}

// LedgerHeadState is one ledger's head as recorded: what `hiringsignal ledger head` shows.
type LedgerHeadState struct {
	Known          bool // a head is recorded (false: no commit under a head yet)
	CommittedTo    uint64
	CommittedAt    string // region/tick of the commit that moved it last ("" when adopted)
	Pending        bool   // a commit handed out whose write ClickHouse has not acknowledged
	PendingFrom    uint64
	PendingTo      uint64
	PendingWindow  string // region/tick of the pending commit
	PendingBytes   int    // size of the pending write kept to send again
	UpdatedAtEpoch int64  // unix seconds of the last change
}

// State returns the recorded head of the ledger (Known false when none is).
func (h LedgerHeads) State(ctx context.Context) (LedgerHeadState, error) {
	var s LedgerHeadState
	var to, tick int64
	var region string
	var pFrom, pTo, pTick *int64
	var pRegion *string
	var pBytes *int32
	err := h.Pool.QueryRow(ctx, `SELECT committed_to, committed_region, committed_tick, pending_from, pending_to, pending_region,
		pending_tick, octet_length(pending_write), extract(epoch FROM updated_at)::bigint
		FROM crawl_ledger_heads WHERE ledger = $1`, h.Ledger).Scan(&to, &region, &tick, &pFrom, &pTo, &pRegion, &pTick, &pBytes, &s.UpdatedAtEpoch)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("cannot read the crawl's ledger head: %w", err)
	}
	s.Known, s.CommittedTo = true, uint64(to)
	if region != "" {
		s.CommittedAt = fmt.Sprintf("%s/%d", region, tick)
	}
	if pBytes != nil {
		s.Pending, s.PendingBytes = true, int(*pBytes)
		if pFrom != nil && pTo != nil {
			s.PendingFrom, s.PendingTo = uint64(*pFrom), uint64(*pTo)
		}
		if pRegion != nil && pTick != nil {
			s.PendingWindow = fmt.Sprintf("%s/%d", *pRegion, *pTick)
		}
	}
	return s, nil
}

// Reset records head as the committed head and forgets any pending write, whatever was recorded:
// the operator's recovery when ClickHouse lost acknowledged commits (restored from an older
// backup, or wiped) and the recorded head, ahead of it, refuses every commit. It returns the
// state it replaced. The caller holds the commit lock (CrawlCommitLock), so no commit is
// between its steps; a pending write forgotten here is a window that will be crawled again.
func (h LedgerHeads) Reset(ctx context.Context, head uint64) (LedgerHeadState, error) {
	before, err := h.State(ctx)
	if err != nil {
		return before, err
	}
	_, err = h.Pool.Exec(ctx, `INSERT INTO crawl_ledger_heads AS l (ledger, committed_to) VALUES ($1, $2)
		ON CONFLICT (ledger) DO UPDATE SET committed_to = EXCLUDED.committed_to, committed_region = '', committed_tick = 0,
		pending_from = NULL, pending_to = NULL, pending_region = NULL, pending_tick = NULL, pending_write = NULL, updated_at = now()`,
		h.Ledger, int64(head))
	if err != nil {
		return before, fmt.Errorf("cannot reset the crawl's ledger head: %w", err)
	}
	return before, nil
}
