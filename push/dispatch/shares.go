package dispatch

import (
	"maps"
	"sync"

	"github.com/planehq/hiringsignal/oltp"
)

// claimDepth is how many deliveries of one endpoint (or customer) may be claimed and waiting,
// in shares of its attempts at once: enough that its attempts never wait for a claim's round
// trip, few enough that a slow receiver's backlog cannot fill the claim's capacity.
const claimDepth = 16

// shares hands one run's claimed deliveries to the workers so that at most perEndpoint attempts
// go to one endpoint at once and perCustomer to one customer's endpoints: a delivery past either
// waits, parked, until an attempt of its endpoint or customer ends. Claims are held to
// claimDepth times those (claimShares), so what waits stays bounded too.
type shares struct {
	perEndpoint, perCustomer int
	jobs                     chan<- job // buffered for every delivery claimed: a send never blocks

	mu                 sync.Mutex
	closed             bool
	claimedE, runningE map[int64]int  // per endpoint: deliveries claimed and not ended; attempts running
	oneAtATime         map[int64]bool // endpoints taking one attempt at a time (Slack: one message at a time, in order)
	claimedC, runningC map[string]int // the same per customer
	parked             map[int64][]job
	parkedOf           map[string]map[int64]bool // per customer, its endpoints with parked deliveries
}

func newShares(perEndpoint, perCustomer int, jobs chan<- job) *shares {
	return &shares{perEndpoint: perEndpoint, perCustomer: perCustomer, jobs: jobs,
		claimedE: map[int64]int{}, runningE: map[int64]int{}, oneAtATime: map[int64]bool{}, claimedC: map[string]int{}, runningC: map[string]int{},
		parked: map[int64][]job{}, parkedOf: map[string]map[int64]bool{}}
}

// claimShares is what a claim may take now (oltp.ClaimDueWithin): a copy of the claimed counts.
func (s *shares) claimShares() oltp.Shares {
	s.mu.Lock()
	defer s.mu.Unlock()
	return oltp.Shares{PerEndpoint: claimDepth * s.perEndpoint, PerCustomer: claimDepth * s.perCustomer,
		Endpoints: maps.Clone(s.claimedE), Customers: maps.Clone(s.claimedC)}
}

// add takes a claimed delivery: it runs now if its endpoint and customer have room, else waits.
func (s *shares) add(j job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, c := j.d.EndpointID, j.d.CustomerID
	s.claimedE[e] += j.size()
	s.claimedC[c] += j.size()
	if j.d.Kind == oltp.KindSlack {
		s.oneAtATime[e] = true
	}
	if len(s.parked[e]) == 0 && s.room(e, c) {
		s.run(j)
		return
	}
	s.parked[e] = append(s.parked[e], j)
	if s.parkedOf[c] == nil {
		s.parkedOf[c] = map[int64]bool{}
	}
	s.parkedOf[c][e] = true
}

// end counts the attempt of j as ended and runs the delivery waiting that may run now: of j's
// endpoint first, else of another endpoint of j's customer. drained says that j's endpoint or
// customer is down to half its claim share or less: a claim may take more of its deliveries now.
func (s *shares) end(j *job) (drained bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, c := j.d.EndpointID, j.d.CustomerID
	drained = s.claimedE[e] <= claimDepth*s.perEndpoint/2+1 || s.claimedC[c] <= claimDepth*s.perCustomer/2+1
	sub(s.claimedE, e, j.size())
	decr(s.runningE, e)
	sub(s.claimedC, c, j.size())
	decr(s.runningC, c)
	if s.claimedE[e] == 0 {
		delete(s.oneAtATime, e)
	}
	if s.closed || len(s.parkedOf[c]) == 0 {
		return drained
	}
	if len(s.parked[e]) > 0 && s.room(e, c) {
		s.unpark(e, c)
		return drained
	}
	for other := range s.parkedOf[c] {
		if s.room(other, c) {
			s.unpark(other, c)
			return drained
		}
	}
	return drained
}

// close ends the hand-off: what waits is abandoned (its lease ends with the run's).
func (s *shares) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	close(s.jobs)
}

func (s *shares) room(e int64, c string) bool {
	per := s.perEndpoint
	if s.oneAtATime[e] {
		per = 1
	}
	return s.runningE[e] < per && s.runningC[c] < s.perCustomer
}

func (s *shares) run(j job) {
	s.runningE[j.d.EndpointID]++
	s.runningC[j.d.CustomerID]++
	s.jobs <- j
}

func (s *shares) unpark(e int64, c string) {
	j := s.parked[e][0]
	s.parked[e] = s.parked[e][1:]
	if len(s.parked[e]) == 0 {
		delete(s.parked, e)
		delete(s.parkedOf[c], e)
		if len(s.parkedOf[c]) == 0 {
			delete(s.parkedOf, c)
		}
	}
	s.run(j)
}

func decr[K comparable](m map[K]int, k K) { sub(m, k, 1) }

func sub[K comparable](m map[K]int, k K, n int) {
	if m[k] -= n; m[k] <= 0 {
		delete(m, k)
	}
}
