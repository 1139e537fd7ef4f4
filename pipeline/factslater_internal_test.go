package pipeline

import (
	"context"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/pipeline/ats"
	"github.com/planehq/hiringsignal/sim"
)

// The postings of a world's pages, deduplicated with their facts read only for the postings the
// reqs' events read once every posting is in (describeLater, deduper.readFacts) and with every
// posting's read first (describe), in the pages' order and shuffled, give every req the same
// event; fewer postings were read.
func TestFactsReadByTheDeduperGiveTheEventsOfFactsReadEagerly(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	w := sim.New(sim.Config{Seed: 31, Companies: 250, BaseURL: base, NoGzip: true})
	w.Pin(1200)
	srv := &http.Server{Handler: w.Handler()}
	go srv.Serve(ln) //nolint:errcheck
	t.Cleanup(func() { srv.Close() })
	dir, err := FetchDirectory(context.Background(), http.DefaultClient, base, 1200)
	require.NoError(t, err)
	type posting struct {
		src *Source
		p   *ats.Posting
	}
	var pages [][]posting
	for i := range dir.Sources {
		src := &dir.Sources[i]
		ad, ok := ats.For(src.Vendor)
		require.True(t, ok, src.Vendor)
		for u := src.URL; u != ""; {
			resp, err := http.Get(u)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			page, err := ad.Parse(body, u)
			if err != nil {
				break // a page the world serves broken on purpose
			}
			var ps []posting
			for j := range page.Postings {
				ps = append(ps, posting{src, &page.Postings[j]})
			}
			pages = append(pages, ps)
			u = page.NextURL
		}
	}
	res := newResolver(dir.Companies)
	at := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	run := func(order []int, later bool) (map[string]Event, int) {
		d := newDeduper(func(string) bool { return true })
		memo := newCleanMemo() // the cycle's: a raw text met again is not cleaned again
		var obs []*observation
		for _, i := range order {
			for _, p := range pages[i] {
				o, ok := res.observe(p.src, p.p)
				if !ok {
					continue
				}
				if later {
					describeLater(&o, p.p, memo)
				} else {
					describe(&o, p.p, nil)
				}
				d.add(&o)
				obs = append(obs, &o)
			}
		}
		// The texts read: those of the roles whose copy readFacts reads (a copy shares its
		// posting's).
		kept := map[*observation]*laterRead{}
		for _, a := range d.reqs {
			for _, o := range []*observation{a.best, a.text, a.fullest} {
				if o != nil && o.later != nil {
					kept[o] = o.later
				}
			}
		}
		d.readFacts(2)
		read := map[*laterRead]bool{}
		for o, l := range kept {
			if o.later == nil {
				read[l] = true
			}
		}
		unread := 0
		for _, o := range obs {
			if o.later != nil && !read[o.later] {
				unread++
			}
		}
		events := map[string]Event{}
		for k, a := range d.reqs {
			events[k] = eventFrom(a, "eu", 1, at)
		}
		return events, unread
	}
	order := make([]int, len(pages))
	for i := range order {
		order[i] = i
	}
	shuffled := slices.Clone(order)
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, ord := range [][]int{order, shuffled} {
		eager, none := run(ord, false)
		later, unread := run(ord, true)
		require.Zero(t, none)
		require.Positive(t, unread, "postings the deduper did not take were not read")
		require.Equal(t, len(eager), len(later))
		keys := make([]string, 0, len(eager))
		for k := range eager {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			require.Equal(t, eager[k], later[k], "req %s", k)
		}
		t.Logf("%d reqs; %d postings' facts not read", len(eager), unread)
	}
}
