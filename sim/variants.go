package sim

import (
	"strings"
)

// Cross-posting and the variant spellings boards use for titles, companies and locations.

// crossPost decides where a req of c is cross-posted: a mask over the region's two boards and
// whether the aggregator carries it. It is fixed for the req's whole life.
func crossPost(g *gen) (mask uint8, agg bool) {
	r := rng{h2(g.h, saltCross)}
	switch x := r.float(); {
	case x < 0.5:
	case x < 0.8:
		mask = 1 << uint(r.intn(2))
	default:
		mask = 3
	}
	return mask, r.chance(0.3)
}

const (
	vkCanonical = iota
	vkLower
	vkUpper
	vkAbbrev
	vkGender
	vkLocation
	vkAnd
	vkSpace
)

var variantWeights = []float64{0.12, 0.08, 0.07, 0.22, 0.16, 0.16, 0.07, 0.12}

// appendTitleVariant appends a board's spelling of g's canonical title. Variants are drawn from
// these kinds only: case changes, abbreviations, gender tags, a location suffix, "&" vs "and",
// extra whitespace/punctuation (sometimes two of them combined).
func (w *World) appendTitleVariant(b []byte, g *gen, h uint64) []byte {
	title := w.titles[g.title].name
	r := rng{h}
	kind := r.pick(variantWeights)
	switch kind {
	case vkLower:
		b = appendLowerASCII(b, title)
	case vkUpper:
		b = appendUpperASCII(b, title)
	case vkAbbrev:
		var ok bool
		start := len(b)
		if b, ok = appendAbbrev(b, title, &r); !ok {
			b = append(b[:start], title...) // nothing to abbreviate: drop the copy appendAbbrev wrote
			b = append(b, genderTags[r.intn(len(genderTags))]...)
			kind = vkGender
		}
	case vkGender:
		b = append(b, title...)
		b = append(b, genderTags[r.intn(len(genderTags))]...)
	case vkLocation:
		b = append(b, title...)
		b = appendLocationSuffix(b, g, &r)
	case vkAnd:
		switch {
		case strings.Contains(title, " & "):
			b = append(b, strings.Replace(title, " & ", " and ", 1)...)
		case strings.Contains(title, " and "):
			b = append(b, strings.Replace(title, " and ", " & ", 1)...)
		default:
			b = appendLowerASCII(b, title)
			kind = vkLower
		}
	case vkSpace:
		switch r.intn(4) {
		case 0:
			if i := strings.IndexByte(title, ' '); i > 0 {
				b = append(b, title[:i]...)
				b = append(b, "  "...)
				b = append(b, title[i+1:]...)
			} else {
				b = append(b, title...)
				b = append(b, "  "...)
			}
		case 1:
			b = append(b, ' ')
			b = append(b, title...)
			b = append(b, ' ')
		case 2:
			b = append(b, title...)
			b = append(b, " -"...)
		default:
			b = append(b, title...)
			b = append(b, '.')
		}
	default:
		b = append(b, title...)
	}
	if kind != vkCanonical && r.chance(0.2) {
		if kind != vkGender && r.chance(0.5) {
			b = append(b, genderTags[r.intn(len(genderTags))]...)
		} else if kind != vkLocation {
			b = appendLocationSuffix(b, g, &r)
		}
	}
	return b
}

func appendLocationSuffix(b []byte, g *gen, r *rng) []byte {
	city := countries[g.country].cities[g.city]
	if g.remote {
		if r.chance(0.5) {
			return append(b, " – Remote"...)
		}
		return append(b, " - Remote"...)
	}
	switch r.intn(3) {
	case 0:
		b = append(b, " - "...)
	case 1:
		b = append(b, " – "...)
	default:
		b = append(b, ", "...)
	}
	return append(b, city...)
}

// abbreviation returns the two abbreviations boards use for word ("" when none).
func abbreviation(word string, choice int) string {
	var ab [2]string
	switch word {
	case "Senior":
		ab = [2]string{"Sr.", "Sr"}
	case "Junior":
		ab = [2]string{"Jr.", "Jr"}
	case "Manager":
		ab = [2]string{"Mgr", "Mgr."}
	case "Engineer":
		ab = [2]string{"Eng.", "Engr"}
	case "Developer":
		ab = [2]string{"Dev", "Dev"}
	}
	return ab[choice&1]
}

// appendAbbrev abbreviates every abbreviable word of title; ok is false when none is.
func appendAbbrev(b []byte, title string, r *rng) ([]byte, bool) {
	ok := false
	choice := r.intn(2)
	for i := 0; i < len(title); {
		j := strings.IndexByte(title[i:], ' ')
		if j < 0 {
			j = len(title) - i
		}
		word := title[i : i+j]
		if ab := abbreviation(word, choice); ab != "" {
			b = append(b, ab...)
			ok = true
		} else {
			b = append(b, word...)
		}
		i += j
		if i < len(title) {
			b = append(b, ' ')
			i++
		}
	}
	return b, ok
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func appendLowerASCII(b []byte, s string) []byte {
	if !isASCII(s) {
		return append(b, strings.ToLower(s)...)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

func appendUpperASCII(b []byte, s string) []byte {
	if !isASCII(s) {
		return append(b, strings.ToUpper(s)...)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// appendCompanyVariant appends the name a board shows for c: never the directory spelling,
// but the bare brand, an upper-cased form, another legal spelling or a lower-cased form.
func appendCompanyVariant(b []byte, c *company, h uint64) []byte {
	r := rng{h}
	sp := legalForms[c.legal].spellings
	other := int(c.spelling)
	if len(sp) > 1 {
		other = (int(c.spelling) + 1 + r.intn(len(sp)-1)) % len(sp)
	}
	switch x := r.float(); {
	case x < 0.35:
		return append(b, c.core...)
	case x < 0.55:
		// "ACME INC": upper case, periods dropped.
		start := len(b)
		b = appendUpperASCII(b, c.core)
		b = appendUpperASCII(b, sp[r.intn(len(sp))])
		n := start
		for i := start; i < len(b); i++ {
			if b[i] != '.' {
				b[n] = b[i]
				n++
			}
		}
		return b[:n]
	case x < 0.90:
		b = append(b, c.core...)
		return append(b, sp[other]...)
	default:
		b = appendLowerASCII(b, c.core)
		return appendLowerASCII(b, sp[c.spelling])
	}
}

// atsCompanyName is the employer name an ATS feed shows (the tenant's own display name).
func atsCompanyName(c *company) string {
	if c.atsName == 0 {
		return c.core
	}
	return c.name
}

// appendLocationText appends a free-text location: "City, Country", "City, CC" or
// "Remote - Country" / "Remote - CC".
func appendLocationText(b []byte, g *gen, h uint64) []byte {
	cd := &countries[g.country]
	r := rng{h}
	useCode := r.chance(0.35)
	if g.remote {
		b = append(b, "Remote - "...)
	} else {
		b = append(b, cd.cities[g.city]...)
		b = append(b, ", "...)
	}
	if useCode {
		return append(b, cd.a2...)
	}
	return append(b, cd.name...)
}
