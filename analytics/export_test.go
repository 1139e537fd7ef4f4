package analytics

import (
	"context"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// SetQuorumTimeout sets one quorum write attempt's wait and returns what restores it.
func SetQuorumTimeout(d time.Duration) (restore func()) {
	old := quorumTimeout.Swap(int64(d))
	return func() { quorumTimeout.Store(old) }
}

// StreamLedgerReqsInRanges is StreamLedgerReqs reading ranges of about perRange events (0: the
// whole ledger in one range).
func StreamLedgerReqsInRanges(ctx context.Context, ch driver.Conn, g Committed, perRange int, fn func(r *LedgerReq) error) error {
	return streamLedgerReqRanges(ctx, ch, g, perRange, fn)
}
