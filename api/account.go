package api

import (
	"errors"

	"github.com/planehq/hiringsignal/oltp"
)

type whoamiResponse struct {
	CustomerID string   `json:"customer_id"`
	AccountID  int64    `json:"account_id"`
	KeyID      int64    `json:"key_id"`
	Tier       string   `json:"tier"`
	TierName   string   `json:"tier_name"`
	Scopes     []string `json:"scopes"`
	Demo       bool     `json:"demo"`
}

// whoami is the connection test: the presented key's own customer only, never billed.
func (s *Server) whoami(c *Call) (int, error) {
	k := c.Caller
	return 0, c.JSON(200, whoamiResponse{CustomerID: k.CustomerID, AccountID: k.AccountID, KeyID: k.KeyID, Tier: k.Tier, TierName: k.TierName, Scopes: k.Scopes, Demo: k.Demo})
}

func (s *Server) pause(c *Call) (int, error)  { return s.setPaused(c, true) }
func (s *Server) resume(c *Call) (int, error) { return s.setPaused(c, false) }

func (s *Server) setPaused(c *Call, paused bool) (int, error) {
	token, seen := s.auth.expect(c.Context())
	st, err := oltp.SetPaused(c.Context(), s.pool, c.Caller.CustomerID, c.Caller.AccountID, paused, token)
	if errors.Is(err, oltp.ErrNotFound) {
		return 0, NotFound("Account not found")
	}
	if err != nil {
		return 0, Internal(err)
	}
	s.auth.settle(token, seen)
	return 0, c.JSON(200, st)
}
