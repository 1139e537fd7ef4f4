package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/jobtext"
	"github.com/planehq/hiringsignal/internal/normalize"
)

// The facts backfill: a req's facts are read when its page is parsed for an event, so a req whose
// text was stored before facts were derived (or before a fix to how they are) keeps its facts
// until its next event reads its page again (a week at most for a live req, never for a closed
// one). BackfillFacts re-derives them from the stored text of each req's latest committed event
// and writes that event again with them (analytics.RewriteEvents: the same event_seq at a higher
// version); the read side serves them from its next build. No event is added: the change feed,
// the notifier and watches see nothing.

// FactsBackfill configures BackfillFacts.
type FactsBackfill struct {
	CH  driver.Conn
	Log *slog.Logger // nil: discard
	// Apply writes the re-derived facts; without it the run only counts and logs what would
	// change (a dry run).
	Apply bool
	// Batch is the reqs read and written at once (1..analytics.MaxBackfillBatch; 0: 200).
	Batch int
	// After resumes after this req_key (the "last" a run logged); "": from the first req.
	After string
	// Limit stops after this many reqs read (0: every req).
	Limit int
}

// FactsBackfillStats is what a backfill run did.
type FactsBackfillStats struct {
	Reqs      int    // reqs with a stored text read
	NoEvent   int    // of them, reqs without a committed event (a text written ahead of a cycle that failed)
	Changed   int    // reqs whose re-derived facts differ from their event's
	Rewritten int    // events written again (Apply)
	Last      string // the last req_key read: --after resumes after it
}

// BackfillFacts re-derives the facts of every req with a stored text, in req_key order and
// bounded batches, logging each batch's progress; idempotent (a req whose facts are already what
// its text says is not written) and resumable (After).
func BackfillFacts(ctx context.Context, cfg FactsBackfill) (FactsBackfillStats, error) {
	var st FactsBackfillStats
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	batch := cfg.Batch
	if batch == 0 {
		batch = 200
	}
	if batch < 1 || batch > analytics.MaxBackfillBatch {
		return st, fmt.Errorf("cannot backfill facts in batches of %d reqs: give 1 to %d", batch, analytics.MaxBackfillBatch)
	}
	wm, _, err := analytics.Watermark(ctx, cfg.CH)
	if err != nil {
		return st, fmt.Errorf("cannot backfill facts: %w", err)
	}
	st.Last = cfg.After
	for cfg.Limit == 0 || st.Reqs < cfg.Limit {
		n := batch
		if cfg.Limit > 0 {
			n = min(n, cfg.Limit-st.Reqs)
		}
		keys, err := analytics.DescribedReqKeys(ctx, cfg.CH, st.Last, n)
		if err != nil {
			return st, fmt.Errorf("cannot backfill facts after %q: %w", st.Last, err)
		}
		if len(keys) == 0 {
			break
		}
		changed, err := backfillBatch(ctx, cfg, wm, keys, &st)
		if err != nil {
			return st, fmt.Errorf("cannot backfill the facts of the reqs after %q (resume with --after %s): %w", st.Last, st.Last, err)
		}
		st.Reqs += len(keys)
		st.Last = keys[len(keys)-1]
		log.Info("facts backfill batch", "reqs", len(keys), "changed", changed, "apply", cfg.Apply, "total_reqs", st.Reqs,
			"total_changed", st.Changed, "rewritten", st.Rewritten, "last", st.Last)
	}
	return st, nil
}

// backfillBatch re-derives the facts of keys' reqs and, with Apply, writes the events whose facts
// changed; it returns how many changed.
func backfillBatch(ctx context.Context, cfg FactsBackfill, wm uint64, keys []string, st *FactsBackfillStats) (int, error) {
	rows, err := analytics.LatestEventRows(ctx, cfg.CH, wm, keys)
	if err != nil {
		return 0, err
	}
	want := make(map[string]uint64, len(rows))
	for k, r := range rows {
		want[k] = r.DescriptionHash
	}
	texts, err := analytics.ReqTexts(ctx, cfg.CH, want)
	if err != nil {
		return 0, err
	}
	var out []analytics.Event
	var version uint64
	for _, k := range keys {
		r := rows[k]
		if r == nil {
			st.NoEvent++
			continue
		}
		d, ok := texts[k]
		if !ok {
			continue
		}
		f := refreshFacts(r.Facts, r.RawTitle, r.Country, r.SalDeclared == 1, d.Text)
		if factsEqual(f, r.Facts) {
			continue
		}
		st.Changed++
		e := r.Event
		e.Facts = f
		out = append(out, e)
		version = max(version, r.Version+1)
	}
	if cfg.Apply && len(out) > 0 {
		version = max(version, uint64(time.Now().UnixNano()))
		if err := analytics.RewriteEvents(ctx, cfg.CH, out, version); err != nil {
			return len(out), err
		}
		st.Rewritten += len(out)
	}
	return len(out), nil
}

// refreshFacts re-derives a req's facts from its stored text, as the crawl merges them. What only
// the text (and title) says is read anew: technologies, visa sponsorship, stated pay (none when
// the req's salary is declared), a remote role's countries (the text's, else those stored) and
// regions (the text's with those stored: a location's). What the feed states first stands as
// stored (employment type, workplace type, seniority: the feed's fields are not stored apart from
// the text's readings), and the text fills what is unset; years by the floor rule. Applying it
// to its own result changes nothing.
func refreshFacts(stored analytics.Facts, rawTitle, country string, salaryDeclared bool, text string) analytics.Facts {
	d := jobtext.Derive(rawTitle, text)
	t := mergeFacts(rawTitle, country, postingTerms{paid: salaryDeclared}, d)
	f := stored
	f.Technologies, f.TechKinds = t.Technologies, t.TechKinds
	f.Visa = t.Visa
	if f.Seniority == "" {
		f.Seniority = t.Seniority
	}
	if f.EmploymentType == "" {
		f.EmploymentType = t.EmploymentType
	}
	if f.WorkplaceType == "" {
		f.WorkplaceType = t.WorkplaceType
	}
	if f.WorkplaceType == normalize.Remote {
		if len(t.RemoteCountries) > 0 {
			f.RemoteCountries = t.RemoteCountries
		}
		f.RemoteRegions = unionSorted(stored.RemoteRegions, t.RemoteRegions, analytics.MaxRemoteRegions)
	} else {
		f.RemoteCountries, f.RemoteRegions = nil, nil
	}
	if y := t.YearsMin; y != nil && (f.YearsMin == nil || *y >= *f.YearsMin) {
		f.YearsMin = y
	}
	f.StatedPay = nil
	if d.Pay != nil && !salaryDeclared {
		f.StatedPay = statedPay(d.Pay, country, &f)
	}
	f.DescriptionHash = analytics.DescriptionHash(text)
	return f
}

// factsEqual reports whether a and b state the same facts (an empty list and none alike).
func factsEqual(a, b analytics.Facts) bool {
	norm := func(f *analytics.Facts) {
		if len(f.Technologies) == 0 {
			f.Technologies, f.TechKinds = nil, nil
		}
		if len(f.RemoteCountries) == 0 {
			f.RemoteCountries = nil
		}
		if len(f.RemoteRegions) == 0 {
			f.RemoteRegions = nil
		}
	}
	norm(&a)
	norm(&b)
	return reflect.DeepEqual(a, b)
}
