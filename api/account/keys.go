package account

import (
	"errors"
	"slices"
	"strings"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/oltp"
)

const detailKeyNotFound = "Key not found"

// keySchema is a key's record as listed (oltp.Key); issuedKeySchema adds the key itself, shown once
// (oltp.IssuedKey).
func keySchema() map[string]any {
	return api.Object(map[string]any{
		"key_id": api.Type("integer"), "display": api.Type("string"), "scopes": api.ArrayOf("string"), "tier": api.Type("string"),
		"created_at": api.DateTime(), "last_used_at": api.Nullable(api.DateTime()), "revoked_at": api.Nullable(api.DateTime()), "parent_key_id": api.Nullable(api.Type("integer")),
	})
}

func issuedKeySchema() map[string]any {
	return api.Extend(keySchema(), map[string]any{"key": api.Type("string")})
}

// Bounds of GET /v1/keys.
const (
	KeysDefaultLimit = 100
	KeysPageMax      = 200
)

// keyPage is the answer of GET /v1/keys.
type keyPage struct {
	Keys       []oltp.Key `json:"keys"`
	NextCursor *int64     `json:"next_cursor"`
	HasMore    bool       `json:"has_more"`
}

func keyPageSchema() map[string]any {
	return api.Object(map[string]any{
		"keys": map[string]any{"type": "array", "items": keySchema(), "maxItems": KeysPageMax, "description": "ascending by key_id"},
		"next_cursor": map[string]any{"type": []any{"integer", "null"},
			"description": "send as cursor for the next page while has_more; null on the last page"},
		"has_more": api.Type("boolean"),
	})
}

func (h *handlers) keysList(c *api.Call) (int, error) {
	after, _ := c.Int("cursor")
	status, _ := c.String("status")
	keys, more, err := oltp.ListKeys(c.Context(), h.d.Pool, c.Caller.CustomerID, oltp.KeyPage{After: after, Limit: c.Limit(), Status: status})
	if err != nil {
		return 0, api.Internal(err)
	}
	out := keyPage{Keys: keys, HasMore: more}
	if out.Keys == nil {
		out.Keys = []oltp.Key{}
	}
	if more {
		out.NextCursor = &keys[len(keys)-1].KeyID
	}
	return 0, c.JSON(200, out)
}

type keyBody struct {
	Scopes *[]string `json:"scopes"`
}

// scopesFor resolves the requested scopes: default def; never more than the presenting key holds.
func scopesFor(c *api.Call, requested *[]string, def []string) ([]string, error) {
	if requested == nil {
		return def, nil
	}
	sc := *requested
	if len(sc) == 0 {
		return nil, api.Invalid(problem.FieldError{Type: "too_short", Loc: problem.Loc("body", "scopes"), Msg: "List should have at least 1 item after validation, not 0", Input: sc, Ctx: map[string]any{"min_length": 1}})
	}
	var errs []problem.FieldError
	out := []string{}
	for i, v := range sc {
		if !slices.Contains(c.Caller.Scopes, v) {
			errs = append(errs, problem.ValueError(v, "a key can only grant scopes the presenting key holds ("+strings.Join(c.Caller.Scopes, ", ")+")", "body", "scopes", i))
			continue
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(errs) > 0 {
		return nil, api.Invalid(errs...)
	}
	slices.Sort(out)
	return out, nil
}

func (h *handlers) keysIssue(c *api.Call) (int, error) {
	var b keyBody
	if err := c.Decode(&b); err != nil {
		return 0, err
	}
	scopes, err := scopesFor(c, b.Scopes, c.Caller.Scopes)
	if err != nil {
		return 0, err
	}
	k, err := oltp.IssueKeyWithin(c.Context(), h.d.Pool, h.d.Budgets, c.KeyAuth(), scopes)
	if r := api.BudgetRefusal(c, err); r != nil {
		return 0, r
	}
	if errors.Is(err, oltp.ErrTooManyKeys) {
		return 0, api.Invalid(problem.ValueError(nil, err.Error(), "body"))
	}
	if err != nil {
		return 0, api.Internal(err)
	}
	return 0, c.JSON(201, k)
}

func (h *handlers) keysRevoke(c *api.Call) (int, error) {
	id, _ := c.Int("key_id")
	err := c.ChangeKeys(func(token string) error {
		return oltp.RevokeKey(c.Context(), h.d.Pool, c.Caller.CustomerID, id, token)
	})
	if errors.Is(err, oltp.ErrNotFound) {
		return 0, api.NotFound(detailKeyNotFound)
	}
	if err != nil {
		return 0, api.Internal(err)
	}
	return 0, c.NoContent()
}

func (h *handlers) keysRotate(c *api.Call) (int, error) {
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
	// Without scopes the replacement keeps the rotated key's scopes that the presenting key
	// holds: a key never grants more than it holds, by minting or by rotating.
	var k oltp.IssuedKey
	err := c.ChangeKeys(func(token string) (err error) {
		k, err = oltp.RotateKeyWithin(c.Context(), h.d.Pool, h.d.Budgets, c.Caller.CustomerID, id, scopes, c.Caller.Scopes, token)
		return err
	})
	if r := api.BudgetRefusal(c, err); r != nil {
		return 0, r
	}
	if errors.Is(err, oltp.ErrNotFound) {
		return 0, api.NotFound(detailKeyNotFound)
	}
	if errors.Is(err, oltp.ErrNoGrantableScope) {
		return 0, api.Invalid(problem.ValueError(nil, err.Error(), "body", "scopes"))
	}
	if err != nil {
		return 0, api.Internal(err)
	}
	return 0, c.JSON(201, k)
}
