package pipeline

import (
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/jobtext"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/pipeline/ats"
)

// A posting's facts: what it states of itself, from its feed's structured terms first and its
// title and description (internal/jobtext) for the gaps. Only a posting whose req may have an
// event this cycle is read (State.needAttrs; a worker's read, which cannot know, reads every
// posting), and only from a page parsed anew: an unchanged page (304, or a body hashed as before)
// is neither parsed nor read, and its reqs take their facts from the ledger. Its description is
// cleaned when its page is parsed (the normalize stage); its facts are read then in a worker's
// read, and in a cycle once every posting is in, only of the postings the reqs' events read: each
// req's best and the text readText picks (describeLater, deduper.readFacts). A req's event carries its best posting's facts; where that posting's
// list carries no description, another posting's text fills the gaps (withText). The description
// is cleaned once (and once a cycle where a req's copies carry it as their tenant's does:
// cleanMemo), bounded at analytics.MaxDescription bytes of text, and stored apart from the
// ledger (req_descriptions), once per distinct text of a req: descLog remembers which texts are
// stored.

// postingTerms are the terms a feed states of a posting in structured fields (ats.Posting).
type postingTerms struct {
	employment, workplace, seniority string
	years                            *int
	remote                           bool // a remote flag or remote wording in the location
	// regions: the remote regions the location states ("Remote - EMEA"), read by describe.
	regions []string
	// paid: the feed's pay is served as the req's salary, so the text's pay is not read. Pay a
	// feed publishes that cannot be served (an unknown currency or period, implausible figures:
	// observe) leaves the text's to be read.
	paid bool
}

func termsOf(p *ats.Posting) postingTerms {
	return postingTerms{employment: p.EmploymentType, workplace: p.WorkplaceType, seniority: p.Seniority, years: p.YearsExperienceMin,
		remote: p.Remote}
}

// describe reads the facts of posting p (already observed as o) and returns its cleaned
// description ("" when it has none). A remote posting's location is read for the regions it
// states ("Remote - EMEA", "Remote (Europe)"), and the feed's tags (Personio's keywords) for
// technologies beside the text's.
func describe(o *observation, p *ats.Posting, m *cleanMemo) string {
	text := describeLater(o, p, m)
	o.readFacts()
	return text
}

// laterRead is what reading a posting's facts needs beside its observation: its cleaned
// description, that text's hash, its feed's tags and its location as the feed states it.
type laterRead struct {
	text, keywords, location string
	hash                     uint64
}

// describeLater is describe, its facts left to be read by readFacts: the description is cleaned
// (its text is stored, and its length weighed by the deduper), through m when it is not nil, and
// kept on o until then. A cycle reads the facts of the postings its deduper takes for a req
// (best, text, fullest) and no other's: a req's copies on boards and the aggregator mostly give
// way to its tenant's posting, and reading them was a third of a cold cycle's describing.
func describeLater(o *observation, p *ats.Posting, m *cleanMemo) string {
	text, hash := m.clean(p.Description)
	o.textLen = len(text)
	o.later = &laterRead{text: text, keywords: p.Keywords, location: p.Location, hash: hash}
	return text
}

// cleanMemo remembers the cleaned text of the raw descriptions a cycle met last: a req's copies
// on boards and the aggregator often carry its tenant's description as it was written (30% of a
// cold cycle's raw descriptions by bytes were met before, most within the 16,000 cleaned before
// them), and cleaning and hashing it again was a fifth of cleaning. It holds two generations of
// at most cleanMemoN texts each (the older dropped when the newer fills): about 40 MB of text at
// most, for a cycle. A raw text is known by 128 bits of maphash and its length, under seeds
// drawn when the process starts. Safe for concurrent use; a nil memo cleans every text.
type cleanMemo struct {
	mu        sync.Mutex
	cur, prev map[rawKey]cleanedText
}

type rawKey struct {
	h1, h2 uint64
	n      int
}

type cleanedText struct {
	text string
	hash uint64 // analytics.DescriptionHash(text)
}

// cleanMemoN is how many texts a generation of a cleanMemo holds.
const cleanMemoN = 16384

var rawSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func newCleanMemo() *cleanMemo {
	return &cleanMemo{cur: make(map[rawKey]cleanedText, cleanMemoN)}
}

// clean returns raw's description cleaned (jobtext.Clean at analytics.MaxDescription) and its
// hash (analytics.DescriptionHash).
func (m *cleanMemo) clean(raw string) (string, uint64) {
	if raw == "" {
		return "", 0
	}
	if m == nil {
		text := jobtext.Clean(raw, analytics.MaxDescription)
		return text, analytics.DescriptionHash(text)
	}
	k := rawKey{h1: maphash.String(rawSeeds[0], raw), h2: maphash.String(rawSeeds[1], raw), n: len(raw)}
	m.mu.Lock()
	c, ok := m.cur[k]
	if !ok {
		c, ok = m.prev[k]
	}
	m.mu.Unlock()
	if ok {
		return c.text, c.hash
	}
	text := jobtext.Clean(raw, analytics.MaxDescription)
	c = cleanedText{text: text, hash: analytics.DescriptionHash(text)}
	m.mu.Lock()
	if len(m.cur) == cleanMemoN {
		m.prev, m.cur = m.cur, make(map[rawKey]cleanedText, cleanMemoN)
	}
	m.cur[k] = c
	m.mu.Unlock()
	return c.text, c.hash
}

// readFacts reads the facts describeLater left to be read (nothing when there are none).
func (o *observation) readFacts() {
	l := o.later
	if l == nil {
		return
	}
	o.later = nil
	if o.terms.remote && l.location != "" {
		o.terms.regions = jobtext.Derive("", l.location).RemoteRegions
	}
	d := jobtext.Derive(o.rawTitle, l.text)
	if l.keywords != "" {
		d.Technologies = withTags(d.Technologies, jobtext.Tags(l.keywords))
	}
	f := mergeFacts(o.rawTitle, o.country, o.terms, d)
	f.DescriptionHash = l.hash
	o.facts = &f
}

// descHash is the hash of o's cleaned description, its facts read or not (0: none, or not
// described).
func (o *observation) descHash() uint64 {
	if o.later != nil {
		return o.later.hash
	}
	if o.facts != nil {
		return o.facts.DescriptionHash
	}
	return 0
}

// withTags adds the technologies a feed's tags name to those the title and text name: as named
// (neither required nor nice to have) after them, each once.
func withTags(techs []jobtext.Technology, tags []string) []jobtext.Technology {
	for _, slug := range tags {
		if !slices.ContainsFunc(techs, func(t jobtext.Technology) bool { return t.Slug == slug }) {
			techs = append(techs, jobtext.Technology{Slug: slug})
		}
	}
	return techs
}

// mergeFacts merges what a feed states (t) with what the posting's title and text say (d): the
// feed's structured fields win, the text fills the gaps. Seniority is the title's first, then
// the feed's level, then the text's; a remote role's countries are the text's; the text's pay
// only when the feed's is not served. Years are a floor wherever a feed states them (Personio's
// band "2-5" is 2, JSON-LD's monthsOfExperience a minimum): the text's figure at or above it is
// the same requirement stated exactly and wins; one below it contradicts the feed, whose figure
// stands. country is the req's (statedPay: how a bare "$" is read). A remote role's regions are
// the text's and its location's.
func mergeFacts(rawTitle, country string, t postingTerms, d jobtext.Derived) analytics.Facts {
	var f analytics.Facts
	for _, tech := range d.Technologies {
		if len(f.Technologies) == analytics.MaxTechnologies {
			break
		}
		kind := analytics.TechNamed
		switch {
		case tech.Required:
			kind = analytics.TechRequired
		case tech.NiceToHave:
			kind = analytics.TechNiceToHave
		}
		f.Technologies = append(f.Technologies, tech.Slug)
		f.TechKinds = append(f.TechKinds, kind)
	}
	f.Seniority = normalize.TitleSeniority(rawTitle)
	if f.Seniority == "" {
		f.Seniority = t.seniority
	}
	if f.Seniority == "" {
		f.Seniority = d.Seniority
	}
	f.EmploymentType = t.employment
	if f.EmploymentType == "" {
		f.EmploymentType = d.EmploymentType
	}
	switch {
	case t.workplace != "":
		f.WorkplaceType = t.workplace
	case t.remote:
		f.WorkplaceType = normalize.Remote
	default:
		f.WorkplaceType = d.WorkplaceType
	}
	if f.WorkplaceType == normalize.Remote {
		if len(d.RemoteCountries) > 0 {
			f.RemoteCountries = d.RemoteCountries[:min(len(d.RemoteCountries), analytics.MaxRemoteCountries)]
		}
		f.RemoteRegions = unionSorted(d.RemoteRegions, t.regions, analytics.MaxRemoteRegions)
	}
	years := t.years
	if y := d.YearsExperienceMin; y != nil && (years == nil || *y >= *years) {
		years = y
	}
	if years != nil && *years >= 0 && *years <= 50 {
		y := uint8(*years)
		f.YearsMin = &y
	}
	f.Visa = d.VisaSponsorship
	if p := d.Pay; p != nil && !t.paid {
		f.StatedPay = statedPay(p, country, &f)
	}
	return f
}

// unionSorted is the sorted union of a and b, at most n values; nil when empty.
func unionSorted(a, b []string, n int) []string {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := slices.Concat(a, b)
	slices.Sort(out)
	out = slices.Compact(out)
	return out[:min(len(out), n)]
}

// withText fills the facts f of a req's best posting, whose feed carried no description, from
// the facts t of another posting of the req that did (a board's or the aggregator's copy of the
// text): f's values stand (its feed's structured fields and its title's words), t's fill what f
// leaves unset, years by the same floor rule as mergeFacts, and the description is t's.
func withText(f analytics.Facts, t *analytics.Facts) analytics.Facts {
	f.Technologies, f.TechKinds = t.Technologies, t.TechKinds // t's title names the same req's
	if f.Seniority == "" {
		f.Seniority = t.Seniority
	}
	if f.EmploymentType == "" {
		f.EmploymentType = t.EmploymentType
	}
	if f.WorkplaceType == "" {
		f.WorkplaceType = t.WorkplaceType
	}
	if f.WorkplaceType == normalize.Remote && len(f.RemoteCountries) == 0 {
		f.RemoteCountries = t.RemoteCountries
	}
	if f.WorkplaceType == normalize.Remote {
		f.RemoteRegions = unionSorted(f.RemoteRegions, t.RemoteRegions, analytics.MaxRemoteRegions)
	}
	if y := t.YearsMin; y != nil && (f.YearsMin == nil || *y >= *f.YearsMin) {
		f.YearsMin = y
	}
	if f.Visa == nil {
		f.Visa = t.Visa
	}
	if f.StatedPay == nil {
		f.StatedPay = t.StatedPay
	}
	f.DescriptionHash = t.DescriptionHash
	return f
}

// dollarCountries are the countries whose own currency a bare "$" names.
var dollarCountries = map[string]string{
	"Canada": "CAD", "Australia": "AUD", "New Zealand": "NZD", "Singapore": "SGD", "Hong Kong": "HKD", "Mexico": "MXN",
}

// openToTheUS reports whether f is a remote role open to the United States: the country named,
// or a region that holds it.
func openToTheUS(f *analytics.Facts) bool {
	if f.WorkplaceType != normalize.Remote {
		return false
	}
	return slices.Contains(f.RemoteCountries, "United States") || slices.ContainsFunc(f.RemoteRegions, func(r string) bool {
		return r == "worldwide" || r == "americas" || r == "north_america"
	})
}

// statedPay is the ledger's form of pay a text states, its words bounded. A bare "$" is
// ambiguous, and its reading is marked CurrencyInferred: the dollar of the req's country when it
// has one (a Canadian req's "$" is CAD), except on a remote role open to the United States,
// whose one range is USD (US pay bands on roles also open in Canada); else USD. f is the req's
// facts so far (its workplace, remote countries and regions).
func statedPay(p *jobtext.Pay, country string, f *analytics.Facts) *analytics.StatedPay {
	out := &analytics.StatedPay{Currency: p.Currency, Period: p.Period, Text: boundText(p.Stated, analytics.MaxStatedPayText)}
	if p.DollarSign {
		out.CurrencyInferred = true
		if c, ok := dollarCountries[country]; ok && !openToTheUS(f) {
			out.Currency = c
		}
	}
	if p.Min > 0 {
		v := p.Min
		out.Min = &v
	}
	if p.Max > 0 {
		v := p.Max
		out.Max = &v
	}
	return out
}

// boundText is s cut to at most n bytes at a rune boundary.
func boundText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// descLog remembers which texts of which reqs req_descriptions holds: those the latest committed
// event of a req names (seeded from the ledger state) and those this crawler wrote since. A text
// is written when the log does not have it, so each distinct text of a req is written once per
// crawler process (a board's copy of a req's text that differs from its ATS posting's is a text
// of the req too; a crashed write is forgotten and written again). Keys are a 64-bit mix of
// req_key and text hash: a collision (about n²/2⁶⁴) skips one write. Safe for concurrent use.
type descLog struct {
	mu   sync.Mutex
	have map[uint64]struct{}
}

func newDescLog() *descLog { return &descLog{have: map[uint64]struct{}{}} }

func descKey(reqKey string, hash uint64) uint64 {
	return analytics.DescriptionHash(reqKey)*1099511628211 ^ hash
}

// seed adds the texts the ledger state's reqs name.
func (l *descLog) seed(st *State) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, r := range st.reqs {
		if r.descHash != 0 {
			l.have[descKey(k, r.descHash)] = struct{}{}
		}
	}
}

// claim reports whether the text hash of reqKey is to be written (and from now on counts as
// written).
func (l *descLog) claim(reqKey string, hash uint64) bool {
	k := descKey(reqKey, hash)
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.have[k]; ok {
		return false
	}
	l.have[k] = struct{}{}
	return true
}

// forget undoes the claims of texts whose write failed.
func (l *descLog) forget(ds []analytics.Description) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range ds {
		delete(l.have, descKey(d.ReqKey, d.Hash))
	}
}

// descBatch is how many descriptions one INSERT block carries (about 3 MB of text).
const descBatch = 1000

// descWriter writes the descriptions the normalize stage finds, in blocks, from one goroutine.
// Rows it writes before the cycle commits are read only once a committed event names their hash,
// so a cycle that fails after them leaves rows nothing reads (the rerun writes the same keys).
//
// A writer with a group (a worker's read of a few sources, newReadDescWriter) keeps its rows
// until close, which writes them through the crawler's descGroup, in one INSERT with the rows of
// the reads that finish beside it.
type descWriter struct {
	ch    driver.Conn
	log   *descLog
	group *descGroup // nil: blocks of descBatch rows as they come
	ctx   context.Context
	in    chan analytics.Description
	done  chan struct{}
	rows  []analytics.Description // with a group: every row, written at close
	err   error
	n     int
}

// newDescWriter starts a writer on ch (nil: rows are claimed but written nowhere, for tests
// without ClickHouse).
func (c *Crawler) newDescWriter(ctx context.Context) *descWriter {
	w := &descWriter{ch: c.ch, log: c.descs, ctx: ctx, in: make(chan analytics.Description, descBatch), done: make(chan struct{})}
	go w.run(ctx)
	return w
}

// newReadDescWriter is newDescWriter for a read of a few sources (ReadSources): its rows are
// written at close, through the crawler's group.
func (c *Crawler) newReadDescWriter(ctx context.Context) *descWriter {
	w := &descWriter{ch: c.ch, log: c.descs, group: &c.descGroup, ctx: ctx, in: make(chan analytics.Description, descBatch), done: make(chan struct{})}
	go w.run(ctx)
	return w
}

// descGroup writes the descriptions of the reads that finish at the same time in one INSERT, a
// group commit: each read's rows are written before its read returns (so before it is stored and
// acknowledged), and the reads that wait meanwhile share the next INSERT. A worker reads 32
// sources at once, each read a source or a part of a chain, and most sources hold a few postings:
// one INSERT a read was 85,000 INSERTs into req_descriptions in a window of 100,000 companies,
// each a part ClickHouse must write and merge (its guidance is about one INSERT a second a
// table). No goroutine of its own: the first caller in the queue writes what the queue holds, at
// most descGroupRows rows (always its own), then wakes the others; the next first caller writes
// the rest.
type descGroup struct {
	mu      sync.Mutex
	changed *sync.Cond // signalled whenever a write ends
	queue   []*descWrite
	inserts atomic.Int64 // INSERTs sent (tests)
}

// descGroupTimeout is the deadline of one grouped INSERT.
const descGroupTimeout = time.Minute

// descGroupRows bounds the rows of one grouped INSERT (about 12 MB of text at most).
const descGroupRows = 4 * descBatch

// descWrite is one caller's rows in a descGroup and, once done, the outcome of the INSERT that
// carried them.
type descWrite struct {
	rows []analytics.Description
	done bool
	err  error
}

// write writes rows with insert, in one call of insert with the rows of the callers waiting
// beside it, and returns that call's error. insert runs on one caller's goroutine at a time.
func (g *descGroup) write(rows []analytics.Description, insert func([]analytics.Description) error) error {
	if len(rows) == 0 {
		return nil
	}
	w := &descWrite{rows: rows}
	g.mu.Lock()
	if g.changed == nil {
		g.changed = sync.NewCond(&g.mu)
	}
	g.queue = append(g.queue, w)
	for !w.done && g.queue[0] != w {
		g.changed.Wait()
	}
	if w.done {
		g.mu.Unlock()
		return w.err
	}
	// First in the queue, and no write under way (a writer leaves the queue only once done):
	// this caller writes its rows and those queued after it, up to descGroupRows.
	n, total := 0, 0
	for _, q := range g.queue {
		if n > 0 && total+len(q.rows) > descGroupRows {
			break
		}
		n, total = n+1, total+len(q.rows)
	}
	batch := slices.Clone(g.queue[:n])
	g.mu.Unlock()

	all := batch[0].rows
	if n > 1 {
		all = make([]analytics.Description, 0, total)
		for _, q := range batch {
			all = append(all, q.rows...)
		}
	}
	err := insert(all)
	g.inserts.Add(1)

	g.mu.Lock()
	for _, q := range batch {
		q.done, q.err = true, err
	}
	g.queue = slices.Delete(g.queue, 0, n)
	g.changed.Broadcast()
	g.mu.Unlock()
	return err
}

// add queues the description of o (the text describe returned) when the log does not have it.
func (w *descWriter) add(o *observation, text string) {
	h := o.descHash()
	if h == 0 || !w.log.claim(o.reqKey, h) {
		return
	}
	w.in <- analytics.Description{ReqKey: o.reqKey, Hash: h, Text: text}
}

func (w *descWriter) run(ctx context.Context) {
	defer close(w.done)
	var block []analytics.Description
	flush := func() {
		if len(block) == 0 {
			return
		}
		if w.err == nil && w.ch != nil {
			w.err = analytics.WriteDescriptions(ctx, w.ch, block, time.Now().UTC())
		}
		if w.err != nil {
			w.log.forget(block)
		} else {
			w.n += len(block)
		}
		block = block[:0]
	}
	if w.group != nil {
		for d := range w.in {
			w.rows = append(w.rows, d)
		}
		return
	}
	for d := range w.in {
		block = append(block, d)
		if len(block) == descBatch {
			flush()
		}
	}
	flush()
}

// close waits for every queued description to be written and returns the first error.
func (w *descWriter) close() (written int, err error) {
	close(w.in)
	<-w.done
	if w.group != nil && len(w.rows) > 0 {
		at := time.Now().UTC()
		w.err = w.group.write(w.rows, func(rows []analytics.Description) error {
			if w.ch == nil {
				return nil
			}
			// The store's deadline, not this read's: the INSERT carries other reads' rows too.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), descGroupTimeout)
			defer cancel()
			return analytics.WriteDescriptions(ctx, w.ch, rows, at)
		})
		if w.err != nil {
			w.log.forget(w.rows)
		} else {
			w.n = len(w.rows)
		}
	}
	if w.err != nil {
		return w.n, fmt.Errorf("cannot store descriptions: %w", w.err)
	}
	return w.n, nil
}

// describe is how a cycle's normalize stage describes a posting of a req that may have an event:
// describeLater, its facts read by the deduper (describe itself with Crawler.eagerFacts).
func (c *Crawler) describe(o *observation, p *ats.Posting, m *cleanMemo) string {
	if c.eagerFacts {
		return describe(o, p, m)
	}
	return describeLater(o, p, m)
}
