package ats

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/jobtext"
)

// Every adapter keeps the description its feed carries, as the feed publishes it, and the
// lists that carry none leave it empty (docs/crawl-contract.md, "Descriptions").
func TestDescriptionPerAdapter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		vendor, fixture, url string
		want                 map[string]string // SourceID → Description; nil: every posting has none
	}{
		{"greenhouse", "greenhouse_jobs.json", ghURL, map[string]string{
			// content is HTML the API escapes once more: unescaped once, entities of the HTML kept
			"4012345678": `<div class="content-intro"><p>We build things.</p></div><h3>What you&#39;ll do</h3><ul><li>Design APIs &amp; services&nbsp;</li></ul>`,
			"4012345679": "",
		}},
		{"lever", "lever_postings.json", leverURL, map[string]string{
			"5ac2b1e0-6f0e-4c1d-9a52-2f1f3c7d9e01": "<div>We build things.</div><h3>What you&#39;ll do</h3><ul><li>Build</li></ul>" +
				"<h3>Requirements</h3><ul><li>5+ years of Go</li><li>Kubernetes</li></ul><div>We sponsor visas.</div>",
			// no HTML description: the plain texts, escaped, with the lists between them
			"7d8e9f00-1111-2222-3333-444455556666": "Help our customers.\n<h3>You have</h3><ul><li>Patience</li></ul>Paid weekly.",
			"aaaa0000-bbbb-cccc-dddd-eeeeffff0000": "",
		}},
		{"ashby", "ashby_jobs.json", ashbyURL, map[string]string{"0f3c2a8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b": "<p>Join our team</p>"}},
		{"workable", "workable_account.json", workableURL, map[string]string{
			"9F1A2B3C4D/Germany/Berlin": "<p>Run our Berlin hub.</p><h3>Requirements</h3><ul><li>5 years in logistics</li></ul><h3>Benefits</h3><ul><li>30 days off</li></ul>",
		}},
		{"recruitee", "recruitee_offers.json", recruiteeURL, map[string]string{
			"1234567": "<p>Build it.</p><h3>Requirements</h3><ul><li>Elixir or Go</li></ul>",
		}},
		{"personio", "personio_positions.xml", personioURL, map[string]string{
			"1234567": "<h3>Your tasks</h3><ul><li>Build & ship</li></ul>",
			"1234568": "<h3>About us</h3>Stray \u00a0 entity & bare ampersand",
		}},
		{"teamtailor", "teamtailor_jobs.rss", teamtailorURL, map[string]string{
			"7308188": "<p>Build <strong>APIs</strong> &amp; services.</p>", // entity-escaped in the XML
			"8191515": "<p>Grow our partner network.</p>",                   // CDATA
			"8384421": "",                                                   // <description></description>
		}},
		{"pinpoint", "pinpoint_postings.json", pinpointURL, map[string]string{
			// sections under their own headers; an empty section is left out with its header
			"547660": "<div><strong>About the role</strong><br>Own our Kubernetes platform end to end.</div>" +
				"<h3>What you will do</h3><ul><li>Run the on-call rota</li></ul><h3>Benefits</h3><p>25 days holiday</p>",
			"547661": "<p>Support our customers worldwide.</p>",
		}},
		{"icims", "icims_search_page1.html", icimsURL, map[string]string{
			"15550": "Lead model analytics, calibration, and sanctions screening governance.",
		}},
		{"jsonld", "jsonld_page1.html", ldURL, map[string]string{"jn-88123": "<p>We build things.</p>"}},
		{"aggregator", "aggregator_feed.json", aggURL, map[string]string{"agg-000123": "<p>Own the payments API.</p>", "124": ""}},
		// lists that carry no description
		{"smartrecruiters", "smartrecruiters_page1.json", srBase + "?limit=100&offset=0", nil},
		{"bamboohr", "bamboohr_list.json", bambooURL, nil},
		{"breezy", "breezy_positions.json", breezyURL, nil},
		{"join", "join_jobs_page1.json", joinURL, nil},
		{"workday", "workday_jobs.json", workdayURL, nil},
		{"jobvite", "jobvite_search.html", jobviteURL, nil},
		{"jazzhr", "jazzhr_apply.html", jazzURL, nil},
		{"rippling", "rippling_jobs.json", ripplingURL, nil},
	}
	for _, c := range cases {
		t.Run(c.vendor, func(t *testing.T) {
			t.Parallel()
			page := mustParse(t, c.vendor, fixture(t, c.fixture), c.url)
			require.NotEmpty(t, page.Postings)
			if c.want == nil {
				for _, p := range page.Postings {
					require.Empty(t, p.Description, "%s: the list carries no description", p.SourceID)
				}
				return
			}
			m := bySourceID(t, page)
			for id, want := range c.want {
				p, ok := m[id]
				require.True(t, ok, "posting %s", id)
				require.Equal(t, want, p.Description, "posting %s", id)
			}
		})
	}
}

// Every place of a posting published for several places carries its description.
func TestDescriptionOnEveryPlace(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "greenhouse", []byte(`{"jobs":[{"id":1,"title":"Engineer","content":"&lt;p&gt;Hi&lt;/p&gt;",
		"offices":[{"location":"Berlin, Germany"},{"location":"Paris, France"}]}]}`), ghURL)
	require.Len(t, page.Postings, 2)
	for _, p := range page.Postings {
		require.Equal(t, "<p>Hi</p>", p.Description, p.SourceID)
	}
}

// A hostile feed's 1 MiB description is kept to MaxDescription bytes, cut at a rune boundary,
// and the posting holds a copy of the kept part, not the whole.
func TestDescriptionBounded(t *testing.T) {
	t.Parallel()
	// "é" is two bytes; an odd prefix puts the bound inside a rune.
	huge := "x" + strings.Repeat("é", 1<<19)
	require.GreaterOrEqual(t, len(huge), 1<<20)
	check := func(t *testing.T, d string) {
		t.Helper()
		require.LessOrEqual(t, len(d), MaxDescription)
		require.Greater(t, len(d), MaxDescription-utf8.UTFMax)
		require.True(t, utf8.ValidString(d), "cut at a rune boundary")
		require.True(t, strings.HasPrefix(huge, d))
	}
	t.Run("single field", func(t *testing.T) {
		t.Parallel()
		page := mustParse(t, "ashby", []byte(`{"jobs":[{"id":"a","title":"Engineer","descriptionHtml":"`+huge+`"}]}`), ashbyURL)
		require.Len(t, page.Postings, 1)
		check(t, page.Postings[0].Description)
	})
	t.Run("sections", func(t *testing.T) {
		t.Parallel()
		page := mustParse(t, "pinpoint", []byte(`{"data":[{"id":"1","title":"Engineer","description":"`+huge+
			`","benefits_header":"Benefits","benefits":"`+huge+`"}]}`), pinpointURL)
		require.Len(t, page.Postings, 1)
		check(t, page.Postings[0].Description)
	})
	t.Run("xml", func(t *testing.T) {
		t.Parallel()
		body := `<rss version="2.0"><channel><title>Acme</title><item><title>Engineer</title>` +
			`<link>https://acme.teamtailor.com/jobs/1-engineer</link><description>` + huge + `</description></item></channel></rss>`
		page := mustParse(t, "teamtailor", []byte(body), teamtailorURL)
		require.Len(t, page.Postings, 1)
		check(t, page.Postings[0].Description)
	})
	require.Equal(t, "ab", boundDescription("ab"))
	require.Empty(t, boundDescription(" \n\t"), "a blank description is none")
}

// Every posting of every captured payload whose record carries a description (read here from the
// raw payload, field by field, independently of the adapters) keeps one that cleans to text, and
// a posting whose record carries none has none (docs/crawl-contract.md, "Descriptions"): what the
// crawl stores and serves for the vendors' real shapes.
func TestCapturedPayloadsKeepEveryDescription(t *testing.T) {
	t.Parallel()
	cases := []struct {
		vendor, fixture, url string
		raw                  func(t *testing.T, body []byte) map[string]bool // title → its record carries a description
	}{
		{"greenhouse", "greenhouse_jobs.json", ghURL, rawList("jobs", "title", "content")},
		{"lever", "lever_postings.json", leverURL, rawList("", "text", "description", "descriptionPlain", "lists", "additional", "additionalPlain")},
		{"ashby", "ashby_jobs.json", ashbyURL, rawList("jobs", "title", "descriptionHtml", "descriptionPlain")},
		{"workable", "workable_account.json", workableURL, rawList("jobs", "title", "description", "requirements", "benefits")},
		{"recruitee", "recruitee_offers.json", recruiteeURL, rawList("offers", "title", "description", "requirements")},
		{"pinpoint", "pinpoint_postings.json", pinpointURL, rawList("data", "title", "description", "key_responsibilities",
			"skills_knowledge_expertise", "benefits")},
		{"aggregator", "aggregator_feed.json", aggURL, rawList("jobs", "title", "description")},
		{"smartrecruiters", "smartrecruiters_page1.json", srBase + "?limit=100&offset=0", rawList("content", "name", "description", "jobAd")},
		{"bamboohr", "bamboohr_list.json", bambooURL, rawList("result", "jobOpeningName", "description")},
		{"breezy", "breezy_positions.json", breezyURL, rawList("", "name", "description")},
		{"join", "join_jobs_page1.json", joinURL, rawList("items", "title", "description")},
		{"join", "join_jobs_page2.json", joinURL, rawList("items", "title", "description")},
		{"rippling", "rippling_jobs.json", ripplingURL, rawList("items", "name", "description")},
		{"workday", "workday_jobs.json", workdayURL, rawList("jobPostings", "title", "jobDescription")},
		{"personio", "personio_positions.xml", personioURL, rawPersonio},
		{"teamtailor", "teamtailor_jobs.rss", teamtailorURL, rawTeamtailor},
		{"icims", "icims_search_page1.html", icimsURL, rawICIMS},
		{"icims", "icims_search_page2.html", icimsURL + "&pr=1", rawICIMS},
		{"jsonld", "jsonld_page1.html", ldURL, rawJSONLD},
		{"jsonld", "jsonld_last.html", ldURL, rawJSONLD},
		{"jobvite", "jobvite_search.html", jobviteURL, rawNone}, // the HTML lists carry no description
		{"jazzhr", "jazzhr_apply.html", jazzURL, rawNone},
	}
	described := map[string]int{}
	for _, c := range cases {
		body := fixture(t, c.fixture)
		raw := c.raw(t, body)
		page := mustParse(t, c.vendor, body, c.url)
		require.NotEmpty(t, page.Postings, c.fixture)
		for _, p := range page.Postings {
			title := strings.Join(strings.Fields(p.Title), " ")
			has, ok := raw[title]
			require.True(t, ok || raw == nil, "%s: posting %s (%q) is a record of the payload", c.fixture, p.SourceID, title)
			text := jobtext.Clean(p.Description, jobtext.DefaultMax)
			if has {
				require.NotEmpty(t, text, "%s: posting %s (%q) carries a description", c.fixture, p.SourceID, title)
				described[c.vendor]++
			} else {
				require.Empty(t, text, "%s: posting %s (%q) carries none", c.fixture, p.SourceID, title)
			}
		}
	}
	t.Logf("postings with a description, per vendor: %v", described)
	for _, v := range []string{"greenhouse", "lever", "ashby", "workable", "recruitee", "pinpoint", "aggregator", "personio", "teamtailor", "icims", "jsonld"} {
		require.Positive(t, described[v], "%s's payload carries descriptions", v)
	}
}

// hasText reports whether a raw description field holds text: a string with words once its
// entities (twice: Greenhouse escapes its HTML once more) and tags are gone, or a list of Lever's
// {text, content} whose content does.
func hasText(v any) bool {
	switch x := v.(type) {
	case string:
		s := html.UnescapeString(html.UnescapeString(x))
		return strings.TrimSpace(rawTag.ReplaceAllString(s, " ")) != ""
	case []any:
		for _, e := range x {
			if m, ok := e.(map[string]any); ok && hasText(m["content"]) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if hasText(e) {
				return true
			}
		}
	}
	return false
}

var rawTag = regexp.MustCompile(`<[^>]*>`)

func normTitle(s string) string { return strings.Join(strings.Fields(html.UnescapeString(s)), " ") }

// rawList reads a JSON list (under key list, or the body itself when list is "") of records
// titled by titleKey and described by any of keys.
func rawList(list, titleKey string, keys ...string) func(*testing.T, []byte) map[string]bool {
	return func(t *testing.T, body []byte) map[string]bool {
		t.Helper()
		var recs []any
		if list == "" {
			require.NoError(t, json.Unmarshal(body, &recs))
		} else {
			var top map[string]any
			require.NoError(t, json.Unmarshal(body, &top))
			recs, _ = top[list].([]any)
		}
		out := map[string]bool{}
		for _, r := range recs {
			m, ok := r.(map[string]any)
			if !ok {
				continue
			}
			title, _ := m[titleKey].(string)
			has := false
			for _, k := range keys {
				has = has || hasText(m[k])
			}
			out[normTitle(title)] = out[normTitle(title)] || has
		}
		return out
	}
}

func rawPersonio(t *testing.T, body []byte) map[string]bool {
	t.Helper()
	var feed struct {
		Positions []struct {
			Name   string   `xml:"name"`
			Values []string `xml:"jobDescriptions>jobDescription>value"`
		} `xml:"position"`
	}
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict, d.Entity = false, xml.HTMLEntity // a real feed's stray &nbsp; and bare &
	require.NoError(t, d.Decode(&feed))
	out := map[string]bool{}
	for _, p := range feed.Positions {
		has := false
		for _, v := range p.Values {
			has = has || hasText(v)
		}
		out[normTitle(p.Name)] = out[normTitle(p.Name)] || has
	}
	return out
}

func rawTeamtailor(t *testing.T, body []byte) map[string]bool {
	t.Helper()
	var feed struct {
		Items []struct {
			Title       string `xml:"title"`
			Description string `xml:"description"`
		} `xml:"channel>item"`
	}
	require.NoError(t, xml.Unmarshal(body, &feed))
	out := map[string]bool{}
	for _, it := range feed.Items {
		out[normTitle(it.Title)] = hasText(it.Description)
	}
	return out
}

var (
	rawICIMSCard = regexp.MustCompile(`(?s)<li class="iCIMS_JobCardItem">.*?</li>`)
	rawICIMSH3   = regexp.MustCompile(`(?s)<h3>(.*?)</h3>`)
	rawICIMSDesc = regexp.MustCompile(`(?s)<div class="col-xs-12 description">(.*?)</div>`)
	rawLDScript  = regexp.MustCompile(`(?is)<script[^>]*type=["']?application/ld\+json[^>]*>(.*?)</script>`)
)

func rawICIMS(t *testing.T, body []byte) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, card := range rawICIMSCard.FindAll(body, -1) {
		h := rawICIMSH3.FindSubmatch(card)
		if h == nil {
			continue
		}
		d := rawICIMSDesc.FindSubmatch(card)
		out[normTitle(string(h[1]))] = d != nil && hasText(string(d[1]))
	}
	return out
}

// rawJSONLD reads every JobPosting of a page's JSON-LD blocks (a block is one object or a list).
func rawJSONLD(t *testing.T, body []byte) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(e)
			}
		case map[string]any:
			if title, ok := x["title"].(string); ok {
				out[normTitle(title)] = hasText(x["description"])
			}
			visit(x["@graph"])
		}
	}
	for _, m := range rawLDScript.FindAllSubmatch(body, -1) {
		// As pages write it: plain, entity-escaped, or with a raw line break inside a string.
		block := string(m[1])
		for _, b := range []string{block, html.UnescapeString(block), strings.NewReplacer("\n", " ", "\r", " ").Replace(block)} {
			var v any
			if json.Unmarshal([]byte(b), &v) == nil {
				visit(v)
				break
			}
		}
	}
	return out
}

// rawNone reads a list whose records carry no description (nil: no record has one).
func rawNone(*testing.T, []byte) map[string]bool { return nil }
