package ats

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const personioURL = "http://127.0.0.1:7070/personio/acme/xml?language=en"

func TestPersonioParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "personio", fixture(t, "personio_positions.xml"), personioURL)
	require.Equal(t, 2, page.Malformed, "empty id, missing name")
	require.Empty(t, page.NextURL)
	m := bySourceID(t, page)
	require.Len(t, m, 4, "the additional office (Munich) of 1234567 is its own posting")

	require.Equal(t, Posting{
		SourceID:       "1234567",
		Title:          "Backend Engineer (m/w/d)",
		CompanyName:    "Acme GmbH",
		Location:       "Berlin",
		City:           "Berlin",
		Department:     "Engineering",
		EmploymentType: "full_time", YearsExperienceMin: new(3), // permanent, full-time; "3-5"; seniority "experienced" states no level
		URL:         "https://acme.jobs.personio.de/job/1234567", // built from the tenant
		PostedAt:    ts("2026-01-05T09:12:44Z"),
		Description: "<h3>Your tasks</h3><ul><li>Build & ship</li></ul>",
		Keywords:    "go,kubernetes", // the employer's tags: read for technologies
	}, m["1234567"], "no country or salary in the Personio feed")
	require.Equal(t, "Munich", m["1234567#1"].City)
	require.Equal(t, m["1234567"].URL, m["1234567#1"].URL)

	p := m["1234568"]
	require.Equal(t, "Lagerist & Fahrer (m/w/d)", p.Title)
	require.Empty(t, p.CompanyName, "no subcompany")
	require.Equal(t, "Operations & Logistics", p.Department)
	require.Equal(t, ts("2026-01-06T09:00:00Z"), p.PostedAt)

	require.True(t, m["1234569"].PostedAt.IsZero())
}

// The real shapes, from Personio's documented XML feed: the public posting page
// is https://{tenant}.jobs.personio.de/job/{id}, <office>Remote</office> is a remote job, and
// <additionalOffices> lists further offices.
func TestPersonioRealShapes(t *testing.T) {
	t.Parallel()
	f := func(feedURL, position string, want ...Posting) {
		t.Helper()
		body := `<?xml version="1.0" encoding="UTF-8"?><workzag-jobs><position>` + position + `</position></workzag-jobs>`
		page := mustParse(t, "personio", []byte(body), feedURL)
		for i := range page.Postings {
			page.Postings[i].PostedAt = time.Time{}
		}
		require.Equal(t, want, page.Postings, position)
	}
	f("https://northwind.jobs.personio.de/xml?language=en", `<id>42</id><office>Remote</office><name>Support Agent</name>`,
		Posting{SourceID: "42", Title: "Support Agent", Location: "Remote", Remote: true, WorkplaceType: "remote", URL: "https://northwind.jobs.personio.de/job/42"})
	f("https://northwind.jobs.personio.com/xml", `<id>43</id><office>Berlin</office><additionalOffices><office>Vienna</office><office> Berlin </office><office>REMOTE</office></additionalOffices><name>Sales Lead</name>`,
		Posting{SourceID: "43", Title: "Sales Lead", Location: "Berlin", City: "Berlin", URL: "https://northwind.jobs.personio.com/job/43"},
		Posting{SourceID: "43#1", Title: "Sales Lead", Location: "Vienna", City: "Vienna", URL: "https://northwind.jobs.personio.com/job/43"},
		Posting{SourceID: "43#3", Title: "Sales Lead", Location: "Remote", URL: "https://northwind.jobs.personio.com/job/43"})
	f("http://127.0.0.1:7070/personio/north-wind/xml?language=en", `<id>44</id><name>Analyst</name>`,
		Posting{SourceID: "44", Title: "Analyst", URL: "https://north-wind.jobs.personio.de/job/44"})
	f("", `<id>45</id><office>Hamburg</office><name>Analyst</name>`,
		Posting{SourceID: "45", Title: "Analyst", Location: "Hamburg", City: "Hamburg"}) // no tenant, no link
}

func TestPersonioEncodingsAndEmpty(t *testing.T) {
	t.Parallel()
	latin1 := []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<workzag-jobs><position><id>9</id><office>M\xfcnchen</office><name>K\xf6chin (m/w/d)</name><createdAt>2026-01-05T09:12:44+01:00</createdAt></position></workzag-jobs>")
	page := mustParse(t, "personio", latin1, personioURL)
	require.Len(t, page.Postings, 1)
	require.Equal(t, "Köchin (m/w/d)", page.Postings[0].Title)
	require.Equal(t, "München", page.Postings[0].City)

	page = mustParse(t, "personio", []byte(`<?xml version="1.0" encoding="UTF-8"?><workzag-jobs/>`), personioURL)
	require.Empty(t, page.Postings)
	require.Zero(t, page.Malformed)
}

func TestPersonioBadBodies(t *testing.T) {
	t.Parallel()
	full := fixture(t, "personio_positions.xml")
	for _, body := range []string{"", "   ", "not xml at all", `{"jobs":[]}`, string(full[:len(full)/2]), string(full[:len(full)-20]),
		`<workzag-jobs><position><id>1</id><name>x</name></position>`, `<workzag-jobs></workzag-jobs><workzag-jobs></workzag-jobs>`} {
		parseErr(t, "personio", []byte(body))
	}
}
