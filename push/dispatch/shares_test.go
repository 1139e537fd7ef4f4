package dispatch

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/signing"
	"github.com/planehq/hiringsignal/oltp"
)

// stalling is a receiver that holds every request until released, counting how many it holds
// at once per path and in all.
type stalling struct {
	srv     *httptest.Server
	release chan struct{}
	mu      sync.Mutex
	now     map[string]int
	most    map[string]int
	nowAll  int
	mostAll int
}

func newStalling(t *testing.T) *stalling {
	s := &stalling{release: make(chan struct{}), now: map[string]int{}, most: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.now[r.URL.Path]++
		s.nowAll++
		s.most[r.URL.Path] = max(s.most[r.URL.Path], s.now[r.URL.Path])
		s.mostAll = max(s.mostAll, s.nowAll)
		s.mu.Unlock()
		select {
		case <-s.release:
		case <-r.Context().Done():
		}
		s.mu.Lock()
		s.now[r.URL.Path]--
		s.nowAll--
		s.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(s.srv.Close)
	t.Cleanup(s.letGo) // before the server closes
	return s
}

func (s *stalling) letGo() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.release:
	default:
		close(s.release)
	}
}

func (s *stalling) held() (perPath map[string]int, all int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for p, n := range s.most {
		out[p] = n
	}
	return out, s.mostAll
}

// A receiver that never answers (until the attempt's timeout) must not hold every worker: a Free
// key's test deliveries to such hosts stalled every customer's deliveries.
// One endpoint holds at most PerEndpoint workers and one customer at most PerCustomer, and the
// other customers' deliveries go meanwhile, although due later.
func TestASlowReceiverHoldsOnlyItsShareOfTheWorkers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slow := newStalling(t)
	attacker := f.account()
	secret := signing.NewSecret()
	e1, _ := f.endpointAndWatch(attacker, slow.srv.URL+"/one", secret)
	e2, _ := f.endpointAndWatch(attacker, slow.srv.URL+"/two", secret)
	for range 6 {
		f.deliver(attacker, e1, 0)
		f.deliver(attacker, e2, 0)
	}
	var victims []int64
	for range 3 {
		id, _ := f.deliver(f.acct, f.endpoint, 0)
		victims = append(victims, id)
	}

	f.start(Config{Workers: 4, PerEndpoint: 1, PerCustomer: 2, Timeout: time.Minute})
	for _, id := range victims {
		f.waitStatus(id, "delivered", 1)
	}
	perPath, all := slow.held()
	require.LessOrEqual(t, all, 2, "one customer holds at most PerCustomer workers")
	for p, n := range perPath {
		require.LessOrEqual(t, n, 1, "endpoint %s holds at most PerEndpoint workers", p)
	}

	// Once the receiver answers, the rest of its deliveries go too.
	slow.letGo()
	require.Eventually(t, func() bool {
		var left int
		require.NoError(t, f.pool.QueryRow(f.ctx, "SELECT count(*) FROM webhook_deliveries WHERE customer_id = $1 AND status <> 'delivered'",
			attacker.CustomerID).Scan(&left))
		return left == 0
	}, 20*time.Second, 10*time.Millisecond)
	_, all = slow.held()
	require.LessOrEqual(t, all, 2)
}

// The hand-off runs a claimed delivery only while its endpoint and its customer are within their
// shares; one waits, oldest first, until an attempt of its endpoint or customer ends, and what
// waits when the run closes is never handed out.
func TestSharesHandOutWithinTheirShares(t *testing.T) {
	t.Parallel()
	jobs := make(chan job, 16)
	s := newShares(1, 2, jobs)
	d := func(id, endpoint int64, customer string) job {
		return job{d: oltp.DueDelivery{ID: id, EndpointID: endpoint, CustomerID: customer}}
	}
	got := func() (ids []int64) {
		for {
			select {
			case j := <-jobs:
				ids = append(ids, j.d.ID)
			default:
				return ids
			}
		}
	}
	s.add(d(1, 10, "a"))
	s.add(d(2, 10, "a")) // endpoint 10 is full
	s.add(d(3, 11, "a"))
	s.add(d(4, 12, "a")) // customer a is full
	s.add(d(5, 20, "b"))
	require.Equal(t, []int64{1, 3, 5}, got())

	s.end(&job{d: oltp.DueDelivery{ID: 1, EndpointID: 10, CustomerID: "a"}})
	require.Equal(t, []int64{2}, got(), "its own endpoint's first")
	s.end(&job{d: oltp.DueDelivery{ID: 3, EndpointID: 11, CustomerID: "a"}})
	require.Equal(t, []int64{4}, got(), "else another endpoint of its customer")
	s.add(d(6, 10, "a"))
	s.end(&job{d: oltp.DueDelivery{ID: 5, EndpointID: 20, CustomerID: "b"}})
	require.Empty(t, got(), "another customer's end frees nothing of a's")
	sh := s.claimShares()
	require.Equal(t, map[int64]int{10: 2, 12: 1}, sh.Endpoints, "claimed and not ended, waiting included")
	require.Equal(t, map[string]int{"a": 3}, sh.Customers)
	require.Equal(t, claimDepth, sh.PerEndpoint)
	require.Equal(t, 2*claimDepth, sh.PerCustomer)

	s.close()
	s.end(&job{d: oltp.DueDelivery{ID: 2, EndpointID: 10, CustomerID: "a"}})
	for j := range jobs {
		t.Fatalf("delivery %d was handed out after the run closed", j.d.ID)
	}
}
