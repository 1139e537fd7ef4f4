package ats

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const jobviteURL = "https://jobs.jobvite.com/acme/search/"

func TestJobviteParse(t *testing.T) {
	t.Parallel()
	page := mustParse(t, "jobvite", fixture(t, "jobvite_search.html"), jobviteURL)
	require.Equal(t, 1, page.Malformed, "a job link without a title")
	require.Empty(t, page.NextURL, "a board of one page states no range")
	m := bySourceID(t, page)
	require.Len(t, m, 3)

	require.Equal(t, Posting{
		SourceID:    "oD2jAfwi",
		Title:       "Backend Engineer",
		CompanyName: "Acme",
		Location:    "Berlin, Germany",
		City:        "Berlin",
		URL:         "https://jobs.jobvite.com/acme/job/oD2jAfwi",
	}, m["oD2jAfwi"])
	require.Empty(t, m["oXk9Pfwq"].Location, "a count of places is no place")
	p := m["oBuy3fwR"]
	require.Equal(t, "Buyer", p.Title, "the title div, not the link's whole text")
	require.Equal(t, "Remote, Mexico", p.Location)
	require.True(t, p.Remote)
	require.Empty(t, p.City)
}

func TestJobviteCategoryPagesNameTheDepartment(t *testing.T) {
	t.Parallel()
	body := `<html><head><title>Acme Careers</title></head><body><div class="jv-wrapper">
<h3>Engineering</h3><table class="jv-job-list"><tr><td class="jv-job-list-name"><a href="/careers/acme/job/oA1">Staff Engineer</a></td><td class="jv-job-list-location">Seattle, WA</td></tr></table>
<h3>Sales</h3><ul class="jv-job-list"><li class="row"><a href="/acme/job/oB2"><div class="jv-job-list-name">Account Executive</div><div class="jv-job-list-location">Denver, CO</div></a></li></ul>
</div></body></html>`
	m := bySourceID(t, mustParse(t, "jobvite", []byte(body), "https://jobs.jobvite.com/acme/jobs"))
	require.Equal(t, "Engineering", m["oA1"].Department)
	require.Equal(t, "Seattle", m["oA1"].City)
	require.Equal(t, "Sales", m["oB2"].Department)
	require.Equal(t, "Account Executive", m["oB2"].Title)
	require.Equal(t, "Denver, CO", m["oB2"].Location)
	require.Equal(t, "https://jobs.jobvite.com/acme/job/oA1", m["oA1"].URL)
}

func jobvitePage(from, n, total int) []byte {
	var b strings.Builder
	b.WriteString(`<html><head><title>Acme Careers</title></head><body><table class="jv-job-list">`)
	for i := from; i < from+n; i++ {
		b.WriteString(`<tr><td class="jv-job-list-name"><a href="/acme/job/o` + strconv.Itoa(i) + `">Job ` + strconv.Itoa(i) + `</a></td><td class="jv-job-list-location">London, United Kingdom</td></tr>`)
	}
	b.WriteString(`</table>`)
	if total > 0 {
		b.WriteString(`<div class="jv-pagination-text">` + strconv.Itoa(from+1) + `-` + strconv.Itoa(from+n) + ` of ` + strconv.Itoa(total) + `</div>`)
	}
	b.WriteString(`</body></html>`)
	return []byte(b.String())
}

func TestJobvitePagesBy50WhileTheRangeSaysMore(t *testing.T) {
	t.Parallel()
	p0 := mustParse(t, "jobvite", jobvitePage(0, 50, 120), jobviteURL)
	require.Equal(t, jobviteURL+"?p=1", p0.NextURL)
	p1 := mustParse(t, "jobvite", jobvitePage(50, 50, 120), p0.NextURL)
	require.Equal(t, jobviteURL+"?p=2", p1.NextURL)
	require.Empty(t, mustParse(t, "jobvite", jobvitePage(100, 20, 120), p1.NextURL).NextURL)
	require.Empty(t, mustParse(t, "jobvite", jobvitePage(0, 50, 120), p0.NextURL).NextURL, "p=1 answered with the first page again: stop")
}

func TestJobviteBadBodies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"", "{}", `<html><body>Just a moment...</body></html>`} {
		parseErr(t, "jobvite", []byte(body))
	}
	b := fixture(t, "jobvite_search.html")
	parseErr(t, "jobvite", b[:len(b)*3/5])
}
