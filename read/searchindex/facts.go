package searchindex

import (
	"math"
	"slices"
	"strings"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/jobtext"
	"github.com/planehq/hiringsignal/internal/normalize"
)

// A req's posting facts (analytics.Facts: what the posting states of itself) as the index keeps
// them: 28 bytes per req (its Record's reqFacts and description hash) whatever it states. The vocabularies' values are small indexes
// (seniority, employment and workplace type: a byte each; a technology: its row of jobtext's
// vocabulary), a technology list is interned in one arena (reqs stating the same list share it),
// remote country lists are interned, and stated pay, which few reqs have, sits in a side table.
// The description's text is not kept: the req keeps the hash that names it in ClickHouse
// (analytics.ReadDescriptions reads a page's texts).

// reqFacts is a req's facts in the index. Zero is "the posting states nothing".
type reqFacts struct {
	tech      uint32 // offset+1 in Index.techArena of its list (0: none)
	remote    uint32 // id+1 of its country list in Index.remoteSets (0: none)
	pay       uint32 // index+1 in Index.pays (0: none)
	seniority uint8  // index+1 in normalize.Seniorities (0: not said)
	emp       uint8  // index+1 in normalize.EmploymentTypes
	work      uint8  // index+1 in normalize.WorkplaceTypes
	years     uint8  // years+1 (0: not said)
	visa      uint8  // 0 not said, 1 no, 2 yes
	regions   uint8  // bit i: regionOrder[i]
}

// Technology vocabulary ids: rows of jobtext.Vocabulary, fixed for the process (ids are never
// stored; the ledger holds slugs).
var (
	techRows = jobtext.Vocabulary()
	techIDs  = func() map[string]uint16 {
		m := make(map[string]uint16, len(techRows))
		for i, t := range techRows {
			m[t.Slug] = uint16(i)
		}
		return m
	}()
)

// regionOrder is normalize.RemoteRegions sorted (the ledger's order of a req's regions): bit i of
// reqFacts.regions is its value i. Seven regions fit the byte.
var regionOrder = func() []string {
	r := slices.Sorted(slices.Values(normalize.RemoteRegions))
	if len(r) > 8 {
		panic("searchindex: more remote regions than reqFacts.regions holds")
	}
	return r
}()

// A technology list in the arena: its length, then per technology id<<2 | kind
// (analytics.TechNamed, TechRequired, TechNiceToHave).
const techKindBits = 2

// Technology is one technology of a req as served.
type Technology struct {
	Slug, Name string
	Required   bool // named by the title or as a requirement
	NiceToHave bool // named only as a nice-to-have
}

// Facts is what a req's posting states of itself, as served: empty fields when it does not say.
type Facts struct {
	Technologies    []Technology
	Seniority       string
	EmploymentType  string
	WorkplaceType   string
	RemoteCountries []string
	RemoteRegions   []string // of normalize.RemoteRegions, sorted as the ledger holds them
	YearsMin        *int
	Visa            *bool
	StatedPay       *analytics.StatedPay
	DescriptionHash uint64 // names its cleaned description in ClickHouse; 0: none
}

// factTables are the index's shared fact storage.
type factTables struct {
	techArena  []uint16
	remoteSets [][]string
	pays       []analytics.StatedPay
}

// factInterner builds factTables (a Builder's).
type factInterner struct {
	t       factTables
	lists   map[string]uint32 // arena content → offset+1
	remotes map[string]uint32 // joined countries → id+1
	buf     []uint16
}

func newFactInterner() *factInterner {
	return &factInterner{lists: map[string]uint32{}, remotes: map[string]uint32{}, t: factTables{techArena: make([]uint16, 0, 1<<12)}}
}

// facts turns the ledger's facts into the index's, interning lists through in and strs.
func (in *factInterner) facts(f *analytics.Facts, intern func(string) string) reqFacts {
	var r reqFacts
	r.seniority = vocabByte(normalize.Seniorities, f.Seniority)
	r.emp = vocabByte(normalize.EmploymentTypes, f.EmploymentType)
	r.work = vocabByte(normalize.WorkplaceTypes, f.WorkplaceType)
	for _, reg := range f.RemoteRegions {
		if i := slices.Index(regionOrder, reg); i >= 0 && i < 8 {
			r.regions |= 1 << i
		}
	}
	if f.YearsMin != nil && *f.YearsMin < math.MaxUint8 {
		r.years = *f.YearsMin + 1
	}
	if f.Visa != nil {
		r.visa = 1
		if *f.Visa {
			r.visa = 2
		}
	}
	if len(f.Technologies) > 0 {
		in.buf = in.buf[:0]
		for i, slug := range f.Technologies {
			id, ok := techIDs[slug]
			if !ok || len(in.buf) == math.MaxUint16 {
				continue // a slug this build's vocabulary does not have
			}
			var kind uint16
			if i < len(f.TechKinds) {
				kind = uint16(f.TechKinds[i] & 3)
			}
			in.buf = append(in.buf, id<<techKindBits|kind)
		}
		if len(in.buf) > 0 {
			key := uint16sKey(in.buf)
			off, ok := in.lists[key]
			if !ok {
				off = uint32(len(in.t.techArena)) + 1
				in.t.techArena = append(in.t.techArena, uint16(len(in.buf)))
				in.t.techArena = append(in.t.techArena, in.buf...)
				in.lists[key] = off
			}
			r.tech = off
		}
	}
	if len(f.RemoteCountries) > 0 {
		key := strings.Join(f.RemoteCountries, "\x00")
		id, ok := in.remotes[key]
		if !ok {
			l := make([]string, len(f.RemoteCountries))
			for i, c := range f.RemoteCountries {
				l[i] = intern(c)
			}
			in.t.remoteSets = append(in.t.remoteSets, l)
			id = uint32(len(in.t.remoteSets))
			in.remotes[key] = id
		}
		r.remote = id
	}
	if p := f.StatedPay; p != nil {
		c := *p
		c.Currency, c.Period = intern(c.Currency), intern(c.Period)
		in.t.pays = append(in.t.pays, c)
		r.pay = uint32(len(in.t.pays))
	}
	return r
}

func uint16sKey(v []uint16) string {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		b[2*i], b[2*i+1] = byte(x), byte(x>>8)
	}
	return string(b)
}

// vocabByte is v's index+1 in vocab, 0 when v is "" or none of it.
func vocabByte(vocab []string, v string) uint8 {
	if i := slices.Index(vocab, v); i >= 0 {
		return uint8(i + 1)
	}
	return 0
}

func vocabOf(vocab []string, b uint8) string {
	if b == 0 || int(b) > len(vocab) {
		return ""
	}
	return vocab[b-1]
}

// techList is the req's technology entries (id<<2 | kind), nil when none.
func (x *Index) techList(f *reqFacts) []uint16 {
	if f.tech == 0 {
		return nil
	}
	off := f.tech - 1
	n := uint32(x.facts.techArena[off])
	return x.facts.techArena[off+1 : off+1+n]
}

// Facts is what the req's posting states, as served (a fresh value: the caller's).
func (x *Index) Facts(r *Req) Facts {
	f := &r.facts
	out := Facts{Seniority: vocabOf(normalize.Seniorities, f.seniority), EmploymentType: vocabOf(normalize.EmploymentTypes, f.emp),
		WorkplaceType: vocabOf(normalize.WorkplaceTypes, f.work), DescriptionHash: r.descHash}
	for _, e := range x.techList(f) {
		t := techRows[e>>techKindBits]
		kind := uint8(e & 3)
		out.Technologies = append(out.Technologies, Technology{Slug: t.Slug, Name: t.Name, Required: kind == analytics.TechRequired,
			NiceToHave: kind == analytics.TechNiceToHave})
	}
	if f.remote != 0 {
		out.RemoteCountries = x.facts.remoteSets[f.remote-1]
	}
	for i, reg := range regionOrder {
		if i < 8 && f.regions&(1<<i) != 0 {
			out.RemoteRegions = append(out.RemoteRegions, reg)
		}
	}
	if f.years != 0 {
		y := int(f.years - 1)
		out.YearsMin = &y
	}
	if f.visa != 0 {
		v := f.visa == 2
		out.Visa = &v
	}
	if f.pay != 0 {
		p := x.facts.pays[f.pay-1]
		out.StatedPay = &p
	}
	return out
}

// DescriptionHash is the hash naming the req's cleaned description (0: it has none).
func (r *Record) DescriptionHash() uint64 { return r.descHash }

// Seniority is the seniority the req's posting states ("" when none): its title's, else its
// feed's level, else its text's.
func (r *Record) Seniority() string { return vocabOf(normalize.Seniorities, r.facts.seniority) }

// TechnologySlug reports whether slug is a technology of the vocabulary (jobtext's).
func TechnologySlug(slug string) bool { _, ok := techIDs[slug]; return ok }

// factFilter is the compiled form of a Filter's fact fields.
type factFilter struct {
	tech                          []bool // by technology id; nil: not asked
	seniority, emp, work          uint32 // bit i+1: value i of its vocabulary (bit 0, "not said", is never set)
	askSen, askEmp, askWork, asks bool
}

func compileFacts(f *Filter) factFilter {
	c := factFilter{askSen: len(f.Seniority) > 0, askEmp: len(f.EmploymentTypes) > 0, askWork: len(f.WorkplaceTypes) > 0}
	if len(f.Technologies) > 0 {
		c.tech = make([]bool, len(techRows))
		for _, s := range f.Technologies {
			if id, ok := techIDs[s]; ok {
				c.tech[id] = true
			}
		}
	}
	c.seniority = vocabMask(normalize.Seniorities, f.Seniority)
	c.emp = vocabMask(normalize.EmploymentTypes, f.EmploymentTypes)
	c.work = vocabMask(normalize.WorkplaceTypes, f.WorkplaceTypes)
	c.asks = c.tech != nil || c.askSen || c.askEmp || c.askWork
	return c
}

func vocabMask(vocab, vals []string) uint32 {
	var m uint32
	for _, v := range vals {
		if b := vocabByte(vocab, v); b != 0 {
			m |= 1 << b
		}
	}
	return m
}

// match reports whether r's facts hold every field asked (OR within a field): a technology list
// naming one of the technologies (required or not), a seniority, employment type or workplace
// type among those asked. A fact the posting does not state matches no value (fail-closed).
func (c *factFilter) match(x *Index, r *Req) bool {
	f := &r.facts
	switch {
	case c.askSen && c.seniority&(1<<f.seniority) == 0,
		c.askEmp && c.emp&(1<<f.emp) == 0,
		c.askWork && c.work&(1<<f.work) == 0:
		return false
	}
	if c.tech != nil {
		for _, e := range x.techList(f) {
			if c.tech[e>>techKindBits] {
				return true
			}
		}
		return false
	}
	return true
}
