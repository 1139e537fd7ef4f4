package ats

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/net/html"
)

// The careers pages of iCIMS, Jobvite and JazzHR carry no structured data: their job lists are
// server-rendered markup. These helpers read such a page as a tree (golang.org/x/net/html, the
// parser browsers specify) and find elements by tag and class the way their scrapers' CSS
// selectors do.

// parseHTMLPage checks that body is a whole HTML page of vendor (scanHTML: no tag, script or
// comment left open, no <html> without </html>: a page cut short in transit must fail, not read
// as a shorter list) and returns its tree.
func parseHTMLPage(vendor string, body []byte) (*html.Node, error) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, fmt.Errorf("%s: empty body", vendor)
	}
	if bytes.IndexByte(body, '<') < 0 {
		return nil, fmt.Errorf("%s: body is not HTML", vendor)
	}
	hp, err := scanHTML(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", vendor, err)
	}
	if hp.openHTML && !hp.endHTML {
		return nil, fmt.Errorf("%s: %w", vendor, errTruncated)
	}
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", vendor, err)
	}
	return doc, nil
}

// errNotVendorPage is wrapped when a page answers 200 without the vendor's markup (a
// challenge page, a parked domain): read as an empty board it would close every req.
var errNotVendorPage = errors.New("page has none of the vendor's markup")

// isElem reports whether n is an element with tag name tag ("" for any).
func isElem(n *html.Node, tag string) bool {
	return n != nil && n.Type == html.ElementNode && (tag == "" || n.Data == tag)
}

// attrOf returns the value of n's attribute name ("" when absent).
func attrOf(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == name {
			return a.Val
		}
	}
	return ""
}

// hasClass reports whether n is an element whose class attribute lists cls.
func hasClass(n *html.Node, cls string) bool {
	if !isElem(n, "") {
		return false
	}
	for _, c := range strings.Fields(attrOf(n, "class")) {
		if c == cls {
			return true
		}
	}
	return false
}

// walk calls fn for n and every node below it, in document order, descending into a node's
// children only while fn returns true for it.
func walk(n *html.Node, fn func(*html.Node) bool) {
	if !fn(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

// find returns the first node below n (n excluded) that pred accepts, in document order.
func find(n *html.Node, pred func(*html.Node) bool) *html.Node {
	var out *html.Node
	for c := n.FirstChild; c != nil && out == nil; c = c.NextSibling {
		walk(c, func(x *html.Node) bool {
			if out != nil {
				return false
			}
			if pred(x) {
				out = x
				return false
			}
			return true
		})
	}
	return out
}

// findClass returns the first element below n with class cls.
func findClass(n *html.Node, cls string) *html.Node {
	return find(n, func(x *html.Node) bool { return hasClass(x, cls) })
}

// closest returns n or its nearest ancestor that pred accepts, nil when none.
func closest(n *html.Node, pred func(*html.Node) bool) *html.Node {
	for ; n != nil; n = n.Parent {
		if pred(n) {
			return n
		}
	}
	return nil
}

// textOf returns the text below n, its text nodes joined by a space, with whitespace runs
// collapsed to one space and trimmed;
// elements skip accepts (an sr-only label, an icon) are left out, as are scripts and styles.
func textOf(n *html.Node, skip func(*html.Node) bool) string {
	var b strings.Builder
	walk(n, func(x *html.Node) bool {
		if x != n && skip != nil && skip(x) {
			return false
		}
		if isElem(x, "script") || isElem(x, "style") {
			return false
		}
		if x.Type == html.TextNode {
			b.WriteString(x.Data)
			b.WriteByte(' ') // text of separate nodes (cells, blocks) never runs together
		}
		return true
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

// srOnly reports whether n is a screen-reader label (class sr-only), left out of visible text.
func srOnly(n *html.Node) bool { return hasClass(n, "sr-only") }

// pageTitle returns the text of the document's <title>.
func pageTitle(doc *html.Node) string {
	if t := find(doc, func(x *html.Node) bool { return isElem(x, "title") }); t != nil {
		return textOf(t, nil)
	}
	return ""
}
