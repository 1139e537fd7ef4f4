package readmodeltest

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/jobtext"
)

// TechUse is how one company's reqs name one technology, counted from the ledger: the reqs
// naming it live and closed, those requiring it, the first first_seen of them and its last
// sighting (the index's cycle time while one is live, else the last event of a closed one), and
// every req naming it, live first, newest first_seen first, then by req_key.
type TechUse struct {
	Category             string
	Live, Past, Required int
	First, Last          time.Time
	Keys                 []string
}

// TechReqs is how many reqs of a company TechReference counted, and how many of them had a
// description to read.
type TechReqs struct{ Reqs, Described int }

// TechLedger is what a technographics index was built from: the ledger ch at watermark
// Watermark, every req at it (Reqs, live and closed), the index's cycle time Now and the
// start of the window in which it keeps closed reqs (ClosedSince).
type TechLedger struct {
	CH          driver.Conn
	Watermark   uint64
	Reqs        []*analytics.Req
	Now         time.Time
	ClosedSince time.Time
}

// TechReference counts every company's technologies from the ledger, independently of the read
// side: the reqs the index holds (live, and closed at or after ClosedSince) first seen at or
// before cutoff (zero: every one), each with its facts at its latest event. It returns them by
// company and slug, and the reqs counted per company.
func (l TechLedger) TechReference(t testing.TB, cutoff time.Time) (map[uint64]map[string]*TechUse, map[uint64]TechReqs) {
	t.Helper()
	var held []*analytics.Req
	keys := []string{}
	for _, r := range l.Reqs {
		if !r.Live() && r.LastEventAt.Before(l.ClosedSince) || !cutoff.IsZero() && r.FirstSeen.After(cutoff) {
			continue
		}
		held = append(held, r)
		keys = append(keys, r.ReqKey)
	}
	last, err := analytics.LatestEvents(context.Background(), l.CH, l.Watermark, keys)
	require.NoError(t, err)
	sort.Slice(held, func(i, j int) bool {
		a, b := held[i], held[j]
		if a.Live() != b.Live() {
			return a.Live()
		}
		if !a.FirstSeen.Equal(b.FirstSeen) {
			return a.FirstSeen.After(b.FirstSeen)
		}
		return a.ReqKey < b.ReqKey
	})
	out := map[uint64]map[string]*TechUse{}
	counted := map[uint64]TechReqs{}
	for _, r := range held {
		facts := last[r.ReqKey].Facts
		c := counted[r.CompanyID]
		c.Reqs++
		if facts.DescriptionHash != 0 {
			c.Described++
		}
		counted[r.CompanyID] = c
		seen := map[string]bool{}
		for i, slug := range facts.Technologies {
			if seen[slug] {
				continue
			}
			seen[slug] = true
			if out[r.CompanyID] == nil {
				out[r.CompanyID] = map[string]*TechUse{}
			}
			u := out[r.CompanyID][slug]
			if u == nil {
				tech, ok := jobtext.Lookup(slug)
				require.True(t, ok, slug)
				u = &TechUse{Category: tech.Category, First: r.FirstSeen}
				out[r.CompanyID][slug] = u
			}
			if r.Live() {
				u.Live++
				u.Last = l.Now
			} else {
				u.Past++
				if u.Live == 0 && r.LastEventAt.After(u.Last) {
					u.Last = r.LastEventAt
				}
			}
			if facts.TechKinds[i] == analytics.TechRequired {
				u.Required++
			}
			if r.FirstSeen.Before(u.First) {
				u.First = r.FirstSeen
			}
			u.Keys = append(u.Keys, r.ReqKey)
		}
	}
	return out, counted
}
