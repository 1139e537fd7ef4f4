package pipeline

import "time"

// Event types of the ledger.
const (
	Opened     = "opened"
	Reobserved = "reobserved"
	Reposted   = "reposted"
	Closed     = "closed"
)

// ReobserveEvery is the reobserved cadence: a live req seen again gets a reobserved event only when
// its last event is at least this many cycles old (56 three-hour cycles = 7 days). A steady corpus
// thus adds one event per req per week, not one per cycle.
const ReobserveEvery = 56

// Event is one ledger row; it carries the req's attributes at that moment, so the latest event of
// a req is its current state.
type Event struct {
	Seq           uint64
	Type          string
	ReqKey        string
	CompanyID     uint64
	Region        string
	Tick          uint32
	OccurredAt    time.Time
	ObservedAt    time.Time
	FirstSeen     time.Time
	RawTitle      string
	Title         string
	TitleKey      string
	Function      string
	Country       string
	Location      string
	SourceType    string
	Boards        []string
	Sources       []string
	Board         string
	URL           string
	RequisitionID string
	SalMin        *float64
	SalMax        *float64
	SalDeclared   uint8
	RepostCount   uint32
}

// Live reports whether the req is open after this event.
func (e *Event) Live() bool { return e.Type != Closed }
