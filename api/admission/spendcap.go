package admission

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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
// refresh) plus the units this instance recorded that Postgres does not hold yet. A call's
// reservation settles to its units before its record is written, and the metering log reports
// each segment it committed (Committed): its units leave the unflushed side and the next
// admission re-reads the rollup. Units flushed but not reported yet are told apart by the
// instance's hold (below), which the flush shrank, so they are counted once. When Postgres
// cannot be read, Reserve fails and the caller refuses the call (fail closed).
//
// Across instances the cap holds the same way, through a hold per instance in Postgres
// (oltp.SpendHolds): the units this instance may meter on top of the rollup. Its unflushed
// units and its reservations are spent from its hold, in memory; when they would pass it, or
// the hold is older than two thirds of its TTL, the instance asks for a new hold under the
// account's lock, where the rollup plus every other live hold plus what it needs must stay
// below the cap, as on one instance. A hold granted is what it needs plus a block to spend from
// memory (SpendBlock; never more than a quarter of the room left below the cap); a hold refused
// keeps only what it has in flight. The metering flush takes a segment's units off its owner's
// hold in the transaction that adds them to the rollup. So the units recorded by every instance
// together pass the cap by less than one page, and a call is refused at most SpendBlock units
// early per other instance (its block, until it spends it or its hold lapses after the TTL). A
// hold whose owner died lapses after the TTL; units of its metering directory replayed after
// that may pass the cap by what it had not flushed (docs/decisions.md, "Several instances").
type Caps struct {
	refresh  time.Duration
	holds    func(ctx context.Context, owner string, accountID int64, month time.Time, ttl time.Duration, decide func(oltp.SpendView) int64) (oltp.SpendView, error)
	owner    func() string
	fallback string        // the owner when owner() is "" (no metering log started)
	ttl      time.Duration // a hold lapses this long after it was last asked for
	m        sync.Map      // account id → *capState
}

type capState struct {
	mu       sync.Mutex
	month    time.Time // NextMonth of the billing month the counters are about
	stored   int64     // usage_monthly.units at the last read, less the units in it Committed has not reported yet
	fetched  time.Time // when that read began; zero: read before the next admission
	unsent   int64     // units this instance recorded this month, not yet reported committed
	reserved int64     // units held by admitted calls in flight (any month)
	held     int64     // this instance's hold for the month: its last Hold, less the units committed since
	heldTill time.Time // until when (this process's clock) the hold may be spent without asking Postgres
}

// used is the month's units as known here. A segment committed after the last read began and
// not reported yet may be counted on both sides: the estimate errs high, until its report
// forces a re-read; it never errs low.
func (st *capState) used() int64 { return st.stored + st.unsent }

// roll starts the counters of a new billing month (reservations in flight stay held).
func (st *capState) roll(month time.Time) {
	if month.After(st.month) {
		st.month, st.stored, st.fetched, st.unsent, st.held, st.heldTill = month, 0, time.Time{}, 0, 0, time.Time{}
	}
}

// readTimeout bounds a read of the month's units: past it the call is refused, not held.
const readTimeout = 2 * time.Second

// SpendHoldTTL is how long an instance's spend hold counts after it last asked for it; it asks
// again after two thirds of it.
const SpendHoldTTL = 30 * time.Second

// SpendBlock is the most units a hold keeps beyond what its instance needs, under a hard cap of
// hard units: a twentieth of the cap, between 1 and 10,000.
func SpendBlock(hard int64) int64 { return min(max(1, hard/20), 10_000) }

// NewCaps returns the spend caps of one instance. owner names its holds: the metering log's
// instance id (metering.Log.Instance), so that each flushed segment's units leave this
// instance's hold; nil, or "", a random name of its own.
func NewCaps(pool *pgxpool.Pool, owner func() string) *Caps {
	var b [8]byte
	_, _ = rand.Read(b[:])
	cc := &Caps{refresh: time.Second, owner: owner, fallback: "caps-" + hex.EncodeToString(b[:]), ttl: SpendHoldTTL}
	cc.holds = oltp.SpendHolds{Pool: pool}.Hold
	return cc
}

func (cc *Caps) holder() string {
	if cc.owner != nil {
		if o := cc.owner(); o != "" {
			return o
		}
	}
	return cc.fallback
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
	st        *capState
	month     time.Time
	units     int64
	done      bool
	settled   int64 // the units Settle recorded
	unsettled bool
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
	// Postgres is asked under st.mu: the account's other calls wait for it, and a Committed
	// report waits until the estimate of this read is used. It is asked when the month's units
	// are older than the refresh, or the hold is spent or old.
	clock := time.Now()
	if st.fetched.IsZero() || now.Sub(st.fetched) > cc.refresh || now.Before(st.fetched) ||
		st.unsent+st.reserved+max > st.held || !clock.Before(st.heldTill) {
		granted, others, err := cc.hold(ctx, st, accountID, *hard, max, clock)
		if err != nil {
			return nil, Spend{Used: st.used(), Reserved: st.reserved}, err
		}
		st.fetched = now
		if !granted {
			return nil, Spend{Used: st.used(), Reserved: st.reserved + others}, nil
		}
	}
	sp = Spend{Used: st.used(), Reserved: st.reserved}
	if sp.Used+sp.Reserved >= *hard {
		return nil, sp, nil
	}
	st.reserved += max
	return &Reservation{st: st, month: month, units: max}, sp, nil
}

// hold asks Postgres for this instance's hold on accountID's month (st.mu held): granted when
// the month's units, the other instances' live holds and this instance's unflushed units and
// reservations stay below hard; then the hold covers them, page more and up to a block beyond.
// Refused, it keeps only what is in flight. It also re-reads the month's units.
func (cc *Caps) hold(ctx context.Context, st *capState, accountID, hard, page int64, clock time.Time) (granted bool, others int64, err error) {
	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	var held, flushed int64
	v, err := cc.holds(rctx, cc.holder(), accountID, st.month.AddDate(0, -1, 0), cc.ttl, func(v oltp.SpendView) int64 {
		// Units flushed since the last Hold left the hold in Postgres and are in the month's
		// units, but Committed has not taken them off st.unsent yet: count them once.
		flushed = min(max(0, st.held-v.Own), st.unsent)
		mine := st.unsent - flushed + st.reserved
		granted = v.Month+v.Others+mine < hard
		held = mine
		if granted {
			want := mine + page
			held = want + min(SpendBlock(hard), max(0, hard-v.Month-v.Others-want)/4)
		}
		return held
	})
	if err != nil {
		return false, 0, fmt.Errorf("cannot read the account's spend this month: %w", err)
	}
	// The hold no longer keeps the flushed units; Committed takes them off st.unsent and st.held
	// when it comes, so until then they are held here as they were.
	st.stored, st.held, st.heldTill = v.Month-flushed, held+flushed, clock.Add(cc.ttl*2/3)
	return granted, v.Others, nil
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
	r.done, r.settled = true, units
	r.st.reserved -= r.units
	if r.month.Equal(r.st.month) {
		r.st.unsent += units
	}
}

// Unsettle takes back the units of a Settle whose record could not be written: the call
// recorded nothing. Settle comes first because a flush may move a record's units into the
// month's rollup as soon as it is written, and they must be counted here already by then.
func (r *Reservation) Unsettle() {
	if r == nil {
		return
	}
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	if r.done && !r.unsettled && r.month.Equal(r.st.month) {
		r.st.unsent -= r.settled
	}
	r.unsettled = true
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
		st.held -= units // the flush took them off this instance's hold (oltp.SettleSpendHolds)
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
