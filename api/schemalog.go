package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/planehq/hiringsignal/oltp"
)

// recordSchema hashes the generated OpenAPI document and, when it differs from the last recorded
// one, records a changelog entry naming the endpoints whose operation changed (spec 9).
func (s *Server) recordSchema(ctx context.Context) error {
	doc, err := s.OpenAPI()
	if err != nil {
		return err
	}
	var parsed struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &parsed); err != nil {
		return fmt.Errorf("cannot read the generated document: %w", err)
	}
	ops := map[string]string{}
	for path, methods := range parsed.Paths {
		for m, op := range methods {
			h := sha256.Sum256(op)
			ops[strings.ToUpper(m)+" "+path] = hex.EncodeToString(h[:])
		}
	}
	sum := sha256.Sum256(doc)
	ch, err := oltp.RecordSchema(ctx, s.pool, APIVersion, hex.EncodeToString(sum[:]), ops)
	if err != nil {
		return err
	}
	if ch != nil {
		s.log.Info("schema change recorded", "id", ch.ID, "endpoints_changed", len(ch.EndpointsChanged))
	}
	return nil
}
