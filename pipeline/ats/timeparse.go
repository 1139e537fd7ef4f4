package ats

import (
	"strconv"
	"strings"
	"time"
)

// timeLayouts are tried in order after the RFC 3339 fast path. Together they cover the
// vendors' styles: RFC 3339 with or without fraction (Greenhouse, Ashby, SmartRecruiters,
// Personio), Recruitee "2006-01-02 15:04:05 UTC", Workable and JSON-LD date-only
// "2006-01-02", and a few variants seen in the wild (no zone, space separator, numeric zone
// without colon).
var timeLayouts = [...]string{
	"2006-01-02 15:04:05 MST",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05 -07:00",
	"2006-01-02T15:04:05-0700",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02",
	time.RFC1123Z,
	time.RFC1123,
}

// parseTime parses a published timestamp. It returns the zero time when s is blank or in no
// supported style; it never fails. Times without a zone are taken as UTC. All-digit strings
// are epoch seconds or milliseconds.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	if len(s) < 4 {
		return time.Time{}
	}
	if len(s) == len(time.DateOnly) {
		// Only the date-only layout fits ten characters (every other one is longer, and epoch
		// seconds of ten digits never parse as a date): skip the layouts that cannot match,
		// each of which would allocate its error.
		if allDigits(s) {
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				return epochTime(f)
			}
			return time.Time{}
		}
		if t, err := time.Parse(time.DateOnly, s); err == nil {
			return t.UTC()
		}
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC()
	}
	if allDigits(s) {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return epochTime(f)
		}
		return time.Time{}
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// epochTime converts an epoch number to a time: values beyond 1e11 are milliseconds
// (Lever createdAt), smaller ones seconds. Non-positive or absurd values give the zero time.
func epochTime(f float64) time.Time {
	if !(f > 0) || f > 1e16 {
		return time.Time{}
	}
	if f > 1e11 {
		return time.UnixMilli(int64(f)).UTC()
	}
	return time.Unix(int64(f), 0).UTC()
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
