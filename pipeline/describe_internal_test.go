package pipeline

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/analytics"
	"github.com/planehq/hiringsignal/internal/jobtext"
	"github.com/planehq/hiringsignal/pipeline/ats"
)

// The feed's structured terms win; the title's seniority before the feed's level before the
// text's; the text fills what the feed leaves unset; the text's pay only without the feed's.
func TestMergeFactsFeedFirstTextFillsGaps(t *testing.T) {
	t.Parallel()
	years := 7
	text := jobtext.Clean(`<p>This is an entry-level, part-time, fully remote role open to candidates in Canada.</p>
<h3>Requirements</h3><ul><li>2+ years of experience with Python</li></ul><p>Pay: $60,000 - $70,000 per year.</p>`, analytics.MaxDescription)
	d := jobtext.Derive("Analyst", text)
	require.Equal(t, "junior", d.Seniority, "the text's wording")

	f := mergeFacts("Analyst", "Canada", postingTerms{}, d)
	require.Equal(t, "junior", f.Seniority)
	require.Equal(t, "part_time", f.EmploymentType)
	require.Equal(t, "remote", f.WorkplaceType)
	require.Equal(t, []string{"Canada"}, f.RemoteCountries)
	require.Equal(t, uint8(2), *f.YearsMin)
	require.Equal(t, "CAD", f.StatedPay.Currency, "a bare $ of a Canadian posting")
	require.Equal(t, []string{"python"}, f.Technologies)

	feed := postingTerms{employment: "full_time", workplace: "hybrid", seniority: "director", years: &years, paid: true}
	f = mergeFacts("Analyst", "Canada", feed, d)
	require.Equal(t, "director", f.Seniority, "the feed's level before the text's")
	require.Equal(t, "full_time", f.EmploymentType)
	require.Equal(t, "hybrid", f.WorkplaceType)
	require.Empty(t, f.RemoteCountries, "not a remote role")
	require.Equal(t, uint8(7), *f.YearsMin)
	require.Nil(t, f.StatedPay, "the feed published pay")

	f = mergeFacts("Senior Analyst", "United States", postingTerms{seniority: "director", remote: true}, d)
	require.Equal(t, "senior", f.Seniority, "the title's first")
	require.Equal(t, "remote", f.WorkplaceType, "a remote flag")
	require.Equal(t, "USD", f.StatedPay.Currency)

	band := 1 // Personio's "1-2": at least one year
	f = mergeFacts("Analyst", "", postingTerms{years: &band}, d)
	require.Equal(t, uint8(2), *f.YearsMin, "the text's figure within the feed's floor states it exactly")

	tooMany := 99
	f = mergeFacts("Analyst", "", postingTerms{years: &tooMany}, jobtext.Derived{})
	require.Nil(t, f.YearsMin, "an implausible figure is none")
	require.Equal(t, analytics.Facts{}, mergeFacts("Clerk", "", postingTerms{}, jobtext.Derived{}))
}

func TestDescribeBoundsTheTextAndNamesItByHash(t *testing.T) {
	t.Parallel()
	long := "<p>"
	for len(long) < 3*analytics.MaxDescription {
		long += "We build reliable payment systems with Go and PostgreSQL. "
	}
	o := observation{rawTitle: "Backend Engineer", reqKey: "00000000000000aa"}
	text := describe(&o, &ats.Posting{Title: "Backend Engineer", Description: long + "</p>"}, nil)
	require.LessOrEqual(t, len(text), analytics.MaxDescription)
	require.Equal(t, analytics.DescriptionHash(text), o.facts.DescriptionHash)
	require.NoError(t, o.facts.Check())

	o = observation{rawTitle: "Backend Engineer"}
	require.Empty(t, describe(&o, &ats.Posting{Title: "Backend Engineer"}, nil))
	require.Zero(t, o.facts.DescriptionHash)
}

// A worker's read carries its postings' facts to the committer.
func TestReadCodecCarriesFacts(t *testing.T) {
	t.Parallel()
	years, visa, lo := uint8(3), false, 50000.0
	f := &analytics.Facts{Technologies: []string{"go", "kafka"}, TechKinds: []uint8{analytics.TechRequired, analytics.TechNiceToHave},
		Seniority: "mid", EmploymentType: "full_time", WorkplaceType: "remote", RemoteCountries: []string{"Germany"}, YearsMin: &years,
		Visa: &visa, StatedPay: &analytics.StatedPay{Min: &lo, Currency: "EUR", Period: "year", Text: "from €50,000"}, DescriptionHash: 42}
	r := &SourceRead{SourceKey: "lever:acme", Full: []observation{{reqKey: "k1", sourceID: "1", facts: f}, {reqKey: "k2", sourceID: "2"}}}
	codec := NewReadCodec()
	b, err := codec.Encode(r)
	require.NoError(t, err)
	var back SourceRead
	back.SourceKey = r.SourceKey
	require.NoError(t, codec.Decode(&back, b))
	require.Equal(t, f, back.Full[0].facts)
	require.Nil(t, back.Full[1].facts)
}

func TestDescLogWritesEachTextOnce(t *testing.T) {
	t.Parallel()
	st := newState()
	st.reqs["k1"] = &reqState{descHash: 7}
	l := newDescLog()
	l.seed(st)
	require.False(t, l.claim("k1", 7), "named by the ledger")
	require.True(t, l.claim("k1", 8))
	require.False(t, l.claim("k1", 8))
	require.True(t, l.claim("k2", 7), "another req's text")
	l.forget([]analytics.Description{{ReqKey: "k1", Hash: 8}})
	require.True(t, l.claim("k1", 8), "a failed write is written again")
}

// A req whose best posting's list carries no description takes what its structured fields leave
// unset from another posting's text (a board's copy), and names that text; a best posting with a
// description keeps its own.
func TestEventTakesTheTextOfAnotherPostingWhereTheBestHasNone(t *testing.T) {
	t.Parallel()
	board := jobtext.Clean(`<p>This is a fully remote, part-time role open to candidates in Germany. We sponsor visas.</p>
<h3>Requirements</h3><ul><li>3+ years of experience with Go and PostgreSQL</li></ul><h3>Nice to have</h3><ul><li>Kafka</li></ul>`, analytics.MaxDescription)
	years := 2
	tenant := &observation{rawTitle: "Senior Backend Engineer", sourceType: "ats_tenant", sourceKey: "smartrecruiters:acme", reqKey: "00000000000000aa",
		terms: postingTerms{employment: "full_time", years: &years}}
	tenant.facts = ptr(mergeFacts(tenant.rawTitle, "Germany", tenant.terms, jobtext.Derive(tenant.rawTitle, "")))
	copyOf := &observation{rawTitle: "Senior Backend Engineer (m/w/d)", sourceType: "board", sourceKey: "jsonld:jobs.example", reqKey: tenant.reqKey}
	describe(copyOf, &ats.Posting{Title: copyOf.rawTitle, Description: board}, nil)
	require.NotZero(t, copyOf.facts.DescriptionHash)

	d := newDeduper(func(string) bool { return true })
	d.add(copyOf)
	d.add(tenant)
	a := d.reqs[tenant.reqKey]
	require.Equal(t, "smartrecruiters:acme", a.best.sourceKey, "the ATS tenant's posting is the req's")
	f := eventFrom(a, "dach", 1, time.Now()).Facts
	require.Equal(t, "senior", f.Seniority, "the title's")
	require.Equal(t, "full_time", f.EmploymentType, "the feed's, over the text's part-time")
	require.Equal(t, "remote", f.WorkplaceType, "the feed states none: the text's")
	require.Equal(t, []string{"Germany"}, f.RemoteCountries)
	require.Equal(t, uint8(3), *f.YearsMin, "the text's figure at or above the feed's floor")
	require.True(t, *f.Visa)
	require.Equal(t, []string{"go", "postgresql", "kafka"}, f.Technologies)
	require.Equal(t, copyOf.facts.DescriptionHash, f.DescriptionHash, "the text the facts were read from")

	// A best posting with a description of its own comparable to the copy's (more than half
	// as long) keeps it.
	own := *tenant
	describe(&own, &ats.Posting{Title: own.rawTitle, Description: "<p>We build the payment rails of European merchants, from our office in Berlin, " +
		"with a small team that owns its services end to end.</p><h3>Requirements</h3><ul><li>Rust and PostgreSQL</li></ul>"}, nil)
	require.Greater(t, 2*own.textLen, copyOf.textLen)
	d = newDeduper(func(string) bool { return true })
	d.add(copyOf)
	d.add(&own)
	f = eventFrom(d.reqs[own.reqKey], "dach", 1, time.Now()).Facts
	require.Equal(t, own.facts.DescriptionHash, f.DescriptionHash)
	require.Equal(t, []string{"rust", "postgresql"}, f.Technologies)
	require.Nil(t, f.Visa)
}

// An ATS record whose text is a short opening (an iCIMS card's) gives way to a board's copy at
// least twice as long: the feed's fields and the title stand, the fuller text fills the rest,
// and the event names the fuller text. Whichever order the postings come in.
func TestTheFullerTextWinsOverAShortOpening(t *testing.T) {
	t.Parallel()
	board := jobtext.Clean(`<p>This is a fully remote role open to candidates in Germany. We sponsor visas.</p>
<h3>Requirements</h3><ul><li>3+ years of experience with Go and PostgreSQL</li></ul><h3>Nice to have</h3><ul><li>Kafka</li></ul>`, analytics.MaxDescription)
	tenant := &observation{rawTitle: "Senior Backend Engineer", sourceType: "ats_tenant", sourceKey: "icims:acme", reqKey: "00000000000000ab",
		terms: postingTerms{employment: "full_time"}}
	describe(tenant, &ats.Posting{Title: tenant.rawTitle, Description: "Join our team in an on-site role building payments with Java…"}, nil)
	require.Equal(t, "onsite", tenant.facts.WorkplaceType, "the opening alone reads as on-site")
	copyOf := &observation{rawTitle: "Senior Backend Engineer", sourceType: "board", sourceKey: "jsonld:jobs.example", reqKey: tenant.reqKey}
	describe(copyOf, &ats.Posting{Title: copyOf.rawTitle, Description: board}, nil)
	require.GreaterOrEqual(t, copyOf.textLen, 2*tenant.textLen)

	for _, order := range [][]*observation{{tenant, copyOf}, {copyOf, tenant}} {
		d := newDeduper(func(string) bool { return true })
		for _, o := range order {
			d.add(o)
		}
		a := d.reqs[tenant.reqKey]
		require.Equal(t, "icims:acme", a.best.sourceKey, "the ATS tenant's posting is the req's")
		f := eventFrom(a, "dach", 1, time.Now()).Facts
		require.Equal(t, copyOf.facts.DescriptionHash, f.DescriptionHash, "the fuller text")
		require.Equal(t, "full_time", f.EmploymentType, "the feed's")
		require.Equal(t, "senior", f.Seniority, "the title's")
		require.Equal(t, "remote", f.WorkplaceType, "the fuller text's, not the opening's")
		require.Equal(t, []string{"Germany"}, f.RemoteCountries)
		require.Equal(t, []string{"go", "postgresql", "kafka"}, f.Technologies, "nothing of the opening's")
		require.True(t, *f.Visa)
	}
}

// A bare "$" is read as the req's country's dollar, or USD for a remote role open to the United
// States and wherever the country has no dollar, and is marked inferred; a currency the text
// names is not.
func TestABareDollarIsInferredFromTheReq(t *testing.T) {
	t.Parallel()
	pay := func(country, text string) *analytics.StatedPay {
		t.Helper()
		f := mergeFacts("Account Executive", country, postingTerms{}, jobtext.Derive("Account Executive", text))
		require.NotNil(t, f.StatedPay, "%s: %s", country, text)
		return f.StatedPay
	}
	for _, c := range []struct {
		country, text, cur string
		inferred           bool
	}{
		{"Canada", "This is a hybrid role in Toronto. The salary range is $120,000 - $150,000 per year.", "CAD", true},
		{"Canada", "This is a fully remote role open to candidates in the US and Canada. The salary range is $120,000 - $150,000 per year.", "USD", true},
		{"Canada", "This is a remote role (Remote - North America). The salary range is $120,000 - $150,000 per year.", "USD", true},
		{"Canada", "This is a fully remote role open to candidates in Canada. The salary range is $120,000 - $150,000 per year.", "CAD", true},
		{"Australia", "The salary range is $120,000 - $150,000 per year.", "AUD", true},
		{"United States", "The salary range is $120,000 - $150,000 per year.", "USD", true},
		{"Germany", "The salary range is $120,000 - $150,000 per year.", "USD", true},
		{"Canada", "The salary range is CA$120,000 - CA$150,000 per year.", "CAD", false},
		{"Canada", "The salary range is US$120,000 - US$150,000 per year.", "USD", false},
	} {
		p := pay(c.country, c.text)
		require.Equal(t, c.cur, p.Currency, "%s: %s", c.country, c.text)
		require.Equal(t, c.inferred, p.CurrencyInferred, "%s: %s", c.country, c.text)
	}
}

// A remote posting's location states its regions ("Remote - EMEA"), kept beside the text's; a
// feed's tags (Personio's keywords) name technologies beside the text's, as named.
func TestLocationRegionsAndFeedTagsAreRead(t *testing.T) {
	t.Parallel()
	o := &observation{rawTitle: "Account Executive", reqKey: "00000000000000ac", terms: postingTerms{remote: true}}
	describe(o, &ats.Posting{Title: o.rawTitle, Location: "Remote - EMEA", Remote: true,
		Description: "<p>Work from anywhere in Europe. You will use Salesforce every day.</p>", Keywords: "go, salesforce,Marketing"}, nil)
	require.Equal(t, "remote", o.facts.WorkplaceType)
	require.Equal(t, []string{"emea", "europe"}, o.facts.RemoteRegions)
	require.Equal(t, []string{"salesforce", "go"}, o.facts.Technologies)
	require.Equal(t, []uint8{analytics.TechNamed, analytics.TechNamed}, o.facts.TechKinds)

	onsite := &observation{rawTitle: "Account Executive", reqKey: "00000000000000ad"}
	describe(onsite, &ats.Posting{Title: onsite.rawTitle, Location: "Berlin", Description: "<p>An office role in Berlin.</p>"}, nil)
	require.Nil(t, onsite.facts.RemoteRegions, "no remote role, no regions")
}

func ptr[T any](v T) *T { return &v }

// A cycle's memo of cleaned descriptions answers what cleaning answers, for texts met again
// soon after and long after (past two generations), from goroutines at once, and holds at
// most two generations.
func TestCleanMemoAnswersAsCleaning(t *testing.T) {
	t.Parallel()
	raws := []string{"", "<p>Go &amp; Rust</p>", "<p>Go &amp; Rust</p> ", "Go & Rust", "<ul><li>SQL</li></ul>"}
	for i := range 3 * cleanMemoN {
		raws = append(raws, fmt.Sprintf("<p>Role %d: <b>Python</b> and Kafka, remote within the EU.</p>", i%(cleanMemoN+cleanMemoN/2)))
	}
	m := newCleanMemo()
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(raws); i += 2 {
				text, hash := m.clean(raws[i])
				want := ""
				if raws[i] != "" {
					want = jobtext.Clean(raws[i], analytics.MaxDescription)
				}
				if text != want || hash != analytics.DescriptionHash(want) {
					t.Errorf("clean(%q) = %q, %d; want %q, %d", raws[i], text, hash, want, analytics.DescriptionHash(want))
					return
				}
			}
		}()
	}
	wg.Wait()
	require.LessOrEqual(t, len(m.cur), cleanMemoN)
	require.LessOrEqual(t, len(m.prev), cleanMemoN)
}

// Reads that finish while another read's descriptions are being written share the next INSERT
// (a group commit), and none returns before the INSERT that carried its rows ended; a failed
// INSERT fails exactly the reads whose rows it carried.
func TestReadsFinishingTogetherShareOneDescriptionInsert(t *testing.T) {
	t.Parallel()
	var g descGroup
	rows := func(i, n int) []analytics.Description {
		out := make([]analytics.Description, n)
		for j := range out {
			out[j] = analytics.Description{ReqKey: fmt.Sprintf("%016x", i*1000+j), Hash: uint64(i*1000 + j + 1), Text: "t"}
		}
		return out
	}
	var mu sync.Mutex
	var inserts [][]analytics.Description
	firstIn, release := make(chan struct{}), make(chan struct{})
	insert := func(ds []analytics.Description) error {
		mu.Lock()
		inserts = append(inserts, ds)
		first := len(inserts) == 1
		mu.Unlock()
		if first {
			close(firstIn)
			<-release // the first INSERT is slow: the other reads finish meanwhile
		}
		if ds[0].ReqKey == fmt.Sprintf("%016x", 9*1000) { // the read numbered 9 is in a failing INSERT
			return fmt.Errorf("insert refused")
		}
		return nil
	}

	errs := make([]error, 10)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); errs[0] = g.write(rows(0, 3), insert) }()
	<-firstIn
	for i := 1; i <= 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = g.write(rows(i, 2), insert) }()
	}
	require.Eventually(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.queue) == 9
	}, 10*time.Second, time.Millisecond, "eight reads wait behind the first INSERT")
	close(release)
	wg.Wait()
	require.Len(t, inserts, 2, "the eight reads that waited share one INSERT")
	require.Len(t, inserts[1], 16)
	for i := range 9 {
		require.NoError(t, errs[i])
	}

	// A read alone is written at once; a failing INSERT fails its read, and the group goes on.
	require.Error(t, g.write(rows(9, 1), insert))
	require.NoError(t, g.write(rows(10, descGroupRows+5), insert), "a read larger than the bound is written whole")
	require.NoError(t, g.write(nil, insert), "a read without descriptions sends nothing")
	require.Len(t, inserts, 4)
	require.EqualValues(t, 4, g.inserts.Load())
	require.Empty(t, g.queue)
}

// A grouped INSERT takes whole reads up to descGroupRows rows, never a part of one: the reads
// past the bound wait for the next INSERT.
func TestAGroupedDescriptionInsertIsBounded(t *testing.T) {
	t.Parallel()
	var g descGroup
	firstIn, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var sizes []int
	insert := func(ds []analytics.Description) error {
		mu.Lock()
		sizes = append(sizes, len(ds))
		first := len(sizes) == 1
		mu.Unlock()
		if first {
			close(firstIn)
			<-release
		}
		return nil
	}
	read := make([]analytics.Description, descGroupRows/2+1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); require.NoError(t, g.write(read[:1], insert)) }()
	<-firstIn
	for range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); require.NoError(t, g.write(read, insert)) }()
	}
	require.Eventually(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.queue) == 4
	}, 10*time.Second, time.Millisecond)
	close(release)
	wg.Wait()
	require.Equal(t, []int{1, len(read), len(read), len(read)}, sizes, "two reads of more than half the bound never share an INSERT")
}
