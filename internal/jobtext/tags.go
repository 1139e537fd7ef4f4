package jobtext

import "strings"

// maxTags bounds the tags Tags reads.
const maxTags = 64

// Tags reads the technologies of a feed's tag list (Personio's keywords: "go,kubernetes"). Tags
// are separated by commas, semicolons, pipes or line breaks; a tag names a technology when the
// whole tag is one of its row's aliases, in any case: a tag stands alone as a name, so "go" is
// Go and "r" is R, where the text's rules need a capital and a technical context. A tag that is
// anything else ("Marketing", "Berlin", "remote") names nothing. Slugs in the order first
// named, each once; nil when none; at most maxTags tags are read.
func Tags(tags string) []string {
	var out []string
	n := 0
	for _, tag := range strings.FieldsFunc(tags, func(r rune) bool { return r == ',' || r == ';' || r == '|' || r == '\n' || r == '\r' }) {
		if tag = strings.TrimSpace(tag); tag == "" || len(tag) > 80 {
			continue
		}
		if n++; n > maxTags {
			break
		}
		d := lexDoc("", tag)
		if len(d.words) == 0 || len(d.words) > maxWords || len(d.lines) != 1 {
			continue
		}
		nd := phrases.m[d.low]
		if nd == nil {
			continue
		}
		for _, id := range nd.ids {
			e := &phrases.entries[id]
			if e.kind != kTech || int(e.n) != len(d.words) {
				continue
			}
			slug := vocabulary[e.val].Slug
			if !contains(out, slug) {
				out = append(out, slug)
			}
			break
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
