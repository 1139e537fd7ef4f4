package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/flagenv"
	"github.com/planehq/hiringsignal/pipeline"
)

// runFacts is `hiringsignal facts backfill`: it re-derives the posting facts of every req with a
// stored description from that text (pipeline.BackfillFacts) and, with --apply, writes them on
// the req's latest event, which the read side serves from its next build. A dry run by default.
func runFacts(ctx context.Context, log *slog.Logger, args []string) error {
	fs := flagenv.New("facts", "Re-derive posting facts from stored descriptions: `facts backfill` reads every req with a stored text in req_key order, "+
		"in batches, derives its facts again as the crawl does and reports how many would change; --apply writes them on the req's latest event "+
		"(the same event, no new one: the change feed and webhooks see nothing). Idempotent; resume an interrupted run with --after <the last req_key it logged>.")
	f := addStoreFlags(fs)
	apply := fs.Bool("apply", false, "write the re-derived facts (default: a dry run that only counts and logs)")
	batch := fs.Int("batch", 200, "reqs read and written at once (1 to 1000)")
	after := fs.String("after", "", "resume after this req_key (the `last` of the run's latest progress line)")
	limit := fs.Int("limit", 0, "stop after this many reqs (0: every req)")
	action := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if action != "backfill" {
		return errors.New("say `facts backfill` (add --apply to write)")
	}
	if *batch < 1 || *batch > analytics.MaxBackfillBatch {
		return fmt.Errorf("cannot backfill facts in batches of %d reqs: give --batch 1 to %d", *batch, analytics.MaxBackfillBatch)
	}
	ch, err := analytics.Open(f.chOptions())
	if err != nil {
		return err
	}
	defer ch.Close()
	st, err := pipeline.BackfillFacts(ctx, pipeline.FactsBackfill{CH: ch, Log: log, Apply: *apply, Batch: *batch, After: *after, Limit: *limit})
	if err != nil {
		return err
	}
	msg := "facts backfill: dry run (nothing written; --apply writes)"
	if *apply {
		msg = "facts backfill: applied"
	}
	log.Info(msg, "reqs", st.Reqs, "changed", st.Changed, "rewritten", st.Rewritten, "no_event", st.NoEvent, "last", st.Last)
	return nil
}
