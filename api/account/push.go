package account

import (
	"context"
	"time"
)

// PushStats gives the dashboard what the push tables hold: live watches and blocked deliveries.
// The default is admit.PushCounts over Deps.Pool: live watches are counted from the watches table
// (the same rows POST /v1/watches checks the allowance against); blocked deliveries are the
// wall_blocked and cap_blocked rows of webhook_deliveries created since the start of the billing
// month (the notifier writes them so).
type PushStats interface {
	LiveWatches(ctx context.Context, customerID string) (int64, error)
	BlockedDeliveries(ctx context.Context, customerID string, since time.Time) (wallBlocked, capBlocked int64, err error)
	// WallReached says whether a new watch delivery of accountID would now be wall_blocked
	// (the notifier's own admission figures).
	WallReached(ctx context.Context, accountID int64, now time.Time) (bool, error)
}
