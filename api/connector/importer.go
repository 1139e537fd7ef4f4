package connector

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/nullable"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/readmodel"
)

// CoverageSource is the source recorded on the coverage requests of an import's misses.
const CoverageSource = "migration_import"

// importedCompany is one resolved company of an import.
type importedCompany struct {
	Index           int     `json:"index"` // position in the list sent (0-based; CSV: data rows, header excluded)
	Domain          *string `json:"domain"`
	Name            *string `json:"name"`
	CompanyID       uint64  `json:"company_id"`
	CompanyName     string  `json:"company_name"`
	CompanyDomain   string  `json:"company_domain"`
	MatchConfidence float64 `json:"match_confidence"`
	CoverageStatus  string  `json:"coverage_status"`
}

// importMiss is a company of an import that no company of the cache matches.
type importMiss struct {
	Index     int     `json:"index"`
	Domain    *string `json:"domain"`
	Name      *string `json:"name"`
	RequestID *int64  `json:"request_id"` // its coverage request (GET /v1/coverage-requests); null past oltp.MaxCoverageRequests
}

// importView is the migration-import answer.
type importView struct {
	Resolved []importedCompany `json:"resolved"`
	Misses   []importMiss      `json:"misses"`
	Covered  int               `json:"covered"` // resolved companies with coverage_status covered
	Total    int               `json:"total"`   // companies sent
}

func itemSchema() map[string]any {
	return api.Object(map[string]any{"domain": api.Type("string"), "name": api.Type("string")})
}

func importSchema() map[string]any {
	s, i := api.Nullable(api.Type("string")), api.Type("integer")
	return api.Object(map[string]any{
		"resolved": map[string]any{"type": "array", "items": api.Object(map[string]any{"index": i, "domain": s, "name": s, "company_id": i,
			"company_name": api.Type("string"), "company_domain": api.Type("string"), "match_confidence": api.Type("number"),
			"coverage_status": api.Enum(readmodel.CoverageCovered, readmodel.CoverageNoATSSignal)})},
		"misses": map[string]any{"type": "array", "items": api.Object(map[string]any{"index": i, "domain": s, "name": s,
			"request_id": withDescription(api.Nullable(i), fmt.Sprintf("the miss's coverage request (GET /v1/coverage-requests); null when the customer already holds %d coverage requests (no new one is recorded)", oltp.MaxCoverageRequests))})},
		"covered": i, "total": i,
	})
}

// coverageKey is the company key a miss is requested under: its domain's, else its name's.
func coverageKey(it *item) string {
	if d := normalize.DomainKey(it.Domain); d != "" {
		return "domain:" + d
	}
	if k := normalize.CompanyKey(it.Name); k != "" {
		return "name:" + k
	}
	if it.Domain != "" {
		return "domain:" + strings.ToLower(it.Domain)
	}
	return "name:" + strings.ToLower(strings.Join(strings.Fields(it.Name), " "))
}

func (h *handlers) migrationImport(c *api.Call) (int, error) {
	items, err := importItems(c)
	if err != nil {
		return 0, err
	}
	m, err := h.model()
	if err != nil {
		return 0, err
	}
	out, asks := resolveImport(m, items)
	ids, err := oltp.RequestCoverage(c.Context(), h.d.Pool, c.Caller.CustomerID, CoverageSource, asks)
	if err != nil {
		return 0, api.Internal(err)
	}
	for i := range out.Misses {
		it := item{Domain: deref(out.Misses[i].Domain), Name: deref(out.Misses[i].Name)}
		if id, ok := ids[coverageKey(&it)]; ok {
			out.Misses[i].RequestID = &id
		}
	}
	if len(asks) > 0 {
		h.d.Log.Info("coverage requested", "customer_id", c.Caller.CustomerID, "source", CoverageSource, "companies", len(asks))
	}
	return 0, c.JSON(200, out)
}

// resolveImport resolves items against m: the answer (misses without request ids yet) and the
// coverage asks of the misses, one per company key.
func resolveImport(m *readmodel.Model, items []item) (importView, []oltp.CoverageAsk) {
	out := importView{Resolved: []importedCompany{}, Misses: []importMiss{}, Total: len(items)}
	var asks []oltp.CoverageAsk
	asked := map[string]bool{}
	for i := range items {
		it := &items[i]
		co, conf := resolveOne(m, it.Domain, it.Name)
		if co == nil {
			out.Misses = append(out.Misses, importMiss{Index: i, Domain: nullable.String(it.Domain), Name: nullable.String(it.Name)})
			if k := coverageKey(it); !asked[k] {
				asked[k] = true
				asks = append(asks, oltp.CoverageAsk{Key: k, Domain: it.Domain, Name: it.Name})
			}
			continue
		}
		out.Resolved = append(out.Resolved, importedCompany{Index: i, Domain: nullable.String(it.Domain), Name: nullable.String(it.Name), CompanyID: co.ID,
			CompanyName: co.Name, CompanyDomain: co.Domain, MatchConfidence: conf, CoverageStatus: co.Coverage})
		if co.Covered() {
			out.Covered++
		}
	}
	return out, asks
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// importItems reads the list sent: JSON {"companies": [...]} or a text/csv upload.
func importItems(c *api.Call) ([]item, error) {
	var items []item
	if c.IsCSV() {
		var err error
		if items, err = csvItems(c.CSVBody()); err != nil {
			return nil, err
		}
	} else {
		var b struct {
			Companies []item `json:"companies"`
		}
		if err := c.Decode(&b); err != nil {
			return nil, err
		}
		items = b.Companies
	}
	var errs []problem.FieldError
	switch {
	case len(items) > ImportMax:
		return nil, api.Invalid(problem.FieldError{Type: "too_long", Loc: problem.Loc("body", "companies"),
			Msg:   fmt.Sprintf("List should have at most %d items after validation, not %d: split the list into several imports", ImportMax, len(items)),
			Input: nil, Ctx: map[string]any{"max_length": ImportMax, "actual_length": len(items)}})
	case len(items) == 0:
		errs = append(errs, problem.FieldError{Type: "too_short", Loc: problem.Loc("body", "companies"), Msg: "List should have at least 1 item after validation, not 0",
			Input: []any{}, Ctx: map[string]any{"min_length": 1}})
	}
	for i := range items {
		items[i].trim()
		errs = append(errs, items[i].check("body", "companies", i)...)
	}
	if len(errs) > 0 {
		return nil, api.Invalid(errs...)
	}
	return items, nil
}

// csvItems parses a CSV upload: a header row naming a domain column, a name column or both (any
// case, any order, other columns ignored), then one company per row; a row whose domain and name
// are both empty is skipped. Past ImportMax rows it stops counting (the caller answers 422).
func csvItems(body []byte) ([]item, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(body, []byte("\ufeff"))))
	r.FieldsPerRecord, r.ReuseRecord = -1, true
	bad := func(msg string, loc ...any) error {
		return api.Invalid(problem.ValueError(nil, msg, append([]any{"body"}, loc...)...))
	}
	head, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, bad("the CSV is empty: send a header row naming a domain column, a name column or both, then one company per row")
	}
	if err != nil {
		return nil, bad("cannot read the CSV header row: " + err.Error())
	}
	di, ni := -1, -1
	for i, col := range head {
		switch strings.ToLower(strings.TrimSpace(col)) {
		case "domain":
			di = i
		case "name":
			ni = i
		}
	}
	if di < 0 && ni < 0 {
		return nil, bad(fmt.Sprintf("the CSV header row names no domain or name column (it names %q): add a header row with domain and/or name", head))
	}
	var items []item
	for line := 1; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return items, nil
		}
		if err != nil {
			return nil, bad("cannot read the CSV: "+err.Error(), line)
		}
		var it item
		if di >= 0 && di < len(rec) {
			it.Domain = strings.TrimSpace(rec[di])
		}
		if ni >= 0 && ni < len(rec) {
			it.Name = strings.TrimSpace(rec[ni])
		}
		if it.Domain == "" && it.Name == "" {
			continue
		}
		items = append(items, it)
		if len(items) > ImportMax {
			return items, nil
		}
	}
}

// coverageView is a page of coverage requests.
type coverageView struct {
	Requests   []oltp.CoverageRequest `json:"requests"`
	NextCursor *int64                 `json:"next_cursor"` // pass as cursor for the next page; null on the last
}

// coverageStatusDescription says what each status of a coverage request means.
var coverageStatusDescription = "where the search for the company's job sources stands: " +
	"searching (queued or being searched: most-asked companies first), " +
	"covered (a job source was found and is crawled; the company's reads answer coverage_status covered after the first crawl window that reads it, about 3 hours, and no_ats_signal until then), " +
	"candidates (sources were found that wait on a check by our operators), " +
	"no_ats_found (the company's site was searched and no job source was found: see tried), " +
	"blocked_by_robots (the company's robots.txt forbids the pages the search reads), " +
	"unreachable (the company's site could not be read), " +
	"needs_domain (asked by name only: a search starts from the company's domain; import it again with its domain). " +
	"A company that was not found is searched again after 30 days"

func coverageSchema() map[string]any {
	s := api.Nullable(api.Type("string"))
	status := api.Enum(oltp.CoverageStatuses()...)
	status["description"] = coverageStatusDescription
	source := api.Object(map[string]any{"vendor": withDescription(api.Type("string"), "the job source's vendor (greenhouse, lever, ...; jsonld for the company's own careers pages)"),
		"tenant": withDescription(api.Nullable(api.Type("string")), "the company's account at the vendor; null for a careers site"),
		"url":    withDescription(api.Type("string"), "the board or feed the crawl reads")})
	step := api.Object(map[string]any{"url": api.Type("string"), "status": withDescription(api.Type("integer"), "the HTTP status answered; 0 when there was no answer"),
		"note": withDescription(api.Type("string"), `what the search made of the answer ("robots disallow", "timeout", ...); "" when nothing`)})
	return api.Object(map[string]any{
		"requests": map[string]any{"type": "array", "items": api.Object(map[string]any{"request_id": api.Type("integer"), "domain": s, "name": s,
			"source": api.Enum(CoverageSource), "times_requested": api.Type("integer"), "first_requested_at": api.DateTime(), "last_requested_at": api.DateTime(),
			"status": status,
			"reason": withDescription(api.Nullable(api.Type("string")), "why the last search found no source the crawl reads, in one line; null otherwise"),
			"sources": withDescription(map[string]any{"type": "array", "items": source},
				"covered: the sources the crawl reads; candidates: the sources waiting on a check; empty otherwise"),
			"tried": withDescription(map[string]any{"type": "array", "maxItems": oltp.MaxCoverageTried, "items": step},
				fmt.Sprintf("the first %d requests of the last search when it found no source the crawl reads; empty otherwise", oltp.MaxCoverageTried)),
			"last_tried_at": withDescription(api.Nullable(api.DateTime()), "when the last search ran; null before the first")})},
		"next_cursor": api.Nullable(api.Type("integer")),
	})
}

func (h *handlers) coverageRequests(c *api.Call) (int, error) {
	cursor, _ := c.Int("cursor")
	limit := c.Limit()
	reqs, err := oltp.ListCoverageRequests(c.Context(), h.d.Pool, c.Caller.CustomerID, cursor, limit+1)
	if err != nil {
		return 0, api.Internal(err)
	}
	out := coverageView{Requests: reqs}
	if len(reqs) > limit {
		out.Requests = reqs[:limit]
		next := reqs[limit-1].ID
		out.NextCursor = &next
	}
	return 0, c.JSON(200, out)
}

// withDescription is s with a description.
func withDescription(s map[string]any, d string) map[string]any {
	s["description"] = d
	return s
}
