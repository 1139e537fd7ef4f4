package account

import (
	"context"
	"time"
)

// PushStats gives the dashboard what the push issue's tables hold: live watches and blocked
// deliveries. Until those tables exist the dashboard uses noPushTables, which reports zero (there
// is nothing to count yet), never an invented number; the push issue passes its implementation in
// Deps.Push.
type PushStats interface {
	LiveWatches(ctx context.Context, customerID string) (int64, error)
	BlockedDeliveries(ctx context.Context, customerID string, since time.Time) (wallBlocked, capBlocked int64, err error)
}

type noPushTables struct{}

func (noPushTables) LiveWatches(context.Context, string) (int64, error) { return 0, nil }
func (noPushTables) BlockedDeliveries(context.Context, string, time.Time) (int64, int64, error) {
	return 0, 0, nil
}
