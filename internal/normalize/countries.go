package normalize

import (
	"sort"
	"strings"
)

//go:generate go run ./internal/gencountries -in /usr/share/iso-codes/json/iso_3166-1.json -out countries_table.go -version 4.15.0

// Countries.
//
// The country list is ISO 3166-1 as shipped by Debian's iso-codes (249
// entries), generated into countries_table.go; nothing reads the JSON at run
// time.
//
// Canonical name: the one name the service stores and serves as `country` is
// the iso-codes common_name when the entry has one, else its name. So
// "South Korea" (not "Korea, Republic of"), "Vietnam", "Iran", "Taiwan",
// "Bolivia", but "United States", "United Kingdom", "Russian Federation",
// "Türkiye", "Czechia" and "Palestine, State of" (their iso-codes name, since
// they have no common_name). Canonical names keep iso-codes' spelling,
// diacritics included ("Côte d'Ivoire", "Åland Islands").
//
// A country given as input resolves from its canonical name, name, common
// name, official name, alpha-2, alpha-3 or one of the aliases below, in any
// case, with or without diacritics, dots or a leading "the".

// countryRow is one ISO 3166-1 entry.
type countryRow struct {
	alpha2, alpha3, name, commonName, officialName string
}

// canonical returns the service's name for the country.
func (c *countryRow) canonical() string {
	if c.commonName != "" {
		return c.commonName
	}
	return c.name
}

// countryAliases maps folded aliases to alpha-2 codes: common English short
// forms, former names and endonyms seen on job boards.
var countryAliases = map[string]string{
	"america": "US", "united states of america": "US", "us of a": "US", "estados unidos": "US",
	"uk": "GB", "great britain": "GB", "britain": "GB", "england": "GB", "scotland": "GB",
	"wales": "GB", "northern ireland": "GB",
	"deutschland": "DE", "bundesrepublik deutschland": "DE",
	"uae": "AE", "emirates": "AE",
	"korea": "KR", "republic of korea": "KR", "korea south": "KR",
	"korea north": "KP", "dprk": "KP",
	"russia":         "RU",
	"czech republic": "CZ", "czech": "CZ",
	"holland": "NL", "nederland": "NL",
	"turkey": "TR", "turkiye": "TR",
	"ivory coast": "CI",
	"macedonia":   "MK", "swaziland": "SZ", "burma": "MM", "lao": "LA",
	"brunei": "BN", "cape verde": "CV", "east timor": "TL", "timor leste": "TL",
	"vatican": "VA", "vatican city": "VA", "palestine": "PS", "micronesia": "FM",
	"drc": "CD", "dr congo": "CD", "democratic republic of congo": "CD", "congo kinshasa": "CD",
	"congo brazzaville": "CG", "republic of congo": "CG",
	"macau": "MO", "hongkong": "HK",
	"espana": "ES", "italia": "IT", "brasil": "BR", "osterreich": "AT", "oesterreich": "AT",
	"schweiz": "CH", "suisse": "CH", "svizzera": "CH", "sverige": "SE", "norge": "NO",
	"danmark": "DK", "suomi": "FI", "polska": "PL", "belgique": "BE", "belgie": "BE",
	"eire": "IE", "nippon": "JP", "nihon": "JP", "prc": "CN", "mainland china": "CN",
	"ksa": "SA", "saudi": "SA", "aotearoa": "NZ", "slovak republic": "SK",
	"kyrgyz republic": "KG", "falkland islands": "FK", "us virgin islands": "VI",
	"bosnia": "BA", "trinidad": "TT", "antigua": "AG", "st kitts and nevis": "KN",
	"magyarorszag": "HU", "hellas": "GR", "ellada": "GR", "rossiya": "RU",
	"cesko": "CZ", "hrvatska": "HR", "romania": "RO", "moldavia": "MD", "kirghizia": "KG",
}

// countryIndex maps every folded key (names, codes, aliases) to an index into
// countryTable. Built once at start-up; read-only afterwards.
var countryIndex, countryIndexConflicts = buildCountryIndex()

func buildCountryIndex() (map[string]uint8, []string) {
	idx := make(map[string]uint8, len(countryTable)*6)
	byAlpha2 := make(map[string]uint8, len(countryTable))
	var conflicts []string
	add := func(key string, i uint8) {
		if key == "" {
			return
		}
		if j, ok := idx[key]; ok && j != i {
			conflicts = append(conflicts, key)
			return
		}
		idx[key] = i
		if strings.HasPrefix(key, "saint ") {
			idx["st "+key[len("saint "):]] = i
		}
	}
	for n := range countryTable {
		i := uint8(n)
		c := &countryTable[n]
		byAlpha2[c.alpha2] = i
		add(foldKey(c.alpha2), i)
		add(foldKey(c.alpha3), i)
		for _, name := range []string{c.name, c.commonName, c.officialName} {
			if name == "" {
				continue
			}
			add(foldKey(name), i)
			// "Korea, Republic of" is also "Republic of Korea".
			if head, tail, ok := strings.Cut(name, ", "); ok {
				add(foldKey(tail+" "+head), i)
			}
		}
	}
	for alias, a2 := range countryAliases {
		i, ok := byAlpha2[a2]
		if !ok {
			conflicts = append(conflicts, alias+"→"+a2)
			continue
		}
		add(alias, i)
	}
	sort.Strings(conflicts)
	return idx, conflicts
}

// countryNamesSorted is CountryNames' answer, sorted by folded name.
var countryNamesSorted = func() []string {
	names := make([]string, len(countryTable))
	for i := range countryTable {
		names[i] = countryTable[i].canonical()
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := foldKey(names[i]), foldKey(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
	return names
}()

// lookupCountry resolves s.
func lookupCountry(s string) (*countryRow, bool) {
	var l lexer
	l.lex(s)
	i, ok := countryIndex[string(trimThe(l.text0()))]
	if !ok {
		return nil, false
	}
	return &countryTable[i], true
}

// countryByKey resolves an already folded key.
func countryByKey(key string) (*countryRow, bool) {
	i, ok := countryIndex[key]
	if !ok {
		return nil, false
	}
	return &countryTable[i], true
}

// countryByAlpha2 returns the entry of an upper-case alpha-2 code.
func countryByAlpha2(a2 string) (*countryRow, bool) {
	i := sort.Search(len(countryTable), func(i int) bool { return countryTable[i].alpha2 >= a2 })
	if i < len(countryTable) && countryTable[i].alpha2 == a2 {
		return &countryTable[i], true
	}
	return nil, false
}

// CountryName resolves a country given as a name (canonical, iso-codes name,
// common or official name), an alpha-2 or alpha-3 code or a common alias
// ("USA", "U.S.", "UK", "Great Britain", "England", "Deutschland", "UAE",
// "South Korea", "Russia", "Vietnam", "Czechia", "Holland", ...), in any case
// and with surrounding whitespace, to the canonical country name.
func CountryName(s string) (name string, ok bool) {
	c, ok := lookupCountry(s)
	if !ok {
		return "", false
	}
	return c.canonical(), true
}

// CountryCode returns the upper-case ISO 3166-1 alpha-2 code of a canonical
// (or any resolvable) country name, or "" when name does not resolve.
func CountryCode(name string) string {
	c, ok := lookupCountry(name)
	if !ok {
		return ""
	}
	return c.alpha2
}

// CountryNames returns the canonical names of all 249 countries, sorted
// alphabetically ignoring case and diacritics. The slice is the caller's.
func CountryNames() []string {
	return append([]string(nil), countryNamesSorted...)
}
