package normalize

import "strings"

// Companies: name keys for matching employers across boards and for
// companies/resolve, and domain keys.

// companyBase lexes name and returns the token range [start, end) left once
// legal forms are stripped (prefixes like "PT", then suffixes repeatedly from
// the end), and whether anything was stripped. At least one token is kept.
func (l *lexer) companyBase(name string) (start, end int, stripped bool) {
	l.lex(name)
	start, end = 0, l.nt
	if end-start >= 2 && legalPrefixes[string(l.text(start))] {
		start++
		stripped = true
	}
	for {
		found := false
		n := legalMaxWords
		if n > end-start-1 {
			n = end - start - 1
		}
		for ; n >= 1; n-- {
			if legalFormSet[string(l.span(end-n, end-1))] {
				end -= n
				stripped, found = true, true
				break
			}
		}
		if !found {
			break
		}
		// "Acme & Co." leaves a dangling "and".
		if end-start >= 2 && l.is(end-1, "and") {
			end--
		}
	}
	return start, end, stripped
}

// CompanyKey returns the matching key of a company name: legal forms dropped
// (repeatedly from the end: "Acme Holdings Pte. Ltd." is "acme holdings"),
// folded to lower case without diacritics, punctuation and whitespace
// normalised, "&" as "and", a leading "the" dropped. "Acme", "ACME INC",
// "Acme, Inc.", "Acme GmbH", "Acme S.A.", "Acme Sp. z o.o." and
// "Acme Pte. Ltd." all have the key "acme". It returns "" for a name with no
// words.
func CompanyKey(name string) string {
	var l lexer
	start, end, _ := l.companyBase(name)
	if start < end && end-start >= 2 && l.is(start, "the") {
		start++
	}
	if start >= end {
		return ""
	}
	return string(l.span(start, end-1))
}

// StripLegalSuffix removes legal forms from a company name and returns the
// rest as written, trimmed ("Acme, Inc." → "Acme", true). stripped is false,
// and base is the trimmed name, when there was nothing to remove. Used for
// match_confidence: 1.0 for an exact name, 0.8 for a match once legal
// suffixes are dropped.
func StripLegalSuffix(name string) (base string, stripped bool) {
	var l lexer
	start, end, stripped := l.companyBase(name)
	if !stripped {
		return strings.TrimSpace(name), false
	}
	base = name[l.toks[start].ra:l.toks[end-1].rb]
	return strings.Trim(base, " \t,;-–—&/("), true
}

// DomainKey returns the host of a URL or bare domain, lower-cased, without
// scheme, user info, "www.", port, path, query or fragment:
// "https://www.Acme.com/careers" → "acme.com". It returns "" for an empty
// input.
func DomainKey(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	} else {
		s = strings.TrimPrefix(s, "//")
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "[") { // IPv6 literal
		if i := strings.IndexByte(s, ']'); i >= 0 {
			return strings.ToLower(s[:i+1])
		}
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(strings.ToLower(s), ".")
	return strings.TrimPrefix(s, "www.")
}
