package jobtext

import "strings"

// The word table: every key of the phrase dictionary (one word or several, folded and joined by
// single spaces) and every word of the word classes (stop words, year and day words), in one
// open-addressing table probed by a hash of the key (keyHash). A text's words are hashed once
// each (analyze), and one probe answers both what the dictionary holds for the word and its
// classes; a phrase of several words extends the hash of its first words by the next word's
// bytes. Built once with the dictionary, read-only afterwards.

// wordEntry is what the table holds for one key.
type wordEntry struct {
	key  string
	hash uint64
	node *node // the dictionary's node for the key; nil when no phrase is or starts with it
	cls  uint8 // the word's classes (wordClasses) and clNode when node is set
}

// wordTab is the table: a power-of-two number of slots, at most half of them used, each 16
// bytes: the upper bits of its key's hash, the key's classes and the index of its entry plus one
// (0: empty), and the key itself when it is short (packKey), so that a probe reads one slot (the
// slots fit a core's cache) and an entry only where a long key's hash matches.
type wordTab struct {
	slots   []tabSlot
	entries []wordEntry
	mask    uint64
}

// tabSlot is one slot of the table.
type tabSlot struct {
	hashIdx uint64 // the hash's upper 24 bits, the entry's classes (8 bits), its index plus one (32); 0: empty
	short   uint64 // packKey of the key
}

// Parts of tabSlot.hashIdx.
const (
	slotHash = 0xffffff << 40
	slotIdx  = 0xffffffff
)

// longKey is packKey's answer for a key of 8 bytes or more.
const longKey = 0xff << 56

// packKey is a key of at most 7 bytes as a number (its length in the top byte, its bytes below,
// so two keys are equal exactly when their numbers are), or longKey.
func packKey(key string) uint64 {
	if len(key) > 7 {
		return longKey
	}
	v := uint64(len(key)) << 56
	for i := 0; i < len(key); i++ {
		v |= uint64(key[i]) << (8 * i)
	}
	return v
}

// Hashes. A word's hash is its packed key mixed (a word of at most 7 bytes, most of them) or
// FNV-1a of its bytes; a key of several words chains its words' hashes, so that a text's phrase
// is hashed from its words' hashes without reading their bytes again.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnvString extends hash h by the bytes of s.
func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

// mix64 is murmur3's finalizer: every bit of x moves every bit of the result.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// hashWord is the hash of a folded word whose packKey is pk.
func hashWord(w string, pk uint64) uint64 {
	if pk != longKey {
		return mix64(pk)
	}
	return fnvString(fnvOffset, w)
}

// chainHash is the hash of a key of several words: the hash h of its first words and the hash
// w of the next.
func chainHash(h, w uint64) uint64 { return mix64(h*0x9e3779b97f4a7c15 + w) }

// keyHash is the hash of a key: one word, or words joined by single spaces.
func keyHash(key string) uint64 {
	var h uint64
	for i := 0; ; i++ {
		w, rest, more := strings.Cut(key, " ")
		wh := hashWord(w, packKey(w))
		if i == 0 {
			h = wh
		} else {
			h = chainHash(h, wh)
		}
		if !more {
			return h
		}
		key = rest
	}
}

// newWordTab builds the table of the dictionary's keys and the classes' words.
func newWordTab(nodes map[string]*node, classes map[string]uint8) *wordTab {
	n := 16
	for n < 2*(len(nodes)+len(classes)) {
		n *= 2
	}
	t := &wordTab{slots: make([]tabSlot, n), mask: uint64(n - 1)}
	for k, nd := range nodes {
		t.slot(k).node = nd
	}
	for k, c := range classes {
		t.slot(k).cls = c
	}
	for i := range t.entries {
		if t.entries[i].node != nil {
			t.entries[i].cls |= clNode
		}
	}
	for i := range t.slots {
		if s := &t.slots[i]; s.hashIdx != 0 {
			s.hashIdx |= uint64(t.entries[s.hashIdx&slotIdx-1].cls) << 32
		}
	}
	return t
}

// slot returns the entry of key, made when missing (at build time only; entries' addresses
// change while it adds).
func (t *wordTab) slot(key string) *wordEntry {
	h := keyHash(key)
	if e := t.get(h, key); e != nil {
		return e
	}
	i := h & t.mask
	for t.slots[i].hashIdx != 0 {
		i = (i + 1) & t.mask
	}
	t.entries = append(t.entries, wordEntry{key: key, hash: h})
	t.slots[i] = tabSlot{hashIdx: h&slotHash | uint64(len(t.entries)), short: packKey(key)}
	return &t.entries[len(t.entries)-1]
}

// get returns the entry of key, whose hash is h (keyHash), or nil.
func (t *wordTab) get(h uint64, key string) *wordEntry {
	if k, _ := t.find(h, key, packKey(key)); k >= 0 {
		return &t.entries[k]
	}
	return nil
}

// find returns the index in entries of key, whose hash is h (keyHash) and packKey pk, and its
// classes, or -1.
func (t *wordTab) find(h uint64, key string, pk uint64) (int32, uint8) {
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.hashIdx == 0 {
			return -1, 0
		}
		if s.hashIdx&slotHash == h&slotHash && s.short == pk {
			if k := int32(s.hashIdx&slotIdx) - 1; pk != longKey || t.entries[k].key == key {
				return k, uint8(s.hashIdx >> 32)
			}
		}
	}
}
