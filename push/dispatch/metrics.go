package dispatch

import (
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/planehq/hiringsignal/oltp"
)

// meters are the dispatcher's operator metrics:
//
//	hs_delivery_attempts_total{outcome}   attempts by outcome: delivered, http_error, timeout, refused, network_error, sign_error
//	hs_deliveries_delivered_total         deliveries accepted (2xx)
//	hs_deliveries_billed_total            delivered_change units billed (an accepted replay bills none)
//	hs_deliveries_failed_total            deliveries failed (exhausted, 410, endpoint disabled)
//	hs_deliveries_in_flight               deliveries claimed and not yet answered
//	hs_delivery_response_seconds          from claim to response (or failure) of an attempt
//	hs_webhook_endpoints_disabled_total{reason}  endpoints disabled: gone (410) or failing
type meters struct {
	set                       *metrics.Set
	delivered, billed, failed *metrics.Counter
	latency                   *metrics.PrometheusHistogram
}

func newMeters(set *metrics.Set) *meters {
	return &meters{
		set:       set,
		delivered: set.GetOrCreateCounter("hs_deliveries_delivered_total"),
		billed:    set.GetOrCreateCounter("hs_deliveries_billed_total"),
		failed:    set.GetOrCreateCounter("hs_deliveries_failed_total"),
		latency:   set.GetOrCreatePrometheusHistogram("hs_delivery_response_seconds"),
	}
}

// inFlight publishes n as hs_deliveries_in_flight (the latest run's counter).
func (m *meters) inFlight(n *atomic.Int64) {
	m.set.UnregisterMetric("hs_deliveries_in_flight")
	m.set.NewGauge("hs_deliveries_in_flight", func() float64 { return float64(n.Load()) })
}

func (m *meters) attempt(kind string, sinceClaim time.Duration) {
	m.set.GetOrCreateCounter(`hs_delivery_attempts_total{outcome="` + kind + `"}`).Inc()
	m.latency.Update(sinceClaim.Seconds())
}

func (m *meters) recorded(r oltp.Recorded) {
	m.delivered.Add(r.Delivered)
	m.billed.Add(r.Billed)
	m.failed.Add(r.Failed)
	if n := len(r.DisabledGone); n > 0 {
		m.set.GetOrCreateCounter(`hs_webhook_endpoints_disabled_total{reason="gone"}`).Add(n)
	}
	if n := len(r.DisabledFailing); n > 0 {
		m.set.GetOrCreateCounter(`hs_webhook_endpoints_disabled_total{reason="failing"}`).Add(n)
	}
}
