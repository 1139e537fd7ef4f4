package normalize

import (
	"encoding/json"
	"os"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCountryTable(t *testing.T) {
	t.Parallel()
	require.Len(t, countryTable, 249)
	require.Empty(t, countryIndexConflicts, "a key resolves to two countries")
	for _, a2 := range countryAliases {
		_, ok := countryByAlpha2(a2)
		require.True(t, ok, a2)
	}
	for alias := range countryAliases {
		require.Equal(t, foldKey(alias), alias, "alias keys must be folded")
	}
}

// The generated table must match the iso-codes JSON it was generated from,
// where that file is installed (go generate refreshes it).
func TestCountryTableMatchesIsoCodes(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("/usr/share/iso-codes/json/iso_3166-1.json")
	if err != nil {
		t.Skip("iso-codes not installed:", err)
	}
	var doc struct {
		Entries []struct {
			Alpha2       string `json:"alpha_2"`
			Alpha3       string `json:"alpha_3"`
			Name         string `json:"name"`
			CommonName   string `json:"common_name"`
			OfficialName string `json:"official_name"`
		} `json:"3166-1"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	require.Len(t, doc.Entries, len(countryTable))
	for _, e := range doc.Entries {
		c, ok := countryByAlpha2(e.Alpha2)
		require.True(t, ok, e.Alpha2)
		require.Equal(t, countryRow{e.Alpha2, e.Alpha3, e.Name, e.CommonName, e.OfficialName}, *c)
	}
}

func TestCountryName(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		// names, official and common names
		{"Germany", "Germany"},
		{"germany", "Germany"},
		{"  GERMANY \t", "Germany"},
		{"Federal Republic of Germany", "Germany"},
		{"United States", "United States"},
		{"United States of America", "United States"},
		{"United Kingdom", "United Kingdom"},
		{"United Kingdom of Great Britain and Northern Ireland", "United Kingdom"},
		{"Korea, Republic of", "South Korea"},
		{"Republic of Korea", "South Korea"},
		{"South Korea", "South Korea"},
		{"Viet Nam", "Vietnam"},
		{"Vietnam", "Vietnam"},
		{"Iran, Islamic Republic of", "Iran"},
		{"Czechia", "Czechia"},
		{"Czech Republic", "Czechia"},
		{"Russian Federation", "Russian Federation"},
		{"Türkiye", "Türkiye"},
		{"Turkiye", "Türkiye"},
		{"Turkey", "Türkiye"},
		{"Côte d'Ivoire", "Côte d'Ivoire"},
		{"cote d'ivoire", "Côte d'Ivoire"},
		{"Ivory Coast", "Côte d'Ivoire"},
		{"The Netherlands", "Netherlands"},
		{"Netherlands", "Netherlands"},
		{"Åland Islands", "Åland Islands"},
		{"Aland Islands", "Åland Islands"},
		{"Guinea-Bissau", "Guinea-Bissau"},
		{"St. Lucia", "Saint Lucia"},
		{"Congo, The Democratic Republic of the", "Congo, The Democratic Republic of the"},
		{"DRC", "Congo, The Democratic Republic of the"},
		{"Congo", "Congo"},
		{"Taiwan", "Taiwan"},
		{"Palestine", "Palestine, State of"},
		// alpha-2 and alpha-3, any case
		{"DE", "Germany"},
		{"de", "Germany"},
		{"DEU", "Germany"},
		{"deu", "Germany"},
		{"US", "United States"},
		{"us", "United States"},
		{"USA", "United States"},
		{"GB", "United Kingdom"},
		{"GBR", "United Kingdom"},
		{"KR", "South Korea"},
		{"KOR", "South Korea"},
		{"CH", "Switzerland"},
		{"che", "Switzerland"},
		// aliases
		{"U.S.", "United States"},
		{"U.S.A.", "United States"},
		{"UK", "United Kingdom"},
		{"U.K.", "United Kingdom"},
		{"Great Britain", "United Kingdom"},
		{"England", "United Kingdom"},
		{"Scotland", "United Kingdom"},
		{"Deutschland", "Germany"},
		{"UAE", "United Arab Emirates"},
		{"Russia", "Russian Federation"},
		{"Holland", "Netherlands"},
		{"Österreich", "Austria"},
		{"Schweiz", "Switzerland"},
		{"España", "Spain"},
	}
	for _, c := range cases {
		got, ok := CountryName(c.in)
		require.True(t, ok, c.in)
		require.Equal(t, c.want, got, c.in)
	}
	for _, in := range []string{"", "  ", "Narnia", "Berlin", "Remote", "XX", "Europe", "EMEA", "United"} {
		got, ok := CountryName(in)
		require.False(t, ok, in)
		require.Empty(t, got, in)
	}
}

func TestCanonicalNamesRoundTrip(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for i := range countryTable {
		c := &countryTable[i]
		name := c.canonical()
		require.False(t, seen[name], "duplicate canonical name %q", name)
		seen[name] = true
		got, ok := CountryName(name)
		require.True(t, ok, name)
		require.Equal(t, name, got)
		require.Equal(t, c.alpha2, CountryCode(name))
		got, ok = CountryName(c.alpha2)
		require.True(t, ok)
		require.Equal(t, name, got)
		got, ok = CountryName(c.alpha3)
		require.True(t, ok)
		require.Equal(t, name, got)
	}
}

func TestCountryCode(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"Germany":        "DE",
		"United States":  "US",
		"United Kingdom": "GB",
		"South Korea":    "KR",
		"Vietnam":        "VN",
		"germany":        "DE",
		"USA":            "US",
		"UK":             "GB",
		"Narnia":         "",
		"":               "",
		"Remote":         "",
	}
	for in, want := range cases {
		require.Equal(t, want, CountryCode(in), in)
	}
}

func TestCountryNames(t *testing.T) {
	t.Parallel()
	names := CountryNames()
	require.Len(t, names, 249)
	require.True(t, sort.SliceIsSorted(names, func(i, j int) bool { return foldKey(names[i]) < foldKey(names[j]) }))
	require.Equal(t, "Afghanistan", names[0])
	require.Equal(t, "Åland Islands", names[1])
	require.Contains(t, names, "United States")
	require.Contains(t, names, "South Korea")
	names[0] = "changed"
	require.Equal(t, "Afghanistan", CountryNames()[0], "callers get a copy")
}
