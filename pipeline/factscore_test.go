package pipeline_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/testkit/crawltruth"
	"github.com/planehq/hiringsignal/internal/testkit/storetest"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/sim"
)

// TestPostingFactsMatchTheTruth crawls a world of every format through the production crawl
// (RunTick against the simulator on loopback, into ClickHouse) and scores the facts the ledger
// holds for every live req (its latest committed event: what the read side serves) against what
// the simulator says the req's description and structured fields state (sim.DescriptionTruth).
//
// Fields: technologies (slugs, any kind), technologies_required and technologies_nice (the
// slugs of that kind), seniority, employment_type, workplace_type, remote_countries,
// years_experience_min, visa_sponsorship and stated_pay (min, max, currency and period alike).
//
//   - A set field (technologies, remote_countries) is scored over its members, summed over reqs:
//     precision = members we hold that the truth lists / members we hold; recall = members the
//     truth lists that we hold / members the truth lists.
//   - A scalar field: precision = reqs where we hold the truth's value / reqs where we hold a
//     value; recall = reqs where we hold the truth's value / reqs whose truth states one.
//
// Precision is scored on every req: whatever we hold must be what the posting says. Recall is
// scored only where the req's postings carry the field. The ledger holds the facts of the req's
// best posting (its ATS tenant's, else a board's: pipeline's better); where that posting's list
// carries no description (SmartRecruiters, BambooHR, Breezy, JOIN, Workday, Jobvite, JazzHR,
// Rippling, Workable without details=true), the text of another posting of the req (a board's,
// the aggregator's) fills what its structured fields leave unset. So every field is carried
// when the best posting's feed carries the description, or its list carries none and another
// source of the req does; else only the best feed's structured fields (feedCarries) and the
// title's seniority are. iCIMS cards carry at most the text's opening, which is not the text:
// where another source of the req carries the whole text, that fuller text is read (and scored);
// else recall of the text's fields is not scored on them. Stated pay is the text's pay where no
// posting of the req declared pay (the feed's wins: it is the req's salary instead). Every field
// must reach 0.95 both ways; the test prints the table and the fill rates per format of the best
// posting. What keeps a field below 1 is a reading the crawl chose where the simulator's feeds
// say otherwise: a bare "$" on a hybrid Canadian req, which the crawl reads as CAD (marked
// inferred) and the simulator writes for USD pay.
func TestPostingFactsMatchTheTruth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const companies, first, last = 300, 900, 901
	world, base := simServer(t, sim.Config{Seed: 11, Companies: companies, NoGzip: true})
	ch, _ := storetest.ClickHouse(t, "pipeline_factscore")
	c, err := pipeline.NewCrawler(ctx, ch, pipeline.Config{Fetch: testFetch(), Log: quietLog()})
	require.NoError(t, err)
	sources := map[string]sim.Source{}
	for tick := first; tick <= last; tick++ {
		world.Pin(tick)
		stats, err := c.RunTick(ctx, base, tick)
		require.NoError(t, err)
		require.Empty(t, crawltruth.Unread(stats), "a fault-free world: every source is read")
		for _, s := range world.Directory(tick).Sources {
			sources[s.Key] = s
		}
	}

	truth := world.Truth(last)
	keys := make([]string, 0, len(truth.Reqs))
	byKey := map[string]sim.TruthReq{}
	for _, r := range truth.Reqs {
		k := crawltruth.TruthKey(r)
		_, dup := byKey[k]
		require.False(t, dup, "two truth reqs share req_key %s", k)
		keys = append(keys, k)
		byKey[k] = r
	}
	wm, _, err := analytics.Watermark(ctx, ch)
	require.NoError(t, err)
	latest, err := analytics.LatestEvents(ctx, ch, wm, keys)
	require.NoError(t, err)

	sc := newFactScore()
	for _, k := range keys {
		r, e := byKey[k], latest[k]
		require.True(t, e.Live(), "req %s (%s at %s) is live", k, r.Title, r.CompanyDomain)
		src := bestSource(e.Sources, sources)
		sc.add(t, src, textCarried(src, e.Sources, sources), r, e)
	}
	sc.report(t)
	for _, f := range factFields {
		p, rc := sc.precision(f), sc.recall(f)
		require.GreaterOrEqual(t, p, 0.95, "precision of %s", f)
		require.GreaterOrEqual(t, rc, 0.95, "recall of %s", f)
	}
}

// bestSource is the source of the posting whose facts an event holds: among the sources that
// carried the req, an ATS tenant first, then the least key (pipeline's better).
func bestSource(keys []string, sources map[string]sim.Source) sim.Source {
	var best sim.Source
	for _, k := range keys {
		s := sources[k]
		switch {
		case best.Key == "":
			best = s
		case (s.Kind == sim.KindATSTenant) != (best.Kind == sim.KindATSTenant):
			if s.Kind == sim.KindATSTenant {
				best = s
			}
		case s.Key < best.Key:
			best = s
		}
	}
	return best
}

// textCarried reports whether the req's facts read its whole text: its best source's postings
// carry it, or carry none or only an opening (an iCIMS card's) while another of its sources'
// carry it whole (the fuller text is read).
func textCarried(best sim.Source, keys []string, sources map[string]sim.Source) bool {
	if carriesText(best) {
		return true
	}
	for _, k := range keys {
		if carriesText(sources[k]) {
			return true
		}
	}
	return false
}

// carriesText reports whether source s's postings carry their whole description.
func carriesText(s sim.Source) bool {
	switch s.Vendor {
	case "greenhouse", "lever", "ashby", "recruitee", "personio", "teamtailor", "pinpoint", "jsonld", "aggregator":
		return true
	case "workable":
		return strings.Contains(s.URL, "details=true")
	}
	return false
}

// feedCarries says which structured fields of a feed without the description state a truth
// field: employment type (a field of its own), the workplace (a field of its own, or only a
// remote flag or "Remote" location).
var feedCarries = map[string]struct{ employment, workplace, remoteOnly bool }{
	"smartrecruiters": {employment: true, remoteOnly: true},
	"bamboohr":        {employment: true, workplace: true},
	"breezy":          {employment: true, remoteOnly: true},
	"join":            {employment: true, workplace: true},
	"workday":         {remoteOnly: true},
	"jobvite":         {remoteOnly: true},
	"jazzhr":          {employment: true, remoteOnly: true},
	"rippling":        {workplace: true},
	"icims":           {employment: true, remoteOnly: true},
	"workable":        {employment: true, remoteOnly: true},
}

var factFields = []string{"technologies", "technologies_required", "technologies_nice", "seniority", "employment_type",
	"workplace_type", "remote_countries", "years_experience_min", "visa_sponsorship", "stated_pay"}

// factScore sums, per field, what precision and recall count, and per format what the ledger
// fills.
type factScore struct {
	held, heldOK     map[string]int // field → values (members) we hold, and of them the truth's
	stated, statedOK map[string]int // field → values (members) the truth states where carried, and of them held
	reqs             map[string]int // format → reqs
	filled           map[string]map[string]int
	examples         map[string][]string
}

func newFactScore() *factScore {
	return &factScore{held: map[string]int{}, heldOK: map[string]int{}, stated: map[string]int{}, statedOK: map[string]int{},
		reqs: map[string]int{}, filled: map[string]map[string]int{}, examples: map[string][]string{}}
}

func (s *factScore) precision(f string) float64 { return ratio(s.heldOK[f], s.held[f]) }
func (s *factScore) recall(f string) float64    { return ratio(s.statedOK[f], s.stated[f]) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (s *factScore) miss(field, format string, r sim.TruthReq, e *analytics.Event, kind string) {
	if len(s.examples[field]) < 3 {
		s.examples[field] = append(s.examples[field], fmt.Sprintf("%s %s: %q (%s) via %s: truth %s, ledger %s", kind, field, r.Title, r.Country, format,
			truthString(*r.Description), factString(e.Facts)))
	}
}

// set scores a set field.
func (s *factScore) set(field, format string, r sim.TruthReq, e *analytics.Event, held, truth []string, carried bool) {
	ok := 0
	for _, x := range held {
		if slices.Contains(truth, x) {
			ok++
		}
	}
	s.held[field] += len(held)
	s.heldOK[field] += ok
	if ok < len(held) {
		s.miss(field, format, r, e, "precision")
	}
	if carried {
		s.stated[field] += len(truth)
		s.statedOK[field] += ok
		if ok < len(truth) {
			s.miss(field, format, r, e, "recall")
		}
	}
}

// scalar scores a scalar field: held and stated say whether we hold and the truth states a
// value, equal whether the two are the same.
func (s *factScore) scalar(field, format string, r sim.TruthReq, e *analytics.Event, held, stated, equal, carried bool) {
	if held {
		s.held[field]++
		if stated && equal {
			s.heldOK[field]++
		} else {
			s.miss(field, format, r, e, "precision")
		}
	}
	if carried && stated {
		s.stated[field]++
		if held && equal {
			s.statedOK[field]++
		} else {
			s.miss(field, format, r, e, "recall")
		}
	}
}

func (s *factScore) add(t *testing.T, src sim.Source, text bool, r sim.TruthReq, e *analytics.Event) {
	t.Helper()
	d, f := *r.Description, e.Facts
	format := src.Vendor
	fc := feedCarries[src.Vendor]
	var all, req, nice []string
	for i, x := range f.Technologies {
		all = append(all, x)
		switch f.TechKinds[i] {
		case analytics.TechRequired:
			req = append(req, x)
		case analytics.TechNiceToHave:
			nice = append(nice, x)
		}
	}
	s.set("technologies", format, r, e, all, append(slices.Clone(d.TechnologiesRequired), d.TechnologiesNice...), text)
	s.set("technologies_required", format, r, e, req, d.TechnologiesRequired, text)
	s.set("technologies_nice", format, r, e, nice, d.TechnologiesNice, text)
	s.scalar("seniority", format, r, e, f.Seniority != "", d.Seniority != "", f.Seniority == d.Seniority,
		text || normalize.TitleSeniority(r.Title) != "")
	s.scalar("employment_type", format, r, e, f.EmploymentType != "", d.EmploymentType != "", f.EmploymentType == d.EmploymentType,
		text || fc.employment)
	s.scalar("workplace_type", format, r, e, f.WorkplaceType != "", d.WorkplaceType != "", f.WorkplaceType == d.WorkplaceType,
		text || fc.workplace || fc.remoteOnly && d.WorkplaceType == normalize.Remote)
	s.set("remote_countries", format, r, e, f.RemoteCountries, d.RemoteCountries, text)
	s.scalar("years_experience_min", format, r, e, f.YearsMin != nil, d.YearsExperienceMin != nil,
		f.YearsMin != nil && d.YearsExperienceMin != nil && int(*f.YearsMin) == *d.YearsExperienceMin, text)
	s.scalar("visa_sponsorship", format, r, e, f.Visa != nil, d.VisaSponsorship != nil,
		f.Visa != nil && d.VisaSponsorship != nil && *f.Visa == *d.VisaSponsorship, text)
	statesPay := d.Pay != nil && e.SalDeclared == 0 // a declared salary wins over the text's
	p := f.StatedPay
	s.scalar("stated_pay", format, r, e, p != nil, statesPay,
		p != nil && d.Pay != nil && p.Min != nil && p.Max != nil && *p.Min == d.Pay.Min && *p.Max == d.Pay.Max &&
			p.Currency == d.Pay.Currency && p.Period == d.Pay.Period, text)

	s.reqs[format]++
	if s.filled[format] == nil {
		s.filled[format] = map[string]int{}
	}
	for name, set := range map[string]bool{
		"description": f.DescriptionHash != 0, "technologies": len(f.Technologies) > 0, "seniority": f.Seniority != "",
		"employment_type": f.EmploymentType != "", "workplace_type": f.WorkplaceType != "", "remote_countries": len(f.RemoteCountries) > 0,
		"years_experience_min": f.YearsMin != nil, "visa_sponsorship": f.Visa != nil, "stated_pay": f.StatedPay != nil,
	} {
		if set {
			s.filled[format][name]++
		}
	}
}

var fillColumns = []string{"description", "technologies", "seniority", "employment_type", "workplace_type", "remote_countries",
	"years_experience_min", "visa_sponsorship", "stated_pay"}

func (s *factScore) report(t *testing.T) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %9s %9s %7s %7s\n", "field", "precision", "recall", "held", "stated")
	for _, f := range factFields {
		fmt.Fprintf(&b, "%-22s %9.4f %9.4f %7d %7d\n", f, s.precision(f), s.recall(f), s.held[f], s.stated[f])
	}
	t.Logf("posting facts against the truth:\n%s", b.String())
	b.Reset()
	formats := make([]string, 0, len(s.reqs))
	for f := range s.reqs {
		formats = append(formats, f)
	}
	sort.Strings(formats)
	fmt.Fprintf(&b, "%-16s %5s", "format", "reqs")
	for _, c := range fillColumns {
		fmt.Fprintf(&b, " %7.7s", c)
	}
	for _, f := range formats {
		fmt.Fprintf(&b, "\n%-16s %5d", f, s.reqs[f])
		for _, c := range fillColumns {
			fmt.Fprintf(&b, " %7.3f", ratio(s.filled[f][c], s.reqs[f]))
		}
	}
	t.Logf("fill rates per format of the best posting (share of its reqs with the field set):\n%s", b.String())
	for _, f := range factFields {
		for _, x := range s.examples[f] {
			t.Logf("%s", x)
		}
	}
}

func truthString(d sim.DescriptionTruth) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{req %v nice %v sen %q emp %q wp %q rc %v", d.TechnologiesRequired, d.TechnologiesNice, d.Seniority, d.EmploymentType,
		d.WorkplaceType, d.RemoteCountries)
	if d.YearsExperienceMin != nil {
		fmt.Fprintf(&b, " years %d", *d.YearsExperienceMin)
	}
	if d.VisaSponsorship != nil {
		fmt.Fprintf(&b, " visa %t", *d.VisaSponsorship)
	}
	if d.Pay != nil {
		fmt.Fprintf(&b, " pay %+v", *d.Pay)
	}
	fmt.Fprintf(&b, " %s}", d.Language)
	return b.String()
}

func factString(f analytics.Facts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{techs %v kinds %v sen %q emp %q wp %q rc %v", f.Technologies, f.TechKinds, f.Seniority, f.EmploymentType,
		f.WorkplaceType, f.RemoteCountries)
	if f.YearsMin != nil {
		fmt.Fprintf(&b, " years %d", *f.YearsMin)
	}
	if f.Visa != nil {
		fmt.Fprintf(&b, " visa %t", *f.Visa)
	}
	if p := f.StatedPay; p != nil {
		fmt.Fprintf(&b, " pay %v-%v %s %s %q", deref(p.Min), deref(p.Max), p.Currency, p.Period, p.Text)
	}
	fmt.Fprintf(&b, " desc %t}", f.DescriptionHash != 0)
	return b.String()
}

func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}
