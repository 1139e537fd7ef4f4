package discovery

import (
	"bytes"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/html"

	"github.com/planehq/hiringsignal/internal/atsurl"
)

// The scan of one HTML page: the ATS tenants it names (embedded boards, iframes, scripts, links)
// and its anchors, read with x/net/html's tokenizer (script and style contents are raw text, never
// markup). Bounds keep a hostile page cheap: at most maxLinks anchors, maxRefs tenants, and
// maxText bytes of one anchor's text.
const (
	maxLinks = 500
	maxRefs  = 32
	maxText  = 200
)

// ref is an ATS tenant a page names: a board (atsurl.Recognize), or a JOIN company page
// (atsurl.JoinCompanySlug), whose tenant, the company's number, only the page itself states
// (board {join, ""} and the page's slug).
type ref struct {
	board    atsurl.Board
	joinSlug string
	via      string // ViaEmbed, ViaIframe, ViaScript or ViaLink
	url      string // the URL that named it, resolved
}

// refKey is what two refs of the same tenant share.
type refKey struct {
	board    atsurl.Board
	joinSlug string
}

// link is one anchor of a page: its absolute http(s) URL and its text.
type link struct {
	url  string
	text string
}

// pageScan is what scan found on a page.
type pageScan struct {
	refs  []ref  // strongest evidence first (viaRank), each tenant once
	links []link // in document order
	// containers are the embed containers seen ("grnhse_app", "ashby_embed"): with a vendor's
	// script they make it an embedded board.
	containers []string
}

// viaRank orders evidence: an embedded board first, then an iframe, a script and a link (a
// redirect is ranked by the caller). A tenant named several ways keeps its strongest.
func viaRank(via string) int {
	switch via {
	case ViaEmbed:
		return 0
	case ViaIframe:
		return 1
	case ViaScript:
		return 2
	case ViaRedirect:
		return 3
	case ViaLink:
		return 4
	}
	return 5
}

// embedContainers maps an embed container's id to the vendor whose script fills it.
var embedContainers = map[string]string{"grnhse_app": atsurl.Greenhouse, "ashby_embed": atsurl.Ashby}

// scan reads body, a page at pageURL (its <base href> honoured), for ATS tenants and anchors.
func scan(body []byte, pageURL *url.URL) pageScan {
	var out pageScan
	base := pageURL
	sawBase := false
	z := html.NewTokenizer(bytes.NewReader(body))
	var anchor *link // the open <a>, if any
	var text strings.Builder
	closeAnchor := func() {
		if anchor == nil {
			return
		}
		anchor.text = strings.Join(strings.Fields(text.String()), " ")
		if len(out.links) < maxLinks {
			out.links = append(out.links, *anchor)
		}
		anchor = nil
		text.Reset()
	}
	addRef := func(raw, via string) {
		u := resolve(base, raw)
		if u == "" || len(out.refs) >= maxRefs {
			return
		}
		b, ok := atsurl.Recognize(u)
		if !ok {
			if slug, isJoin := atsurl.JoinCompanySlug(u); isJoin {
				out.refs = append(out.refs, ref{board: atsurl.Board{Vendor: atsurl.Join}, joinSlug: slug, via: via, url: u})
			}
			return
		}
		if via == ViaScript && atsurl.IsEmbed(u) {
			via = ViaEmbed
		}
		out.refs = append(out.refs, ref{board: b, via: via, url: u})
	}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			var href, src, id string
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "href":
					href = string(v)
				case "src":
					src = string(v)
				case "id":
					id = string(v)
				}
			}
			if _, ok := embedContainers[id]; ok && !slices.Contains(out.containers, id) {
				out.containers = append(out.containers, id)
			}
			switch string(name) {
			case "base":
				if !sawBase && href != "" {
					sawBase = true
					if u, err := pageURL.Parse(strings.TrimSpace(href)); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
						base = u
					}
				}
			case "a":
				closeAnchor() // an <a> never nests: a new one ends the last
				if u := resolve(base, href); u != "" {
					anchor = &link{url: u}
					addRef(u, ViaLink)
				}
			case "script":
				if src != "" {
					addRef(src, ViaScript)
				}
			case "iframe":
				if src != "" {
					addRef(src, ViaIframe)
				}
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "a" {
				closeAnchor()
			}
		case html.TextToken:
			if anchor != nil && text.Len() < maxText {
				t := z.Text()
				text.Write(t[:min(len(t), maxText-text.Len())])
				text.WriteByte(' ')
			}
		}
	}
	closeAnchor()
	// A vendor's script beside its embed container is its embedded board.
	for i := range out.refs {
		r := &out.refs[i]
		for id, vendor := range embedContainers {
			if r.via == ViaScript && r.board.Vendor == vendor && slices.Contains(out.containers, id) {
				r.via = ViaEmbed
			}
		}
	}
	slices.SortStableFunc(out.refs, func(a, b ref) int { return viaRank(a.via) - viaRank(b.via) })
	seen := map[refKey]bool{}
	out.refs = slices.DeleteFunc(out.refs, func(r ref) bool {
		k := refKey{r.board, r.joinSlug}
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
	return out
}

// resolve resolves raw against base: an absolute http(s) URL without its fragment, or "" (a
// mailto:, javascript: or unparsable reference).
func resolve(base *url.URL, raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > 2048 {
		return ""
	}
	u, err := base.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// careersWords are what a link's text or URL says when it leads to careers pages.
var careersWords = []string{"career", "job", "join", "work with us", "work-with-us", "workwithus", "work_with_us",
	"hiring", "vacanc", "opening", "position", "karriere", "stellen"}

// saysCareers reports whether a link's text, path or first host label says careers or jobs.
func saysCareers(l link) bool {
	u, err := url.Parse(l.url)
	if err != nil {
		return false
	}
	label, _, _ := strings.Cut(strings.ToLower(u.Hostname()), ".")
	hay := strings.ToLower(l.text) + " " + strings.ToLower(u.Path) + " " + label
	for _, w := range careersWords {
		if strings.Contains(hay, w) {
			return true
		}
	}
	return false
}
