package normalize

import "strings"

// Locations: the country of a free-text location, and the recogniser of
// location words used to strip location suffixes from titles.

type locKind uint8

const (
	locNone       locKind = iota
	locCountry            // a country name or alias of four letters or more
	locCity               // a city of cityCountry
	locState              // a US state or Canadian province name
	locRegion             // a region larger than a country ("EMEA", "Europe")
	locWorkplace          // "remote", "hybrid", "onsite", ...
	locStrongCode         // "US", "USA", "UK", "GB", "UAE": only when written in capitals
	locWeakCode           // any other ISO code or US/Canadian postal code: capitals, and only after a stronger place
)

// locWords maps folded location phrases to their kind. Built once at
// start-up; read-only afterwards.
var locWords, locMaxWords = buildLocWords()

func buildLocWords() (map[string]locKind, int) {
	m := make(map[string]locKind, len(countryIndex)+len(cityCountry)+100)
	set := func(key string, k locKind) {
		if key == "" {
			return
		}
		if _, ok := m[key]; !ok {
			m[key] = k
		}
	}
	strongCodes := map[string]bool{"us": true, "usa": true, "uk": true, "gb": true, "uae": true}
	for key := range countryIndex {
		switch {
		case len(key) > 3:
			set(key, locCountry)
		case strongCodes[key]:
			set(key, locStrongCode)
		default:
			set(key, locWeakCode)
		}
	}
	for _, w := range workplaceWords {
		set(foldKey(w), locWorkplace)
	}
	for _, w := range regionWords {
		set(foldKey(w), locRegion)
	}
	for key := range cityCountry {
		set(key, locCity)
	}
	for name, code := range usStates {
		set(name, locState)
		set(foldKey(code), locWeakCode)
	}
	for name, code := range caProvinces {
		set(name, locState)
		set(foldKey(code), locWeakCode)
	}
	max := 1
	for key := range m {
		n := 1
		for i := 0; i < len(key); i++ {
			if key[i] == ' ' {
				n++
			}
		}
		if n > max {
			max = n
		}
	}
	return m, max
}

// locStrength is how surely a run of tokens is a location.
type locStrength uint8

const (
	notLoc locStrength = iota
	weakLoc
	strongLoc
)

// locConnector reports whether token i may join two places ("Berlin or
// Remote", "UK and Ireland").
func (l *lexer) locConnector(i int) bool {
	return l.is(i, "or") || l.is(i, "and")
}

// classifyLoc reports whether the kept tokens first..last are entirely
// location phrases (joined by "or"/"and"), and how strongly.
func (l *lexer) classifyLoc(first, last int) locStrength {
	strong, found := false, false
	for i := first; i <= last; {
		if l.toks[i].drop {
			i++
			continue
		}
		if found && l.locConnector(i) {
			i++
			continue
		}
		n, k := l.matchLoc(i, last)
		if n == 0 {
			return notLoc
		}
		found = true
		if k != locWeakCode {
			strong = true
		}
		i += n
	}
	switch {
	case !found:
		return notLoc
	case strong:
		return strongLoc
	default:
		return weakLoc
	}
}

// matchLoc finds the longest location phrase starting at token i and ending
// at or before last. It returns the phrase length in tokens (0 when none) and
// its kind. Codes count only when written in capitals.
func (l *lexer) matchLoc(i, last int) (int, locKind) {
	n := last - i + 1
	if n > locMaxWords {
		n = locMaxWords
	}
	for ; n >= 1; n-- {
		j := i + n - 1
		if l.toks[j].drop {
			continue
		}
		k, ok := locWords[string(l.span(i, j))]
		if !ok {
			continue
		}
		if k == locStrongCode || k == locWeakCode {
			if n != 1 || !l.toks[i].upper {
				continue
			}
		}
		return n, k
	}
	return 0, locNone
}

// CountryFromLocation returns the canonical country of a free-text location
// such as "Berlin, Germany", "Berlin, DE", "Remote - Germany", "Remote – US",
// "San Francisco, CA, United States", "Austin, TX" or "London". ok is false
// when the location names no country ("Remote", "EMEA", "Anywhere").
//
// Rules, in order: the whole text as a country; the last part (parts are split
// at commas, semicolons, pipes, brackets and dashes); then every part from the
// right as a country, a known city or a state; then the words of every part.
// A two-letter last part after a city ("Berlin, DE", "Austin, TX") is read
// with the city: the city's own country code wins ("Berlin, DE" is Germany),
// then a US state or Canadian province code of a US or Canadian city
// ("Chicago, IL" is the United States although IL is also Israel). A code that
// is both a US state and a country code after an unknown city
// ("Springfield, IL") is ambiguous and decides nothing; after "Remote" it is
// read as the country ("Remote - DE" is Germany).
func CountryFromLocation(loc string) (name string, ok bool) {
	if c, ok := lookupCountry(loc); ok {
		return c.canonical(), true
	}
	var l lexer
	l.lex(loc)
	if a2 := l.locationCountry(); a2 != "" {
		if c, ok := countryByAlpha2(a2); ok {
			return c.canonical(), true
		}
	}
	return "", false
}

// PostingCountry returns the canonical country of a job posting from what
// its source gives: its country field, its free-text location and its
// employer's HQ country. The first of these that resolves wins:
//
//  1. the country field (CountryName);
//  2. the location (CountryFromLocation);
//  3. a location ending in a two-letter code in capitals that the location
//     alone leaves undecided ("Springfield, IL"): a US state for a US
//     employer, else the country with that code (Israel);
//  4. for the employer's own ATS feed (ownFeed), the HQ country: its offices
//     are there (Personio never gives a country; Greenhouse free text may not).
//
// It returns "" when none resolves.
func PostingCountry(country, location, hqCountry string, ownFeed bool) string {
	if country != "" {
		if c, ok := CountryName(country); ok {
			return c
		}
	}
	if location != "" {
		if c, ok := CountryFromLocation(location); ok {
			return c
		}
		if c := countryFromCode(location, hqCountry); c != "" {
			return c
		}
	}
	if ownFeed {
		c, _ := CountryName(hqCountry)
		return c
	}
	return ""
}

// countryFromCode reads a location "City, CC" whose code is both a US state
// and a country code: a US state for a US employer, else the country.
func countryFromCode(location, hqCountry string) string {
	code := strings.TrimSpace(location[strings.LastIndexByte(location, ',')+1:])
	if len(code) != 2 || code != strings.ToUpper(code) {
		return ""
	}
	if usStateCodes[foldKey(code)] && CountryCode(hqCountry) == "US" {
		return "United States"
	}
	c, _ := CountryName(code)
	return c
}

// locationCountry implements CountryFromLocation on a lexed text and returns
// an alpha-2 code or "".
func (l *lexer) locationCountry() string {
	n := l.nseg
	if n == 0 {
		return ""
	}
	if a2, decided := l.lastPartCountry(); decided {
		return a2
	}
	for k := n - 1; k >= 0; k-- {
		if a2 := l.partCountry(k); a2 != "" {
			return a2
		}
	}
	for k := n - 1; k >= 0; k-- {
		if a2 := l.wordsCountry(k); a2 != "" {
			return a2
		}
	}
	return ""
}

// partKey is the folded text of segment k.
func (l *lexer) partKey(k int) string {
	s := l.segs[k]
	return string(l.span(s.first, s.last))
}

// lastPartCountry reads the last part together with the part before it.
// decided is true when the answer (possibly "", for an ambiguous code) is
// final.
func (l *lexer) lastPartCountry() (a2 string, decided bool) {
	n := l.nseg
	last := l.segs[n-1]
	key := string(l.span(last.first, last.last))
	prevCity := ""
	prevWorkplace := false
	if n >= 2 {
		pk := l.partKey(n - 2)
		prevCity = cityCountry[pk]
		prevWorkplace = isWorkplaceOrRegion(pk)
	}
	var country *countryRow
	if c, ok := countryByKey(key); ok {
		country = c
	}
	if last.first == last.last && len(key) == 2 && n >= 2 {
		isState, isProv := usStateCodes[key], caProvinceCodes[key]
		switch {
		case country != nil && country.alpha2 == prevCity:
			return prevCity, true
		case prevCity == "US" && isState:
			return "US", true
		case prevCity == "CA" && isProv:
			return "CA", true
		case country == nil && isState:
			return "US", true
		case country == nil && isProv:
			return "CA", true
		case country != nil && (prevCity != "" || prevWorkplace || !(isState || isProv)):
			return country.alpha2, true
		case country != nil:
			return "", true // "Springfield, IL": state or country, undecidable
		}
		return "", false
	}
	if _, isState := usStates[key]; isState && prevCity == "US" {
		return "US", true // "Atlanta, Georgia"
	}
	if country != nil {
		return country.alpha2, true
	}
	if _, ok := usStates[key]; ok {
		return "US", true
	}
	if _, ok := caProvinces[key]; ok {
		return "CA", true
	}
	return "", false
}

// partCountry resolves segment k as a whole: country, city or state.
func (l *lexer) partCountry(k int) string {
	key := l.partKey(k)
	if c, ok := countryByKey(key); ok {
		return c.alpha2
	}
	if a2, ok := cityCountry[key]; ok {
		return a2
	}
	if _, ok := usStates[key]; ok {
		return "US"
	}
	if _, ok := caProvinces[key]; ok {
		return "CA"
	}
	return ""
}

// wordsCountry scans the words of segment k for a country, city or state
// phrase ("Remote US", "San Francisco Bay Area", "Hybrid Berlin"). Codes
// count only when written in capitals.
func (l *lexer) wordsCountry(k int) string {
	s := l.segs[k]
	for i := s.first; i <= s.last; i++ {
		n, kind := l.matchLoc(i, s.last)
		if n == 0 {
			continue
		}
		key := string(l.span(i, i+n-1))
		switch kind {
		case locCountry, locStrongCode, locWeakCode:
			if c, ok := countryByKey(key); ok {
				return c.alpha2
			}
			if usStateCodes[key] {
				return "US"
			}
			if caProvinceCodes[key] {
				return "CA"
			}
		case locCity:
			return cityCountry[key]
		case locState:
			if _, ok := usStates[key]; ok {
				return "US"
			}
			return "CA"
		}
		i += n - 1
	}
	return ""
}
