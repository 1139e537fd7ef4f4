package discovery

import (
	"net/url"
	"strings"
	"testing"

	"github.com/planehq/hiringsignal/internal/atsurl"
)

// FuzzScan: any bytes scan without panicking, within the bounds, and everything scan reports
// holds: each tenant is one atsurl reads back from its URL (never a look-alike host or a path
// word), and each link is an absolute http(s) URL on a host.
func FuzzScan(f *testing.F) {
	for _, seed := range []string{
		`<div id="grnhse_app"></div><script src="https://boards.greenhouse.io/embed/job_board/js?for=acme"></script>`,
		`<a href="../careers">Careers</a><a href="//jobs.lever.co/acme#x">Jobs</a><iframe src="https://acme.recruitee.com/">`,
		`<base href="https://acme.com/en/"><a href="jobs">Jobs</a>`,
		`<script>var a = '<a href="https://jobs.lever.co/x">'</script><!-- <a href="https://jobs.lever.co/y"> -->`,
		`<a href="https://boards.greenhouse.io.evil.example/acme">x</a><a href="https://jobs.ashbyhq.com/embed.js">`,
		`<a href="https://job-boards.eu.greenhouse.io/acme"><a href="https://acme.jobs.personio.com/">unclosed`,
		"<a href=\"https://jobs.lever.co/\x00acme\">\xff\xfe</a>",
		`<iframe src="javascript:alert(1)"></iframe><a href="mailto:jobs@acme.com">jobs</a>`,
		strings.Repeat(`<a href="/careers">Careers</a>`, 600),
	} {
		f.Add([]byte(seed), "https://www.acme.com/about/")
	}
	f.Add([]byte(`<a href="jobs">x</a>`), "http://127.0.0.1:8080/")
	f.Fuzz(func(t *testing.T, body []byte, pageURL string) {
		base, err := url.Parse(pageURL)
		if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Hostname() == "" {
			return
		}
		sc := scan(body, base)
		if len(sc.refs) > maxRefs || len(sc.links) > maxLinks {
			t.Fatalf("bounds: %d refs, %d links", len(sc.refs), len(sc.links))
		}
		seen := map[atsurl.Board]bool{}
		for _, r := range sc.refs {
			b, ok := atsurl.Recognize(r.url)
			if !ok || b != r.board {
				t.Fatalf("ref %+v is not what atsurl reads from %q (%+v, %v)", r.board, r.url, b, ok)
			}
			if _, err := atsurl.Tenant(b.Vendor, b.Tenant); err != nil {
				t.Fatalf("ref %+v: %v", b, err)
			}
			if seen[b] {
				t.Fatalf("ref %+v twice", b)
			}
			seen[b] = true
			if viaRank(r.via) > viaRank(ViaLink) {
				t.Fatalf("ref %+v has no evidence kind: %q", b, r.via)
			}
		}
		for i := 1; i < len(sc.refs); i++ {
			if viaRank(sc.refs[i-1].via) > viaRank(sc.refs[i].via) {
				t.Fatalf("refs out of order: %s before %s", sc.refs[i-1].via, sc.refs[i].via)
			}
		}
		for _, l := range sc.links {
			u, err := url.Parse(l.url)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Fragment != "" {
				t.Fatalf("link %q is not an absolute http(s) URL without a fragment", l.url)
			}
			if len(l.text) > maxText+1 {
				t.Fatalf("link text of %d bytes", len(l.text))
			}
		}
	})
}
