package normalize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCountryFromLocation(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"Berlin, Germany", "Germany"},
		{"Berlin, DE", "Germany"},
		{"Berlin", "Germany"},
		{"Remote - Germany", "Germany"},
		{"Remote – US", "United States"},
		{"Remote — UK", "United Kingdom"},
		{"Remote - DE", "Germany"},
		{"Remote (US)", "United States"},
		{"Remote US", "United States"},
		{"US Remote", "United States"},
		{"San Francisco, CA, United States", "United States"},
		{"San Francisco, CA", "United States"},
		{"San Francisco Bay Area", "United States"},
		{"London", "United Kingdom"},
		{"London, GB", "United Kingdom"},
		{"London, United Kingdom", "United Kingdom"},
		{"London, ON", "Canada"},
		{"Toronto, ON, Canada", "Canada"},
		{"Toronto, CA", "Canada"},
		{"Los Angeles, CA", "United States"},
		{"Austin, TX", "United States"},
		{"Austin, Texas", "United States"},
		{"Chicago, IL", "United States"},
		{"Denver, CO", "United States"},
		{"Boston, MA", "United States"},
		{"New York, NY", "United States"},
		{"NYC", "United States"},
		{"Atlanta, Georgia", "United States"},
		{"Tbilisi, Georgia", "Georgia"},
		{"Munich, Bavaria", "Germany"},
		{"München", "Germany"},
		{"Zürich, Switzerland", "Switzerland"},
		{"Zurich", "Switzerland"},
		{"Paris, France", "France"},
		{"Hybrid - Berlin", "Germany"},
		{"Berlin | Hybrid", "Germany"},
		{"Amsterdam, NL", "Netherlands"},
		{"Bengaluru, Karnataka, India", "India"},
		{"Singapore", "Singapore"},
		{"Seoul, South Korea", "South Korea"},
		{"Korea, Republic of", "South Korea"},
		{"Remote in Germany", "Germany"},
		{"DEU", "Germany"},
		{"usa", "United States"},
	}
	for _, c := range cases {
		got, ok := CountryFromLocation(c.in)
		require.True(t, ok, c.in)
		require.Equal(t, c.want, got, c.in)
	}
	for _, in := range []string{"", "Remote", "Hybrid", "EMEA", "Europe", "Anywhere", "Worldwide",
		"Springfield, IL", // IL is a state and a country code, Springfield unknown: undecidable
		"Narnia", "Office"} {
		got, ok := CountryFromLocation(in)
		require.False(t, ok, in)
		require.Empty(t, got, in)
	}
}

func TestPostingCountry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		country, location, hq string
		ownFeed               bool
		want                  string
	}{
		{"DE", "Paris, France", "", false, "Germany"},                    // the country field first
		{"Narnia", "Paris, France", "", false, "France"},                 // then the location
		{"", "Springfield, IL", "United States", false, "United States"}, // IL: a state for a US employer
		{"", "Springfield, IL", "Germany", false, "Israel"},              // else the country code
		{"", "Springfield, IL", "", false, "Israel"},
		{"", "Springfield, il", "United States", false, ""}, // codes count in capitals only
		{"", "Remote", "Germany", true, "Germany"},          // the employer's own feed: its HQ
		{"", "", "Germany", true, "Germany"},
		{"", "Remote", "Germany", false, ""}, // a board: no guess
		{"", "", "", true, ""},
	}
	for _, c := range cases {
		require.Equal(t, c.want, PostingCountry(c.country, c.location, c.hq, c.ownFeed), "%+v", c)
	}
}

// lexKey is the lexer's folded text of s, as tokens of a title see it.
func lexKey(s string) string {
	var l lexer
	l.lex(s)
	return string(l.text0())
}

func TestPlaceTables(t *testing.T) {
	t.Parallel()
	for city, a2 := range cityCountry {
		require.Equal(t, lexKey(city), city, "city keys must be folded")
		_, ok := countryByAlpha2(a2)
		require.True(t, ok, city)
	}
	for name := range usStates {
		require.Equal(t, lexKey(name), name)
	}
	for name := range caProvinces {
		require.Equal(t, lexKey(name), name)
	}
}
