package pipeline

import (
	"slices"
	"sort"
	"time"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/jobtext"
)

// sourceStatus is what the fetch stage learned of each source this cycle.
type sourceStatus int

const (
	sourceOK      sourceStatus = iota + 1
	sourceFailed               // a page failed: unknown
	sourceBlocked              // robots.txt kept a page from being read: unknown, retried next cycle
	// sourceSuspect: the source answered, but with far fewer reqs than it carried (guardDrops);
	// unknown until a later read confirms.
	sourceSuspect
	// sourceNotFetched: not read this cycle (paused by an operator); unknown.
	sourceNotFetched
	// sourcePartial: a chain of pages read in part this window, going on in the next (a worker's
	// read carried across windows): its reqs seen count, the others are unknown, never closed.
	sourcePartial
)

// diff compares this cycle's reqs of one region with the ledger state and returns the events,
// sorted by company and req so a rerun assigns the same event_seq to the same change.
//
// The attributes of a closing req come from its last committed event, read back by attrs (the
// compact state does not keep them).
//
// gapFrom, when not zero, is the region's last committed cycle time before a gap (windows not
// crawled): a req opened now was published somewhere in (gapFrom, cycleTime), and is dated by
// its posted date when that falls there, never by this cycle's time as if it were fresh.
//
// A close whose every source was retired (retired) says so (close_reason source_retired). Events
// of a change after a gap carry its bounds (GapFrom, GapTo).
func diff(st *State, region string, tick uint32, cycleTime, gapFrom time.Time, seen map[string]*reqAgg,
	status map[string]sourceStatus, inDirectory, retired map[string]bool, inScope func(companyID uint64) bool,
	attrs func(keys []string) (map[string]*Event, error)) ([]Event, error) {
	since := cycleTime.Add(-3 * time.Hour)
	if !gapFrom.IsZero() {
		since = gapFrom
	}
	need := st.needAttrs(tick)
	n := 0
	for key := range seen {
		if need(key) {
			n++
		}
	}
	out := make([]Event, 0, n+n/16+16) // closes are few; the first cycle opens everything at once
	for key, a := range seen {
		prev := st.reqs[key]
		if !need(key) {
			continue
		}
		ev := eventFrom(a, region, tick, cycleTime)
		switch {
		case prev == nil:
			ev.Type = analytics.EventOpened
			ev.FirstSeen = cycleTime
			if !a.best.postedAt.IsZero() && a.best.postedAt.Before(cycleTime) && a.best.postedAt.After(since) {
				ev.OccurredAt = a.best.postedAt.UTC().Truncate(time.Second)
			}
		case !prev.live:
			ev.Type = analytics.EventReposted
			ev.FirstSeen = time.Unix(prev.firstSeen, 0).UTC()
			ev.RepostCount = prev.repostCount + 1
		case tick >= prev.tick+ReobserveEvery:
			ev.Type = analytics.EventReobserved
			ev.FirstSeen = time.Unix(prev.firstSeen, 0).UTC()
			ev.RepostCount = prev.repostCount
		default:
			continue
		}
		if !gapFrom.IsZero() && ev.Type != analytics.EventReobserved {
			ev.GapFrom, ev.GapTo = gapFrom, cycleTime
		}
		out = append(out, ev)
	}
	var closing []string
	for key, prev := range st.reqs {
		if !prev.live || seen[key] != nil || !inScope(prev.companyID) {
			continue
		}
		if !closable(prev, status, inDirectory) {
			continue // a source that carried it failed: unknown, not closed
		}
		closing = append(closing, key)
	}
	if len(closing) > 0 {
		last, err := attrs(closing)
		if err != nil {
			return nil, err
		}
		for _, key := range closing {
			ev := *last[key]
			ev.Type = analytics.EventClosed
			ev.Tick = tick
			ev.Region = region
			ev.OccurredAt = cycleTime
			ev.ObservedAt = cycleTime
			ev.Sources = st.reqs[key].sources
			ev.CloseReason, ev.GapFrom, ev.GapTo = "", time.Time{}, time.Time{}
			if allRetired(ev.Sources, retired) {
				ev.CloseReason = analytics.CloseSourceRetired
			}
			if !gapFrom.IsZero() {
				ev.GapFrom, ev.GapTo = gapFrom, cycleTime
			}
			out = append(out, ev)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].CompanyID != out[j].CompanyID {
			return out[i].CompanyID < out[j].CompanyID
		}
		return out[i].ReqKey < out[j].ReqKey
	})
	return out, nil
}

// closable: every source that last carried the req was read completely this cycle, or has left
// the directory. A failed, blocked, cut-short, carried (partial) or unread source makes the req
// unknown.
func closable(prev *reqState, status map[string]sourceStatus, inDirectory map[string]bool) bool {
	for _, s := range prev.sources {
		if status[s] != sourceOK && inDirectory[s] {
			return false
		}
	}
	return true
}

func eventFrom(a *reqAgg, region string, tick uint32, cycleTime time.Time) Event {
	b := a.best
	ev := Event{
		ReqKey: b.reqKey, CompanyID: b.companyID, Region: region, Tick: tick,
		OccurredAt: cycleTime, ObservedAt: cycleTime,
		RawTitle: b.rawTitle, Title: b.title, TitleKey: b.titleKey, Function: b.function,
		Country: b.country, Location: b.location, SourceType: b.sourceType,
		Boards: sortedInPlace(a.boards), Sources: sortedInPlace(a.sources), // shared with a: no copy
		Board: b.board, URL: b.url, RequisitionID: b.reqID,
	}
	if slices.Contains(ev.Boards, "") {
		ev.Boards = slices.DeleteFunc(ev.Boards, func(s string) bool { return s == "" })
	}
	if !b.postedAt.IsZero() {
		t := b.postedAt.UTC().Truncate(time.Second)
		ev.PostedAt = &t
	}
	if s := a.salary; s != nil {
		lo, hi := s.salLo, s.salHi
		ev.SalMin, ev.SalMax, ev.SalDeclared = &lo, &hi, 1
	}
	if b.facts != nil {
		ev.Facts = *b.facts
		if t := a.readText(); t != nil {
			f := ev.Facts
			if f.DescriptionHash != 0 {
				// best's own short text gives way whole: its feed's fields and title stand, the
				// fuller text fills the rest.
				f = mergeFacts(b.rawTitle, b.country, b.terms, jobtext.Derive(b.rawTitle, ""))
			}
			ev.Facts = withText(f, t.facts)
		}
		if a.salary != nil {
			ev.StatedPay = nil // a posting of the req declared pay: the feed's wins over the text's
		}
	}
	return ev
}

func sortedInPlace(xs []string) []string {
	sort.Strings(xs)
	return xs
}

// allRetired reports whether every one of sources (at least one) was retired.
func allRetired(sources []string, retired map[string]bool) bool {
	if len(sources) == 0 || len(retired) == 0 {
		return false
	}
	for _, s := range sources {
		if !retired[s] {
			return false
		}
	}
	return true
}
