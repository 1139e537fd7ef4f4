package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/planehq/hiringsignal/oltp"
)

// recordSchema hashes the generated OpenAPI document and, when an endpoint's operation changed
// since the last recorded one, records a changelog entry naming the endpoints whose operation
// changed (spec 9). An operation's hash covers the component schemas it references ($ref, at
// any depth), so a change of QuotaDetail changes every operation answering it; a document that
// differs elsewhere only (the instance's in-flight bounds in x-rate-limits, x-bounds) records
// nothing.
func (s *Server) recordSchema(ctx context.Context) error {
	doc, err := s.OpenAPI()
	if err != nil {
		return err
	}
	var parsed struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &parsed); err != nil {
		return fmt.Errorf("cannot read the generated document: %w", err)
	}
	ops := map[string]string{}
	for path, methods := range parsed.Paths {
		for m, op := range methods {
			h := sha256.New()
			h.Write(op)
			for _, name := range referenced(op, parsed.Components.Schemas) {
				h.Write([]byte("\x00" + name + "\x00"))
				h.Write(parsed.Components.Schemas[name])
			}
			ops[strings.ToUpper(m)+" "+path] = hex.EncodeToString(h.Sum(nil))
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

// refPrefix starts a reference to a component schema.
const refPrefix = `"$ref":"#/components/schemas/`

// referenced are the component schemas raw references, directly or through other components,
// sorted by name.
func referenced(raw json.RawMessage, schemas map[string]json.RawMessage) []string {
	seen := map[string]bool{}
	var walk func(b []byte)
	walk = func(b []byte) {
		for {
			i := bytes.Index(b, []byte(refPrefix))
			if i < 0 {
				return
			}
			b = b[i+len(refPrefix):]
			j := bytes.IndexByte(b, '"')
			if j < 0 {
				return
			}
			name := string(b[:j])
			if !seen[name] {
				seen[name] = true
				walk(schemas[name])
			}
		}
	}
	walk(raw)
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
