package sources

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/planehq/hiringsignal/oltp"
)

// The defaults of a worker's read store (Crawl.StoreBatch, StoreEvery, StoreQueue): a store of
// up to 32 reads is one transaction and one round trip for its statements, a read waits at most
// a second to be stored, and 256 reads may wait while a store is under way.
const (
	DefaultStoreBatch = 32
	DefaultStoreEvery = time.Second
	DefaultStoreQueue = 256
)

// readStore stores a worker's finished reads in batches (oltp.StoreCrawlReads, one transaction
// each), as a bounded queue flushed by size or age: a batch goes once it holds c.StoreBatch
// reads, or once its first read has waited c.StoreEvery, or when the worker asks (sync). A read
// is acknowledged (its lease given back, its next due time set) only once its batch is stored;
// one still queued when the process dies is not lost, it is read again once its lease lapses. A
// worker whose reads come faster than Postgres stores them fills the queue (c.StoreQueue): the
// worker then waits for the store before it goes on, and each read that waited is counted
// (Crawl.StoreOverflows) and logged with the setting to raise.
type readStore struct {
	c       *Crawl
	ctx     context.Context
	tick    int
	in      chan oltp.CrawlRead
	syncReq chan chan struct{}
	done    chan struct{}
	stored  func(keys []string) // called after each batch is stored, from the store's goroutine

	n      atomic.Int64 // reads stored
	mu     sync.Mutex
	err    error // the first store that failed
	warned bool  // an overflow was logged in this ReadDue
}

// newReadStore starts the store of c's reads of window tick; stored is told the keys of each
// batch once it is stored. close it to store what is left and stop it.
func (c *Crawl) newReadStore(ctx context.Context, tick int, stored func(keys []string)) *readStore {
	s := &readStore{c: c, ctx: ctx, tick: tick, in: make(chan oltp.CrawlRead, c.StoreQueue), syncReq: make(chan chan struct{}),
		done: make(chan struct{}), stored: stored}
	go s.run()
	return s
}

// put queues a finished read; when the queue is full it waits for room, counting the overflow.
// It returns the error of a store that failed, if one did.
func (s *readStore) put(r oltp.CrawlRead) error {
	select {
	case s.in <- r:
	default:
		s.c.overflows.Add(1)
		if !s.warned {
			s.warned = true
			s.c.Log.Warn("the worker's read store is full: reads wait for Postgres before the worker goes on; "+
				"raise --read-store-queue (HS_READ_STORE_QUEUE), or --read-store-batch for fewer, larger stores",
				"tick", s.tick, "queue", s.c.StoreQueue, "batch", s.c.StoreBatch)
		}
		select {
		case s.in <- r:
		case <-s.done:
		}
	}
	return s.failed()
}

// sync stores every read queued so far and returns the error of a store that failed, if one did.
func (s *readStore) sync() error {
	ack := make(chan struct{})
	select {
	case s.syncReq <- ack:
		<-ack
	case <-s.done:
	}
	return s.failed()
}

// close stores what is left and stops the store; it returns the error of a store that failed.
func (s *readStore) close() error {
	close(s.in)
	<-s.done
	return s.failed()
}

func (s *readStore) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *readStore) run() {
	defer close(s.done)
	var batch []oltp.CrawlRead
	age := time.NewTimer(time.Hour)
	age.Stop()
	flush := func() {
		age.Stop()
		if len(batch) == 0 {
			return
		}
		s.flush(batch)
		batch = nil
	}
	for {
		select {
		case r, ok := <-s.in:
			if !ok {
				flush()
				return
			}
			batch = append(batch, r)
			if len(batch) == 1 {
				age.Reset(s.c.StoreEvery)
			}
			if len(batch) >= s.c.StoreBatch {
				flush()
			}
		case <-age.C:
			flush()
		case ack := <-s.syncReq:
		drain:
			for {
				select {
				case r, ok := <-s.in:
					if !ok {
						break drain
					}
					batch = append(batch, r)
				default:
					break drain
				}
			}
			flush()
			close(ack)
		}
	}
}

// flush stores one batch. A batch that fails is not stored: its sources' leases lapse and they
// are read again (by this worker or another); the worker stops on the error.
func (s *readStore) flush(batch []oltp.CrawlRead) {
	if err := oltp.StoreCrawlReads(s.ctx, s.c.Pool, batch); err != nil {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		s.mu.Unlock()
		return
	}
	s.c.stores.Add(1)
	if gone(batch) {
		// A tenant that answers 404 or 410 is often a company that moved vendor: queue its
		// re-discovery now, for this window, not at the next timed sweep.
		if err := s.c.Discovery.Rediscover(s.ctx); err != nil {
			s.c.Log.Warn("cannot queue the re-discovery of sources gone; the next sweep will", "err", err)
		}
	}
	n := s.n.Add(int64(len(batch)))
	s.c.Log.Debug("sources read", "tick", s.tick, "stored", len(batch), "read", n)
	keys := make([]string, len(batch))
	for i := range batch {
		keys[i] = batch[i].SourceKey
	}
	s.stored(keys)
}
