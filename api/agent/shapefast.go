package agent

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Shaping without decoding. result used to decode the route's answer into maps (json.Number for
// numbers), cut it (trim) and encode it again: most of a tool call's CPU and allocations.
// shapeFast writes the same bytes, json.Marshal(trim(decoded)), from the answer's own bytes: it
// reads them once into a flat tree (checking them as json.Valid does), then writes members sorted
// by key as Marshal sorts a map's, numbers and literals copied, strings copied with the escaping
// Marshal applies (<, >, & and U+2028/U+2029; a string with an escape in the answer is decoded and
// encoded again). It takes the common case only: a 200 or 201 whose first step of shape fits
// MaxResultBytes, in valid UTF-8, with no repeated member and no member ending in "_omitted"
// (which a cut list's count would collide with) among those written; everything else is shaped
// as before. TestShapeFastWritesWhatShapeWrites holds the two equal.

// node is one JSON value of the tree: its bytes, and for an object or an array its children
// (an object's carry their keys).
type node struct {
	val         []byte
	key         []byte // decoded, for a member of an object
	kind        byte   // '{', '[', '"' or 'n' (a number or a literal)
	escaped     bool   // a string with an escape in it
	first, next int32  // first child, next sibling; -1: none
	children    int32
}

// entry is one member of an object as trim keeps it.
type entry struct {
	key     []byte
	node    int32 // -1: null
	keep    int32 // < 0: every item; else the items kept of a list cut
	omitted int   // > 0: the count of the items cut from the list key names
}

// shaper is what one tool call reads and writes with, reused across calls (shapers): a tree of
// JSON (the request, the tool's arguments, the route's answer, one at a time), the shaped answer
// (buf), the JSON-RPC answer written from it (out), and the maps and values of the route's request
// (shaper.request).
type shaper struct {
	t       Tool
	nested  int
	drop    []string
	nodes   []node
	entries []entry
	buf     bytes.Buffer
	out     []byte
	path    map[string]string
	query   url.Values
	vals    []string
}

// shapers are shapers to reuse (their tree and buffer); plainCall and callParams read with them
// too.
var shapers = sync.Pool{New: func() any { return &shaper{} }}

// reset empties s: nothing of a request or an answer stays reachable from it.
func (s *shaper) reset() {
	clear(s.nodes)
	clear(s.entries)
	clear(s.vals)
	s.nodes, s.entries, s.vals, s.drop = s.nodes[:0], s.entries[:0], s.vals[:0], nil
	s.buf.Reset()
	s.out = s.out[:0]
	clear(s.path)
	clear(s.query)
}

// release empties s and puts it back in shapers.
func (s *shaper) release() {
	s.reset() // no request's bytes kept alive by the pool
	shapers.Put(s)
}

// shapeFast is the JSON of the answer body shaped for t at detail, and ok when it fits in the
// first step of shape and is in the common case above.
func shapeFast(t Tool, body []byte, detail string) ([]byte, bool) {
	s := shapers.Get().(*shaper)
	defer s.release()
	if !s.shape(t, body, detail) {
		return nil, false
	}
	return bytes.Clone(s.buf.Bytes()), true
}

// shape is shapeFast written in s.buf (s is reset first): false leaves s.buf to be ignored.
func (s *shaper) shape(t Tool, body []byte, detail string) bool {
	if !utf8.Valid(body) {
		return false
	}
	s.reset()
	s.t, s.nested, s.drop = t, conciseNested, conciseDrop
	if detail == "full" {
		s.nested, s.drop = fullNested, nil
	}
	root, end, ok := s.parse(body, skipSpace(body, 0))
	if !ok || skipSpace(body, end) != len(body) || s.nodes[root].kind != '{' {
		return false
	}
	return s.object(root, 0) && s.buf.Len() <= MaxResultBytes
}

// parse reads the value at b[i:] into the tree, checking it as json.Valid does; end is where it
// ends.
func (s *shaper) parse(b []byte, i int) (idx int32, end int, ok bool) {
	if i >= len(b) {
		return 0, 0, false
	}
	idx = int32(len(s.nodes))
	s.nodes = append(s.nodes, node{first: -1, next: -1})
	start := i
	switch c := b[i]; c {
	case '{', '[':
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		i = skipSpace(b, i+1)
		last := int32(-1)
		n := int32(0)
		if i < len(b) && b[i] == close {
			i++
		} else {
			for {
				var key []byte
				if c == '{' {
					k, kend, esc, ok := scanString(b, i)
					if !ok {
						return 0, 0, false
					}
					key = k[1 : len(k)-1]
					if esc {
						var d string
						if json.Unmarshal(k, &d) != nil {
							return 0, 0, false
						}
						key = []byte(d)
					}
					i = skipSpace(b, kend)
					if i >= len(b) || b[i] != ':' {
						return 0, 0, false
					}
					i = skipSpace(b, i+1)
				}
				child, cend, ok := s.parse(b, i)
				if !ok {
					return 0, 0, false
				}
				s.nodes[child].key = key
				if last < 0 {
					s.nodes[idx].first = child
				} else {
					s.nodes[last].next = child
				}
				last, n = child, n+1
				i = skipSpace(b, cend)
				if i >= len(b) {
					return 0, 0, false
				}
				if b[i] == close {
					i++
					break
				}
				if b[i] != ',' {
					return 0, 0, false
				}
				i = skipSpace(b, i+1)
			}
		}
		nd := &s.nodes[idx]
		nd.kind, nd.children, nd.val = c, n, b[start:i]
		return idx, i, true
	case '"':
		v, vend, esc, ok := scanString(b, i)
		if !ok {
			return 0, 0, false
		}
		nd := &s.nodes[idx]
		nd.kind, nd.val, nd.escaped = '"', v, esc
		return idx, vend, true
	}
	vend, ok := scanScalar(b, i)
	if !ok {
		return 0, 0, false
	}
	nd := &s.nodes[idx]
	nd.kind, nd.val = 'n', b[i:vend]
	return idx, vend, true
}

// scanString reads the string literal at b[i:]: its bytes, where it ends, whether it holds an
// escape; ok is false for one json.Valid refuses.
func scanString(b []byte, i int) (v []byte, end int, escaped, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false, false
	}
	start := i
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return b[start : i+1], i + 1, escaped, true
		case c < 0x20:
			return nil, 0, false, false
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return nil, 0, false, false
			}
			i++
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return nil, 0, false, false
				}
				for _, h := range b[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return nil, 0, false, false
					}
				}
				i += 4
			default:
				return nil, 0, false, false
			}
		}
	}
	return nil, 0, false, false
}

// scanScalar reads the number or literal at b[i:] as JSON's grammar has it; end is where it ends.
func scanScalar(b []byte, i int) (end int, ok bool) {
	for _, lit := range []string{"true", "false", "null"} {
		if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
			return i + len(lit), true
		}
	}
	digits := func() bool {
		s := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i > s
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return 0, false
		}
	}
	return i, true
}

var omittedSuffix = []byte("_omitted")

// object writes the object node idx as trim at depth keeps it, its members sorted by key.
func (s *shaper) object(idx int32, depth int) bool {
	base := len(s.entries)
	defer func() { s.entries = s.entries[:base] }()
	// The brief answers its pulse's is_hiring at the top, in place of its own (result).
	brief := depth == 0 && s.t.Brief
	var hiring int32 = -2 // -2: no pulse object; -1: null
	for c := s.nodes[idx].first; c >= 0; c = s.nodes[c].next {
		n := &s.nodes[c]
		if bytes.HasSuffix(n.key, omittedSuffix) {
			return false
		}
		for o := s.nodes[idx].first; o != c; o = s.nodes[o].next {
			if bytes.Equal(s.nodes[o].key, n.key) {
				return false // repeated: a map keeps the last
			}
		}
		if brief && string(n.key) == "pulse" && n.kind == '{' {
			hiring = -1
			for p := n.first; p >= 0; p = s.nodes[p].next {
				if string(s.nodes[p].key) == "is_hiring" {
					hiring = p
				}
			}
		}
	}
	for c := s.nodes[idx].first; c >= 0; c = s.nodes[c].next {
		if hiring == -2 || string(s.nodes[c].key) != "is_hiring" {
			s.add(s.nodes[c].key, c, depth)
		}
	}
	if hiring > -2 {
		s.add([]byte("is_hiring"), hiring, depth)
	}
	entries := s.entries[base:]
	slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.key, b.key) })
	s.buf.WriteByte('{')
	for i := range entries {
		e := s.entries[base+i]
		if i > 0 {
			s.buf.WriteByte(',')
		}
		s.key(e.key)
		s.buf.WriteByte(':')
		switch {
		case e.omitted > 0:
			s.buf.WriteString(strconv.Itoa(e.omitted))
		case e.node < 0:
			s.buf.WriteString("null")
		default:
			if !s.write(e.node, int(e.keep), depth+1) {
				return false
			}
		}
	}
	s.buf.WriteByte('}')
	return true
}

// add enters the member key (node c, -1: null) of an object at depth as trim keeps it: left out
// when dropped (never the page's own list), a list below the page's own cut to nested items
// beside the count cut.
func (s *shaper) add(key []byte, c int32, depth int) {
	if containsKey(s.drop, key) && !(depth == 0 && string(key) == s.t.List) { // the page's own rows stay, whatever their name
		return
	}
	e := entry{key: key, node: c, keep: -1}
	if c >= 0 {
		if n := &s.nodes[c]; n.kind == '[' && !(depth == 0 && string(key) == s.t.List) && int(n.children) > s.nested {
			s.entries = append(s.entries, entry{key: append(key[:len(key):len(key)], omittedSuffix...), node: -1, omitted: int(n.children) - s.nested})
			e.keep = int32(s.nested)
		}
	}
	s.entries = append(s.entries, e)
}

// write writes node idx as trim at depth writes it (a list: its first keep items, keep >= 0).
func (s *shaper) write(idx int32, keep, depth int) bool {
	n := &s.nodes[idx]
	switch n.kind {
	case '{':
		return s.object(idx, depth)
	case '[':
		s.buf.WriteByte('[')
		i := 0
		for c := n.first; c >= 0 && (keep < 0 || i < keep); c, i = s.nodes[c].next, i+1 {
			if i > 0 {
				s.buf.WriteByte(',')
			}
			if !s.write(c, -1, depth+1) {
				return false
			}
		}
		s.buf.WriteByte(']')
		return true
	case '"':
		return s.str(n)
	}
	s.buf.Write(n.val) // a number (json.Number writes its text) or a literal
	return true
}

// str writes a string as json.Marshal writes the string it holds.
func (s *shaper) str(n *node) bool {
	if !n.escaped {
		json.HTMLEscape(&s.buf, n.val)
		return true
	}
	var x string
	if json.Unmarshal(n.val, &x) != nil {
		return false
	}
	b, err := json.Marshal(x)
	if err != nil {
		return false
	}
	s.buf.Write(b)
	return true
}

// key writes a member's key as json.Marshal writes a map's.
func (s *shaper) key(k []byte) {
	plain := true
	for i := 0; i < len(k) && plain; i++ {
		c := k[i]
		plain = c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	if plain {
		s.buf.WriteByte('"')
		s.buf.Write(k)
		s.buf.WriteByte('"')
		return
	}
	b, _ := json.Marshal(string(k)) // a string always marshals
	s.buf.Write(b)
}

func containsKey(list []string, k []byte) bool {
	for _, e := range list {
		if e == string(k) {
			return true
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
