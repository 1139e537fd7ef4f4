package sim

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/jobtext"
	"github.com/planehq/hiringsignal/internal/normalize"
)

// Every stack names technologies of the vocabulary, and every vendor table names every
// employment type.
func TestStacksNameTheVocabulary(t *testing.T) {
	t.Parallel()
	for _, s := range stackSrcs {
		for _, g := range s.groups {
			_, list, _ := strings.Cut(g, ":")
			for _, slug := range strings.Fields(list) {
				_, ok := jobtext.Lookup(slug)
				require.True(t, ok, "stack %s names %q, which is no vocabulary slug", s.name, slug)
			}
		}
	}
	for _, tab := range [][numEmpTypes]string{empTypeLabel, leverCommitment, ashbyEmpType, bambooEmployment,
		joinEmployment, jsonldEmployment, personioEmployment, personioSchedule, recruiteeEmployment} {
		for _, s := range tab {
			require.NotEmpty(t, s)
		}
	}
	for _, tab := range [][numEmpTypes][2]string{breezyType, pinpointEmployment, srEmployment} {
		for _, s := range tab {
			require.NotEmpty(t, s[0])
			require.NotEmpty(t, s[1])
		}
	}
}

// The same seed gives the same descriptions, byte for byte in every format, and the same
// description truth; another seed gives others.
func TestDescriptionsAreDeterministic(t *testing.T) {
	t.Parallel()
	const tick = 60
	n := 250
	if raceEnabled {
		n = 80 // the race detector makes rendering every page ~10x slower
	}
	a, b, c := New(Config{Seed: 5, Companies: n}), New(Config{Seed: 5, Companies: n}), New(Config{Seed: 6, Companies: n})
	ta, tb := a.Truth(tick), b.Truth(tick)
	require.Equal(t, ta, tb)
	require.Equal(t, everyBody(a, tick), everyBody(b, tick))
	require.NotEqual(t, everyBody(a, tick), everyBody(c, tick))

	// Per req from the world, whether or not the req is live.
	for _, r := range ta.Reqs {
		d, ok := a.DescriptionTruth(r.TruthID)
		require.True(t, ok, r.TruthID)
		require.Equal(t, *r.Description, d, r.TruthID)
	}
	for _, id := range []string{"", "c1", "c1-s0", "cx-s0-g1", "c999999-s0-g1", "c1-s999-g1", "c1-s0-g1-y"} {
		_, ok := a.DescriptionTruth(id)
		require.False(t, ok, id)
	}
}

// everyBody renders, in-process, every page of every format a world serves at tick with its
// descriptions (Greenhouse with content, Workable with details), keyed by source and page.
func everyBody(w *World, tick int) map[string][]byte {
	out := map[string][]byte{}
	eachBody(w, tick, func(key string, b []byte) { out[key] = append([]byte(nil), b...) })
	return out
}

// eachBody renders, in-process, every page of every format a world serves at tick, as a crawl
// reads it (Greenhouse with content, Workable with details, each listing's largest page), and
// hands each body to put with its source and page; put must not keep the body.
func eachBody(w *World, tick int, put func(key string, body []byte)) {
	var buf []byte
	for i := range w.companies {
		c := &w.companies[i]
		v := c.vendorAt(tick)
		key := vendorNames[v] + ":" + c.tenant(v)
		switch v {
		case vNone:
			continue
		case vGreenhouse:
			buf = w.renderGreenhouse(buf[:0], c, tick, true, false)
		case vLever:
			buf = w.renderLever(buf[:0], c, tick, 0, 0, false)
		case vAshby:
			buf = w.renderAshby(buf[:0], c, tick, true, false)
		case vWorkable:
			buf = w.renderWorkable(buf[:0], c, tick, true, false)
		case vSmartRecruiters:
			buf = w.renderSmartRecruiters(buf[:0], c, tick, 0, 100, false)
		case vRecruitee:
			buf = w.renderRecruitee(buf[:0], c, tick, false)
		case vPersonio:
			buf = w.renderPersonio(buf[:0], c, tick, false)
		case vTeamtailor:
			buf = w.renderTeamtailor(buf[:0], c, tick, 0, 500, false)
		case vBambooHR:
			buf = w.renderBambooHR(buf[:0], c, tick, false)
		case vBreezy:
			buf = w.renderBreezy(buf[:0], c, tick, false)
		case vPinpoint:
			buf = w.renderPinpoint(buf[:0], c, tick, false)
		case vJoin:
			buf = w.renderJoin(buf[:0], c, tick, 1, joinMaxPageSize, false)
		case vWorkday:
			buf = w.renderWorkday(buf[:0], c, tick, 0, workdayMaxLimit, false)
		case vICIMS:
			buf = w.renderICIMS(buf[:0], c, tick, 0, false)
		case vJobvite:
			buf = w.renderJobvite(buf[:0], c, tick, 0, false)
		case vJazzHR:
			buf = w.renderJazzHR(buf[:0], c, tick, false)
		case vRippling:
			buf = w.renderRippling(buf[:0], c, tick, 0, 100, false)
		}
		put(key, buf)
	}
	snap := w.snapshot(tick)
	for bi := range boardDefs {
		for p := 1; p <= boardPages(len(snap.boards[bi])); p++ {
			buf = w.renderJSONLD(buf[:0], bi, tick, p, "http://x", false)
			put(fmt.Sprintf("board:%d:%d", bi, p), buf)
		}
		if boardDefs[bi].pages {
			for id := range snap.pageIdx[bi] {
				buf = w.renderJobPage(buf[:0], bi, tick, id, "http://x")
				put(fmt.Sprintf("page:%d:%s", bi, id), buf)
			}
		}
	}
	for r := 0; r < numRegions; r++ {
		for off := 0; off == 0 || off < len(snap.aggs[r]); off += aggPageSize {
			buf = w.renderAggregator(buf[:0], r, tick, off, false)
			put(fmt.Sprintf("agg:%d:%d", r, off), buf)
		}
	}
}

// A description is realistic in length: 1 to 4 KB of text, a few KB of HTML.
func TestDescriptionsAreBounded(t *testing.T) {
	t.Parallel()
	w := New(Config{Seed: 9, Companies: 300})
	var lens []int
	langs := map[string]int{}
	for i := range w.companies {
		c := &w.companies[i]
		if c.vendor == vNone {
			continue
		}
		for _, g := range w.liveGens(c, 80) {
			d := w.describe(c, &g)
			plain := d.appendPlain(nil, allParts)
			markup := d.appendHTML(nil, allParts, 0)
			require.True(t, utf8.Valid(plain))
			require.LessOrEqual(t, len(markup), maxDescription, "%s", markup)
			lens = append(lens, len(plain))
			langs[w.descriptionTruth(c, &g, false).Language]++
			w.release(d)
		}
	}
	sort.Ints(lens)
	t.Logf("%d descriptions, plain text %d-%d bytes (median %d), languages %v", len(lens), lens[0], lens[len(lens)-1], lens[len(lens)/2], langs)
	require.GreaterOrEqual(t, lens[0], 1000)
	require.LessOrEqual(t, lens[len(lens)-1], 4096)
	for _, l := range []string{"en", "de", "fr", "es"} {
		require.Positive(t, langs[l], "no description in %s", l)
	}
}

// The truth's JSON states every field, null when the text does not.
func TestDescriptionTruthJSON(t *testing.T) {
	t.Parallel()
	years := 3
	for _, d := range []DescriptionTruth{
		{TechnologiesRequired: []string{}, TechnologiesNice: []string{}, EmploymentType: "full_time", Language: "en"},
		{TechnologiesRequired: []string{"go"}, TechnologiesNice: []string{"kafka"}, Seniority: "senior", EmploymentType: "contract",
			WorkplaceType: "remote", RemoteCountries: []string{"Germany"}, YearsExperienceMin: &years,
			Pay: &PayTruth{Min: 60000, Max: 75000, Currency: "EUR", Period: "year"}, Language: "de"},
	} {
		b, err := json.Marshal(d)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		for _, k := range []string{"technologies_required", "technologies_nice", "seniority", "employment_type", "workplace_type",
			"remote_countries", "years_experience_min", "visa_sponsorship", "pay", "language"} {
			require.Contains(t, m, k)
		}
		if d.Seniority == "" {
			require.Nil(t, m["seniority"])
			require.Nil(t, m["workplace_type"])
			require.Nil(t, m["pay"])
		}
		var back DescriptionTruth
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, d, back)
	}
}

// Every format that carries a description carries every posting's, in its real field and
// markup, and reading it (jobtext.Derive over jobtext.Clean of the description as an adapter
// assembles it, docs/crawl-contract.md) recovers the truth; the formats' structured fields never
// contradict it. The crawl scores its own extraction against the same truth; this is the sanity
// floor of the simulator's side.
func TestDescriptionsReadBackToTheTruth(t *testing.T) {
	t.Parallel()
	const tick = 60
	n := 350
	if raceEnabled {
		n = 120 // the race detector makes reading every description ~10x slower
	}
	w, ts := testWorld(t, Config{Seed: 31, Companies: n})
	pin(t, ts, tick)
	tr := w.Truth(tick)
	byTitle := map[string]DescriptionTruth{}   // company domain + title → truth
	byPosting := map[string]DescriptionTruth{} // source key + source id → truth
	for _, r := range tr.Reqs {
		byTitle[r.CompanyDomain+"\x00"+r.Title] = *r.Description
		for _, p := range r.Postings {
			byPosting[p.SourceKey+"\x00"+p.SourceID] = *r.Description
		}
	}
	sc := newDescScore()
	d := w.Directory(tick)
	for _, s := range d.Sources {
		truthOf := func(title string) DescriptionTruth {
			dt, ok := byTitle[s.CompanyDomain+"\x00"+title]
			require.True(t, ok, "%s: %q is no live req", s.Key, title)
			return dt
		}
		switch s.Vendor {
		case "greenhouse":
			var resp struct {
				Jobs []struct{ Title, Content string } `json:"jobs"`
			}
			decode(t, fetchOK(t, s.URL), &resp)
			for _, j := range resp.Jobs {
				sc.add(t, s.Vendor, j.Title, html.UnescapeString(j.Content), truthOf(j.Title))
			}
		case "lever":
			var posts []struct {
				Text, Description, Additional string
				Categories                    struct{ Commitment string }
				WorkplaceType                 string
				Lists                         []struct{ Text, Content string }
			}
			decode(t, fetchOK(t, withQuery(s.URL, "skip", "0", "limit", "1000")), &posts)
			for _, p := range posts {
				var b strings.Builder
				b.WriteString(p.Description)
				for _, l := range p.Lists {
					b.WriteString("<h3>" + html.EscapeString(l.Text) + "</h3><ul>" + l.Content + "</ul>")
				}
				b.WriteString(p.Additional)
				dt := truthOf(p.Text)
				sc.add(t, s.Vendor, p.Text, b.String(), dt)
				sc.structured(t, s.Vendor+" commitment", p.Categories.Commitment, map[string]string{"full_time": "Full-time", "part_time": "Part-time", "contract": "Contract", "internship": "Internship", "temporary": "Temporary"}[dt.EmploymentType])
				sc.structured(t, s.Vendor+" workplaceType", p.WorkplaceType, map[string]string{"": "unspecified", "onsite": "on-site", "hybrid": "hybrid", "remote": "remote"}[dt.WorkplaceType])
			}
		case "ashby":
			var resp struct {
				Jobs []struct {
					Title, EmploymentType string
					DescriptionHTML       string `json:"descriptionHtml"`
					IsListed              bool
					WorkplaceType         *string
				} `json:"jobs"`
			}
			decode(t, fetchOK(t, s.URL), &resp)
			for _, j := range resp.Jobs {
				if !j.IsListed {
					continue
				}
				dt := truthOf(j.Title)
				sc.add(t, s.Vendor, j.Title, j.DescriptionHTML, dt)
				sc.structured(t, s.Vendor+" employmentType", j.EmploymentType, map[string]string{"full_time": "FullTime", "part_time": "PartTime", "contract": "Contract", "internship": "Intern", "temporary": "Temporary"}[dt.EmploymentType])
				wp := ""
				if j.WorkplaceType != nil {
					wp = *j.WorkplaceType
				}
				sc.structured(t, s.Vendor+" workplaceType", wp, map[string]string{"": "", "onsite": "OnSite", "hybrid": "Hybrid", "remote": "Remote"}[dt.WorkplaceType])
			}
		case "workable":
			require.Contains(t, s.URL, "?details=true", "the crawl asks for the descriptions")
			require.NotContains(t, string(fetchOK(t, strings.TrimSuffix(s.URL, "?details=true"))), `"requirements"`, "without details=true the jobs carry no description")
			var resp struct {
				Jobs []struct {
					Title, Shortcode, Description, Requirements, Benefits string
					EmploymentType                                        string `json:"employment_type"`
				} `json:"jobs"`
			}
			decode(t, fetchOK(t, withQuery(s.URL, "details", "true")), &resp)
			seen := map[string]bool{}
			for _, j := range resp.Jobs {
				if seen[j.Shortcode] {
					continue // the same job at its further location
				}
				seen[j.Shortcode] = true
				dt := truthOf(j.Title)
				sc.add(t, s.Vendor, j.Title, j.Description+"<h3>Requirements</h3>"+j.Requirements+"<h3>Benefits</h3>"+j.Benefits, dt)
				sc.structured(t, s.Vendor+" employment_type", j.EmploymentType, map[string]string{"full_time": "Full-time", "part_time": "Part-time", "contract": "Contract", "internship": "Internship", "temporary": "Temporary"}[dt.EmploymentType])
			}
		case "recruitee":
			var resp struct {
				Offers []struct {
					Title, Status, Description, Requirements string
					Remote, Hybrid                           bool
					OnSite                                   bool `json:"on_site"`
				} `json:"offers"`
			}
			decode(t, fetchOK(t, s.URL), &resp)
			for _, o := range resp.Offers {
				if o.Status != "published" {
					continue
				}
				dt := truthOf(o.Title)
				sc.add(t, s.Vendor, o.Title, o.Description+"<h3>Requirements</h3>"+o.Requirements, dt)
				sc.structured(t, s.Vendor+" flags", fmt.Sprint(o.Remote, o.Hybrid, o.OnSite), fmt.Sprint(dt.WorkplaceType == "remote", dt.WorkplaceType == "hybrid", dt.WorkplaceType == "onsite"))
			}
		case "personio":
			var feed struct {
				Positions []struct {
					Name              string `xml:"name"`
					Seniority         string `xml:"seniority"`
					YearsOfExperience string `xml:"yearsOfExperience"`
					Items             []struct {
						Name  string `xml:"name"`
						Value string `xml:"value"`
					} `xml:"jobDescriptions>jobDescription"`
				} `xml:"position"`
			}
			require.NoError(t, xml.Unmarshal(fetchOK(t, s.URL), &feed))
			for _, p := range feed.Positions {
				var b strings.Builder
				for _, it := range p.Items {
					b.WriteString("<h3>" + html.EscapeString(it.Name) + "</h3>" + it.Value)
				}
				dt := truthOf(p.Name)
				sc.add(t, s.Vendor, p.Name, b.String(), dt)
				if dt.YearsExperienceMin != nil {
					sc.structured(t, s.Vendor+" yearsOfExperience", p.YearsOfExperience, personioYears(int8(*dt.YearsExperienceMin)))
				} else {
					sc.structured(t, s.Vendor+" yearsOfExperience", p.YearsOfExperience, "")
				}
				if dt.Seniority != "" {
					sc.structured(t, s.Vendor+" seniority", p.Seniority, personioSeniority[coarseOf(dt.Seniority)])
				}
			}
		case "teamtailor":
			var feed struct {
				Items []struct {
					Title        string `xml:"title"`
					Description  string `xml:"description"`
					RemoteStatus string `xml:"remoteStatus"`
				} `xml:"channel>item"`
			}
			require.NoError(t, xml.Unmarshal(fetchOK(t, withQuery(s.URL, "per_page", "1000")), &feed))
			for _, it := range feed.Items {
				dt := truthOf(it.Title)
				sc.add(t, s.Vendor, it.Title, it.Description, dt)
				sc.structured(t, s.Vendor+" remoteStatus", it.RemoteStatus, map[string]string{"": "none", "onsite": "none", "hybrid": "hybrid", "remote": "fully"}[dt.WorkplaceType])
			}
		case "pinpoint":
			var resp struct {
				Data []map[string]any `json:"data"`
			}
			decode(t, fetchOK(t, s.URL), &resp)
			for _, p := range resp.Data {
				str := func(k string) string { v, _ := p[k].(string); return v }
				b := str("description")
				for _, k := range []string{"key_responsibilities", "skills_knowledge_expertise", "benefits"} {
					if str(k) != "" {
						b += "<h3>" + html.EscapeString(str(k+"_header")) + "</h3>" + str(k)
					}
				}
				dt := truthOf(str("title"))
				sc.add(t, s.Vendor, str("title"), b, dt)
				require.NotEmpty(t, dt.WorkplaceType, "Pinpoint's workplace is mandatory: its texts state it")
				sc.structured(t, s.Vendor+" workplace_type", str("workplace_type"), dt.WorkplaceType)
				sc.structured(t, s.Vendor+" employment_type", str("employment_type"), map[string]string{"full_time": "full_time", "part_time": "part_time", "contract": "contract", "internship": "internship", "temporary": "temporary"}[dt.EmploymentType])
			}
		case "icims":
			body := fetchOK(t, s.URL)
			cards := icimsCardItemRe.FindAllSubmatch(body, -1)
			require.NotEmpty(t, cards)
			c := w.companies[w.domains[s.CompanyDomain]]
			for _, m := range cards {
				desc := icimsDescRe.FindSubmatch(m[0])
				require.Equal(t, icimsShowsDescription(&c), desc != nil, "%s: a portal shows the opening on every card or on none", s.Key)
				if desc != nil {
					require.True(t, bytes.HasSuffix(desc[1], []byte("…")) || len(desc[1]) < icimsOpening, "the opening is cut with an ellipsis")
					sc.seen[s.Vendor]++
				}
			}
		case "smartrecruiters", "bamboohr", "breezy", "join", "rippling":
			// Their lists carry no description (docs/crawl-contract.md).
			require.NotContains(t, string(fetchOK(t, s.URL)), `"description"`, s.Key)
		case "jsonld":
			for u, n := s.URL, 0; u != "" && n < 20; n++ {
				page := fetchOK(t, u)
				if isJobPage(page) {
					// A job page: the posting is the page, named by its canonical link or its URL.
					id := u
					if m := canonicalRe.FindSubmatch(page); m != nil {
						id = string(m[1])
					}
					for _, p := range jsonldPostings(t, page) {
						dt, ok := byPosting[s.Key+"\x00"+id]
						require.True(t, ok, "%s: job page %s is no truth posting", s.Key, id)
						sc.add(t, "jobpage", p["title"].(string), p["description"].(string), dt)
					}
				} else {
					for _, p := range jsonldPostings(t, page) {
						id := p["identifier"].(map[string]any)["value"].(string)
						dt, ok := byPosting[s.Key+"\x00"+id]
						require.True(t, ok, "%s: %s is no truth posting", s.Key, id)
						sc.add(t, s.Vendor, p["title"].(string), p["description"].(string), dt)
						sc.structured(t, "jsonld employmentType", p["employmentType"].(string), map[string]string{"full_time": "FULL_TIME", "part_time": "PART_TIME", "contract": "CONTRACTOR", "internship": "INTERN", "temporary": "TEMPORARY"}[dt.EmploymentType])
					}
				}
				u = ""
				if m := nextRe.FindSubmatch(page); m != nil {
					u = html.UnescapeString(string(m[1]))
				}
			}
		case "aggregator":
			for cursor, n := "", 0; n < 5; n++ {
				var resp struct {
					Jobs []struct {
						ID, Title, Description string
					} `json:"jobs"`
					NextCursor string `json:"next_cursor"`
				}
				u := s.URL
				if cursor != "" {
					u = withQuery(u, "cursor", cursor)
				}
				decode(t, fetchOK(t, u), &resp)
				for _, j := range resp.Jobs {
					dt, ok := byPosting[s.Key+"\x00"+j.ID]
					require.True(t, ok, "%s: %s is no truth posting", s.Key, j.ID)
					sc.add(t, s.Vendor, j.Title, j.Description, dt)
				}
				if cursor = resp.NextCursor; cursor == "" {
					break
				}
			}
		}
	}
	sc.report(t)
	for _, v := range []string{"greenhouse", "lever", "ashby", "workable", "recruitee", "personio", "teamtailor", "pinpoint", "jsonld", "jobpage", "aggregator", "icims"} {
		require.Positive(t, sc.seen[v], "no %s posting carried a description", v)
	}
	for _, f := range descFields {
		require.GreaterOrEqual(t, sc.share(f), 0.8, "reading %s back from the descriptions", f)
	}
	require.Zero(t, sc.contradictions, "a structured field contradicts the description's truth")
}

var (
	icimsCardItemRe = regexp.MustCompile(`(?s)<li class="iCIMS_JobCardItem">.*?</li>`)
	icimsDescRe     = regexp.MustCompile(`<div class="col-xs-12 description">(.*?)</div>`)
)

// coarseOf is coarseLevel's band of a seniority.
func coarseOf(sen string) int {
	switch r := int8(normalize.SeniorityRank(sen)); {
	case r == rankIntern:
		return 0
	case r == rankJunior:
		return 1
	case r < rankDirector:
		return 2
	case r == rankDirector:
		return 3
	}
	return 4
}

var descFields = []string{"technologies_required", "technologies_nice", "seniority", "employment_type", "workplace_type",
	"remote_countries", "years_experience_min", "visa_sponsorship", "pay"}

// descScore counts, per format and field, the postings whose description reads back to the
// truth.
type descScore struct {
	seen           map[string]int            // format → postings with a description
	agree          map[string]map[string]int // format → field → postings that agree
	total, ok      map[string]int            // field → postings, agreeing
	contradictions int
	examples       []string
}

func newDescScore() *descScore {
	return &descScore{seen: map[string]int{}, agree: map[string]map[string]int{}, total: map[string]int{}, ok: map[string]int{}}
}

func (s *descScore) add(t *testing.T, format, title, desc string, dt DescriptionTruth) {
	t.Helper()
	require.NotEmpty(t, desc, "%s: %q has no description", format, title)
	s.seen[format]++
	got := jobtext.Derive(title, jobtext.Clean(desc, jobtext.DefaultMax))
	var req, nice []string
	for _, x := range got.Technologies {
		switch {
		case x.Required:
			req = append(req, x.Slug)
		case x.NiceToHave:
			nice = append(nice, x.Slug)
		}
	}
	slices.Sort(req)
	slices.Sort(nice)
	intEq := func(a, b *int) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
	boolEq := func(a, b *bool) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
	payEq := dt.Pay == nil && got.Pay == nil || dt.Pay != nil && got.Pay != nil && dt.Pay.Min == got.Pay.Min &&
		dt.Pay.Max == got.Pay.Max && dt.Pay.Currency == got.Pay.Currency && dt.Pay.Period == got.Pay.Period
	if s.agree[format] == nil {
		s.agree[format] = map[string]int{}
	}
	for i, eq := range []bool{
		slices.Equal(req, dt.TechnologiesRequired) || len(req)+len(dt.TechnologiesRequired) == 0,
		slices.Equal(nice, dt.TechnologiesNice) || len(nice)+len(dt.TechnologiesNice) == 0,
		got.Seniority == dt.Seniority,
		got.EmploymentType == dt.EmploymentType,
		got.WorkplaceType == dt.WorkplaceType,
		slices.Equal(got.RemoteCountries, dt.RemoteCountries) || len(got.RemoteCountries)+len(dt.RemoteCountries) == 0,
		intEq(got.YearsExperienceMin, dt.YearsExperienceMin),
		boolEq(got.VisaSponsorship, dt.VisaSponsorship),
		payEq,
	} {
		f := descFields[i]
		s.total[f]++
		if eq {
			s.ok[f]++
			s.agree[format][f]++
		} else if len(s.examples) < 5 {
			s.examples = append(s.examples, fmt.Sprintf("%s %s %q: truth %+v, read %+v", format, f, title, dt, got))
		}
	}
}

// structured counts a structured field that says other than the truth implies.
func (s *descScore) structured(t *testing.T, field, got, want string) {
	t.Helper()
	if got != want {
		s.contradictions++
		t.Errorf("%s is %q where the description's truth implies %q", field, got, want)
	}
}

func (s *descScore) share(field string) float64 {
	if s.total[field] == 0 {
		return 0
	}
	return float64(s.ok[field]) / float64(s.total[field])
}

func (s *descScore) report(t *testing.T) {
	t.Helper()
	var b strings.Builder
	formats := make([]string, 0, len(s.seen))
	for f := range s.seen {
		formats = append(formats, f)
	}
	sort.Strings(formats)
	fmt.Fprintf(&b, "%-12s %6s", "format", "n")
	for _, f := range descFields {
		fmt.Fprintf(&b, " %6.6s", f)
	}
	for _, format := range formats {
		fmt.Fprintf(&b, "\n%-12s %6d", format, s.seen[format])
		for _, f := range descFields {
			if s.agree[format] == nil {
				fmt.Fprintf(&b, " %6s", "-")
				continue
			}
			fmt.Fprintf(&b, " %6.3f", float64(s.agree[format][f])/float64(s.seen[format]))
		}
	}
	fmt.Fprintf(&b, "\n%-12s %6d", "all", s.total[descFields[0]])
	for _, f := range descFields {
		fmt.Fprintf(&b, " %6.3f", s.share(f))
	}
	t.Logf("descriptions read back to their truth (share of postings agreeing, per field):\n%s", b.String())
	for _, e := range s.examples {
		t.Logf("disagreement: %s", e)
	}
}
