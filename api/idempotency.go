package api

import (
	"crypto/sha256"
	"sort"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/oltp"
)

const maxIdemKey = 255

func requestHash(c *Call) []byte {
	h := sha256.New()
	h.Write(c.Ctx.Method())
	h.Write([]byte{0})
	h.Write(c.Ctx.Path())
	h.Write([]byte{0})
	var args []string
	c.Ctx.QueryArgs().VisitAll(func(k, v []byte) { args = append(args, string(k)+"="+string(v)) })
	sort.Strings(args)
	for _, a := range args {
		h.Write([]byte(a))
		h.Write([]byte{0})
	}
	h.Write(c.Ctx.Request.Body())
	return h.Sum(nil)
}

// idemBegin handles Idempotency-Key on the routes that accept it (metered callers only; the
// demo key is shared, so its calls ignore the header). It returns the claimed key, or replayed
// when a stored answer was written.
func (s *Server) idemBegin(c *Call) (key string, replayed bool, e *Error) {
	if !c.Route.Idempotent || !c.Caller.Metered() {
		return "", false, nil
	}
	k := string(c.Ctx.Request.Header.Peek("Idempotency-Key"))
	if k == "" {
		return "", false, nil
	}
	if len(k) > maxIdemKey {
		return "", false, Invalid(FieldError{Type: "string_too_long", Loc: Loc("header", "Idempotency-Key"),
			Msg: "String should have at most 255 characters", Input: k, Ctx: map[string]any{"max_length": maxIdemKey}})
	}
	hash := requestHash(c)
	deadline := time.Now().Add(10 * time.Second)
	for {
		state, stored, err := oltp.ClaimIdempotency(c.Context(), s.pool, c.Caller.CustomerID, k, hash)
		if err != nil {
			return "", false, Unavailable("Idempotency store", err)
		}
		switch state {
		case oltp.ClaimNew:
			return k, false, nil
		case oltp.ClaimDone:
			c.Ctx.SetStatusCode(stored.Status)
			c.Ctx.SetContentType(stored.ContentType)
			c.Ctx.SetBody(stored.Body)
			c.Ctx.Response.Header.Set("Idempotent-Replayed", "true")
			return "", true, nil
		case oltp.ClaimMismatch:
			return "", false, Invalid(FieldError{Type: "value_error", Loc: Loc("header", "Idempotency-Key"),
				Msg: "Value error, this Idempotency-Key was used with a different request in the last 24 h: use a new key", Input: k,
				Ctx: map[string]any{"error": "idempotency key reused"}})
		}
		if time.Now().After(deadline) {
			return "", false, &Error{Status: fasthttp.StatusConflict, Detail: "A call with this Idempotency-Key is still in progress: retry it shortly"}
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// idemEnd stores a successful answer, or releases the claim so a retry runs again.
func (s *Server) idemEnd(c *Call, key string, success bool) {
	ctx := c.Context()
	if success {
		r := oltp.StoredResponse{Status: c.Ctx.Response.StatusCode(), ContentType: string(c.Ctx.Response.Header.ContentType()), Body: append([]byte(nil), c.Ctx.Response.Body()...)}
		if err := oltp.CompleteIdempotency(ctx, s.pool, c.Caller.CustomerID, key, r); err != nil {
			s.log.Warn("cannot store the idempotent response", "route", c.Route.Name, "err", err)
		}
		return
	}
	if err := oltp.ReleaseIdempotency(ctx, s.pool, c.Caller.CustomerID, key); err != nil {
		s.log.Warn("cannot release the idempotency key", "route", c.Route.Name, "err", err)
	}
}
