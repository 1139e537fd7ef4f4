package api

import (
	"context"
	"crypto/sha256"
	"sort"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/oltp"
)

// Bounds of the Idempotency-Key store (Config.IdempotencyBodyBytes, IdempotencyCustomerBytes).
const (
	DefaultIdempotencyBodyBytes     = 1 << 20  // an answer larger than this is served, not kept
	DefaultIdempotencyCustomerBytes = 64 << 20 // answers kept per customer over the 24 h of replay
	// MaxIdempotencyWait is the longest a duplicate of a call in flight waits for its answer
	// (less when the call's store deadline comes first); then 409.
	MaxIdempotencyWait = 10 * time.Second
)

func requestHash(c *Call) []byte {
	h := sha256.New()
	h.Write(c.Ctx.Method())
	h.Write([]byte{0})
	h.Write(c.Ctx.Path())
	h.Write([]byte{0})
	var args []string
	for k, v := range c.Ctx.QueryArgs().All() {
		args = append(args, string(k)+"="+string(v))
	}
	sort.Strings(args)
	for _, a := range args {
		h.Write([]byte(a))
		h.Write([]byte{0})
	}
	h.Write(c.Ctx.Request.Body())
	return h.Sum(nil)
}

// idemPoll is how long a duplicate waits before its attempt-th look at a call in flight: 25 ms,
// doubling up to 1 s (about 15 looks in MaxIdempotencyWait, not 400).
func idemPoll(attempt int) time.Duration {
	if attempt >= 6 {
		return time.Second
	}
	return 25 * time.Millisecond << attempt
}

// idemBegin handles Idempotency-Key on the routes that accept it (metered callers only; the
// demo key is shared, so its calls ignore the header). The key was validated with the other
// parameters (1 to 255 printable ASCII characters). It returns the claimed key, or replayed when
// a stored answer was written.
func (s *Server) idemBegin(c *Call) (key string, replayed bool, e *Error) {
	if !c.Route.Idempotent || !c.Caller.Metered() {
		return "", false, nil
	}
	k, _ := c.String("Idempotency-Key")
	if k == "" {
		return "", false, nil
	}
	hash := requestHash(c)
	until := time.Now().Add(MaxIdempotencyWait)
	if dl, ok := c.Context().Deadline(); ok && dl.Add(-100*time.Millisecond).Before(until) {
		until = dl.Add(-100 * time.Millisecond) // leave the answer time before the deadline
	}
	for attempt := 0; ; attempt++ {
		claim, err := oltp.ClaimIdempotency(c.Context(), s.pool, s.claimant, c.Caller.CustomerID, k, hash)
		if err != nil {
			return "", false, Unavailable("Idempotency store", err)
		}
		stored := claim.Stored
		switch claim.State {
		case oltp.ClaimTakenOver:
			s.log.Info("idempotency claim taken over: the instance running the call stopped renewing it (it died, or lost Postgres); the call runs again here",
				"route", c.Route.Name, "from", claim.From, "lease", s.claimant.Lease)
			fallthrough
		case oltp.ClaimNew:
			s.claims.add(oltp.IdempotencyClaimKey{CustomerID: c.Caller.CustomerID, Key: k})
			return k, false, nil
		case oltp.ClaimDone:
			c.Ctx.SetStatusCode(stored.Status)
			c.Ctx.SetContentType(stored.ContentType)
			c.Ctx.SetBody(stored.Body)
			c.Ctx.Response.Header.Set("Idempotent-Replayed", "true")
			return "", true, nil
		case oltp.ClaimServed:
			return "", false, &Error{Status: fasthttp.StatusConflict, Detail: "The call with this Idempotency-Key was answered and metered, but its answer was not kept " +
				"(larger than the idempotency store keeps for one answer or for one customer): it is not replayed or metered again; call again with a new key"}
		case oltp.ClaimMismatch:
			return "", false, Invalid(problem.FieldError{Type: "value_error", Loc: problem.Loc("header", "Idempotency-Key"),
				Msg: "Value error, this Idempotency-Key was used with a different request in the last 24 h: use a new key", Input: k,
				Ctx: map[string]any{"error": "idempotency key reused"}})
		}
		wait := idemPoll(attempt)
		if time.Now().Add(wait).After(until) {
			return "", false, &Error{Status: fasthttp.StatusConflict, Headers: map[string]string{"Retry-After": "1"},
				Detail: "A call with this Idempotency-Key is still in progress: retry it shortly"}
		}
		time.Sleep(wait)
	}
}

// idemEnd keeps a successful answer (within the store's bounds), or releases the claim so a
// retry runs again. It has a deadline of its own: the call's may have passed. A claim it cannot
// end stays pending, unrenewed from here on, until the next call with the key takes it over
// once its lease ends.
func (s *Server) idemEnd(c *Call, key string, success bool) {
	ctx, cancel := context.WithTimeout(s.ctx, s.cfg.StoreTimeout)
	defer cancel()
	defer s.claims.remove(oltp.IdempotencyClaimKey{CustomerID: c.Caller.CustomerID, Key: key})
	if success {
		// The response is sent after the chain returns: its body is stored without a copy.
		r := oltp.StoredResponse{Status: c.Ctx.Response.StatusCode(), ContentType: string(c.Ctx.Response.Header.ContentType()), Body: c.Ctx.Response.Body()}
		b := oltp.IdempotencyBounds{Body: s.cfg.IdempotencyBodyBytes, Customer: s.cfg.IdempotencyCustomerBytes}
		if _, err := oltp.CompleteIdempotency(ctx, s.pool, s.claimant, c.Caller.CustomerID, key, r, b); err != nil {
			s.log.Warn("cannot store the idempotent response", "route", c.Route.Name, "err", err)
		}
		return
	}
	if err := oltp.ReleaseIdempotency(ctx, s.pool, s.claimant, c.Caller.CustomerID, key); err != nil {
		s.log.Warn("cannot release the idempotency key", "route", c.Route.Name, "err", err)
	}
}

// claimsInFlight are the Idempotency-Key claims of the calls this instance runs: renewClaims
// renews them so no other instance takes them over while they run.
type claimsInFlight struct {
	mu sync.Mutex
	n  map[oltp.IdempotencyClaimKey]int
}

func (f *claimsInFlight) add(k oltp.IdempotencyClaimKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n = map[oltp.IdempotencyClaimKey]int{}
	}
	f.n[k]++
}

func (f *claimsInFlight) remove(k oltp.IdempotencyClaimKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[k]--; f.n[k] <= 0 {
		delete(f.n, k)
	}
}

func (f *claimsInFlight) keys() []oltp.IdempotencyClaimKey {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]oltp.IdempotencyClaimKey, 0, len(f.n))
	for k := range f.n {
		out = append(out, k)
	}
	return out
}

// renewClaims renews this instance's claims in flight every third of their lease, in one
// statement, until ctx ends. A renewal that fails is retried at the next turn; one that fails
// for a whole lease lets other instances take the claims over (the calls here still finish, but
// their answers are not stored over the new owner's).
func (s *Server) renewClaims(ctx context.Context) {
	t := time.NewTicker(s.claimant.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		keys := s.claims.keys()
		if len(keys) == 0 {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, s.claimant.Lease/3)
		err := oltp.RenewIdempotencyClaims(rctx, s.pool, s.claimant, keys)
		cancel()
		if err != nil && ctx.Err() == nil {
			s.log.Warn("cannot renew this instance's idempotency claims; other instances take them over once their lease ends", "claims", len(keys),
				"lease", s.claimant.Lease, "err", err)
		}
	}
}
