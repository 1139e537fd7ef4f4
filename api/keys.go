package api

import (
	"errors"
	"slices"

	"github.com/planehq/hiringsignal/oltp"
)

const detailKeyNotFound = "Key not found"

func (s *Server) keysList(c *Call) (int, error) {
	keys, err := oltp.ListKeys(c.Context(), s.pool, c.Caller.CustomerID)
	if err != nil {
		return 0, Internal(err)
	}
	if keys == nil {
		keys = []oltp.Key{}
	}
	return 0, c.JSON(200, map[string]any{"keys": keys})
}

type keyBody struct {
	Scopes *[]string `json:"scopes"`
}

// scopesFor resolves the requested scopes: default def; never more than the presenting key holds.
func scopesFor(c *Call, requested *[]string, def []string) ([]string, error) {
	if requested == nil {
		return def, nil
	}
	sc := *requested
	if len(sc) == 0 {
		return nil, Invalid(FieldError{Type: "too_short", Loc: Loc("body", "scopes"), Msg: "List should have at least 1 item after validation, not 0", Input: sc, Ctx: map[string]any{"min_length": 1}})
	}
	var errs []FieldError
	out := []string{}
	for i, v := range sc {
		if !slices.Contains(c.Caller.Scopes, v) {
			errs = append(errs, ValueError(v, "a key can only grant scopes the presenting key holds ("+joinScopes(c.Caller.Scopes)+")", "body", "scopes", i))
			continue
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(errs) > 0 {
		return nil, Invalid(errs...)
	}
	slices.Sort(out)
	return out, nil
}

func joinScopes(sc []string) string {
	out := ""
	for i, v := range sc {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

func (s *Server) keysIssue(c *Call) (int, error) {
	var b keyBody
	if err := c.Decode(&b); err != nil {
		return 0, err
	}
	scopes, err := scopesFor(c, b.Scopes, c.Caller.Scopes)
	if err != nil {
		return 0, err
	}
	k, err := oltp.IssueKey(c.Context(), s.pool, c.entry.auth, scopes)
	if errors.Is(err, oltp.ErrTooManyKeys) {
		return 0, Invalid(ValueError(nil, err.Error(), "body"))
	}
	if err != nil {
		return 0, Internal(err)
	}
	return 0, c.JSON(201, k)
}

func (s *Server) keysRevoke(c *Call) (int, error) {
	id, _ := c.Int("key_id")
	token, seen := s.auth.expect(c.Context())
	err := oltp.RevokeKey(c.Context(), s.pool, c.Caller.CustomerID, id, token)
	if errors.Is(err, oltp.ErrNotFound) {
		s.auth.settle(token, nil)
		return 0, NotFound(detailKeyNotFound)
	}
	if err != nil {
		return 0, Internal(err)
	}
	s.auth.settle(token, seen)
	return 0, c.NoContent()
}

func (s *Server) keysRotate(c *Call) (int, error) {
	id, _ := c.Int("key_id")
	var b keyBody
	if err := c.Decode(&b); err != nil {
		return 0, err
	}
	var scopes []string
	if b.Scopes != nil {
		sc, err := scopesFor(c, b.Scopes, nil)
		if err != nil {
			return 0, err
		}
		scopes = sc
	}
	token, seen := s.auth.expect(c.Context())
	k, err := oltp.RotateKey(c.Context(), s.pool, c.Caller.CustomerID, id, scopes, token)
	if errors.Is(err, oltp.ErrNotFound) {
		s.auth.settle(token, nil)
		return 0, NotFound(detailKeyNotFound)
	}
	if err != nil {
		return 0, Internal(err)
	}
	s.auth.settle(token, seen)
	return 0, c.JSON(201, k)
}
