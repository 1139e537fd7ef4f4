package sources

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
)

// DefaultChainPart is the pages of a chain a worker reads before it records where the chain
// stands (Crawl.ChainPart): at a board host's one request a second, about two minutes of reading
// a killed worker's successor reads again.
const DefaultChainPart = 128

// A source's chain carried across windows. A job-page board links each of its pages to the next,
// so its pages are read one after another at its host's rate, whoever reads them: 12,834 pages
// at one request a second take 3.5 hours, longer than a window. A worker reads a source in parts
// (pipeline.Crawler.ReadSegment) of c.ChainPart pages; a source whose chain ends within its
// first part is read and stored as any other, and never touches crawl_chains. After each part
// with pages left, it records the part's sightings and where the chain stands (oltp.SaveChainPart:
// only while it holds the source's lease and the chain stands where the part began, so a part
// read twice is recorded once), and goes on. When its window ends (or c.WindowPages were read of
// it in this window) it stores the window's read of the source as partial: the sightings of every
// part so far, which the committer counts as seen (reqs open and are reobserved) while it closes
// none of the source's reqs; the source is due at the next window's start, and that window's
// claim goes on from where the chain stands. Each window's stored read counts the pages that
// window read of the chain and the postings on them (the parts recorded in it, whichever worker
// recorded them): the window's cycles row sums those, so each page counts once, in the window that
// read it, and the chain's pages and postings so far go to the source's schedule and health
// (oltp.CrawlRead.Chain). The read that reaches the chain's end, in whichever window, is stored ok
// with the sightings of every part (the whole chain), so it closes what the whole chain no longer
// shows, under the usual rules, and deletes the carried chain in the same
// transaction. A page that fails partway ends the chain as a failed read (its sightings count,
// nothing closes), and the next read starts at the first page: a chain is never stitched across a
// hole, nor is one left unread for two windows (staleChain) read on. The cap (--fetch-max-pages)
// counts the chain's pages, whichever windows read them; the source's deadline bounds each part,
// so a chain whose pages keep coming goes on until its window ends, and one whose pages stop
// fails as before.

// staleChain is how long a carried chain may go without a part recorded before the next read
// starts it again at its first page, two of the clock's windows: a chain is read on from one
// window to the next while its source is claimed, and one left for two windows (its source
// paused, cooling down, or every worker down) stands at a page its board may long have changed.
func (c *Crawl) staleChain() time.Duration { return 2 * c.Clock.Window() }

// sourceRead is a worker's read of one claimed source, ready to store: the read, the sightings of
// the whole chain when it was read in parts (nil: encode the read's own), whether storing it ends
// the carried chain, and whether the chain was read in parts. The read's Pages, Postings and
// Malformed are what this window read (a chain's window may read part of it); chain is the whole
// chain's pages and postings so far, set when parted.
type sourceRead struct {
	read      *pipeline.SourceRead
	sightings []byte
	endsChain bool
	parted    bool
	chain     oltp.ChainSize
}

// readSource reads claimed source cl of window tick from dir, in parts, going on from its carried
// chain when it has one. found is false when the source is not in dir. An error wrapping
// oltp.ErrChainMoved means another worker went on with the chain: nothing is to be stored.
func (c *Crawl) readSource(ctx context.Context, dir *pipeline.Directory, tick int, cl oltp.ClaimedSource) (sr sourceRead, found bool, err error) {
	var from pipeline.ChainPlace
	if cl.Carried {
		ch, err := oltp.GetChain(ctx, c.Pool, cl.Key)
		if err != nil {
			return sourceRead{}, true, err
		}
		switch {
		case ch != nil && time.Since(ch.UpdatedAt) > c.staleChain():
			c.Log.Info("carried chain left unread for two windows: read again from its first page", "source", cl.Key, "pages", ch.Pages,
				"last_part_at", ch.UpdatedAt.UTC().Format(time.RFC3339))
			if err := oltp.DropChain(ctx, c.Pool, cl.Key); err != nil {
				return sourceRead{}, true, err
			}
		case ch != nil:
			from = pipeline.ChainPlace{Next: ch.Next, Prev: ch.Prev, Before: ch.Before, Home: ch.Home, Pages: ch.Pages}
		}
	}
	until := c.Clock.Start(tick + 1)
	if !time.Now().Before(until) {
		until = time.Time{} // a read begun after its window ended (a worker catching up) is not cut by it
	}
	parted := from.Next != ""
	window, malformed := 0, 0 // pages read in this window, and malformed postings
	for {
		limit := c.ChainPart
		if c.WindowPages > 0 {
			limit = min(limit, c.WindowPages-window)
		}
		r, at, found, err := c.Crawler.ReadSegment(ctx, dir, uint32(tick), cl.Key, from, limit, until)
		if err != nil || !found {
			return sourceRead{}, found, err
		}
		window += r.Pages
		malformed += r.Malformed
		if r.Status != pipeline.StatusPartial {
			if !parted {
				return sourceRead{read: &r}, true, nil // read whole in one part: stored as any read
			}
			// The chain ended, or failed partway: the read of the whole chain, which ends it.
			own, err := c.Codec.Encode(&r)
			if err != nil {
				return sourceRead{}, true, err
			}
			sr, err := c.joined(ctx, r, tick, from.Pages+r.Pages, malformed, own)
			sr.endsChain = true
			return sr, true, err
		}
		if r.Pages > 0 {
			b, err := c.Codec.Encode(&r)
			if err != nil {
				return sourceRead{}, true, err
			}
			part := oltp.ChainPart{FirstPage: from.Pages, Pages: r.Pages, Postings: r.Postings, Tick: tick, Sightings: b}
			if err := oltp.SaveChainPart(ctx, c.Pool, c.Owner, cl.Key, part, oltp.CrawlChain{Next: at.Next, Prev: at.Prev, Before: at.Before,
				Home: at.Home, Pages: at.Pages}); err != nil {
				return sourceRead{}, true, err
			}
			parted = true
		}
		from = at
		windowOver := !until.IsZero() && !time.Now().Before(until)
		if windowOver || c.WindowPages > 0 && window >= c.WindowPages {
			// The window's read of the chain so far: every part recorded, carried on.
			sr, err := c.joined(ctx, r, tick, from.Pages, malformed, nil)
			c.Log.Info("chain of pages carried to the next window", "source", cl.Key, "tick", tick, "pages_this_window", window,
				"pages", from.Pages)
			return sr, true, err
		}
	}
}

// joined is the read, in window tick, of a chain read in parts up to page `pages` (its pages so
// far), from r, the read of its last part: its sightings are those of every part recorded before
// own's first page, then own's (Encode's bytes of r's; nil when r's part is recorded too). Its
// Pages and Postings are the window's: those of the parts recorded in window tick (by this worker,
// or by one killed earlier in the window) and own's, so each page of a chain carried across
// windows counts once, in the window that read it; its Malformed is malformed, this worker's count
// in the window. Its chain is the whole chain's pages and postings so far.
func (c *Crawl) joined(ctx context.Context, r pipeline.SourceRead, tick, pages, malformed int, own []byte) (sourceRead, error) {
	before := pages
	if own != nil {
		before -= r.Pages
	}
	parts, err := oltp.ChainParts(ctx, c.Pool, r.SourceKey, before)
	if err != nil {
		return sourceRead{read: &r}, err
	}
	blobs := make([][]byte, 0, len(parts)+1)
	for _, p := range parts {
		blobs = append(blobs, p.Sightings)
	}
	if own != nil {
		blobs = append(blobs, own)
	}
	b, postings, err := c.Codec.Join(r.SourceKey, blobs)
	if err != nil {
		return sourceRead{read: &r}, fmt.Errorf("cannot join the parts of the chain of %s: %w", r.SourceKey, err)
	}
	chain := oltp.ChainSize{Pages: pages}
	earlier := oltp.ChainSize{} // read in the windows before this one
	for i, n := range postings {
		chain.Postings += n
		if i < len(parts) && parts[i].Tick != tick {
			earlier.Pages += parts[i].Pages
			earlier.Postings += n
		}
	}
	r.Pages, r.Postings, r.Malformed = chain.Pages-earlier.Pages, chain.Postings-earlier.Postings, malformed
	r.Full, r.Unchanged = nil, nil
	return sourceRead{read: &r, sightings: b, parted: true, chain: chain}, nil
}

// chainMoved reports whether err says another worker went on with the chain.
func chainMoved(err error) bool { return errors.Is(err, oltp.ErrChainMoved) }
