package pipeline

// HeldOpenUnread counts the live reqs of the ledger state none of whose sources was read ok
// (readOK false for each source that last carried it): the reqs the crawl keeps open only because
// the sources that carry them could not be read this window (failed, blocked, not fetched,
// cooling down, or read suspect empty). It is the "no fake closes" number: each of them would
// have been closed, or confirmed, by a read. A req whose sources are partly read ok and that was
// not seen on them is not counted (its unread sources still hold it open). It takes the
// crawler's lock: call it between cycles, after CommitReads.
func (c *Crawler) HeldOpenUnread(readOK func(sourceKey string) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, e := range c.state.reqs {
		if !e.live || len(e.sources) == 0 {
			continue
		}
		held := true
		for _, s := range e.sources {
			if readOK(s) {
				held = false
				break
			}
		}
		if held {
			n++
		}
	}
	return n
}
