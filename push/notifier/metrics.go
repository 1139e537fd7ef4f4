package notifier

import (
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/oltp"
)

// meters are the notifier's operator metrics, counted in Config.Metrics (nil: a set of its own,
// served nowhere).
type meters struct {
	set        *metrics.Set
	matched    *metrics.Counter             // events that matched at least one watch
	failures   *metrics.Counter             // batches that failed (retried)
	fenced     *metrics.Counter             // batches refused because this instance no longer holds the notifier lease
	badWatches *metrics.Counter             // live watches whose criteria no longer parse
	fast       *metrics.Counter             // batches matched on the fast path (a delta index, not the snapshot)
	warnings   *metrics.Counter             // allowance warnings raised (account events) by committed batches
	latency    *metrics.PrometheusHistogram // from the cycle's write to its pending deliveries' commit
}

func newMeters(set *metrics.Set, lag func() float64) *meters {
	if set == nil {
		set = metrics.NewSet()
	}
	set.NewGauge("hs_notifier_lag_events", lag) // the snapshot's watermark minus the position
	return &meters{set: set,
		matched:    set.NewCounter("hs_notifier_events_matched_total"),
		failures:   set.NewCounter("hs_notifier_batch_failures_total"),
		fenced:     set.NewCounter("hs_notifier_batches_fenced_total"),
		badWatches: set.NewCounter("hs_notifier_unparsable_watches_total"),
		fast:       set.NewCounter("hs_notifier_fast_batches_total"),
		warnings:   set.NewCounter("hs_notifier_allowance_warnings_total"),
		latency:    set.NewPrometheusHistogram("hs_notifier_commit_to_written_seconds"),
	}
}

// written counts the rows a committed batch wrote, by status, and for each pending one the time
// since its event's cycle was written (FeedEvent.Version, the wall clock of WriteCycle).
func (m *meters) written(ds []oltp.InsertedDelivery, events []analytics.FeedEvent, now time.Time) {
	for _, d := range ds {
		m.set.GetOrCreateCounter(`hs_notifier_deliveries_written_total{status="` + d.Status + `"}`).Inc()
		if d.Status != oltp.DeliveryPending {
			continue
		}
		if e := eventOf(events, d.EventSeq); e != nil && e.Version > 1e18 { // a wall-clock version (after 2001)
			if d := now.Sub(time.Unix(0, int64(e.Version))); d >= 0 {
				m.latency.Update(d.Seconds())
			}
		}
	}
}

// eventOf finds event seq in events (ascending by Seq).
func eventOf(events []analytics.FeedEvent, seq uint64) *analytics.FeedEvent {
	lo, hi := 0, len(events)
	for lo < hi {
		mid := (lo + hi) / 2
		if events[mid].Seq < seq {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(events) && events[lo].Seq == seq {
		return &events[lo]
	}
	return nil
}
