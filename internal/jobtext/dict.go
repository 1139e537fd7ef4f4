package jobtext

import (
	"fmt"
	"slices"
	"strings"
)

// The phrase dictionary: every table phrase (technology aliases, section headings, cue phrases of
// each field) is lexed once at start-up into its folded words; its key is those words joined by
// single spaces. A text is matched in one pass: from each word, the key grows a word at a time
// (within the sentence, across spaces and joiners only) while it is a prefix of some phrase, and
// every phrase it equals is a hit. There is no regular expression per entry; the work per word is
// bounded by the longest phrase (maxWords).

// maxWords bounds the words of one phrase.
const maxWords = 6

// Match modes of a phrase, from its marker in the table.
const (
	modeAny   = iota // any case
	modeExact        // "=Slack": the text's case must be the phrase's
	modeAmbig        // "~Go": exact case, and the text around must make it a technology
)

// entry is one phrase of the dictionary.
type entry struct {
	kind  uint8
	val   int32
	n     int8     // words
	mode  uint8    //
	forms []string // the phrase's words as written (exact and ambiguous modes)
}

// dict is the phrase dictionary. Built once; read-only afterwards.
type dict struct {
	m       map[string]*node // key → its phrases, and whether longer keys start with it
	entries []entry
	tab     *wordTab // m's keys and the word classes, for scanning (finish)
}

// node is what the dictionary holds for one key.
type node struct {
	ids    []int32 // entries whose key it is
	prefix bool    // a longer key starts with it
	// next has bit hash&63 set for the hash (hashWord) of every word that follows the key in a
	// longer key: a word whose bit is clear extends no key, and the scan stops without a probe.
	next uint64
}

func newDict() *dict {
	return &dict{m: map[string]*node{}}
}

// nodeOf returns the node of key, made when missing.
func (t *dict) nodeOf(key string) *node {
	n := t.m[key]
	if n == nil {
		n = &node{}
		t.m[key] = n
	}
	return n
}

// add adds phrase under kind and val. A leading "=" or "~" sets the mode. It panics on a phrase
// without words or with more than maxWords (the tables are code; a test builds them).
func (t *dict) add(kind uint8, val int32, phrase string) {
	mode := modeAny
	switch {
	case strings.HasPrefix(phrase, "="):
		mode, phrase = modeExact, phrase[1:]
	case strings.HasPrefix(phrase, "~"):
		mode, phrase = modeAmbig, phrase[1:]
	}
	d := lexDoc("", phrase)
	n := len(d.words)
	if n == 0 || n > maxWords || len(d.lines) != 1 {
		panic(fmt.Sprintf("jobtext: phrase %q has %d words: a phrase has 1 to %d, on one line", phrase, n, maxWords))
	}
	e := entry{kind: kind, val: val, n: int8(n), mode: uint8(mode)}
	if mode != modeAny {
		for i := range d.words {
			e.forms = append(e.forms, d.text(i))
		}
	}
	key := d.low
	for i := 1; i < n; i++ {
		pn := t.nodeOf(d.low[:d.words[i-1].b])
		pn.prefix = true
		pn.next |= 1 << (d.hashes[i] & 63)
	}
	nd := t.nodeOf(key)
	for _, id := range nd.ids {
		if o := t.entries[id]; o.kind == kind && o.val == val && o.mode == e.mode && slices.Equal(o.forms, e.forms) {
			return // the same phrase twice
		}
	}
	t.entries = append(t.entries, e)
	nd.ids = append(nd.ids, int32(len(t.entries)-1))
}

// addAll adds every phrase of a "|"-separated list.
func (t *dict) addAll(kind uint8, val int32, phrases string) {
	for _, p := range strings.Split(phrases, "|") {
		if p = strings.TrimSpace(p); p != "" {
			t.add(kind, val, p)
		}
	}
}

// hit is one phrase found in a doc: words [i, i+n).
type hit struct {
	i, n int32
	e    *entry
}

// finish builds the word table of the dictionary's keys and the word classes; the dictionary
// scans with it from then on.
func (t *dict) finish(classes map[string]uint8) *dict {
	t.tab = newWordTab(t.m, classes)
	return t
}

// scan returns every hit in d, ordered by first word, in hits' array when it is large enough.
// The doc was lexed with t.tab (d.ents).
func (t *dict) scan(d *doc, hits []hit) []hit {
	ws := d.words
	hits = reuse(hits, len(ws)/4+8)
	for i := range ws {
		if d.cls[i]&clNode == 0 {
			continue // no phrase starts with the word
		}
		var h uint64
		var prev *node
		for j := i; j < len(ws) && j-i < maxWords; j++ {
			var nd *node
			if j == i {
				if k := d.ents[i]; k > 0 {
					e := &t.tab.entries[k-1]
					nd, h = e.node, e.hash
				}
			} else {
				if ws[j].sent != ws[i].sent || ws[j].gap > gapGlue || prev.next&(1<<(d.hashes[j]&63)) == 0 {
					break
				}
				h = chainHash(h, d.hashes[j])
				if e := t.tab.get(h, d.low[ws[i].a:ws[j].b]); e != nil {
					nd = e.node
				}
			}
			if nd == nil {
				break
			}
			for _, id := range nd.ids {
				e := &t.entries[id]
				if e.mode == modeAny || d.sameCase(i, e) {
					hits = append(hits, hit{i: int32(i), n: int32(j - i + 1), e: e})
				}
			}
			if !nd.prefix {
				break
			}
			prev = nd
		}
	}
	return hits
}

// sameCase reports whether the words from i are written as e's forms.
func (d *doc) sameCase(i int, e *entry) bool {
	for k, f := range e.forms {
		if d.text(i+k) != f {
			return false
		}
	}
	return true
}
