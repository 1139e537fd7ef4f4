package connector

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
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
	Index           int     `json:"index"` // position in the list sent (0-based; CSV: data rows, header excluded, skipped rows counted)
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

// skippedRow is a CSV data row an import could not read a company from.
type skippedRow struct {
	Index  int    `json:"index"`  // position among the data rows (0-based, header excluded), as resolved and misses count
	Line   int    `json:"line"`   // line of the upload the row starts on (the header is line 1)
	Reason string `json:"reason"` // why, and what to change
}

// importView is the migration-import answer.
type importView struct {
	Resolved       []importedCompany `json:"resolved"`
	Misses         []importMiss      `json:"misses"`
	Covered        int               `json:"covered"` // resolved companies with coverage_status covered
	Total          int               `json:"total"`   // companies sent (CSV: every data row, skipped ones included)
	IgnoredColumns []string          `json:"ignored_columns"`
	Skipped        []skippedRow      `json:"skipped"`
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
		"covered": i,
		"total": withDescription(api.Type("integer"), "companies sent: every item of the JSON list, every data row of a CSV (header excluded, skipped rows included); "+
			"total = resolved + misses + skipped"),
		"ignored_columns": withDescription(api.ArrayOf("string"), "CSV header columns, as sent, that name neither a company name nor a domain: their cells were not read; [] for JSON"),
		"skipped": withDescription(map[string]any{"type": "array", "items": api.Object(map[string]any{"index": i,
			"line": withDescription(api.Type("integer"), "the line of the upload the row starts on (the header row is line 1)"), "reason": api.Type("string")})},
			"CSV data rows no company was read from (no name and no domain on the row), with the reason; never dropped without a word. [] for JSON (an item without either is 422)"),
	})
}

// The CSV header names an import maps, compared once normalized (headerKey: any case, '_', '-'
// and '.' as spaces), as CRM and vendor exports name them (HubSpot: Company name, Company Domain
// Name, Website URL; Salesforce: Account Name, Website; Pipedrive: Organization - Name). A row's
// value is the first non-empty cell of the columns present, in this order.
var (
	nameHeaders   = []string{"name", "company name", "company", "account name", "organization name", "organization", "organisation name", "organisation"}
	domainHeaders = []string{"domain", "company domain", "company domain name", "website", "company website", "website url", "organization website", "url"}
)

// headerKey is a header cell as nameHeaders and domainHeaders spell it.
func headerKey(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' {
			return ' '
		}
		return r
	}, strings.ToLower(s))
	return strings.Join(strings.Fields(s), " ")
}

// csvDoc is how the document describes a CSV upload.
var csvDoc = fmt.Sprintf("a header row, then one company per row. The company's name is read from a column named %s; its domain from %s "+
	"(any case; spaces, '_', '-' and '.' alike; with several, the first non-empty cell in this order). A URL gives its host (https://www.acme.com/jobs: acme.com). "+
	"Other columns are ignored and named in ignored_columns; a row with neither a name nor a domain is listed in skipped with its line and why. "+
	"A header naming neither is 422", strings.Join(nameHeaders, ", "), strings.Join(domainHeaders, ", "))

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
	list, err := importItems(c)
	if err != nil {
		return 0, err
	}
	m, err := h.model()
	if err != nil {
		return 0, err
	}
	out, asks := resolveImport(m, list)
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

// resolveImport resolves the list against m: the answer (misses without request ids yet) and the
// coverage asks of the misses, one per company key.
func resolveImport(m *readmodel.Model, list importList) (importView, []oltp.CoverageAsk) {
	out := importView{Resolved: []importedCompany{}, Misses: []importMiss{}, Total: list.total, IgnoredColumns: list.ignored, Skipped: list.skipped}
	if out.IgnoredColumns == nil {
		out.IgnoredColumns = []string{}
	}
	if out.Skipped == nil {
		out.Skipped = []skippedRow{}
	}
	var asks []oltp.CoverageAsk
	asked := map[string]bool{}
	for n := range list.items {
		it, i := &list.items[n], list.index[n]
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
			CompanyName: co.Name, CompanyDomain: co.Domain, MatchConfidence: conf, CoverageStatus: co.Coverage()})
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

// importList is the list an import sent, read: the companies with their positions, and what a
// CSV upload held besides.
type importList struct {
	items   []item
	index   []int        // each item's position in the list sent (CSV: its data row, header excluded)
	total   int          // items sent (CSV: every data row, skipped ones included)
	ignored []string     // CSV header columns mapped to neither name nor domain, as sent
	skipped []skippedRow // CSV data rows with neither a name nor a domain
}

// importItems reads the list sent: JSON {"companies": [...]} or a text/csv upload.
func importItems(c *api.Call) (importList, error) {
	var list importList
	if c.IsCSV() {
		var err error
		if list, err = csvItems(c.CSVBody()); err != nil {
			return list, err
		}
	} else {
		var b struct {
			Companies []item `json:"companies"`
		}
		if err := c.Decode(&b); err != nil {
			return list, err
		}
		list.items, list.total = b.Companies, len(b.Companies)
		list.index = make([]int, len(b.Companies))
		for i := range list.index {
			list.index[i] = i
		}
	}
	var errs []problem.FieldError
	switch {
	case list.total > ImportMax:
		return list, api.Invalid(problem.FieldError{Type: "too_long", Loc: problem.Loc("body", "companies"),
			Msg:   fmt.Sprintf("List should have at most %d items after validation, not %d: split the list into several imports", ImportMax, list.total),
			Input: nil, Ctx: map[string]any{"max_length": ImportMax, "actual_length": list.total}})
	case len(list.items) == 0 && len(list.skipped) > 0:
		errs = append(errs, problem.ValueError(nil, fmt.Sprintf("no data row of the CSV names a company: all %d were skipped (the first, line %d: %s)",
			len(list.skipped), list.skipped[0].Line, list.skipped[0].Reason), "body", "companies"))
	case len(list.items) == 0:
		errs = append(errs, problem.FieldError{Type: "too_short", Loc: problem.Loc("body", "companies"), Msg: "List should have at least 1 item after validation, not 0",
			Input: []any{}, Ctx: map[string]any{"min_length": 1}})
	}
	for n := range list.items {
		list.items[n].trim()
		errs = append(errs, list.items[n].check("body", "companies", list.index[n])...)
	}
	if len(errs) > 0 {
		return list, api.Invalid(errs...)
	}
	return list, nil
}

// csvItems parses a CSV upload: a header row naming a name column, a domain column or both
// (nameHeaders, domainHeaders: the common CRM and vendor export names), then one company per
// row. A domain cell holding a URL gives its host. Columns mapped to neither are listed as
// ignored; a row with neither a name nor a domain is listed as skipped, with its line and the
// reason. Past ImportMax data rows it stops reading (the caller answers 422).
func csvItems(body []byte) (importList, error) {
	var list importList
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(body, []byte("\ufeff"))))
	r.FieldsPerRecord, r.ReuseRecord = -1, true
	bad := func(msg string, loc ...any) error {
		return api.Invalid(problem.ValueError(nil, msg, append([]any{"body"}, loc...)...))
	}
	want := "name one of " + strings.Join(nameHeaders, ", ") + " (the company's name) or " + strings.Join(domainHeaders, ", ") + " (its domain or website)"
	head, err := r.Read()
	if errors.Is(err, io.EOF) {
		return list, bad("the CSV is empty: send a header row (" + want + "), then one company per row")
	}
	if err != nil {
		return list, bad("cannot read the CSV header row: " + err.Error())
	}
	// The columns of each field, in the order of its vocabulary.
	var nameCols, domainCols []int
	nameRank, domainRank := map[int]int{}, map[int]int{}
	for i, col := range head {
		k := headerKey(col)
		switch {
		case slices.Contains(nameHeaders, k):
			nameCols, nameRank[i] = append(nameCols, i), slices.Index(nameHeaders, k)
		case slices.Contains(domainHeaders, k):
			domainCols, domainRank[i] = append(domainCols, i), slices.Index(domainHeaders, k)
		default:
			list.ignored = append(list.ignored, strings.TrimSpace(col))
		}
	}
	if len(nameCols) == 0 && len(domainCols) == 0 {
		return list, bad(fmt.Sprintf("the CSV header row names no company name or domain column (it names %q): %s; any case", head, want))
	}
	slices.SortStableFunc(nameCols, func(a, b int) int { return nameRank[a] - nameRank[b] })
	slices.SortStableFunc(domainCols, func(a, b int) int { return domainRank[a] - domainRank[b] })
	mapped := make([]string, 0, len(nameCols)+len(domainCols))
	for _, i := range append(slices.Clone(nameCols), domainCols...) {
		mapped = append(mapped, strings.TrimSpace(head[i]))
	}
	first := func(rec []string, cols []int) string {
		for _, i := range cols {
			if i < len(rec) {
				if v := strings.TrimSpace(rec[i]); v != "" {
					return v
				}
			}
		}
		return ""
	}
	for row := 0; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return list, nil
		}
		if err != nil {
			return list, bad("cannot read the CSV: "+err.Error(), row)
		}
		line, _ := r.FieldPos(0)
		list.total++
		if list.total > ImportMax {
			return list, nil
		}
		it := item{Name: first(rec, nameCols), Domain: domainOf(first(rec, domainCols))}
		if it.Domain == "" && it.Name == "" {
			list.skipped = append(list.skipped, skippedRow{Index: row, Line: line,
				Reason: fmt.Sprintf("no company on this row: %s empty; fill in a name or a domain", emptyCells(mapped))})
			continue
		}
		list.items = append(list.items, it)
		list.index = append(list.index, row)
	}
}

// emptyCells words the mapped columns a skipped row left empty.
func emptyCells(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = strconv.Quote(c)
	}
	switch len(q) {
	case 1:
		return q[0] + " is"
	case 2:
		return q[0] + " and " + q[1] + " are"
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1] + " are all"
}

// domainOf is the domain a CSV cell gives: a URL's host (https://www.acme.com/jobs: acme.com),
// else the cell as sent (a bare domain; resolution reads any host form).
func domainOf(cell string) string {
	if !strings.Contains(cell, "/") {
		return cell
	}
	if h := normalize.DomainKey(cell); strings.Contains(h, ".") {
		return h
	}
	return cell
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
