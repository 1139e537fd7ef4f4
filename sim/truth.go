package sim

import "time"

// Truth is the ground truth at a tick (GET /_sim/truth).
type Truth struct {
	Tick          int          `json:"tick"`
	CycleTime     time.Time    `json:"cycle_time"`
	Reqs          []TruthReq   `json:"reqs"`
	Transitions   []Transition `json:"transitions"`
	FailedSources []string     `json:"failed_sources"`
}

// TruthReq is one live logical req: one per (company, canonical title, country).
type TruthReq struct {
	TruthID       string         `json:"truth_id"`
	CompanyDomain string         `json:"company_domain"`
	Title         string         `json:"title"`
	Country       string         `json:"country"`
	Function      string         `json:"function"`
	FirstTick     int            `json:"first_tick"`
	Postings      []TruthPosting `json:"postings"`
	// Description is what the req's description states (DescriptionTruth): the answer key for
	// the fields a crawl reads from its postings' text and structured fields. Never nil.
	Description *DescriptionTruth `json:"description"`
}

// TruthPosting is one posting carrying a req: the source and the id it has in that source's body.
type TruthPosting struct {
	SourceKey string `json:"source_key"`
	SourceID  string `json:"source_id"`
}

// Transition is a change between tick-1 and tick.
type Transition struct {
	Kind    string `json:"kind"` // opened, closed or reposted
	TruthID string `json:"truth_id"`
	Tick    int    `json:"tick"`
}

// Transition kinds.
const (
	Opened   = "opened"
	Closed   = "closed"
	Reposted = "reposted"
)

// Truth returns the ground truth at tick.
//
// Reqs lists every live logical req with every posting that carries it at tick, including
// postings on sources that fail this tick (those are listed in FailedSources; the world did not
// change, the crawler just cannot see them). FirstTick is the tick the req's life began; a
// repost (the req went away for 1-8 ticks and came back) continues the same life, so its
// FirstTick is unchanged. Reqs already live at the epoch may have a negative FirstTick.
// Transitions compare tick-1 and tick: opened (a new logical req is live), closed (a live req is
// no longer live, including the start of a repost gap) and reposted (a req that went away came
// back). ATS migrations and source faults cause no transitions.
func (w *World) Truth(tick int) Truth { return w.truth(tick, nil) }

// truth computes the truth at tick for the given companies (all of them, and the failed
// sources, when comps is nil).
func (w *World) truth(tick int, comps []int32) Truth {
	t := Truth{
		Tick:          tick,
		CycleTime:     w.CycleTime(tick),
		Reqs:          []TruthReq{},
		Transitions:   []Transition{},
		FailedSources: []string{},
	}
	var buf []byte
	var ids []string
	var postings []TruthPosting // one backing array shared by the reqs, grown in chunks
	n := len(w.companies)
	if comps != nil {
		n = len(comps)
	}
	for ci := 0; ci < n; ci++ {
		c := &w.companies[ci]
		if comps != nil {
			c = &w.companies[comps[ci]]
		}
		if c.vendor == vNone {
			continue
		}
		v := c.vendorAt(tick)
		atsKey := vendorNames[v] + ":" + c.tenant(v)
		for s := 0; s < c.nSlots(); s++ {
			cur := w.genAt(c, s, tick)
			prev := w.genAt(c, s, tick-1)
			if prev.live && !cur.live {
				buf = truthID(buf[:0], c, &prev)
				t.Transitions = append(t.Transitions, Transition{Kind: Closed, TruthID: string(buf), Tick: tick})
				if prev.country2 != noCountry {
					buf = truthID2(buf[:0], c, &prev)
					t.Transitions = append(t.Transitions, Transition{Kind: Closed, TruthID: string(buf), Tick: tick})
				}
			}
			if !cur.live {
				continue
			}
			buf = truthID(buf[:0], c, &cur)
			id := string(buf)
			if !prev.live {
				kind := Opened
				if tick != cur.open {
					kind = Reposted
				}
				t.Transitions = append(t.Transitions, Transition{Kind: kind, TruthID: id, Tick: tick})
				if cur.country2 != noCountry {
					t.Transitions = append(t.Transitions, Transition{Kind: kind, TruthID: string(truthID2(buf[:0], c, &cur)), Tick: tick})
				}
			}
			if cap(postings)-len(postings) < 8 {
				postings = make([]TruthPosting, 0, 4096)
			}
			start := len(postings)
			ids = w.atsPostingIDs(ids[:0], buf, c, v, &cur, false)
			for _, sid := range ids {
				postings = append(postings, TruthPosting{SourceKey: atsKey, SourceID: sid})
			}
			mask, agg := crossPost(&cur)
			boards := w.boardsOf[c.region]
			for j := 0; j < 2; j++ {
				if mask&(1<<j) != 0 {
					postings = append(postings, TruthPosting{SourceKey: w.boardKey(boards[j]), SourceID: string(w.appendBoardID(buf[:0], boards[j], c, &cur))})
				}
			}
			if agg {
				postings = append(postings, TruthPosting{SourceKey: w.aggregatorKey(int(c.region)), SourceID: string(w.appendAggID(buf[:0], c, &cur))})
			}
			postings = w.appendJobPageTruth(postings, c, &cur, false)
			tt := &w.titles[cur.title]
			t.Reqs = append(t.Reqs, TruthReq{
				TruthID:       id,
				CompanyDomain: c.domain,
				Title:         tt.name,
				Country:       countries[cur.country].name,
				Function:      functionNames[tt.fn],
				FirstTick:     cur.open,
				Postings:      postings[start:len(postings):len(postings)],
				Description:   w.descriptionTruth(c, &cur, false),
			})
			if cur.country2 != noCountry {
				start = len(postings)
				ids = w.atsPostingIDs(ids[:0], buf, c, v, &cur, true)
				for _, sid := range ids {
					postings = append(postings, TruthPosting{SourceKey: atsKey, SourceID: sid})
				}
				postings = w.appendJobPageTruth(postings, c, &cur, true)
				t.Reqs = append(t.Reqs, TruthReq{
					TruthID:       string(truthID2(buf[:0], c, &cur)),
					CompanyDomain: c.domain,
					Title:         tt.name,
					Country:       countries[cur.country2].name,
					Function:      functionNames[tt.fn],
					FirstTick:     cur.open,
					Postings:      postings[start:len(postings):len(postings)],
					Description:   w.descriptionTruth(c, &cur, true),
				})
			}
		}
	}
	if comps == nil {
		w.eachSource(tick, func(s Source) {
			if k, _ := w.fault(s.Key, tick); persistent(k) {
				t.FailedSources = append(t.FailedSources, s.Key)
			}
		})
	}
	return t
}
