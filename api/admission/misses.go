package admission

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// MissesPerMinute is how many lookups per client address and minute, on one instance, may find
// no usable key (unknown or revoked) before that address's uncached keys are refused unread.
const MissesPerMinute = 30

// maxMissAddrs bounds the addresses counted per minute; the misses of further addresses share
// one count (with the same limit), so a spread-out forgery still cannot read Postgres freely.
const maxMissAddrs = 10000

// MissLimitError is Lookup's refusal of an uncached key from an address that presented
// MissesPerMinute unknown or revoked keys this minute: nothing was read. Decision says when the
// minute ends.
type MissLimitError struct{ Decision }

func (e *MissLimitError) Error() string {
	return fmt.Sprintf("more than %d unknown or revoked keys from this address in 60 seconds", e.Limit)
}

// MissLimited returns err's *MissLimitError, if it is one.
func MissLimited(err error) (*MissLimitError, bool) {
	if err == nil { // the cached call's way: nothing for errors.As to move to the heap
		return nil, false
	}
	var e *MissLimitError
	ok := errors.As(err, &e)
	return e, ok
}

// missBudget counts, per client address and fixed minute, the lookups that found no usable key.
type missBudget struct {
	mu     sync.Mutex
	window int64 // minute start, unix seconds
	byAddr map[string]int
	others int // misses of addresses beyond maxMissAddrs
}

// turn starts the minute of now if it is a new one. b.mu is held.
func (b *missBudget) turn(now time.Time) {
	if w := now.Unix() / 60 * 60; w != b.window {
		b.window, b.byAddr, b.others = w, map[string]int{}, 0
	}
}

// check refuses (a *MissLimitError) when ip has no misses left this minute.
func (b *missBudget) check(ip string, now time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.turn(now)
	n, ok := b.byAddr[ip]
	if !ok && len(b.byAddr) >= maxMissAddrs {
		n = b.others
	}
	if n < MissesPerMinute {
		return nil
	}
	return &MissLimitError{Decision{Limit: MissesPerMinute, Used: int64(n), ResetAt: time.Unix(b.window+60, 0)}}
}

// spend counts one miss of ip.
func (b *missBudget) spend(ip string, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.turn(now)
	if _, ok := b.byAddr[ip]; !ok && len(b.byAddr) >= maxMissAddrs {
		b.others++
		return
	}
	b.byAddr[ip]++
}
