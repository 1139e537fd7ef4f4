package ats

import (
	"bytes"
	"errors"
	"html"
)

// A small, allocation-light scanner for the parts of an HTML page the JSON-LD adapter needs:
// <script type="application/ld+json"> blocks, <link rel="next" href="…"> and
// <link rel="canonical" href="…">. Tag and
// attribute names match case-insensitively, attribute values may be double-, single- or
// un-quoted, comments are skipped, and the raw-text content of <script>/<style> is never
// mistaken for markup.

var errTruncated = errors.New("html: unexpected end of document")

// htmlPage is what scanHTML found.
type htmlPage struct {
	blocks    [][]byte // contents of ld+json script elements, in document order
	nextHref  string   // href of the first <link rel="next">, entity-decoded
	canonical string   // href of the first <link rel="canonical">, entity-decoded
	openHTML  bool     // an <html> start tag was seen
	endHTML   bool     // an </html> end tag was seen
}

func scanHTML(body []byte) (htmlPage, error) {
	var pg htmlPage
	i := 0
	for {
		j := bytes.IndexByte(body[i:], '<')
		if j < 0 {
			return pg, nil
		}
		pos := i + j
		rest := body[pos+1:]
		switch {
		case bytes.HasPrefix(rest, []byte("!--")):
			end := bytes.Index(rest[3:], []byte("-->"))
			if end < 0 {
				return pg, errTruncated
			}
			i = pos + 1 + 3 + end + 3
		case hasTagName(rest, "script"), hasTagName(rest, "style"):
			name := "script"
			if !hasTagName(rest, "script") {
				name = "style"
			}
			isLD := false
			end, ok := scanAttrs(body, pos+1+len(name), func(k, v []byte) {
				if name == "script" && asciiEqualFold(k, "type") && isLDType(v) {
					isLD = true
				}
			})
			if !ok {
				return pg, errTruncated
			}
			closeAt := indexEndTag(body[end:], name)
			if closeAt < 0 {
				return pg, errTruncated
			}
			if isLD {
				pg.blocks = append(pg.blocks, body[end:end+closeAt])
			}
			after := bytes.IndexByte(body[end+closeAt:], '>')
			if after < 0 {
				return pg, errTruncated
			}
			i = end + closeAt + after + 1
		case hasTagName(rest, "link"):
			var rel, href []byte
			end, ok := scanAttrs(body, pos+1+len("link"), func(k, v []byte) {
				switch {
				case asciiEqualFold(k, "rel") && rel == nil:
					rel = v
				case asciiEqualFold(k, "href") && href == nil:
					href = v
				}
			})
			if !ok {
				return pg, errTruncated
			}
			if pg.nextHref == "" && href != nil && relHas(rel, "next") {
				pg.nextHref = decodeEntities(string(href))
			}
			if pg.canonical == "" && href != nil && relHas(rel, "canonical") {
				pg.canonical = decodeEntities(string(href))
			}
			i = end
		case hasTagName(rest, "html"):
			pg.openHTML = true
			i = pos + 1
		case len(rest) > 0 && rest[0] == '/' && hasTagName(rest[1:], "html"):
			pg.endHTML = true
			i = pos + 1
		default:
			i = pos + 1
		}
	}
}

// hasTagName reports whether b starts with name (case-insensitive) followed by the end of a
// tag name.
func hasTagName(b []byte, name string) bool {
	if len(b) < len(name) || !asciiEqualFold(b[:len(name)], name) {
		return false
	}
	if len(b) == len(name) {
		return true
	}
	switch b[len(name)] {
	case ' ', '\t', '\n', '\r', '\f', '>', '/':
		return true
	}
	return false
}

// scanAttrs walks the attributes of a start tag from i (just after the tag name) and returns
// the index after the closing '>'. ok is false when the document ends inside the tag.
func scanAttrs(b []byte, i int, fn func(name, value []byte)) (end int, ok bool) {
	for {
		for i < len(b) && (isSpace(b[i]) || b[i] == '/') {
			i++
		}
		if i >= len(b) {
			return 0, false
		}
		if b[i] == '>' {
			return i + 1, true
		}
		start := i
		for i < len(b) && !isSpace(b[i]) && b[i] != '=' && b[i] != '>' && b[i] != '/' {
			i++
		}
		name := b[start:i]
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return 0, false
		}
		if b[i] != '=' {
			fn(name, []byte{})
			continue
		}
		i++
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return 0, false
		}
		var value []byte
		if q := b[i]; q == '"' || q == '\'' {
			k := bytes.IndexByte(b[i+1:], q)
			if k < 0 {
				return 0, false
			}
			value = b[i+1 : i+1+k]
			i += k + 2
		} else {
			start := i
			for i < len(b) && !isSpace(b[i]) && b[i] != '>' {
				i++
			}
			value = b[start:i]
		}
		fn(name, value)
	}
}

// indexEndTag finds "</name" (case-insensitive) followed by the end of a tag name.
func indexEndTag(b []byte, name string) int {
	i := 0
	for {
		j := bytes.Index(b[i:], []byte("</"))
		if j < 0 {
			return -1
		}
		pos := i + j
		if hasTagName(b[pos+2:], name) {
			return pos
		}
		i = pos + 2
	}
}

func isLDType(v []byte) bool {
	v = bytes.TrimSpace(v)
	const t = "application/ld+json"
	if len(v) < len(t) || !asciiEqualFold(v[:len(t)], t) {
		return false
	}
	return len(v) == len(t) || v[len(t)] == ';' || isSpace(v[len(t)])
}

// relHas reports whether the rel attribute lists the link type name.
func relHas(rel []byte, name string) bool {
	for _, tok := range bytes.Fields(rel) {
		if asciiEqualFold(tok, name) {
			return true
		}
	}
	return false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c, d := b[i], s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if 'A' <= d && d <= 'Z' {
			d += 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// decodeEntities decodes HTML character references when s has any.
func decodeEntities(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '&' {
			return html.UnescapeString(s)
		}
	}
	return s
}
