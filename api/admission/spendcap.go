package admission

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/planehq/hiringsignal/oltp"
)

// Caps holds each account's hard spend cap on one instance. A call is admitted only while the
// account's units this billing month plus the units reserved by its calls in flight stay below
// the cap, and it then reserves the most it can meter (its page size); after metering the
// reservation settles to the units recorded, and a call that is not metered releases it. So on
// one instance the units recorded never pass the cap by more than one page, however many calls
// run at once.
//
// The units of the month are the Postgres rollup (usage_monthly, re-read at most once per
// refresh) plus the units this instance recorded that Postgres does not hold yet. The metering
// log reports each segment it committed (Committed): its units leave the unflushed side and the
// next admission re-reads the rollup, which holds them by then, so they are never missing and
// never counted twice past that read. Other instances' units arrive through Postgres: across
// instances the estimate lags by at most one refresh plus one metering flush. When the rollup
// cannot be read, Reserve fails and the caller refuses the call (fail closed).
type Caps struct {
	pool    *pgxpool.Pool
	refresh time.Duration
	read    func(ctx context.Context, accountID int64) (int64, error)
	m       sync.Map // account id → *capState
}

type capState struct {
	mu       sync.Mutex
	month    time.Time // NextMonth of the billing month the counters are about
	stored   int64     // usage_monthly.units at the last read
	fetched  time.Time // when that read began; zero: read before the next admission
	unsent   int64     // units this instance recorded this month, not yet reported committed
	reserved int64     // units held by admitted calls in flight (any month)
}

// used is the month's units as known here. A segment committed after the last read began and
// not reported yet may be counted on both sides: the estimate errs high, until its report
// forces a re-read; it never errs low.
func (st *capState) used() int64 { return st.stored + st.unsent }

// roll starts the counters of a new billing month (reservations in flight stay held).
func (st *capState) roll(month time.Time) {
	if month.After(st.month) {
		st.month, st.stored, st.fetched, st.unsent = month, 0, time.Time{}, 0
	}
}

// readTimeout bounds a read of the month's units: past it the call is refused, not held.
const readTimeout = 2 * time.Second

// NewCaps returns the spend caps of one instance.
func NewCaps(pool *pgxpool.Pool) *Caps {
	cc := &Caps{pool: pool, refresh: time.Second}
	cc.read = func(ctx context.Context, accountID int64) (int64, error) {
		units, _, err := oltp.MonthUnits(ctx, cc.pool, accountID)
		return units, err
	}
	return cc
}

// NextMonth is when the billing month of now ends (UTC): spend caps reset then.
func NextMonth(now time.Time) time.Time {
	y, m, _ := now.UTC().Date()
	return time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
}

func (cc *Caps) state(accountID int64) *capState {
	if st, ok := cc.m.Load(accountID); ok {
		return st.(*capState)
	}
	st, _ := cc.m.LoadOrStore(accountID, &capState{})
	return st.(*capState)
}

// existing is the state of accountID, or nil when none of its calls was admitted here.
func (cc *Caps) existing(accountID int64) *capState {
	if st, ok := cc.m.Load(accountID); ok {
		return st.(*capState)
	}
	return nil
}

// Spend is what Reserve saw: the account's units this billing month and the units its calls in
// flight hold.
type Spend struct {
	Used     int64
	Reserved int64
}

// Reservation is the most units one admitted call may meter, held against its account's cap
// until Settle or Release. A nil Reservation does nothing.
type Reservation struct {
	st    *capState
	month time.Time
	units int64
	done  bool
}

// Reserve admits a call of accountID that may meter up to max units against the hard cap (nil:
// no cap, always admitted). It refuses (nil, over) when the month's units plus the reservations
// in flight reached hard, and fails when the month's units cannot be read. An admitted call
// must end with Settle or Release.
func (cc *Caps) Reserve(ctx context.Context, accountID int64, hard *int64, max int64, now time.Time) (r *Reservation, sp Spend, err error) {
	st := cc.state(accountID)
	month := NextMonth(now)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.roll(month)
	if hard == nil {
		return &Reservation{st: st, month: month}, Spend{}, nil
	}
	if st.fetched.IsZero() || now.Sub(st.fetched) > cc.refresh || now.Before(st.fetched) {
		// Read under st.mu: the account's other calls wait for it, and a Committed report waits
		// until the estimate of this read is used.
		rctx, cancel := context.WithTimeout(ctx, readTimeout)
		units, err := cc.read(rctx, accountID)
		cancel()
		if err != nil {
			return nil, Spend{Used: st.used(), Reserved: st.reserved}, fmt.Errorf("cannot read the account's spend this month: %w", err)
		}
		st.stored, st.fetched = units, now
	}
	sp = Spend{Used: st.used(), Reserved: st.reserved}
	if sp.Used+sp.Reserved >= *hard {
		return nil, sp, nil
	}
	st.reserved += max
	return &Reservation{st: st, month: month, units: max}, sp, nil
}

// Settle ends the reservation with the units the call recorded in the metering log.
func (r *Reservation) Settle(units int64) {
	if r == nil {
		return
	}
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	r.st.reserved -= r.units
	if r.month.Equal(r.st.month) {
		r.st.unsent += units
	}
}

// Release ends the reservation of a call that recorded nothing; after Settle it does nothing.
func (r *Reservation) Release() {
	if r == nil {
		return
	}
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	if r.done {
		return
	}
	r.done = true
	r.st.reserved -= r.units
}

// Committed takes units this instance recorded for accountID in the month starting at month off
// the unflushed side, now that Postgres holds them (metering.Config.Committed), and makes the
// next admission re-read the rollup. Until then no admission is decided: the estimate cannot
// miss them, whether or not the last read saw the commit.
func (cc *Caps) Committed(accountID int64, month time.Time, units int64) {
	st := cc.existing(accountID)
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if NextMonth(month).Equal(st.month) {
		st.unsent -= units
		st.fetched = time.Time{}
	}
}

// Invalidate makes the next admission of accountID re-read the month's units from Postgres
// (reservations and unflushed units stay counted). Other accounts keep their cached totals.
func (cc *Caps) Invalidate(accountID int64) {
	st := cc.existing(accountID)
	if st == nil {
		return
	}
	st.mu.Lock()
	st.fetched = time.Time{}
	st.mu.Unlock()
}
