package discovery

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
)

func mustURL(t testing.TB, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

func boards(refs []ref) []string {
	out := []string{}
	for _, r := range refs {
		out = append(out, r.via+" "+atsurl.SourceKey(r.board.Vendor, r.board.Tenant, r.board.Variant, ""))
	}
	return out
}

func TestScanPutsTheEmbeddedBoardFirst(t *testing.T) {
	t.Parallel()
	page := `<html><body>
<a href="https://jobs.lever.co/acme">Lever</a>
<a href="https://boards.greenhouse.io/acme">All jobs</a>
<iframe src="https://acme.recruitee.com/?embed=true"></iframe>
<div id="grnhse_app"></div>
<script src="https://boards.greenhouse.io/embed/job_board/js?for=acme"></script>
<script src="https://jobs.ashbyhq.com/acme-labs/embed?version=2" async></script>
</body></html>`
	sc := scan([]byte(page), mustURL(t, "https://www.acme.com/careers"))
	require.Equal(t, []string{
		"embed greenhouse:acme", // named by a link first, kept once with its embed
		"embed ashby:acme-labs",
		"iframe recruitee:acme",
		"link lever:acme",
	}, boards(sc.refs))
	require.Equal(t, []string{"grnhse_app"}, sc.containers)

	// Greenhouse's script beside its container is an embed even on a path without "embed".
	sc = scan([]byte(`<div id="grnhse_app"></div><script src="https://boards-api.greenhouse.io/v1/boards/acme/jobs"></script>`), mustURL(t, "https://acme.com/"))
	require.Equal(t, []string{"embed greenhouse:acme"}, boards(sc.refs))
}

func TestScanNeverTakesALookalikeHostOrAPathWordForATenant(t *testing.T) {
	t.Parallel()
	page := `<html><body>
<a href="https://boards.greenhouse.io.mirror-jobs.example/othercorp">x</a>
<a href="https://job-boards-greenhouse.io/othercorp">x</a>
<a href="https://evilgreenhouse.io/othercorp">x</a>
<a href="https://jobs.lever.co.evil.example/othercorp">x</a>
<a href="https://othercorp.recruitee.com.evil.example/">x</a>
<script src="//boards.greenhouse.io.cdn-mirror.example/embed/job_board/js?for=othercorp"></script>
<script src="https://boards.greenhouse.io/embed/job_board/js"></script>
<iframe src="https://boards.greenhouse.io/embed/job_board?for="></iframe>
<script src="https://jobs.ashbyhq.com/embed.js"></script>
<script src="https://jobs.ashbyhq.com/api/non_user_jobs?organizationSlug=othercorp"></script>
<a href="https://jobs.lever.co/embed">x</a>
<a href="https://careers.smartrecruiters.com/static/widget.js">x</a>
</body></html>`
	sc := scan([]byte(page), mustURL(t, "https://www.acme.com/careers"))
	require.Empty(t, sc.refs, "%v", boards(sc.refs))
}

func TestScanResolvesRelativeLinksAndReadsOnlyMarkup(t *testing.T) {
	t.Parallel()
	page := `<html><head><script>var s = '<a href="https://jobs.lever.co/fromscript">';</script>
<style>a[href="https://jobs.lever.co/fromstyle"] {}</style></head><body>
<!-- <a href="https://jobs.lever.co/commented">old</a> -->
<a href="../careers">  Careers
  <span>at Acme</span></a>
<a href="/team"><b>Work with us</b></a>
<a href="mailto:jobs@acme.com">jobs@acme.com</a>
<a href="javascript:void(0)">Jobs</a>
<a href="//jobs.lever.co/acme#top">Open roles</a>
<a href="/blog#jobs">Blog</a>
</body></html>`
	sc := scan([]byte(page), mustURL(t, "https://www.acme.com/about/"))
	require.Equal(t, []string{"link lever:acme"}, boards(sc.refs), "script, style and comment text is not markup")
	require.Equal(t, []link{
		{url: "https://www.acme.com/careers", text: "Careers at Acme"},
		{url: "https://www.acme.com/team", text: "Work with us"},
		{url: "https://jobs.lever.co/acme", text: "Open roles"},
		{url: "https://www.acme.com/blog", text: "Blog"},
	}, sc.links)
	says := []bool{}
	for _, l := range sc.links {
		says = append(says, saysCareers(l))
	}
	require.Equal(t, []bool{true, true, true, false}, says)

	// <base href> sets where relative links go.
	sc = scan([]byte(`<html><head><base href="https://acme.com/en/"></head><body><a href="jobs">Jobs</a><iframe src="board"></iframe></body></html>`), mustURL(t, "https://www.acme.com/"))
	require.Equal(t, []link{{url: "https://acme.com/en/jobs", text: "Jobs"}}, sc.links)
}

func TestDemoRule(t *testing.T) {
	t.Parallel()
	for _, tenant := range []string{"leverdemo", "demo", "Demo-Company", "acme-sandbox", "test", "acme_test", "example", "sandboxacme", "SmartRecruitersDemo"} {
		require.True(t, demoTenant(tenant), tenant)
	}
	for _, tenant := range []string{"acme", "contest", "testarossa", "examplar", "attestly"} {
		require.False(t, demoTenant(tenant), tenant)
	}
	require.True(t, demoTenant("demolition-co"), "a word starting with demo is taken for one: the price of catching leverdemo")
	for _, name := range []string{"Vault-Tec", "Vault-Tec Corporation", "Demo Company", "Demo GmbH", "Acme Sandbox Inc.", "Example Company"} {
		require.True(t, demoName(name), name)
	}
	for _, name := range []string{"", "Acme Inc.", "Demolux Ltd", "Vaulted Tech"} {
		require.False(t, demoName(name), name)
	}
}
