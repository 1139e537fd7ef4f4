package sim

import "time"

// Config configures a World. Zero values select the defaults noted on each field.
type Config struct {
	// Seed selects the world. Same seed and config, same bodies and truth.
	Seed int64
	// Companies is the number of companies (default 2000).
	Companies int
	// Epoch is the start of tick 0 (default 2026-01-05T00:00:00Z, a Monday).
	Epoch time.Time
	// BaseURL is the simulator's base address, e.g. "http://127.0.0.1:7070", used to build the
	// source URLs of the directory and the absolute next-page links of the JSON-LD boards. When
	// empty, directory URLs are relative paths and board links use the request's Host. Host mode
	// ignores it.
	BaseURL string

	// HostMode renders every URL of the world as the real web has it: the directory's first pages
	// are the vendors' public endpoints (atsurl.FirstPage), the boards' pages and links are
	// https://{board host}/jobs?page=N and /job/{id}, the aggregator's feeds are on
	// AggregatorFeedHost, and posting links are on the vendors' job-page hosts. The handler serves
	// those hosts and paths whatever the mode (a client reaches them over TLS with a dial override
	// and a test CA, see internal/testca); the old paths stay served too. Source keys are the same
	// in both modes.
	HostMode bool
	// RobotsDisallow lists hosts ("www.jobsnorth.example", or "*.recruitee.com" for every
	// subdomain) whose /robots.txt disallows everything; every other host's allows everything.
	RobotsDisallow []string

	// Fault probabilities, each in [0,1] per (source, tick); 0 disables. At most one fault hits a
	// source in a tick (the draws are stacked in this order).
	FaultServerError     float64 // first 1-2 attempts per (tick, page URL) answer 503
	FaultRateLimit       float64 // first attempt per (tick, page URL) answers 429, Retry-After: 1
	FaultSlow            float64 // every attempt sleeps SlowDelay first (source fails for the tick)
	FaultMalformedRecord float64 // one junk entry injected beside the real ones
	FaultMalformedBody   float64 // every attempt answers a truncated body (source fails)
	FaultVanish          float64 // the source answers 404 for the tick (source fails)

	// SlowDelay is how long a "slow" response sleeps (default 30s).
	SlowDelay time.Duration
	// SlowTicks, when set, limits the sleeping of slow faults to the ticks it accepts: at any
	// other tick a source drawn slow fails for the tick at once (every attempt answers 504
	// Gateway Timeout) instead of after SlowDelay. The draws, and so the sources that fail at
	// each tick and the truth, are the same. Tests use it to pay for real timeouts on a few ticks
	// of a long crawl only. nil: slow faults sleep at every tick.
	SlowTicks func(tick int) bool

	// NoGzip serves every body uncompressed, even to a client that accepts gzip (default: bodies
	// over 256 bytes are gzipped when asked). Tests whose crawl only builds a fixture use it to
	// save the compression, which the race detector makes costly.
	NoGzip bool

	// DescriptionCache bounds, in bytes, what the world keeps of its reqs' descriptions between
	// renders: their facts and truth, and each description as the feeds that carry it wrote it
	// (default DefaultDescriptionCache, 64 MiB; negative: nothing is kept and every render writes
	// every description again). It changes no byte of any body or truth, only how often the same
	// description is written: a world crawled tick after tick whose live reqs' descriptions fit
	// writes each about twice in its life.
	DescriptionCache int

	// Clock is the world's time: the served tick when never pinned follows it (nil: the wall
	// clock). The dev stack's accelerated clock (--cycle-every) is one.
	Clock *Clock
}

// DefaultEpoch returns the default start of tick 0: 2026-01-05T00:00:00Z, a Monday.
func DefaultEpoch() time.Time { return time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC) }

// TickDuration is the length of one crawl cycle.
const TickDuration = 3 * time.Hour

func (c Config) withDefaults() Config {
	if c.Companies <= 0 {
		c.Companies = 2000
	}
	if c.Epoch.IsZero() {
		c.Epoch = DefaultEpoch()
	}
	c.Epoch = c.Epoch.UTC()
	if c.DescriptionCache == 0 {
		c.DescriptionCache = DefaultDescriptionCache
	}
	if c.SlowDelay <= 0 {
		c.SlowDelay = 30 * time.Second
	}
	for len(c.BaseURL) > 0 && c.BaseURL[len(c.BaseURL)-1] == '/' {
		c.BaseURL = c.BaseURL[:len(c.BaseURL)-1]
	}
	return c
}
