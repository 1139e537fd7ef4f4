package analytics

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// A req's posting facts and descriptions. The facts ride with the req's other attributes on
// every event (events columns, migrations 0004 and 0005): a handful of short strings and numbers, empty
// when the posting does not say. The description's cleaned text is stored apart, once per
// distinct text of a req (req_descriptions, keyed by req_key and the text's hash), and an event
// names it by its hash: the ledger stays small, and a req whose text never changes stores it
// once whatever its number of events.

// Technology kinds of Facts.TechKinds.
const (
	TechNamed      uint8 = 0 // named in the duties, the stack or the company's text
	TechRequired   uint8 = 1 // named by the title or as a requirement
	TechNiceToHave uint8 = 2 // named only as a nice-to-have
)

// Bounds of the facts an event carries: what a hostile posting can make a ledger row hold.
const (
	MaxTechnologies    = 64  // technology slugs per req
	MaxRemoteCountries = 64  // countries a remote role is open to
	MaxRemoteRegions   = 16  // regions a remote role is open to (normalize.RemoteRegions has 7)
	MaxStatedPayText   = 160 // bytes of the words the stated pay was read from
	// MaxDescription is the most bytes of cleaned description text stored per req and text: 16
	// KiB, above a long posting's text (10–15 KB) and a quarter of the raw bound
	// (ats.MaxDescription, 64 KiB of HTML).
	MaxDescription = 16 << 10
)

// Facts is what a req's posting states of itself, as its best observation gave it: the feed's
// structured fields first, its title and text (internal/jobtext) filling the gaps. Every field
// is empty (nil, "", 0) when the posting does not say it.
type Facts struct {
	Technologies    []string // slugs of internal/jobtext's vocabulary, in the order first named
	TechKinds       []uint8  // per technology: TechNamed, TechRequired or TechNiceToHave
	Seniority       string   // one of normalize.Seniorities
	EmploymentType  string   // one of normalize.EmploymentTypes
	WorkplaceType   string   // one of normalize.WorkplaceTypes
	RemoteCountries []string // canonical country names a remote role is open to, sorted
	RemoteRegions   []string // wider areas a remote role is open to (normalize.RemoteRegions), sorted
	YearsMin        *uint8   // the least years of experience asked for
	Visa            *bool    // sponsors visas (true), rules it out (false)
	// StatedPay is pay the posting's text states when its feed declares none: as written, never
	// converted (nil when none).
	StatedPay *StatedPay
	// DescriptionHash names the req's cleaned description in req_descriptions (DescriptionHash
	// of the text); 0 when the posting has none.
	DescriptionHash uint64
}

// StatedPay is pay as a posting's text states it.
type StatedPay struct {
	Min, Max *float64 // a single figure is both; "up to X" has no Min, "from X" no Max
	Currency string   // ISO 4217
	// CurrencyInferred: the text wrote a bare "$", and Currency is the crawl's reading of it (the
	// req's country's dollar, else USD), not a currency the text names.
	CurrencyInferred bool
	Period           string // year, month, week, day or hour; "" when the text states none
	Text             string // the words it was read from, at most MaxStatedPayText bytes
}

// Check refuses facts a ledger row must not hold (WriteCycle refuses an event whose facts fail it).
func (f *Facts) Check() error {
	switch {
	case len(f.Technologies) != len(f.TechKinds):
		return fmt.Errorf("%d technologies with %d kinds", len(f.Technologies), len(f.TechKinds))
	case len(f.Technologies) > MaxTechnologies:
		return fmt.Errorf("%d technologies, above %d", len(f.Technologies), MaxTechnologies)
	case len(f.RemoteCountries) > MaxRemoteCountries:
		return fmt.Errorf("%d remote countries, above %d", len(f.RemoteCountries), MaxRemoteCountries)
	case len(f.RemoteRegions) > MaxRemoteRegions:
		return fmt.Errorf("%d remote regions, above %d", len(f.RemoteRegions), MaxRemoteRegions)
	case f.StatedPay != nil && len(f.StatedPay.Text) > MaxStatedPayText:
		return fmt.Errorf("stated pay text of %d bytes, above %d", len(f.StatedPay.Text), MaxStatedPayText)
	}
	for _, k := range f.TechKinds {
		if k > TechNiceToHave {
			return fmt.Errorf("technology kind %d is none of 0, 1, 2", k)
		}
	}
	return nil
}

// factColumns are the events columns of Facts, in the order appendFacts and scanFacts use.
const factColumns = `technologies, technology_kinds, seniority, employment_type, workplace_type, remote_countries,
	years_experience_min, visa_sponsorship, stated_pay_min, stated_pay_max, stated_pay_currency, stated_pay_period,
	stated_pay_text, description_hash, remote_regions, stated_pay_currency_inferred`

// factValues are the values of f for factColumns.
func (f *Facts) factValues() []any {
	var visa *uint8
	if f.Visa != nil {
		v := uint8(0)
		if *f.Visa {
			v = 1
		}
		visa = &v
	}
	var pMin, pMax *float64
	var cur, period, text string
	var inferred uint8
	if p := f.StatedPay; p != nil {
		pMin, pMax, cur, period, text = p.Min, p.Max, p.Currency, p.Period, p.Text
		if p.CurrencyInferred {
			inferred = 1
		}
	}
	techs, kinds, countries, regions := f.Technologies, f.TechKinds, f.RemoteCountries, f.RemoteRegions
	if techs == nil {
		techs, kinds = []string{}, []uint8{}
	}
	if countries == nil {
		countries = []string{}
	}
	if regions == nil {
		regions = []string{}
	}
	return []any{techs, kinds, f.Seniority, f.EmploymentType, f.WorkplaceType, countries, f.YearsMin, visa,
		pMin, pMax, cur, period, text, f.DescriptionHash, regions, inferred}
}

// factScan is the scan targets of factColumns; facts() turns them into Facts.
type factScan struct {
	techs     []string
	kinds     []uint8
	sen, emp  string
	work      string
	countries []string
	years     *uint8
	visa      *uint8
	pMin      *float64
	pMax      *float64
	cur       string
	period    string
	text      string
	hash      uint64
	regions   []string
	inferred  uint8
}

func (s *factScan) targets() []any {
	return []any{&s.techs, &s.kinds, &s.sen, &s.emp, &s.work, &s.countries, &s.years, &s.visa, &s.pMin, &s.pMax, &s.cur,
		&s.period, &s.text, &s.hash, &s.regions, &s.inferred}
}

func (s *factScan) facts() Facts {
	f := Facts{Seniority: s.sen, EmploymentType: s.emp, WorkplaceType: s.work, YearsMin: s.years, DescriptionHash: s.hash}
	if len(s.techs) > 0 {
		f.Technologies = s.techs
		f.TechKinds = s.kinds
		if len(f.TechKinds) != len(f.Technologies) { // a row written without kinds: every one named
			f.TechKinds = make([]uint8, len(f.Technologies))
		}
	}
	if len(s.countries) > 0 {
		f.RemoteCountries = s.countries
	}
	if len(s.regions) > 0 {
		f.RemoteRegions = s.regions
	}
	if s.visa != nil {
		v := *s.visa == 1
		f.Visa = &v
	}
	if s.pMin != nil || s.pMax != nil || s.cur != "" {
		f.StatedPay = &StatedPay{Min: s.pMin, Max: s.pMax, Currency: s.cur, CurrencyInferred: s.inferred == 1, Period: s.period, Text: s.text}
	}
	return f
}

// Description is one row of req_descriptions: a req's cleaned description text and its hash.
type Description struct {
	ReqKey string
	Hash   uint64
	Text   string
}

// DescriptionHash is the hash that names text in req_descriptions and on events (FNV-1a, 64
// bits); 0 for "" and never 0 for a text.
func DescriptionHash(text string) uint64 {
	if text == "" {
		return 0
	}
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(text); i++ {
		h ^= uint64(text[i])
		h *= prime
	}
	if h == 0 {
		h = 1
	}
	return h
}

// WriteDescriptions inserts descriptions (one block; a quorum write in cluster mode), written at
// at. A row is read only once a committed event names its hash, so rows written ahead of a cycle
// that then fails are never served, and writing the same row again is harmless (the same key,
// replaced on merge).
func WriteDescriptions(ctx context.Context, ch driver.Conn, ds []Description, at time.Time) error {
	if len(ds) == 0 {
		return nil
	}
	for i := range ds {
		d := &ds[i]
		if !isHexKey(d.ReqKey) || d.Hash == 0 || d.Hash != DescriptionHash(d.Text) || len(d.Text) > MaxDescription {
			return fmt.Errorf("cannot write the description of req %q: it needs a req_key, its text's hash and at most %d bytes", d.ReqKey, MaxDescription)
		}
	}
	wr, err := newWriter(ctx, ch)
	if err != nil {
		return fmt.Errorf("cannot write %d descriptions: %w", len(ds), err)
	}
	if err := wr.insert("INSERT INTO req_descriptions (req_key, description_hash, description, written_at)", func(b driver.Batch) error {
		for i := range ds {
			if err := b.Append(ds[i].ReqKey, ds[i].Hash, ds[i].Text, at); err != nil {
				return fmt.Errorf("cannot append a description: %w", err)
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("cannot write %d descriptions: %w", len(ds), err)
	}
	return nil
}

// MaxDescriptionsRead bounds one ReadDescriptions call: the reqs of a page.
const MaxDescriptionsRead = 200

// ReadDescriptions reads the descriptions want names (req_key → description hash, from the
// req's latest committed event): one primary-key range read of req_descriptions, at most
// MaxDescriptionsRead reqs. A req whose text is not found (its hash 0, or a row not yet
// replicated) is absent from the answer.
func ReadDescriptions(ctx context.Context, ch driver.Conn, want map[string]uint64) (map[string]string, error) {
	out := make(map[string]string, len(want))
	if len(want) == 0 {
		return out, nil
	}
	if len(want) > MaxDescriptionsRead {
		return nil, fmt.Errorf("cannot read %d descriptions at once: at most %d", len(want), MaxDescriptionsRead)
	}
	// Inlined: ClickHouse 18.16 takes a bound slice as an array, which IN refuses. req_keys are
	// 16 hex characters (checked) and hashes formatted integers, so nothing reaches the SQL as text.
	var in strings.Builder
	n := 0
	for k, h := range want {
		if !isHexKey(k) {
			return nil, fmt.Errorf("cannot read the description of req_key %q: not a req_key", k)
		}
		if h == 0 {
			continue
		}
		if n > 0 {
			in.WriteByte(',')
		}
		in.WriteString("('" + k + "'," + strconv.FormatUint(h, 10) + ")")
		n++
	}
	if n == 0 {
		return out, nil
	}
	rows, err := ch.Query(ctx, "SELECT req_key, any(description) FROM req_descriptions WHERE (req_key, description_hash) IN ("+
		in.String()+") GROUP BY req_key, description_hash")
	if err != nil {
		return nil, fmt.Errorf("cannot read the descriptions of %d reqs: %w", n, err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, text string
		if err := rows.Scan(&k, &text); err != nil {
			return nil, fmt.Errorf("cannot scan a description: %w", err)
		}
		out[k] = text
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cannot read the descriptions of %d reqs: %w", n, err)
	}
	return out, nil
}
