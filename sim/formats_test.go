package sim

import (
	"encoding/json"
	"encoding/xml"
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/internal/atsurl"
)

// formatWorld serves a world and pins tick 40.
func formatWorld(t *testing.T) (*World, Directory) {
	t.Helper()
	w, ts := testWorld(t, Config{Seed: 24, Companies: 600})
	pin(t, ts, 40)
	return w, w.Directory(40)
}

func fetchOK(t *testing.T, u string) []byte {
	t.Helper()
	status, _, body := get(t, u)
	require.Equal(t, http.StatusOK, status, "%s: %s", u, body)
	return body
}

// eachSourceOf calls fn with the body of (up to n) sources of vendor.
func eachSourceOf(t *testing.T, d Directory, vendor string, n int, fn func(Source, []byte)) {
	t.Helper()
	for _, s := range d.Sources {
		if s.Vendor == vendor && n > 0 {
			n--
			fn(s, fetchOK(t, s.URL))
		}
	}
	require.Zero(t, n, "not enough %s sources", vendor)
}

func TestGreenhouseFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	eachSourceOf(t, d, "greenhouse", 10, func(s Source, body []byte) {
		var resp struct {
			Jobs []struct {
				ID            int64   `json:"id"`
				InternalJobID int64   `json:"internal_job_id"`
				Title         string  `json:"title"`
				UpdatedAt     string  `json:"updated_at"`
				RequisitionID *string `json:"requisition_id"`
				AbsoluteURL   string  `json:"absolute_url"`
				Content       string  `json:"content"`
				Location      struct {
					Name string `json:"name"`
				} `json:"location"`
				Departments []struct {
					ID   int64  `json:"id"`
					Name string `json:"name"`
				} `json:"departments"`
				Offices []struct {
					Name     string `json:"name"`
					Location string `json:"location"`
				} `json:"offices"`
			} `json:"jobs"`
			Meta struct {
				Total *int `json:"total"`
			} `json:"meta"`
		}
		require.NoError(t, json.Unmarshal(body, &resp))
		require.NotNil(t, resp.Meta.Total)
		require.Equal(t, len(resp.Jobs), *resp.Meta.Total)
		for _, j := range resp.Jobs {
			require.NotZero(t, j.ID)
			require.NotEmpty(t, j.Title)
			require.NotEmpty(t, j.Location.Name)
			require.True(t, strings.HasPrefix(j.AbsoluteURL, "https://boards.greenhouse.io/"+s.Tenant+"/jobs/"))
			require.True(t, strings.HasPrefix(j.Content, "&lt;div class=&quot;content-intro&quot;&gt;"), "content is entity-escaped HTML")
			require.Contains(t, html.UnescapeString(j.Content), "<ul>", "unescaped once, content is the description's HTML")
			_, err := time.Parse(time.RFC3339, j.UpdatedAt)
			require.NoError(t, err)
			require.Len(t, j.Departments, 1)
			require.Len(t, j.Offices, 1)
		}
	})
	// Without content=true there is no content field.
	s := sourceOfVendor(t, d, "greenhouse")
	require.NotContains(t, string(fetchOK(t, strings.TrimSuffix(s.URL, "?content=true"))), `"content"`)
}

func TestLeverFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	salaries := 0
	eachSourceOf(t, d, "lever", 12, func(s Source, body []byte) {
		var posts []struct {
			ID         string `json:"id"`
			Text       string `json:"text"`
			Categories struct {
				Commitment   string   `json:"commitment"`
				Location     string   `json:"location"`
				Team         string   `json:"team"`
				AllLocations []string `json:"allLocations"`
			} `json:"categories"`
			Country       *string `json:"country"`
			WorkplaceType string  `json:"workplaceType"`
			CreatedAt     int64   `json:"createdAt"`
			HostedURL     string  `json:"hostedUrl"`
			ApplyURL      string  `json:"applyUrl"`
			SalaryRange   *struct {
				Currency string  `json:"currency"`
				Interval string  `json:"interval"`
				Min      float64 `json:"min"`
				Max      float64 `json:"max"`
			} `json:"salaryRange"`
		}
		require.NoError(t, json.Unmarshal(body, &posts))
		for _, p := range posts {
			require.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, p.ID)
			require.NotEmpty(t, p.Text)
			require.NotEmpty(t, p.Categories.Location)
			require.Greater(t, p.CreatedAt, int64(1e12), "createdAt is epoch milliseconds")
			if p.Country != nil {
				require.Len(t, *p.Country, 2)
			}
			require.Contains(t, []string{"on-site", "remote", "hybrid", "unspecified"}, p.WorkplaceType)
			require.Equal(t, "https://jobs.lever.co/"+s.Tenant+"/"+p.ID, p.HostedURL)
			if p.SalaryRange != nil {
				salaries++
				require.Contains(t, []string{"per-year-salary", "per-month-salary", "per-hour-wage"}, p.SalaryRange.Interval)
				require.Less(t, p.SalaryRange.Min, p.SalaryRange.Max)
			}
		}
	})
	require.Greater(t, salaries, 0)
}

func TestAshbyFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	unlisted, comp := 0, 0
	eachSourceOf(t, d, "ashby", 15, func(s Source, body []byte) {
		var resp struct {
			APIVersion string `json:"apiVersion"`
			Jobs       []struct {
				ID          string `json:"id"`
				Title       string `json:"title"`
				Department  string `json:"department"`
				IsListed    *bool  `json:"isListed"`
				IsRemote    *bool  `json:"isRemote"`
				PublishedAt string `json:"publishedAt"`
				JobURL      string `json:"jobUrl"`
				Address     struct {
					PostalAddress struct {
						AddressCountry string `json:"addressCountry"`
					} `json:"postalAddress"`
				} `json:"address"`
				Compensation *struct {
					CompensationTiers []struct {
						Components []struct {
							CompensationType string  `json:"compensationType"`
							Interval         string  `json:"interval"`
							CurrencyCode     string  `json:"currencyCode"`
							MinValue         float64 `json:"minValue"`
							MaxValue         float64 `json:"maxValue"`
						} `json:"components"`
					} `json:"compensationTiers"`
				} `json:"compensation"`
			} `json:"jobs"`
		}
		require.NoError(t, json.Unmarshal(body, &resp))
		require.Equal(t, "1", resp.APIVersion)
		for _, j := range resp.Jobs {
			require.NotEmpty(t, j.ID)
			require.NotEmpty(t, j.Title)
			require.NotNil(t, j.IsListed)
			require.NotNil(t, j.IsRemote)
			if !*j.IsListed {
				unlisted++
			}
			_, err := time.Parse("2006-01-02T15:04:05.000-07:00", j.PublishedAt)
			require.NoError(t, err)
			require.NotEmpty(t, j.Address.PostalAddress.AddressCountry)
			require.NotNil(t, j.Compensation, "includeCompensation=true")
			for _, tier := range j.Compensation.CompensationTiers {
				for _, c := range tier.Components {
					comp++
					require.Equal(t, "Salary", c.CompensationType)
					require.Contains(t, []string{"1 YEAR", "1 MONTH", "1 HOUR"}, c.Interval)
					require.Len(t, c.CurrencyCode, 3)
				}
			}
		}
	})
	require.Greater(t, unlisted, 0, "some isListed=false jobs")
	require.Greater(t, comp, 0)
	status, _, _ := get(t, strings.Replace(sourceOfVendor(t, d, "ashby").URL, "/job-board/", "/job-board/nosuchboard", 1))
	require.Equal(t, http.StatusNotFound, status)
}

func TestWorkableFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	multi := 0
	eachSourceOf(t, d, "workable", 20, func(s Source, body []byte) {
		var resp struct {
			Name string `json:"name"`
			Jobs []struct {
				Title          string `json:"title"`
				Shortcode      string `json:"shortcode"`
				Code           string `json:"code"`
				EmploymentType string `json:"employment_type"`
				URL            string `json:"url"`
				PublishedOn    string `json:"published_on"`
				CreatedAt      string `json:"created_at"`
				Country        string `json:"country"`
				City           string `json:"city"`
				Locations      []struct {
					Country     string `json:"country"`
					CountryCode string `json:"countryCode"`
					City        string `json:"city"`
				} `json:"locations"`
			} `json:"jobs"`
		}
		require.NoError(t, json.Unmarshal(body, &resp))
		require.NotEmpty(t, resp.Name)
		seen := map[string]int{}
		for _, j := range resp.Jobs {
			require.Regexp(t, `^[0-9A-F]{10}$`, j.Shortcode)
			_, err := time.Parse("2006-01-02", j.PublishedOn)
			require.NoError(t, err, "published_on is a date")
			require.NotEmpty(t, j.Country)
			require.Len(t, j.Locations, 1)
			require.Equal(t, j.Country, j.Locations[0].Country)
			require.Equal(t, "https://apply.workable.com/j/"+j.Shortcode, j.URL)
			seen[j.Shortcode]++
		}
		for _, n := range seen {
			if n > 1 {
				multi++
			}
		}
	})
	require.Greater(t, multi, 0, "a multi-location job is one entry per location sharing the shortcode")
}

func TestSmartRecruitersFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	eachSourceOf(t, d, "smartrecruiters", 10, func(s Source, body []byte) {
		var resp struct {
			Offset     *int `json:"offset"`
			Limit      *int `json:"limit"`
			TotalFound *int `json:"totalFound"`
			Content    []struct {
				ID        string `json:"id"`
				Name      string `json:"name"`
				UUID      string `json:"uuid"`
				RefNumber string `json:"refNumber"`
				Company   struct {
					Identifier string `json:"identifier"`
					Name       string `json:"name"`
				} `json:"company"`
				ReleasedDate string `json:"releasedDate"`
				Location     struct {
					City    string `json:"city"`
					Country string `json:"country"`
					Remote  *bool  `json:"remote"`
				} `json:"location"`
				Department struct {
					Label string `json:"label"`
				} `json:"department"`
			} `json:"content"`
		}
		require.NoError(t, json.Unmarshal(body, &resp))
		require.Equal(t, 0, *resp.Offset)
		require.Equal(t, 100, *resp.Limit)
		require.Equal(t, len(resp.Content), *resp.TotalFound)
		for _, p := range resp.Content {
			require.Regexp(t, `^\d{15}$`, p.ID)
			require.NotEmpty(t, p.Name)
			require.NotEmpty(t, p.RefNumber)
			require.Equal(t, s.Tenant, p.Company.Identifier)
			require.Regexp(t, `^[a-z]{2}$`, p.Location.Country, "lower-case alpha-2")
			require.NotNil(t, p.Location.Remote)
			_, err := time.Parse("2006-01-02T15:04:05.000Z", p.ReleasedDate)
			require.NoError(t, err)
		}
	})
}

func TestRecruiteeFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	statuses := map[string]int{}
	blank, withSalary := 0, 0
	eachSourceOf(t, d, "recruitee", 20, func(s Source, body []byte) {
		var resp struct {
			Offers []struct {
				ID          int64   `json:"id"`
				Slug        string  `json:"slug"`
				Title       string  `json:"title"`
				Status      string  `json:"status"`
				CompanyName string  `json:"company_name"`
				Location    string  `json:"location"`
				Country     string  `json:"country"`
				CountryCode string  `json:"country_code"`
				Remote      *bool   `json:"remote"`
				CreatedAt   string  `json:"created_at"`
				PublishedAt *string `json:"published_at"`
				CareersURL  string  `json:"careers_url"`
				Salary      struct {
					Min      *string `json:"min"`
					Max      *string `json:"max"`
					Period   *string `json:"period"`
					Currency *string `json:"currency"`
				} `json:"salary"`
			} `json:"offers"`
		}
		require.NoError(t, json.Unmarshal(body, &resp))
		for _, o := range resp.Offers {
			statuses[o.Status]++
			require.NotZero(t, o.ID)
			require.NotEmpty(t, o.Title)
			require.Len(t, o.CountryCode, 2)
			_, err := time.Parse("2006-01-02 15:04:05 UTC", o.CreatedAt)
			require.NoError(t, err)
			if o.Status == "published" {
				require.NotNil(t, o.PublishedAt)
				_, err := time.Parse("2006-01-02 15:04:05 UTC", *o.PublishedAt)
				require.NoError(t, err)
			}
			require.Equal(t, "https://"+s.Tenant+".recruitee.com/o/"+o.Slug, o.CareersURL)
			if o.Salary.Min == nil || *o.Salary.Min == "" {
				blank++
				require.True(t, o.Salary.Max == nil || *o.Salary.Max == "")
				require.True(t, o.Salary.Currency == nil || *o.Salary.Currency == "")
			} else {
				withSalary++
				require.Contains(t, []string{"year", "month", "hour"}, *o.Salary.Period)
			}
		}
	})
	require.Greater(t, statuses["published"], 0)
	require.Greater(t, statuses["draft"]+statuses["closed"], 0, "non-published offers are listed")
	require.Greater(t, blank, 0)
	require.Greater(t, withSalary, 0)
}

func TestPersonioFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	eachSourceOf(t, d, "personio", 10, func(s Source, body []byte) {
		require.True(t, strings.HasPrefix(string(body), `<?xml version="1.0" encoding="UTF-8"?>`))
		var feed struct {
			XMLName   xml.Name `xml:"workzag-jobs"`
			Positions []struct {
				ID              string `xml:"id"`
				Subcompany      string `xml:"subcompany"`
				Office          string `xml:"office"`
				Department      string `xml:"department"`
				Name            string `xml:"name"`
				EmploymentType  string `xml:"employmentType"`
				Seniority       string `xml:"seniority"`
				Schedule        string `xml:"schedule"`
				CreatedAt       string `xml:"createdAt"`
				JobDescriptions struct {
					Items []struct {
						Name  string `xml:"name"`
						Value string `xml:"value"`
					} `xml:"jobDescription"`
				} `xml:"jobDescriptions"`
			} `xml:"position"`
		}
		require.NoError(t, xml.Unmarshal(body, &feed))
		for _, p := range feed.Positions {
			require.Regexp(t, `^\d+$`, p.ID)
			require.NotEmpty(t, p.Name)
			require.NotEmpty(t, p.Office)
			_, err := time.Parse(time.RFC3339, p.CreatedAt)
			require.NoError(t, err)
			// One jobDescription per section of the description, each named by its heading.
			require.GreaterOrEqual(t, len(p.JobDescriptions.Items), 6)
			for _, it := range p.JobDescriptions.Items {
				require.NotEmpty(t, it.Name)
				require.Regexp(t, `^<(p|h2|h3|div|ul)>`, it.Value)
			}
		}
		require.NotContains(t, string(body), "<country>")
	})
}

// sourcesOf returns (up to n, at least one) directory sources of vendor.
func sourcesOf(t *testing.T, d Directory, vendor string, n int) []Source {
	t.Helper()
	var out []Source
	for _, s := range d.Sources {
		if s.Vendor == vendor && len(out) < n {
			out = append(out, s)
		}
	}
	require.NotEmpty(t, out, "no %s source", vendor)
	return out
}

func TestWorkdayFormat(t *testing.T) {
	t.Parallel()
	w, d := formatWorld(t)
	postedOn := map[string]int{}
	for _, s := range sourcesOf(t, d, "workday", 8) {
		company, dc, site, ok := atsurl.WorkdayParts(s.Tenant)
		require.True(t, ok, s.Tenant)
		require.True(t, strings.HasSuffix(s.URL, "/workday/"+dc+"/wday/cxs/"+company+"/"+site+"/jobs"), s.URL)
		status, _, _ := get(t, s.URL)
		require.Equal(t, http.StatusMethodNotAllowed, status, "the list answers POST only")
		status, _, body := postJSON(t, testClient, s.URL, `{"appliedFacets":{},"limit":50,"offset":0,"searchText":""}`)
		require.Equal(t, http.StatusBadRequest, status, "a limit above 20: %s", body)

		live := len(w.liveGens(&w.companies[companyOf(t, w, s)], 40))
		seen := 0
		for offset := 0; ; offset += 20 {
			status, hdr, body := postJSON(t, testClient, s.URL, `{"appliedFacets":{},"limit":20,"offset":`+strconv.Itoa(offset)+`,"searchText":""}`)
			require.Equal(t, http.StatusOK, status, "%s", body)
			served, err := http.ParseTime(hdr.Get("Date"))
			require.NoError(t, err)
			require.Equal(t, w.CycleTime(40).UTC(), served.UTC(), "the Date is the cycle's: postedOn is relative to it")
			var resp struct {
				Total       *int `json:"total"`
				JobPostings []struct {
					Title         string   `json:"title"`
					ExternalPath  string   `json:"externalPath"`
					LocationsText string   `json:"locationsText"`
					PostedOn      string   `json:"postedOn"`
					BulletFields  []string `json:"bulletFields"`
				} `json:"jobPostings"`
				Facets            []json.RawMessage `json:"facets"`
				UserAuthenticated *bool             `json:"userAuthenticated"`
			}
			require.NoError(t, json.Unmarshal(body, &resp))
			require.NotNil(t, resp.Total)
			require.NotNil(t, resp.UserAuthenticated)
			if offset == 0 {
				require.Equal(t, live, *resp.Total)
			} else {
				require.Zero(t, *resp.Total, "total is stated on the first page only")
			}
			for _, j := range resp.JobPostings {
				require.NotEmpty(t, j.Title)
				require.Regexp(t, `^/job/[A-Za-z0-9-]+/[A-Za-z0-9-]+_[A-Z]+-\d+(-1)?$`, j.ExternalPath)
				require.Len(t, j.BulletFields, 1)
				require.True(t, strings.Contains(j.ExternalPath, "_"+j.BulletFields[0]), "the path ends with the req id")
				require.Regexp(t, `^Posted (Today|Yesterday|\d+ Days Ago|30\+ Days Ago)$`, j.PostedOn)
				postedOn[strings.Fields(j.PostedOn)[1]]++
				require.NotEmpty(t, j.LocationsText)
			}
			seen += len(resp.JobPostings)
			if len(resp.JobPostings) < 20 {
				break
			}
		}
		require.Equal(t, live, seen)
	}
	require.Positive(t, postedOn["Today"]+postedOn["Yesterday"])
	require.Positive(t, postedOn["30+"], "reqs older than a month")
}

// companyOf returns the index of the company whose tenant s is.
func companyOf(t *testing.T, w *World, s Source) int {
	t.Helper()
	for i := range w.companies {
		if w.companies[i].domain == s.CompanyDomain {
			return i
		}
	}
	t.Fatalf("no company of %s", s.Key)
	return -1
}

func TestICIMSFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	cardRe := regexp.MustCompile(`(?s)<li class="iCIMS_JobCardItem">.*?</li>\n`)
	pages, multi := 0, 0
	for _, s := range sourcesOf(t, d, "icims", 1000) {
		require.True(t, strings.HasSuffix(s.URL, "/icims/"+s.Tenant+"/jobs/search?ss=1&in_iframe=1"), s.URL)
		for pr := 0; ; pr++ {
			body := string(fetchOK(t, withQuery(s.URL, "pr", strconv.Itoa(pr))))
			pages++
			require.True(t, strings.HasPrefix(body, "<!DOCTYPE html>"))
			require.True(t, strings.HasSuffix(body, "</html>\n"))
			cards := cardRe.FindAllString(body, -1)
			if len(cards) == 0 {
				require.Contains(t, body, "no jobs", "a page past the last has no cards")
				break
			}
			require.LessOrEqual(t, len(cards), 20)
			require.Contains(t, body, "Search Results Page "+strconv.Itoa(pr+1)+" of ")
			for _, c := range cards {
				require.Regexp(t, `<a href="https://`+s.Tenant+`\.icims\.com/jobs/\d+/[a-z0-9-]+/job\?in_iframe=1" class="iCIMS_Anchor"`, c)
				require.Regexp(t, `Job Locations</span><span>[A-Z]{2}-[^<]+</span>`, c)
				require.Regexp(t, `<span title="\d{1,2}/\d{1,2}/20\d\d \d{1,2}:\d\d [AP]M">`, c)
				require.Regexp(t, `Requisition ID</dt><dd class="iCIMS_JobHeaderData"><span>20\d\d-\d+</span>`, c)
				if strings.Contains(c, " | ") {
					multi++
				}
			}
			if !strings.Contains(body, "Next page of results") {
				break
			}
		}
	}
	require.Greater(t, pages, len(sourcesOf(t, d, "icims", 1000)), "portals of more than 20 openings page")
	require.Positive(t, multi, "a card lists a second country")
}

func TestJobviteFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	rowRe := regexp.MustCompile(`<tr><td class="jv-job-list-name"><a href="/([a-z-]+)/job/(o[0-9A-Za-z]{7})">[^<]+</a></td><td class="jv-job-list-location">[^<]+, [^<]+</td></tr>`)
	for _, s := range sourcesOf(t, d, "jobvite", 6) {
		require.True(t, strings.HasSuffix(s.URL, "/jobvite/"+s.Tenant+"/search/"), s.URL)
		body := string(fetchOK(t, s.URL))
		require.Regexp(t, `<title>.+ Careers</title>`, body)
		rows := rowRe.FindAllStringSubmatch(body, -1)
		require.NotEmpty(t, rows)
		require.LessOrEqual(t, len(rows), 50)
		for _, r := range rows {
			require.Equal(t, s.Tenant, r[1])
		}
		if strings.Contains(body, "jv-pagination-next") {
			require.Len(t, rows, 50)
			require.Regexp(t, `<div class="jv-pagination-text">1-50 of \d+</div>`, body)
			require.NotEmpty(t, rowRe.FindAllString(string(fetchOK(t, s.URL+"?p=1")), -1))
		} else {
			require.NotContains(t, body, "jv-pagination-text", "a board of one page states no range")
		}
		require.Contains(t, string(fetchOK(t, s.URL+"?p=9")), "No results found")
	}
}

func TestJazzHRFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	itemRe := regexp.MustCompile(`<a href="https://([a-z0-9]+)\.applytojob\.com/apply/([0-9A-Za-z]{10})/[A-Za-z0-9-]+">[^<]+</a></h3><ul class="list-inline list-group-item-text"><li><i class="fa fa-map-marker"></i>[^<]+, [^<]+</li>`)
	for _, s := range sourcesOf(t, d, "jazzhr", 6) {
		require.True(t, strings.HasSuffix(s.URL, "/jazzhr/"+s.Tenant+"/apply"), s.URL)
		body := string(fetchOK(t, s.URL))
		items := itemRe.FindAllStringSubmatch(body, -1)
		require.NotEmpty(t, items)
		for _, it := range items {
			require.Equal(t, s.Tenant, it[1])
		}
		require.Contains(t, body, `<div class="department-heading"><h3>`)
	}
}

func TestRipplingFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	remote := 0
	for _, s := range sourcesOf(t, d, "rippling", 1000) {
		require.True(t, strings.HasSuffix(s.URL, "/rippling/api/v2/board/"+s.Tenant+"/jobs?page=0&pageSize=50"), s.URL)
		status, _, _ := get(t, withQuery(s.URL, "pageSize", "101"))
		require.Equal(t, http.StatusBadRequest, status)
		var resp struct {
			Items []struct {
				ID         string `json:"id"`
				Name       string `json:"name"`
				URL        string `json:"url"`
				Department struct {
					Name string `json:"name"`
				} `json:"department"`
				Locations []struct {
					Name          string  `json:"name"`
					City          *string `json:"city"`
					Country       string  `json:"country"`
					CountryCode   string  `json:"countryCode"`
					WorkplaceType string  `json:"workplaceType"`
				} `json:"locations"`
			} `json:"items"`
			Page       *int `json:"page"`
			PageSize   *int `json:"pageSize"`
			TotalItems *int `json:"totalItems"`
			TotalPages *int `json:"totalPages"`
		}
		decode(t, fetchOK(t, withQuery(s.URL, "pageSize", "100")), &resp)
		require.Equal(t, 100, *resp.PageSize)
		require.Equal(t, (*resp.TotalItems+99)/100, *resp.TotalPages)
		require.Len(t, resp.Items, *resp.TotalItems)
		for _, it := range resp.Items {
			require.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, it.ID)
			require.Equal(t, "https://ats.rippling.com/"+s.Tenant+"/jobs/"+it.ID, it.URL)
			require.NotEmpty(t, it.Department.Name)
			require.Len(t, it.Locations, 1)
			l := it.Locations[0]
			require.Len(t, l.CountryCode, 2)
			require.Contains(t, []string{"ON_SITE", "REMOTE", "HYBRID"}, l.WorkplaceType)
			if l.WorkplaceType == "REMOTE" {
				remote++
				require.Nil(t, l.City)
			}
		}
	}
	require.Positive(t, remote, "remote postings say REMOTE, with no city")
}

func TestJSONLDFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	var stringOrg, objCountry, arrayLoc, sameAs, orgs, remote, salary int
	blocks := map[string]int{}
	for _, s := range d.Sources {
		if s.Kind != KindBoard || isPageBoard(s.Board) { // job-page boards: TestJobPagesFormat
			continue
		}
		body := fetchOK(t, s.URL)
		require.Contains(t, string(body), "<!DOCTYPE html>")
		for _, m := range ldScripts(body) {
			switch {
			case m[0] == '[':
				blocks["array"]++
			case strings.Contains(string(m[:60]), "@graph"):
				blocks["graph"]++
			default:
				blocks["object"]++
			}
		}
		for _, p := range jsonldPostings(t, body) {
			require.Equal(t, "JobPosting", p["@type"])
			require.NotEmpty(t, p["title"])
			id := p["identifier"].(map[string]any)
			require.True(t, strings.HasPrefix(id["value"].(string), ""))
			_, err := time.Parse("2006-01-02", p["datePosted"].(string)[:10])
			require.NoError(t, err)
			switch org := p["hiringOrganization"].(type) {
			case string:
				stringOrg++
			case map[string]any:
				orgs++
				require.NotEmpty(t, org["name"])
				if sa, ok := org["sameAs"].(string); ok {
					sameAs++
					require.True(t, strings.HasPrefix(sa, "https://"))
				}
			}
			var places []any
			switch loc := p["jobLocation"].(type) {
			case []any:
				arrayLoc++
				places = loc
			case map[string]any:
				places = []any{loc}
			}
			require.Len(t, places, 1)
			addr := places[0].(map[string]any)["address"].(map[string]any)
			if _, ok := addr["addressCountry"].(map[string]any); ok {
				objCountry++
			}
			if p["jobLocationType"] == "TELECOMMUTE" {
				remote++
			}
			if bs, ok := p["baseSalary"].(map[string]any); ok {
				salary++
				v := bs["value"].(map[string]any)
				require.Contains(t, []any{"YEAR", "MONTH", "HOUR"}, v["unitText"])
			}
		}
	}
	require.Greater(t, stringOrg, 0)
	require.Greater(t, objCountry, 0)
	require.Greater(t, arrayLoc, 0)
	require.Greater(t, remote, 0)
	require.Greater(t, salary, 0)
	require.InDelta(t, 0.7, float64(sameAs)/float64(orgs), 0.1)
	require.Greater(t, blocks["array"], 0)
	require.Greater(t, blocks["graph"], 0)
	require.Greater(t, blocks["object"], 0)
}

func isPageBoard(name string) bool {
	for _, b := range boardDefs {
		if b.name == name {
			return b.pages
		}
	}
	return false
}

// Job pages: one JobPosting per page with no identifier, @id or url; most pages carry
// a canonical link; sameAs, when present, is the board's own company page; a req published for
// two countries lists both places in jobLocation.
func TestJobPagesFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	var pages, canonical, sameAs, multi int
	for _, s := range d.Sources {
		if !isPageBoard(s.Board) {
			continue
		}
		require.Equal(t, KindBoard, s.Kind)
		u := s.URL
		index := fetchOK(t, u)
		require.Empty(t, jsonldPostings(t, index), "the index page lists no posting")
		m := nextRe.FindSubmatch(index)
		for m != nil {
			u = string(m[1])
			body := fetchOK(t, u)
			pages++
			ps := jsonldPostings(t, body)
			require.Len(t, ps, 1, u)
			p := ps[0]
			for _, k := range []string{"identifier", "@id", "url"} {
				require.NotContains(t, p, k, "a job page's posting has no %s", k)
			}
			if canonicalRe.Match(body) {
				canonical++
			}
			org := p["hiringOrganization"].(map[string]any)
			if sa, ok := org["sameAs"].(string); ok {
				sameAs++
				require.Contains(t, sa, "/cmp/", "the board's own company page")
				require.NotContains(t, sa, ".com\"")
			}
			if places, ok := p["jobLocation"].([]any); ok {
				require.Len(t, places, 2)
				multi++
			}
			m = nextRe.FindSubmatch(body)
		}
	}
	t.Logf("job pages %d: canonical %d, sameAs %d, two countries %d", pages, canonical, sameAs, multi)
	require.Greater(t, pages, 20)
	require.Greater(t, canonical, 0)
	require.Less(t, canonical, pages, "some pages have no canonical link")
	require.Greater(t, sameAs, 0)
	require.Greater(t, multi, 0)
}

func TestAggregatorFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	for _, s := range d.Sources {
		if s.Kind != KindAggregator {
			continue
		}
		var resp struct {
			Jobs []struct {
				ID      string `json:"id"`
				Title   string `json:"title"`
				Company struct {
					Name   string `json:"name"`
					Domain string `json:"domain"`
				} `json:"company"`
				Location struct {
					City    string `json:"city"`
					Country string `json:"country"`
				} `json:"location"`
				URL      string          `json:"url"`
				PostedAt string          `json:"posted_at"`
				Source   string          `json:"source"`
				Salary   json.RawMessage `json:"salary"`
			} `json:"jobs"`
			NextCursor *string `json:"next_cursor"`
		}
		require.NoError(t, json.Unmarshal(fetchOK(t, s.URL), &resp))
		for _, j := range resp.Jobs {
			require.NotEmpty(t, j.ID)
			require.NotEmpty(t, j.Title)
			require.NotEmpty(t, j.Company.Name)
			require.NotEmpty(t, j.Company.Domain, "the aggregator always carries the domain")
			require.NotEmpty(t, j.Location.Country)
			require.NotEmpty(t, j.Source)
			_, err := time.Parse(time.RFC3339, j.PostedAt)
			require.NoError(t, err)
			require.NotEmpty(t, j.Salary, "salary is an object or null")
		}
	}
}

// Board cross-posts spell titles and companies differently from the ATS and the directory.
func TestCrossPostVariants(t *testing.T) {
	t.Parallel()
	w, _ := formatWorld(t)
	tr := w.Truth(40)
	variants, total := 0, 0
	allowed := regexp.MustCompile(`^[\p{L}0-9 .,&/()\-–:'+]+$`)
	for i := range w.companies {
		c := &w.companies[i]
		for s := 0; s < c.nSlots(); s++ {
			g := w.genAt(c, s, 40)
			if !g.live {
				continue
			}
			for bi := 0; bi < 3; bi++ {
				v := string(w.appendTitleVariant(nil, &g, h3(g.h, saltVariant, uint64(bi))))
				total++
				if v != w.titles[g.title].name {
					variants++
				}
				require.Regexp(t, allowed, v)
				name := string(appendCompanyVariant(nil, c, h3(g.h, saltVariant+1, uint64(bi))))
				require.NotEqual(t, c.name, name, "boards never use the directory spelling")
				require.Contains(t, strings.ToLower(name), strings.ToLower(c.core))
			}
		}
	}
	require.Greater(t, float64(variants)/float64(total), 0.8)
	require.NotEmpty(t, tr.Reqs)
}

// pinpointTextRe matches the text fields of a Pinpoint posting.
var pinpointTextRe = regexp.MustCompile(`"(description|key_responsibilities|skills_knowledge_expertise|benefits)":"(?:[^"\\]|\\.)*"`)

// rssDescriptionRe matches an RSS item's description element.
var rssDescriptionRe = regexp.MustCompile(`(?s)<description>.*?</description>`)

func TestTeamtailorFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	remote, multi, items := 0, 0, 0
	eachSourceOf(t, d, "teamtailor", 5, func(s Source, body []byte) {
		require.True(t, strings.HasPrefix(string(body), `<?xml version="1.0" encoding="UTF-8"?>`))
		var feed struct {
			XMLName xml.Name `xml:"rss"`
			Channel struct {
				Title string `xml:"title"`
				Link  string `xml:"link"`
				Items []struct {
					Title        string `xml:"title"`
					Description  string `xml:"description"`
					PubDate      string `xml:"pubDate"`
					Link         string `xml:"link"`
					RemoteStatus string `xml:"remoteStatus"`
					GUID         string `xml:"guid"`
					Locations    []struct {
						Name    string `xml:"name"`
						City    string `xml:"city"`
						Country string `xml:"country"`
					} `xml:"locations>location"`
					Department string `xml:"department"`
				} `xml:"item"`
			} `xml:"channel"`
		}
		require.NoError(t, xml.Unmarshal(body, &feed))
		require.NotEmpty(t, feed.Channel.Title, "the channel names the employer")
		require.Equal(t, "https://"+s.Tenant+".teamtailor.com/jobs", feed.Channel.Link)
		for _, it := range feed.Channel.Items {
			items++
			require.NotEmpty(t, it.Title)
			require.Regexp(t, `^https://`+s.Tenant+`\.teamtailor\.com/jobs/[0-9]+-[a-z0-9-]+$`, it.Link)
			require.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4`, it.GUID)
			_, err := time.Parse(time.RFC1123Z, it.PubDate)
			require.NoError(t, err)
			require.Regexp(t, `^<(p|h2|h3|div)>`, it.Description, "the description is HTML, entity-escaped in the XML")
			require.Contains(t, it.Description, "<li>")
			require.Contains(t, []string{"fully", "hybrid", "none"}, it.RemoteStatus)
			require.NotEmpty(t, it.Locations)
			for _, l := range it.Locations {
				require.NotEmpty(t, l.Country)
			}
			if it.RemoteStatus == "fully" {
				remote++
				require.Empty(t, it.Locations[0].City)
			}
			if len(it.Locations) > 1 {
				multi++
			}
		}
		// No pay field: pay, where the employer states it, is in the description's text.
		require.NotContains(t, rssDescriptionRe.ReplaceAllString(string(body), ""), "salary")
	})
	require.Positive(t, items)
	t.Logf("teamtailor: %d items, %d remote, %d in two countries", items, remote, multi)

	// per_page and offset page the feed.
	s := sourceOfVendor(t, d, "teamtailor")
	var all, paged []string
	linkRe := regexp.MustCompile(`<link>(https://[^<]+/jobs/[^<]+)</link>`)
	for _, m := range linkRe.FindAllSubmatch(fetchOK(t, withQuery(s.URL, "per_page", "1000", "offset", "0")), -1) {
		all = append(all, string(m[1]))
	}
	for offset := 0; offset <= len(all); offset += 2 {
		for _, m := range linkRe.FindAllSubmatch(fetchOK(t, withQuery(s.URL, "per_page", "2", "offset", strconv.Itoa(offset))), -1) {
			paged = append(paged, string(m[1]))
		}
	}
	require.Equal(t, all, paged)
}

func TestBambooHRFormat(t *testing.T) {
	t.Parallel()
	w, d := formatWorld(t)
	var remote, typed, nullTyped int
	eachSourceOf(t, d, "bamboohr", 5, func(s Source, body []byte) {
		var list struct {
			Meta struct {
				TotalCount int `json:"totalCount"`
			} `json:"meta"`
			Result []struct {
				ID                    string `json:"id"`
				JobOpeningName        string `json:"jobOpeningName"`
				DepartmentLabel       string `json:"departmentLabel"`
				EmploymentStatusLabel string `json:"employmentStatusLabel"`
				IsRemote              *bool  `json:"isRemote"`
				LocationType          string `json:"locationType"`
				Location              struct{ City, State *string }
				ATSLocation           struct{ Country, State, Province, City *string } `json:"atsLocation"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(body, &list))
		require.Equal(t, len(list.Result), list.Meta.TotalCount)
		hq := ""
		for _, c := range w.Directory(40).Companies {
			if c.Domain == s.CompanyDomain {
				hq = c.HQCountry
			}
		}
		for _, r := range list.Result {
			require.Regexp(t, `^[0-9]+$`, r.ID)
			require.NotEmpty(t, r.JobOpeningName)
			require.Contains(t, []string{"0", "1", "2"}, r.LocationType)
			if r.LocationType == "1" {
				remote++
				require.Nil(t, r.Location.City)
				require.NotNil(t, r.ATSLocation.Country, "a remote job names its country")
				continue
			}
			require.NotNil(t, r.Location.City, "an office job names its office")
			if r.ATSLocation.Country == nil {
				nullTyped++
			} else {
				typed++
				if *r.ATSLocation.Country != hq {
					require.NotNil(t, r.ATSLocation.City)
				}
			}
		}
		require.NotContains(t, string(body), `"url"`, "the list carries no link")
	})
	require.Positive(t, remote+typed)
	require.Positive(t, nullTyped, "most office jobs in the HQ country leave atsLocation all null")
}

func TestBreezyFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	salaryRe := regexp.MustCompile(`^(?:[^0-9 ]+|[A-Z]{3} )[0-9][0-9,.]* – (?:[^0-9 ]+|[A-Z]{3} )[0-9][0-9,.]* / (year|month|hour)$`)
	var withPay, remote int
	eachSourceOf(t, d, "breezy", 5, func(s Source, body []byte) {
		var list []struct {
			ID            string `json:"id"`
			FriendlyID    string `json:"friendly_id"`
			Name          string `json:"name"`
			URL           string `json:"url"`
			PublishedDate string `json:"published_date"`
			Type          struct{ ID, Name string }
			Location      struct {
				Country  struct{ Name, ID string }
				City     *string `json:"city"`
				IsRemote bool    `json:"is_remote"`
				Name     string  `json:"name"`
			} `json:"location"`
			Locations  []json.RawMessage `json:"locations"`
			Department *string           `json:"department"`
			Salary     string            `json:"salary"`
			Company    struct {
				Name       string `json:"name"`
				FriendlyID string `json:"friendly_id"`
			} `json:"company"`
		}
		require.NoError(t, json.Unmarshal(body, &list), "a bare array")
		for _, p := range list {
			require.Regexp(t, `^[0-9a-f]{12}$`, p.ID)
			require.True(t, strings.HasPrefix(p.FriendlyID, p.ID+"-"))
			require.Equal(t, "https://"+s.Tenant+".breezy.hr/p/"+p.FriendlyID, p.URL)
			_, err := time.Parse("2006-01-02T15:04:05.000Z", p.PublishedDate)
			require.NoError(t, err)
			require.NotEmpty(t, p.Type.ID)
			require.Len(t, p.Location.Country.ID, 2)
			require.NotEmpty(t, p.Location.Name)
			require.NotEmpty(t, p.Locations, "locations repeats the primary")
			require.Equal(t, s.Tenant, p.Company.FriendlyID)
			if p.Location.IsRemote {
				remote++
				require.Nil(t, p.Location.City)
			}
			if p.Salary != "" {
				withPay++
				require.Regexp(t, salaryRe, p.Salary)
			}
		}
	})
	require.Positive(t, withPay)
}

func TestPinpointFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	var visible, hidden, none int
	eachSourceOf(t, d, "pinpoint", 5, func(s Source, body []byte) {
		var feed struct {
			Data []struct {
				ID       string `json:"id"`
				Title    string `json:"title"`
				URL      string `json:"url"`
				Path     string `json:"path"`
				Location struct {
					City string `json:"city"`
					Name string `json:"name"`
				} `json:"location"`
				WorkplaceType       string   `json:"workplace_type"`
				CompensationVisible bool     `json:"compensation_visible"`
				CompensationMinimum *float64 `json:"compensation_minimum"`
				Job                 struct {
					RequisitionID *string `json:"requisition_id"`
					Department    struct {
						Name string `json:"name"`
					} `json:"department"`
				} `json:"job"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(body, &feed))
		for _, p := range feed.Data {
			require.Regexp(t, `^[0-9]+$`, p.ID)
			require.NotEmpty(t, p.Title)
			require.Equal(t, "https://"+s.Tenant+".pinpointhq.com"+p.Path, p.URL)
			require.NotEmpty(t, p.Location.Name)
			require.Contains(t, []string{"onsite", "hybrid", "remote"}, p.WorkplaceType)
			require.NotEmpty(t, p.Job.Department.Name)
			switch {
			case p.CompensationVisible:
				visible++
				require.NotNil(t, p.CompensationMinimum)
			case p.CompensationMinimum != nil:
				hidden++
			default:
				none++
			}
		}
		// The description's sections are the employer's text (which may name a country).
		require.NotContains(t, pinpointTextRe.ReplaceAllString(string(body), ""), "country", "the feed states no country")
	})
	require.Positive(t, visible)
	require.Positive(t, hidden, "some tenants hide a band they have")
	require.Positive(t, none)
}

func TestJoinFormat(t *testing.T) {
	t.Parallel()
	_, d := formatWorld(t)
	multiPage := 0
	eachSourceOf(t, d, "join", 5, func(s Source, body []byte) {
		type page struct {
			Items []struct {
				ID               int64  `json:"id"`
				IDParam          string `json:"idParam"`
				Title            string `json:"title"`
				CreatedAt        string `json:"createdAt"`
				WorkplaceType    string `json:"workplaceType"`
				City             struct{ CityName, CountryName, CountryCode *string }
				SalaryAmountFrom *struct {
					Amount   int64  `json:"amount"`
					Currency string `json:"currency"`
				} `json:"salaryAmountFrom"`
				SalaryFrequency *string `json:"salaryFrequency"`
			} `json:"items"`
			Pagination struct {
				Page, PageSize, PageCount, RowCount int
			} `json:"pagination"`
		}
		var p page
		require.NoError(t, json.Unmarshal(body, &p))
		require.Equal(t, 1, p.Pagination.Page)
		require.Equal(t, 5, p.Pagination.PageSize)
		require.LessOrEqual(t, len(p.Items), 5)
		require.Equal(t, (p.Pagination.RowCount+4)/5, p.Pagination.PageCount)
		if p.Pagination.PageCount > 1 {
			multiPage++
		}
		for _, it := range p.Items {
			require.True(t, strings.HasPrefix(it.IDParam, strconv.FormatInt(it.ID, 10)+"-"))
			require.NotEmpty(t, it.Title)
			_, err := time.Parse("2006-01-02T15:04:05.000Z", it.CreatedAt)
			require.NoError(t, err)
			require.Contains(t, []string{"ONSITE", "HYBRID", "REMOTE"}, it.WorkplaceType)
			require.NotNil(t, it.City.CountryName)
			if it.SalaryAmountFrom != nil {
				require.NotNil(t, it.SalaryFrequency)
				require.Len(t, it.SalaryAmountFrom.Currency, 3)
			}
		}
	})
	require.Positive(t, multiPage, "JOIN pages five jobs at a time")

	// The API refuses more than five a page, as JOIN's does.
	s := sourceOfVendor(t, d, "join")
	status, _, body := get(t, withQuery(s.URL, "pageSize", "6"))
	require.Equal(t, http.StatusUnprocessableEntity, status)
	require.JSONEq(t, `[{"param":"pageSize","msg":"Invalid value"}]`, string(body))
}
