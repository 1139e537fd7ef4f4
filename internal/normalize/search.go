package normalize

import (
	"strings"

	"github.com/kljensen/snowball/english"
)

// Full-text helpers for the q search over raw_title: every query word must
// match a title word, in any order, case-insensitively, inflections included.

// Tokens returns the lower-case words of s with the title abbreviations
// expanded ("Sr." → "senior", "VP" → "vice", "president"), compounds joined
// ("front-end" → "frontend"), punctuation split and "&" as "and". Unlike
// TitleKey it keeps gender tags and locations: it reads raw_title as
// published. It returns nil when s has no words. Words past the lexer's
// capacity (48 words) are ignored.
func Tokens(s string) []string {
	toks, _ := QueryTokens(s)
	return toks
}

// QueryTokens returns Tokens(s) and whether they are all of s: false when s
// has more words or bytes than the lexer reads (Tokens then silently drops the
// rest). A search that requires every word to match must refuse such an s
// rather than search a prefix of it.
func QueryTokens(s string) (tokens []string, complete bool) {
	var l lexer
	l.lex(s)
	var wb wordBuf
	l.words(&wb)
	complete = !l.full && !wb.lost
	if wb.nw == 0 {
		return nil, complete
	}
	all := string(wb.text()) // one allocation; the words are substrings of it
	tokens = make([]string, wb.nw)
	for i, w := range wb.w[:wb.nw] {
		tokens[i] = all[w[0]:w[1]]
	}
	return tokens, complete
}

// Stems returns the snowball English stem of every token of s, so that
// "engineer", "engineers" and "engineering" all give "engin", and "manager",
// "managers" and "managing" give "manag".
func Stems(s string) []string {
	toks := Tokens(s)
	for i, t := range toks {
		toks[i] = english.Stem(t, false)
	}
	return toks
}

// MatchAll reports whether every query stem occurs among the title stems, in
// any order. An empty query matches every title.
func MatchAll(queryStems, titleStems []string) bool {
outer:
	for _, q := range queryStems {
		for _, t := range titleStems {
			if q == t {
				continue outer
			}
		}
		return false
	}
	return true
}

// ExpansionWeight is the relevance weight of a title word matched only
// through Expand; a direct match weighs 1. Expanded matches always rank below
// direct ones.
const ExpansionWeight = 0.6

// synonymGroups are the semantic expansions of jobs/search: every term of a
// group expands to the others. Terms are lower case, words single-spaced.
var synonymGroups = [][]string{
	{"developer", "engineer"},
	{"development", "engineering"},
	{"swe", "software engineer", "software developer"},
	{"sde", "software development engineer", "software engineer"},
	{"pm", "product manager"},
	{"tpm", "technical program manager"},
	{"ml", "machine learning"},
	{"ai", "artificial intelligence"},
	{"frontend", "front-end", "front end"},
	{"backend", "back-end", "back end"},
	{"fullstack", "full-stack", "full stack"},
	{"devops", "site reliability", "sre"},
	{"ux", "user experience"},
	{"ui", "user interface"},
	{"qa", "quality assurance"},
	{"hr", "human resources", "people operations"},
	{"recruiter", "talent acquisition"},
	{"sdr", "bdr", "sales development"},
	{"ae", "account executive"},
	{"csm", "customer success manager"},
	{"js", "javascript"},
	{"golang", "go"},
	{"k8s", "kubernetes"},
	{"ios", "iphone"},
	{"data scientist", "machine learning engineer"},
	{"infosec", "information security", "cybersecurity"},
	{"ecommerce", "e-commerce"},
}

// spellingGroups are the same term written differently: an abbreviation and its spelled-out
// form. Unlike synonymGroups (nearby titles, a ranking hint of jobs/search) they are the same
// word, so "every word must match" (reqs/search q, req.q of reqs/qualified and watches) and
// jobs/search's direct matches accept them: "ml engineer" matches "Machine Learning Engineer".
// Two-word compounds ("front end") are joined by Tokens already. Lower case, single-spaced.
var spellingGroups = [][]string{
	{"ml", "machine learning"},
	{"ai", "artificial intelligence"},
	{"swe", "software engineer"},
	{"sde", "software development engineer"},
	{"pm", "product manager"},
	{"tpm", "technical program manager"},
	{"sre", "site reliability engineer"},
	{"ux", "user experience"},
	{"ui", "user interface"},
	{"qa", "quality assurance"},
	{"hr", "human resources"},
	{"ae", "account executive"},
	{"csm", "customer success manager"},
	{"sdr", "sales development representative"},
	{"bdr", "business development representative"},
	{"js", "javascript"},
	{"golang", "go"},
	{"k8s", "kubernetes"},
	{"infosec", "information security"},
}

// synonyms indexes synonymGroups, spellings spellingGroups. Read-only.
var spellings = groupIndex(spellingGroups)
var synonyms = groupIndex(synonymGroups)

func groupIndex(groups [][]string) map[string][]string {
	m := make(map[string][]string)
	for _, g := range groups {
		for _, term := range g {
			for _, other := range g {
				if other != term && !contains(m[term], other) {
					m[term] = append(m[term], other)
				}
			}
		}
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Expand returns the nearby terms of a query token or phrase for the semantic
// expansion of jobs/search ("developer" → "engineer", "swe" → "software
// engineer", "software developer"; "frontend" → "front-end", "front end"), or
// nil when it has none. The input is matched lower-cased with its whitespace collapsed. Matches
// found through an expansion score below direct matches (ExpansionWeight).
// The slice is the caller's.
func Expand(token string) []string {
	t := strings.ToLower(strings.Join(strings.Fields(token), " "))
	if exp, ok := synonyms[t]; ok {
		return append([]string(nil), exp...)
	}
	return nil
}

// Spellings returns the other spellings of a query token or two-word phrase ("ml" → "machine
// learning", "software engineer" → "swe"), or nil: the same term written differently, which
// "every word must match" accepts as the word itself. The input is matched lower-cased with its
// whitespace collapsed. The slice is the caller's.
func Spellings(token string) []string {
	t := strings.ToLower(strings.Join(strings.Fields(token), " "))
	if exp, ok := spellings[t]; ok {
		return append([]string(nil), exp...)
	}
	return nil
}
