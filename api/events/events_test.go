package events_test

import (
	"fmt"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/events"
	"github.com/planehq/hiringsignal/internal/normalize"
)

func TestPagingTheWholeFeedServesEveryCommittedEventOnceInOrder(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	got, last := c.all(t, 0, 97, everyType)

	wm := f.snap.Watermark
	require.Equal(t, wm, last, "the last cursor is the watermark")
	require.Len(t, got, int(wm), "event_seq has no gaps: 1..watermark")
	require.Equal(t, ledgerSeqs(f.ledger, nil), seqsOf(got))
	for i, e := range got {
		r := f.ledger[i]
		require.Equal(t, uint64(i+1), e.EventSeq)
		require.Equal(t, r.Type, e.EventType)
		require.Contains(t, []string{"opened", "reobserved", "reposted", "closed"}, e.EventType)
		require.Equal(t, r.ReqKey, e.ReqKey)
		require.Equal(t, r.CompanyID, e.CompanyID)
		require.Equal(t, r.RawTitle, e.RawTitle)
		require.NotEmpty(t, e.RawTitle)
		require.Equal(t, r.OccurredAt.UTC().Format(time.RFC3339), e.OccurredAt)
		require.Equal(t, r.ObservedAt.UTC().Format(time.RFC3339), e.ObservedAt)
		co := f.snap.Model.Company(e.CompanyID)
		require.NotNil(t, co, "every crawled company is in the read model")
		require.Equal(t, co.Name, *e.CompanyName)
		requireOptional(t, r.Country, e.Country)
		requireOptional(t, r.Function, e.Function)
		requireOptional(t, r.Board, e.Board)
		requireOptional(t, r.URL, e.URL)
		if r.Country == "" {
			require.Nil(t, e.CountryCode)
		} else {
			requireOptional(t, normalize.CountryCode(r.Country), e.CountryCode)
		}
		if name, ok := normalize.FunctionName(r.Function); ok {
			require.Equal(t, name, *e.FunctionName)
		} else {
			require.Nil(t, e.FunctionName)
		}
	}

	// At the head: an empty page keeps the cursor, costs no unit and says it is caught up.
	head := c.page(t, wm, 0, nil)
	require.Empty(t, head.Events)
	require.Equal(t, wm, head.NextCursor)
	require.False(t, head.HasMore)
	require.Zero(t, head.FreshnessFloorS)
	require.Equal(t, f.snap.AsOf.UTC().Format(time.RFC3339), head.AsOf, "the page says which cycle it reflects")
	c.requireUnits(t)
}

// A since ahead of the newest event is a cursor no page of this ledger gave: it is 422 naming the
// head (never a 200 that echoes it back and stalls the consumer), and never metered. The head
// itself is a cursor like any other.
func TestACursorAheadOfTheNewestEventIs422NamingIt(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	wm := f.snap.Watermark
	for _, plan := range []string{"growth", "free"} {
		c := newCaller(t, f.srv, plan)
		for _, since := range []uint64{999999999, wm + 1} {
			r := f.srv.Get(t, "/v1/events", c.key, url.Values{"since": {strconv.FormatUint(since, 10)}})
			inv := r.Invalid(t)
			require.Equal(t, []string{"query.since"}, inv.Locs())
			require.Equal(t, fmt.Sprintf("since %d is ahead of the newest event %d; resume from next_cursor of your last page or 0", since, wm), inv.Detail[0].Msg)
			require.EqualValues(t, wm, inv.Detail[0].Ctx["le"])
			require.EqualValues(t, since, inv.Detail[0].Input)
			require.Equal(t, "less_than_equal", inv.Detail[0].Type)
		}
		p := c.page(t, wm, 0, nil)
		require.Empty(t, p.Events)
		require.Equal(t, wm, p.NextCursor)
		calls, changes := c.usage(t)
		require.Equal(t, 1, calls, "only the page at the head was a call (%s)", plan)
		require.Zero(t, changes)
	}
}

// requireOptional: want "" is served as null, anything else as itself.
func requireOptional(t *testing.T, want string, got *string) {
	t.Helper()
	if want == "" {
		require.Nil(t, got)
		return
	}
	require.NotNil(t, got)
	require.Equal(t, want, *got)
}

func TestTheSameCursorReplaysTheSamePage(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	key := f.srv.Account(t, "starter").Key
	for _, q := range []url.Values{
		{"since": {strconv.FormatUint(f.snap.Watermark/3, 10)}, "limit": {"50"}},
		{"since": {"0"}},
		{"since": {strconv.FormatUint(f.snap.Watermark/2, 10)}, "limit": {"20"}, "event_type": {"closed", "reposted"}},
	} {
		a := f.srv.Get(t, "/v1/events", key, q)
		b := f.srv.Get(t, "/v1/events", key, q)
		require.Equal(t, 200, a.Status, "%s", a.Body)
		require.Equal(t, string(a.Body), string(b.Body), "%v", q)
	}
	var p page
	f.srv.Get(t, "/v1/events", key, nil).Decode(t, 200, &p)
	require.Len(t, p.Events, events.DefaultLimit, "the default page")
	require.Equal(t, uint64(events.DefaultLimit), p.NextCursor)
	require.True(t, p.HasMore)
}

func TestFiltersServeTheSubsetOfTheFeedAndAdvanceOverEmptySpans(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	// Two companies with events, in ledger order of their first event.
	var ids []uint64
	for _, r := range f.ledger {
		if len(ids) < 2 && (len(ids) == 0 || ids[0] != r.CompanyID) {
			ids = append(ids, r.CompanyID)
		}
	}
	require.Len(t, ids, 2)
	byCompany := url.Values{"company_id": {strconv.FormatUint(ids[0], 10), strconv.FormatUint(ids[1], 10), strconv.FormatUint(ids[0], 10)}}
	got, last := c.all(t, 0, 7, byCompany)
	require.Equal(t, f.snap.Watermark, last)
	require.Equal(t, ledgerSeqs(f.ledger, func(r ledgerRow) bool { return r.CompanyID == ids[0] || r.CompanyID == ids[1] }), seqsOf(got))
	require.NotEmpty(t, got)

	byType := url.Values{"event_type": {"closed", "reposted"}}
	got, _ = c.all(t, 0, 50, byType)
	want := ledgerSeqs(f.ledger, func(r ledgerRow) bool { return r.Type == "closed" || r.Type == "reposted" })
	require.NotEmpty(t, want, "the world has closes")
	require.Equal(t, want, seqsOf(got))

	both := url.Values{"event_type": {"opened"}, "company_id": {strconv.FormatUint(ids[1], 10)}}
	got, _ = c.all(t, 0, 3, both)
	require.Equal(t, ledgerSeqs(f.ledger, func(r ledgerRow) bool { return r.Type == "opened" && r.CompanyID == ids[1] }), seqsOf(got))

	// A company without events: one empty page that advances to the end of the span it read.
	p := c.page(t, 0, 10, url.Values{"company_id": {"424242"}})
	require.Empty(t, p.Events)
	require.Equal(t, f.snap.Watermark, p.NextCursor, "the span (< MaxSpan events) ends at the watermark")
	require.False(t, p.HasMore)
	c.requireUnits(t)
}

func TestBadParametersAre422AndNeverMetered(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "growth")
	many := make([]string, events.MaxCompanyIDs+1)
	for i := range many {
		many[i] = strconv.Itoa(i + 1)
	}
	for _, tc := range []struct {
		query string
		loc   string
	}{
		{"limit=0", "query.limit"},
		{"limit=1001", "query.limit"},
		{"limit=-3", "query.limit"},
		{"since=-1", "query.since"},
		{"since=1&since=2", "query.since"},
		{"since=abc", "query.since"},
		{"company_id=abc", "query.company_id.0"},
		{"company_id=5&company_id=0", "query.company_id.1"},
		{"event_type=opened&event_type=bogus", "query.event_type.1"},
		{url.Values{"company_id": many}.Encode(), "query.company_id"},
	} {
		r := f.srv.Do(t, "GET", "/v1/events?"+tc.query, c.key, nil)
		require.Equal(t, []string{tc.loc}, r.Invalid(t).Locs(), tc.query)
	}
	calls, changes := c.usage(t)
	require.Zero(t, calls)
	require.Zero(t, changes)
}

func TestFreePlanIsServedUpToItsFloorOnly(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	c := newCaller(t, f.srv, "free")
	got, last := c.all(t, 0, 1000, everyType)
	cutoff := f.snap.AsOf.Add(-24 * time.Hour)
	// The reference: the ledger's prefix observed at or before the cutoff.
	var want []uint64
	for _, r := range f.ledger {
		if r.ObservedAt.After(cutoff) {
			break
		}
		want = append(want, r.Seq)
	}
	require.NotEmpty(t, want)
	require.Less(t, len(want), len(f.ledger), "the floor holds events back")
	require.Equal(t, want, seqsOf(got))
	require.Equal(t, want[len(want)-1], last, "the cursor stops at the floor, never past an event not served")
	for _, e := range got {
		at, err := time.Parse(time.RFC3339, e.ObservedAt)
		require.NoError(t, err)
		require.False(t, at.After(cutoff), "event %d is newer than the floor", e.EventSeq)
	}
	p := c.page(t, last, 0, everyType)
	require.Empty(t, p.Events)
	require.Equal(t, last, p.NextCursor)
	require.Equal(t, 24*3600, p.FreshnessFloorS)
	// A cursor past the floor (e.g. from a paid key) is kept, never moved back.
	p = c.page(t, f.snap.Watermark, 0, everyType)
	require.Equal(t, f.snap.Watermark, p.NextCursor)
	c.requireUnits(t)
}

func TestTheDemoKeyGetsAtMostTheDemoPage(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	var p page
	f.srv.Get(t, "/v1/events", api.PublicDemoKey, nil).Decode(t, 200, &p)
	require.Len(t, p.Events, api.DemoPageLimit)
	require.Equal(t, uint64(api.DemoPageLimit), p.NextCursor)
	f.srv.Get(t, "/v1/events", api.PublicDemoKey, url.Values{"since": {"5"}, "limit": {strconv.Itoa(api.DemoPageLimit)}}).Decode(t, 200, &p)
	require.Equal(t, []uint64{6, 7, 8, 9, 10}, seqsOf(p.Events))
	r := f.srv.Get(t, "/v1/events", api.PublicDemoKey, url.Values{"limit": {strconv.Itoa(api.DemoPageLimit + 1)}})
	inv := r.Invalid(t)
	require.Equal(t, []string{"query.limit"}, inv.Locs())
	require.EqualValues(t, api.DemoPageLimit, inv.Detail[0].Ctx["le"])
}

func TestWithoutAKeyIs401(t *testing.T) {
	t.Parallel()
	f := world.Get(t)
	require.Equal(t, 401, f.srv.Get(t, "/v1/events", "", nil).Status)
}
