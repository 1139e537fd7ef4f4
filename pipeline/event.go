package pipeline

import "github.com/planehq/hiringsignal/analytics"

// ReobserveEvery is the reobserved cadence: a live req seen again gets a reobserved event only when
// its last event is at least this many cycles old (56 three-hour cycles = 7 days). A steady corpus
// thus adds one event per req per week, not one per cycle.
const ReobserveEvery = 56

// Event is one ledger row (defined with its table in package analytics); it carries the req's
// attributes at that moment, so the latest event of a req is its current state.
type Event = analytics.Event
