package oltp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The source registry (migration 0026): the companies the crawl knows (crawl_companies) and the
// sources it reads (crawl_sources). Operators fill it (pipeline/sources validates what they give;
// this file holds the statements only) and the crawl reads it whole as its directory.

// Source kinds.
const (
	SourceATSTenant = "ats_tenant"
	// SourceCareersSite is one company's own site read through its JobPosting JSON-LD (vendor
	// jsonld, its URL given): like an ATS tenant, always a company's.
	SourceCareersSite = "careers_site"
	SourceBoard       = "board"
	SourceAggregator  = "aggregator"
)

// Source statuses. A candidate is not crawled; active, suspect and paused sources are in the
// crawl's directory; a retired source is not.
const (
	SourceCandidate = "candidate"
	SourceActive    = "active"
	SourceSuspect   = "suspect"
	SourcePaused    = "paused"
	SourceRetired   = "retired"
)

// SourceStatuses lists the statuses, in lifecycle order.
func SourceStatuses() []string {
	return []string{SourceCandidate, SourceActive, SourceSuspect, SourcePaused, SourceRetired}
}

// AgencyKinds lists the values of crawl_companies.agency_kind: "employer" is a company classified
// as none of the agency kinds, "unknown" one nobody classified (the default).
func AgencyKinds() []string {
	return []string{"employer", "staffing_agency", "subcontractor_network", "aggregator", "job_board", "unknown"}
}

// Bounds of the registry's calls.
const (
	// RegistryImportTimeout bounds one UpsertRegistry (an import of up to a million rows).
	RegistryImportTimeout = 10 * time.Minute
	// registryTimeout bounds every other registry call.
	registryTimeout = 15 * time.Second
	// registryDirectoryTimeout bounds the read of the whole registry.
	registryDirectoryTimeout = time.Minute
	// DefaultSourceList and MaxSourceList are ListSources' page size when none is given and its
	// largest.
	DefaultSourceList = 100
	MaxSourceList     = 1000
	// MaxStatusReason is the longest reason of a status change, in bytes.
	MaxStatusReason = 500
	// MaxReportedChanges bounds the changes and notes a RegistryReport lists (its counts are exact).
	MaxReportedChanges = 100

	registryChunk = 5000 // rows read per statement
	registryBatch = 500  // writes sent per round trip
)

// ErrSourceNotFound is returned for a source key the registry does not hold.
var ErrSourceNotFound = errors.New("source not found")

// Fact is where one company field came from and when it was last set: "csv:FILE:LINE", "cli" or
// "vendor:NAME".
type Fact struct {
	Source string    `json:"source"`
	At     time.Time `json:"at"`
}

// RegistryCompany is one row of crawl_companies.
type RegistryCompany struct {
	Domain        string          `json:"domain"`
	Name          string          `json:"name"`
	HQCountry     string          `json:"hq_country"` // ISO 3166-1 alpha-2, "" unknown
	Region        string          `json:"region"`     // crawl region, "" unknown
	Industry      string          `json:"industry"`
	HeadcountBand string          `json:"headcount_band"`
	AgencyKind    string          `json:"agency_kind"` // one of AgencyKinds
	Facts         map[string]Fact `json:"facts,omitempty"`
	AddedBy       string          `json:"added_by,omitempty"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
}

// RegistrySource is one row of crawl_sources.
type RegistrySource struct {
	Key           string          `json:"key"`
	Vendor        string          `json:"vendor"`
	Kind          string          `json:"kind"`
	Tenant        string          `json:"tenant,omitempty"`
	Variant       string          `json:"variant,omitempty"`
	Board         string          `json:"board,omitempty"`
	CompanyDomain string          `json:"company_domain,omitempty"`
	URL           string          `json:"url"`
	Region        string          `json:"region"`
	Status        string          `json:"status"`
	StatusReason  string          `json:"status_reason,omitempty"`
	StatusBy      string          `json:"status_by,omitempty"`
	StatusAt      time.Time       `json:"status_at"`
	IntervalS     int             `json:"interval_s"`
	NextDueAt     time.Time       `json:"next_due_at"`
	LeaseUntil    *time.Time      `json:"lease_until,omitempty"`
	LeaseOwner    string          `json:"lease_owner,omitempty"`
	ETag          string          `json:"etag,omitempty"`
	LastModified  string          `json:"last_modified,omitempty"`
	BodyHash      string          `json:"body_hash,omitempty"`
	Failures      int             `json:"consecutive_failures"`
	LastOKAt      *time.Time      `json:"last_ok_at,omitempty"`
	LastStatus    string          `json:"last_status,omitempty"`
	LastReason    string          `json:"last_reason,omitempty"`
	LastCount     *int            `json:"last_count,omitempty"`
	CooldownUntil *time.Time      `json:"cooldown_until,omitempty"`
	Evidence      json.RawMessage `json:"evidence,omitempty"`
	AddedBy       string          `json:"added_by,omitempty"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
}

// CompanyInput is one company as an import or an add gives it. A field left "" is not given: it
// keeps what the registry holds ("" for a new company, "unknown" for its agency kind). Region is
// the region of HQCountry when that is given; without a country it is the region the caller
// states, and it never overrides the region of a country the registry already holds.
type CompanyInput struct {
	Domain, Name, HQCountry, Region, Industry, HeadcountBand, AgencyKind string
	// Source is where the given fields come from ("csv:FILE:LINE", "cli", "vendor:greenhouse");
	// Sources overrides it per field (keys as the columns: name, hq_country, region, industry,
	// headcount_band, agency_kind).
	Source  string
	Sources map[string]string
}

func (c *CompanyInput) sourceOf(field string) string {
	if s, ok := c.Sources[field]; ok {
		return s
	}
	return c.Source
}

// SourceInput is one source as an import or an add gives it, validated by the caller (the key
// rendered by atsurl.SourceKey, the URL by atsurl.FirstPage or atsurl.SourceURL).
type SourceInput struct {
	Key, Vendor, Kind, Tenant, Variant, Board, CompanyDomain, URL string
	// Region is the region of a feed without a company; a company's source takes its company's
	// region (Region only while the company's is unknown).
	Region string
	// Status is a new source's status: active or candidate ("" is active). An existing source keeps
	// its status (a paused or retired one stays so) unless Validated.
	Status string
	// Evidence is written on insert and whenever the row changes: where the source came from (an
	// import's file and line) or what its validating fetch saw.
	Evidence json.RawMessage
	// Validated marks a write after a validating fetch: the evidence is written even when nothing
	// else changed, and a candidate or suspect source becomes active.
	Validated bool
	// RefreshEvidence writes the evidence even when nothing else changed, its status left as it is
	// (a candidate discovery found again).
	RefreshEvidence bool
}

// RegistryBatch is what one import or add writes, all or nothing. By is who writes it (added_by).
type RegistryBatch struct {
	Companies []CompanyInput
	Sources   []SourceInput
	By        string
}

// Counts counts the rows of a batch by what writing them does.
type Counts struct {
	Added     int `json:"added"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
}

// Change is one row a batch adds or changes.
type Change struct {
	What   string   `json:"what"` // company or source
	Key    string   `json:"key"`  // the domain or the source key
	Action string   `json:"action"`
	Fields []string `json:"fields,omitempty"` // the fields a change sets
}

// RegistryReport says what a batch does (or did, when Applied).
type RegistryReport struct {
	Companies Counts `json:"companies"`
	Sources   Counts `json:"sources"`
	// SourcesMoved counts sources not in the batch whose region follows a company whose region the
	// batch changes.
	SourcesMoved int      `json:"sources_moved,omitempty"`
	Changes      []Change `json:"changes,omitempty"` // the first MaxReportedChanges
	Notes        []string `json:"notes,omitempty"`   // the first MaxReportedChanges
	Applied      bool     `json:"applied"`
}

func (r *RegistryReport) change(c Change) {
	if len(r.Changes) < MaxReportedChanges {
		r.Changes = append(r.Changes, c)
	}
}

func (r *RegistryReport) note(format string, args ...any) {
	if len(r.Notes) < MaxReportedChanges {
		r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
	}
}

const companyCols = "domain, name, hq_country, region, industry, headcount_band, agency_kind, facts, added_by, created_at, updated_at"

func scanCompany(row pgx.Row) (RegistryCompany, error) {
	var c RegistryCompany
	var facts []byte
	if err := row.Scan(&c.Domain, &c.Name, &c.HQCountry, &c.Region, &c.Industry, &c.HeadcountBand, &c.AgencyKind, &facts, &c.AddedBy, &c.CreatedAt, &c.UpdatedAt); err != nil {
		return c, err
	}
	if err := json.Unmarshal(facts, &c.Facts); err != nil {
		return c, fmt.Errorf("cannot decode the facts of company %s: %w", c.Domain, err)
	}
	if len(c.Facts) == 0 {
		c.Facts = nil
	}
	return c, nil
}

const sourceCols = `source_key, vendor, kind, tenant, variant, board, coalesce(company_domain, ''), url, region,
	status, coalesce(status_reason, ''), coalesce(status_by, ''), status_at, interval_s, next_due_at, lease_until, coalesce(lease_owner, ''),
	coalesce(etag, ''), coalesce(last_modified, ''), coalesce(body_hash, ''), consecutive_failures, last_ok_at, coalesce(last_status, ''),
	coalesce(last_reason, ''), last_count, cooldown_until, evidence, added_by, created_at, updated_at`

func scanSource(row pgx.Row) (RegistrySource, error) {
	var s RegistrySource
	var evidence []byte
	err := row.Scan(&s.Key, &s.Vendor, &s.Kind, &s.Tenant, &s.Variant, &s.Board, &s.CompanyDomain, &s.URL, &s.Region,
		&s.Status, &s.StatusReason, &s.StatusBy, &s.StatusAt, &s.IntervalS, &s.NextDueAt, &s.LeaseUntil, &s.LeaseOwner,
		&s.ETag, &s.LastModified, &s.BodyHash, &s.Failures, &s.LastOKAt, &s.LastStatus,
		&s.LastReason, &s.LastCount, &s.CooldownUntil, &evidence, &s.AddedBy, &s.CreatedAt, &s.UpdatedAt)
	if len(evidence) > 0 && string(evidence) != "{}" {
		s.Evidence = json.RawMessage(evidence)
	}
	return s, err
}

// UpsertRegistry writes a batch of companies and sources in one transaction: all of it or, on any
// error, nothing. It is idempotent: a row whose given fields already hold is left alone (its facts
// and evidence too) and counted unchanged; a changed field updates the row and, for a company,
// that field's fact. A source must name a company of the batch or of the registry. With apply
// false it writes nothing and reports what apply would do. Writers are serialized by an advisory
// lock, so two imports never interleave. The call is bounded by RegistryImportTimeout.
func UpsertRegistry(ctx context.Context, pool *pgxpool.Pool, b RegistryBatch, apply bool) (RegistryReport, error) {
	ctx, cancel := context.WithTimeout(ctx, RegistryImportTimeout)
	defer cancel()
	var rep RegistryReport
	if strings.TrimSpace(b.By) == "" {
		return rep, errors.New("cannot write to the source registry: say who writes (added_by)")
	}
	domains := make(map[string]int, len(b.Companies))
	for i, c := range b.Companies {
		if c.Domain == "" {
			return rep, errors.New("cannot write to the source registry: a company has no domain")
		}
		if _, dup := domains[c.Domain]; dup {
			return rep, fmt.Errorf("cannot write to the source registry: company %s is given twice: merge its rows", c.Domain)
		}
		domains[c.Domain] = i
	}
	keys := make(map[string]bool, len(b.Sources))
	for _, s := range b.Sources {
		if s.Key == "" {
			return rep, errors.New("cannot write to the source registry: a source has no key")
		}
		if keys[s.Key] {
			return rep, fmt.Errorf("cannot write to the source registry: source %s is given twice", s.Key)
		}
		keys[s.Key] = true
	}

	tx, err := pool.Begin(ctx)
	if err != nil {
		return rep, fmt.Errorf("cannot write to the source registry: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := lockRegistry(ctx, tx); err != nil {
		return rep, err
	}
	w := &batchWriter{ctx: ctx, tx: tx, apply: apply}
	if err := upsertRegistry(ctx, tx, w, b, &rep); err != nil {
		return rep, err
	}
	if !apply {
		return rep, nil
	}
	if err := w.flush(ctx); err != nil {
		return rep, err
	}
	if err := tx.Commit(ctx); err != nil {
		return rep, fmt.Errorf("cannot commit the source registry batch: %w", err)
	}
	rep.Applied = true
	return rep, nil
}

// lockRegistry takes the registry's write lock for the rest of tx: writers of the registry
// (imports, adds, discovery results) never interleave.
func lockRegistry(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('hiringsignal-registry:' || coalesce(current_schema(), '')))"); err != nil {
		return fmt.Errorf("cannot take the source registry's write lock: %w", err)
	}
	return nil
}

// upsertRegistry queues on w the writes of batch b (checked by the caller) inside tx, which holds
// the registry's write lock, and counts them in rep.
func upsertRegistry(ctx context.Context, tx pgx.Tx, w *batchWriter, b RegistryBatch, rep *RegistryReport) error {
	domains := make(map[string]int, len(b.Companies))
	for i, c := range b.Companies {
		domains[c.Domain] = i
	}
	// The companies the batch names, as the registry holds them.
	want := make([]string, 0, len(domains))
	for d := range domains {
		want = append(want, d)
	}
	for _, s := range b.Sources {
		if s.CompanyDomain != "" {
			if _, ok := domains[s.CompanyDomain]; !ok {
				want = append(want, s.CompanyDomain)
			}
		}
	}
	slices.Sort(want)
	want = slices.Compact(want)
	current, err := readCompanies(ctx, tx, want)
	if err != nil {
		return err
	}

	now := time.Now().UTC()
	merged := make(map[string]RegistryCompany, len(b.Companies))
	var moved []string // companies whose region the batch changes
	for _, in := range b.Companies {
		cur, exists := current[in.Domain]
		next, fields := mergeCompany(cur, exists, in, now)
		merged[in.Domain] = next
		switch {
		case !exists:
			rep.Companies.Added++
			rep.change(Change{What: "company", Key: in.Domain, Action: "added"})
			facts, _ := json.Marshal(next.Facts)
			err = w.queue(`INSERT INTO crawl_companies (domain, name, hq_country, region, industry, headcount_band, agency_kind, facts, added_by)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9)`,
				next.Domain, next.Name, next.HQCountry, next.Region, next.Industry, next.HeadcountBand, next.AgencyKind, string(facts), b.By)
		case len(fields) > 0:
			rep.Companies.Changed++
			rep.change(Change{What: "company", Key: in.Domain, Action: "changed", Fields: fields})
			if slices.Contains(fields, "region") {
				moved = append(moved, in.Domain)
			}
			facts, _ := json.Marshal(next.Facts)
			err = w.queue(`UPDATE crawl_companies SET name = $2, hq_country = $3, region = $4, industry = $5, headcount_band = $6,
				agency_kind = $7, facts = $8::jsonb, updated_at = now() WHERE domain = $1`,
				next.Domain, next.Name, next.HQCountry, next.Region, next.Industry, next.HeadcountBand, next.AgencyKind, string(facts))
		default:
			rep.Companies.Unchanged++
		}
		if err != nil {
			return err
		}
	}
	regionOf := func(domain string) (string, bool) {
		if c, ok := merged[domain]; ok {
			return c.Region, true
		}
		c, ok := current[domain]
		return c.Region, ok
	}

	skeys := make([]string, 0, len(b.Sources))
	for _, s := range b.Sources {
		skeys = append(skeys, s.Key)
	}
	curSources, err := readSources(ctx, tx, skeys)
	if err != nil {
		return err
	}
	for _, in := range b.Sources {
		region := in.Region
		if in.CompanyDomain != "" {
			r, ok := regionOf(in.CompanyDomain)
			if !ok {
				return fmt.Errorf("cannot write source %s: its company %s is neither in the registry nor in this batch: add the company with it", in.Key, in.CompanyDomain)
			}
			if r != "" {
				region = r
			}
		}
		cur, exists := curSources[in.Key]
		next, fields := mergeSource(cur, exists, in, region)
		switch {
		case !exists:
			rep.Sources.Added++
			rep.change(Change{What: "source", Key: in.Key, Action: "added"})
			err = w.queue(`INSERT INTO crawl_sources (source_key, vendor, kind, tenant, variant, board, company_domain, url, region,
				status, status_by, evidence, added_by) VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, ''), $8, $9, $10, $11, $12::jsonb, $11)`,
				next.Key, next.Vendor, next.Kind, next.Tenant, next.Variant, next.Board, next.CompanyDomain, next.URL, next.Region,
				next.Status, b.By, evidenceText(in.Evidence))
		case len(fields) > 0 || in.Validated || in.RefreshEvidence:
			if len(fields) > 0 {
				rep.Sources.Changed++
				rep.change(Change{What: "source", Key: in.Key, Action: "changed", Fields: fields})
			} else {
				rep.Sources.Unchanged++
			}
			err = w.queue(`UPDATE crawl_sources SET vendor = $2, kind = $3, tenant = $4, variant = $5, board = $6,
				company_domain = NULLIF($7, ''), url = $8, region = $9,
				status_reason = CASE WHEN status = $10 THEN status_reason ELSE NULL END,
				status_by = CASE WHEN status = $10 THEN status_by ELSE $11 END,
				status_at = CASE WHEN status = $10 THEN status_at ELSE now() END,
				status = $10, evidence = $12::jsonb, updated_at = now() WHERE source_key = $1`,
				next.Key, next.Vendor, next.Kind, next.Tenant, next.Variant, next.Board, next.CompanyDomain, next.URL, next.Region,
				next.Status, b.By, evidenceText(in.Evidence))
		default:
			rep.Sources.Unchanged++
		}
		if err != nil {
			return err
		}
		if exists && (next.Status == SourcePaused || next.Status == SourceRetired) {
			rep.note("%s is %s (%s): left %s; `sources resume %s` brings it back", in.Key, next.Status, cur.StatusReason, next.Status, in.Key)
		}
	}

	// A company's sources outside the batch follow its new region.
	for start := 0; start < len(moved); start += registryChunk {
		chunk := moved[start:min(start+registryChunk, len(moved))]
		rows, err := tx.Query(ctx, `SELECT source_key, company_domain FROM crawl_sources
			WHERE company_domain = ANY($1) AND NOT (source_key = ANY($2))`, chunk, skeys)
		if err != nil {
			return fmt.Errorf("cannot read the sources of companies whose region changed: %w", err)
		}
		type follow struct{ key, domain string }
		fs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (follow, error) {
			var f follow
			return f, r.Scan(&f.key, &f.domain)
		})
		if err != nil {
			return fmt.Errorf("cannot read the sources of companies whose region changed: %w", err)
		}
		for _, f := range fs {
			rep.SourcesMoved++
			if err := w.queue(`UPDATE crawl_sources SET region = $2, updated_at = now() WHERE source_key = $1`, f.key, merged[f.domain].Region); err != nil {
				return err
			}
		}
	}
	return nil
}

func evidenceText(e json.RawMessage) string {
	if len(e) == 0 {
		return "{}"
	}
	return string(e)
}

// batchWriter queues the writes of a batch and sends them registryBatch at a time (nothing when
// not applying).
type batchWriter struct {
	ctx   context.Context
	tx    pgx.Tx
	apply bool
	b     pgx.Batch
}

func (w *batchWriter) queue(sql string, args ...any) error {
	if !w.apply {
		return nil
	}
	w.b.Queue(sql, args...)
	if w.b.Len() >= registryBatch {
		return w.flush(w.ctx)
	}
	return nil
}

func (w *batchWriter) flush(ctx context.Context) error {
	if w.b.Len() == 0 {
		return nil
	}
	b := w.b
	w.b = pgx.Batch{}
	if err := w.tx.SendBatch(ctx, &b).Close(); err != nil {
		return fmt.Errorf("cannot write to the source registry (nothing was written): %w", err)
	}
	return nil
}

func readCompanies(ctx context.Context, tx pgx.Tx, domains []string) (map[string]RegistryCompany, error) {
	out := make(map[string]RegistryCompany, len(domains))
	for start := 0; start < len(domains); start += registryChunk {
		chunk := domains[start:min(start+registryChunk, len(domains))]
		rows, err := tx.Query(ctx, "SELECT "+companyCols+" FROM crawl_companies WHERE domain = ANY($1) FOR UPDATE", chunk)
		if err != nil {
			return nil, fmt.Errorf("cannot read the registry's companies: %w", err)
		}
		cs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (RegistryCompany, error) { return scanCompany(r) })
		if err != nil {
			return nil, fmt.Errorf("cannot read the registry's companies: %w", err)
		}
		for _, c := range cs {
			out[c.Domain] = c
		}
	}
	return out, nil
}

func readSources(ctx context.Context, tx pgx.Tx, keys []string) (map[string]RegistrySource, error) {
	out := make(map[string]RegistrySource, len(keys))
	for start := 0; start < len(keys); start += registryChunk {
		chunk := keys[start:min(start+registryChunk, len(keys))]
		rows, err := tx.Query(ctx, "SELECT "+sourceCols+" FROM crawl_sources WHERE source_key = ANY($1) FOR UPDATE", chunk)
		if err != nil {
			return nil, fmt.Errorf("cannot read the registry's sources: %w", err)
		}
		ss, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (RegistrySource, error) { return scanSource(r) })
		if err != nil {
			return nil, fmt.Errorf("cannot read the registry's sources: %w", err)
		}
		for _, s := range ss {
			out[s.Key] = s
		}
	}
	return out, nil
}

// mergeCompany applies in to cur (the registry's row, when exists) and returns the row to hold and
// the fields that changed (none for an unchanged row; every given field for a new one).
func mergeCompany(cur RegistryCompany, exists bool, in CompanyInput, now time.Time) (RegistryCompany, []string) {
	next := cur
	if !exists {
		next = RegistryCompany{Domain: in.Domain, AgencyKind: "unknown"}
	}
	facts := make(map[string]Fact, len(cur.Facts)+6)
	for k, v := range cur.Facts {
		facts[k] = v
	}
	var changed []string
	set := func(field string, dst *string, v, source string) {
		if v == "" || v == *dst {
			return
		}
		*dst = v
		facts[field] = Fact{Source: source, At: now}
		changed = append(changed, field)
	}
	set("name", &next.Name, in.Name, in.sourceOf("name"))
	set("hq_country", &next.HQCountry, in.HQCountry, in.sourceOf("hq_country"))
	switch {
	case in.HQCountry != "":
		set("region", &next.Region, in.Region, in.sourceOf("hq_country"))
	case next.HQCountry == "":
		set("region", &next.Region, in.Region, in.sourceOf("region"))
	}
	set("industry", &next.Industry, in.Industry, in.sourceOf("industry"))
	set("headcount_band", &next.HeadcountBand, in.HeadcountBand, in.sourceOf("headcount_band"))
	set("agency_kind", &next.AgencyKind, in.AgencyKind, in.sourceOf("agency_kind"))
	next.Facts = facts
	return next, changed
}

// mergeSource applies in to cur (the registry's row, when exists), with region the source's region
// as its company decides it, and returns the row to hold and the fields that changed.
func mergeSource(cur RegistrySource, exists bool, in SourceInput, region string) (RegistrySource, []string) {
	if !exists {
		status := in.Status
		if status == "" {
			status = SourceActive
		}
		return RegistrySource{Key: in.Key, Vendor: in.Vendor, Kind: in.Kind, Tenant: in.Tenant, Variant: in.Variant, Board: in.Board,
			CompanyDomain: in.CompanyDomain, URL: in.URL, Region: region, Status: status}, nil
	}
	next := cur
	var changed []string
	set := func(field string, dst *string, v string) {
		if v != *dst {
			*dst = v
			changed = append(changed, field)
		}
	}
	set("vendor", &next.Vendor, in.Vendor)
	set("kind", &next.Kind, in.Kind)
	set("tenant", &next.Tenant, in.Tenant)
	set("variant", &next.Variant, in.Variant)
	set("board", &next.Board, in.Board)
	set("company_domain", &next.CompanyDomain, in.CompanyDomain)
	set("url", &next.URL, in.URL)
	if region != "" {
		set("region", &next.Region, region)
	}
	if in.Validated && (cur.Status == SourceCandidate || cur.Status == SourceSuspect) {
		set("status", &next.Status, SourceActive)
	}
	return next, changed
}

// SourceFilter selects sources for ListSources; "" matches any. After is the key the previous page
// ended with (its next cursor). Limit is the page size: DefaultSourceList when 0, at most
// MaxSourceList.
type SourceFilter struct {
	Vendor, Status, CompanyDomain, After string
	Limit                                int
}

// ListSources lists the sources f selects, by key, one page at a time: next is the cursor of the
// following page ("" after the last). The call is bounded by a deadline of its own.
func ListSources(ctx context.Context, pool *pgxpool.Pool, f SourceFilter) (page []RegistrySource, next string, err error) {
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	limit := f.Limit
	switch {
	case limit == 0:
		limit = DefaultSourceList
	case limit < 0 || limit > MaxSourceList:
		return nil, "", fmt.Errorf("cannot list sources: limit %d is out of range: give 1 to %d", limit, MaxSourceList)
	}
	if f.Status != "" && !slices.Contains(SourceStatuses(), f.Status) {
		return nil, "", fmt.Errorf("cannot list sources: unknown status %q: use one of %s", f.Status, strings.Join(SourceStatuses(), ", "))
	}
	where := []string{"source_key > $1"}
	args := []any{f.After}
	for _, c := range []struct{ col, v string }{{"vendor", f.Vendor}, {"status", f.Status}, {"company_domain", f.CompanyDomain}} {
		if c.v != "" {
			args = append(args, c.v)
			where = append(where, fmt.Sprintf("%s = $%d", c.col, len(args)))
		}
	}
	args = append(args, limit+1)
	rows, err := pool.Query(ctx, "SELECT "+sourceCols+" FROM crawl_sources WHERE "+strings.Join(where, " AND ")+
		fmt.Sprintf(" ORDER BY source_key LIMIT $%d", len(args)), args...)
	if err != nil {
		return nil, "", fmt.Errorf("cannot list sources: %w", err)
	}
	page, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (RegistrySource, error) { return scanSource(r) })
	if err != nil {
		return nil, "", fmt.Errorf("cannot list sources: %w", err)
	}
	if len(page) > limit {
		page = page[:limit]
		next = page[limit-1].Key
	}
	return page, next, nil
}

// GetSource reads one source and its company (nil for a feed without one); ErrSourceNotFound when
// the registry has no such key.
func GetSource(ctx context.Context, pool *pgxpool.Pool, key string) (RegistrySource, *RegistryCompany, error) {
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	s, err := scanSource(pool.QueryRow(ctx, "SELECT "+sourceCols+" FROM crawl_sources WHERE source_key = $1", key))
	if errors.Is(err, pgx.ErrNoRows) {
		return s, nil, fmt.Errorf("cannot read source %q: %w (list them with `hiringsignal sources list`)", key, ErrSourceNotFound)
	}
	if err != nil {
		return s, nil, fmt.Errorf("cannot read source %q: %w", key, err)
	}
	if s.CompanyDomain == "" {
		return s, nil, nil
	}
	c, err := scanCompany(pool.QueryRow(ctx, "SELECT "+companyCols+" FROM crawl_companies WHERE domain = $1", s.CompanyDomain))
	if err != nil {
		return s, nil, fmt.Errorf("cannot read the company of source %q: %w", key, err)
	}
	return s, &c, nil
}

// SetSourceStatus sets a source's status on behalf of by and returns the status it had. paused and
// retired need a reason (at most MaxStatusReason bytes), kept until the status changes again; any
// status may follow any other (resuming a retired source is allowed: its previous status says so).
// A source made active is due at once, cooldown included (cooldown_until is cleared; its
// consecutive failures are kept, so a source resumed unmended cools down and turns suspect again
// at its next failed read). Setting the status it already has with the same reason
// writes nothing.
func SetSourceStatus(ctx context.Context, pool *pgxpool.Pool, key, status, reason, by string) (previous string, err error) {
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	reason = strings.TrimSpace(reason)
	switch {
	case !slices.Contains(SourceStatuses(), status):
		return "", fmt.Errorf("cannot set the status of %s: unknown status %q: use one of %s", key, status, strings.Join(SourceStatuses(), ", "))
	case (status == SourcePaused || status == SourceRetired) && reason == "":
		return "", fmt.Errorf("cannot set %s %s: say why (a reason is required to pause or retire a source)", key, status)
	case len(reason) > MaxStatusReason:
		return "", fmt.Errorf("cannot set the status of %s: the reason has %d bytes: keep it to %d", key, len(reason), MaxStatusReason)
	case strings.TrimSpace(by) == "":
		return "", fmt.Errorf("cannot set the status of %s: say who sets it", key)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return "", fmt.Errorf("cannot set the status of %s: %w", key, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var curReason string
	err = tx.QueryRow(ctx, "SELECT status, coalesce(status_reason, '') FROM crawl_sources WHERE source_key = $1 FOR UPDATE", key).Scan(&previous, &curReason)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("cannot set the status of %q: %w (list them with `hiringsignal sources list`)", key, ErrSourceNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("cannot set the status of %s: %w", key, err)
	}
	if previous == status && reason == curReason {
		return previous, nil
	}
	if _, err := tx.Exec(ctx, `UPDATE crawl_sources SET status = $2, status_reason = NULLIF($3, ''), status_by = $4, status_at = now(),
		next_due_at = CASE WHEN $2 = 'active' THEN least(next_due_at, now()) ELSE next_due_at END,
		cooldown_until = CASE WHEN $2 = 'active' THEN NULL ELSE cooldown_until END, updated_at = now()
		WHERE source_key = $1`, key, status, reason, by); err != nil {
		return "", fmt.Errorf("cannot set the status of %s: %w", key, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return "", fmt.Errorf("cannot set the status of %s: %w", key, err)
	}
	return previous, nil
}

// RegistryListing is the registry as the crawl reads it: every company and every source that is
// not a candidate, each with its status (retired ones included, so the caller decides what leaving
// the directory means). Facts and evidence are not read.
type RegistryListing struct {
	Companies []RegistryCompany
	Sources   []RegistrySource
}

// RegistryDirectory reads the registry for the crawl's directory, companies by domain and sources
// by key. The call is bounded by a deadline of its own.
func RegistryDirectory(ctx context.Context, pool *pgxpool.Pool) (RegistryListing, error) {
	ctx, cancel := context.WithTimeout(ctx, registryDirectoryTimeout)
	defer cancel()
	var out RegistryListing
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return out, fmt.Errorf("cannot read the source registry: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	rows, err := tx.Query(ctx, `SELECT domain, name, hq_country, region, industry, headcount_band, agency_kind
		FROM crawl_companies ORDER BY domain`)
	if err != nil {
		return out, fmt.Errorf("cannot read the registry's companies: %w", err)
	}
	out.Companies, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (RegistryCompany, error) {
		var c RegistryCompany
		return c, r.Scan(&c.Domain, &c.Name, &c.HQCountry, &c.Region, &c.Industry, &c.HeadcountBand, &c.AgencyKind)
	})
	if err != nil {
		return out, fmt.Errorf("cannot read the registry's companies: %w", err)
	}
	rows, err = tx.Query(ctx, `SELECT source_key, vendor, kind, tenant, variant, board, coalesce(company_domain, ''), url, region, status
		FROM crawl_sources WHERE status <> 'candidate' ORDER BY source_key`)
	if err != nil {
		return out, fmt.Errorf("cannot read the registry's sources: %w", err)
	}
	out.Sources, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (RegistrySource, error) {
		var s RegistrySource
		return s, r.Scan(&s.Key, &s.Vendor, &s.Kind, &s.Tenant, &s.Variant, &s.Board, &s.CompanyDomain, &s.URL, &s.Region, &s.Status)
	})
	if err != nil {
		return out, fmt.Errorf("cannot read the registry's sources: %w", err)
	}
	return out, nil
}
