package digest

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTheDigestMomentIsTheLatestHourPassed(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		return v
	}
	require.Equal(t, at("2026-11-28T08:00:00Z"), Moment(at("2026-11-28T08:00:00Z"), 8), "at the hour: today's")
	require.Equal(t, at("2026-11-28T08:00:00Z"), Moment(at("2026-11-28T23:59:59Z"), 8))
	require.Equal(t, at("2026-11-27T08:00:00Z"), Moment(at("2026-11-28T07:59:59Z"), 8), "before it: yesterday's")
	require.Equal(t, at("2026-11-28T08:00:00Z"), Moment(at("2026-11-28T10:30:00+02:00"), 8), "in UTC whatever the zone")
}

func TestRepliesSayWhatAFailureMeans(t *testing.T) {
	t.Parallel()
	refused := &SendError{Step: "rcpt", Code: 550, Msg: "no such mailbox"}
	require.True(t, refused.Permanent())
	require.True(t, refused.AddressRefused())
	busy := &SendError{Step: "rcpt", Code: 451, Msg: "try later"}
	require.False(t, busy.Permanent())
	require.False(t, busy.AddressRefused())
	data := &SendError{Step: "data", Code: 554, Msg: "rejected"}
	require.True(t, data.Permanent())
	require.False(t, data.AddressRefused(), "a refused message is not a refused address")
	unreachable := stepErr("connect", errors.New("connection refused"))
	require.False(t, unreachable.Permanent())
	require.Equal(t, "the SMTP server could not be reached at connect: connection refused", unreachable.Error())
	n := 0
	for {
		if _, ok := DefaultRetry(n + 1); !ok {
			break
		}
		n++
	}
	require.Equal(t, 5, n, "five tries after the first, over about 8 hours: before the next day's digest")
}
