package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const personioURL = "http://127.0.0.1:7070/personio/acme/xml?language=en"

func TestPersonioParse(t *testing.T) {
	page := mustParse(t, "personio", fixture(t, "personio_positions.xml"), personioURL)
	require.Equal(t, 2, page.Malformed, "empty id, missing name")
	require.Empty(t, page.NextURL)
	m := bySourceID(t, page)
	require.Len(t, m, 3)

	require.Equal(t, Posting{
		SourceID:    "1234567",
		Title:       "Backend Engineer (m/w/d)",
		CompanyName: "Acme GmbH",
		Location:    "Berlin",
		City:        "Berlin",
		Department:  "Engineering",
		PostedAt:    ts("2026-01-05T09:12:44Z"),
	}, m["1234567"], "no country, salary or url in the Personio feed")

	p := m["1234568"]
	require.Equal(t, "Lagerist & Fahrer (m/w/d)", p.Title)
	require.Empty(t, p.CompanyName, "no subcompany")
	require.Equal(t, "Operations & Logistics", p.Department)
	require.Equal(t, ts("2026-01-06T09:00:00Z"), p.PostedAt)

	require.True(t, m["1234569"].PostedAt.IsZero())
}

func TestPersonioEncodingsAndEmpty(t *testing.T) {
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
	full := fixture(t, "personio_positions.xml")
	for _, body := range []string{"", "   ", "not xml at all", `{"jobs":[]}`, string(full[:len(full)/2]), string(full[:len(full)-20]),
		`<workzag-jobs><position><id>1</id><name>x</name></position>`, `<workzag-jobs></workzag-jobs><workzag-jobs></workzag-jobs>`} {
		parseErr(t, "personio", []byte(body))
	}
}
