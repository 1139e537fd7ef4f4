package admission

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/oltp"
)

// Caps estimates each account's units this billing month, to hold its hard spend cap: the
// Postgres rollup (re-read at most once per refresh) plus the units this instance metered since.
// Across instances the estimate lags by at most one refresh plus one metering flush.
type Caps struct {
	pool    *pgxpool.Pool
	refresh time.Duration
	mu      sync.Mutex
	m       map[int64]*capState
}

type capState struct {
	mu      sync.Mutex
	stored  int64
	local   int64
	fetched time.Time
	month   time.Time
}

// NewCaps returns the spend estimates of one instance.
func NewCaps(pool *pgxpool.Pool) *Caps {
	return &Caps{pool: pool, refresh: time.Second, m: map[int64]*capState{}}
}

// NextMonth is when the billing month of now ends (UTC): spend caps reset then.
func NextMonth(now time.Time) time.Time {
	y, m, _ := now.UTC().Date()
	return time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
}

// Over reports whether accountID's units this billing month reached hard (nil: no cap) and the
// units counted. When the rollup cannot be read, err says so and the caller decides.
func (cc *Caps) Over(ctx context.Context, accountID int64, hard *int64, now time.Time) (over bool, used int64, err error) {
	if hard == nil {
		return false, 0, nil
	}
	used, err = cc.used(ctx, accountID, now)
	if err != nil {
		return false, used, err
	}
	return used >= *hard, used, nil
}

func (cc *Caps) state(accountID int64) *capState {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	st := cc.m[accountID]
	if st == nil {
		st = &capState{}
		cc.m[accountID] = st
	}
	return st
}

func (cc *Caps) used(ctx context.Context, accountID int64, now time.Time) (int64, error) {
	st := cc.state(accountID)
	st.mu.Lock()
	defer st.mu.Unlock()
	month := NextMonth(now)
	if st.month != month || now.Sub(st.fetched) > cc.refresh {
		units, _, err := oltp.MonthUnits(ctx, cc.pool, accountID)
		if err != nil {
			return st.stored + st.local, err
		}
		st.stored, st.local, st.fetched, st.month = units, 0, now, month
	}
	return st.stored + st.local, nil
}

// Add counts units this instance metered for accountID.
func (cc *Caps) Add(accountID, units int64) {
	if units == 0 {
		return
	}
	st := cc.state(accountID)
	st.mu.Lock()
	st.local += units
	st.mu.Unlock()
}

// Forget drops the cached spend of every account (after a flush a reader wants exact numbers).
func (cc *Caps) Forget() {
	cc.mu.Lock()
	cc.m = map[int64]*capState{}
	cc.mu.Unlock()
}
