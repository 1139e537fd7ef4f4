package ats

import (
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// smartRecruiters parses the SmartRecruiters Posting API list:
// GET api.smartrecruiters.com/v1/companies/{id}/postings?limit=100&offset=0
//
//	{"limit":100,"offset":0,"totalFound":2,"content":[{"id":"75551135","uuid":"…","name":"Director, Customer Engagement",
//	  "refNumber":"REF12345","company":{"identifier":"acme","name":"Acme Inc"},"releasedDate":"2014-02-19T19:36:42.346Z",
//	  "location":{"city":"San Francisco","region":"CA","country":"us","remote":true},
//	  "department":{"id":"18554","label":"Marketing"},"function":{…},"typeOfEmployment":{…},
//	  "experienceLevel":{…},"ref":"https://api.smartrecruiters.com/v1/companies/acme/postings/75551135"}]}
//
// Paging is offset/limit: the next page starts at offset+len(content) until that reaches
// totalFound. The list API has no salary and no public posting link (ref is the API URL):
// URL is postingUrl/applyUrl when a response carries them, else the public posting page
// https://jobs.smartrecruiters.com/{company.identifier}/{id} (the identifier falls back to
// the company id of the page URL, /v1/companies/{id}/postings). A compensation object
// {min,max,currency,period} is used when present. Remote postings may put the remote area
// in city and "REMOTE" in region ({"city":"Poland","region":"REMOTE","remote":true}): such
// a city is not a city, so City stays "" and Location reads "Remote - Poland".
// "department": {} (no label) gives no Department. The list carries no description (the
// posting's own endpoint, /v1/companies/{id}/postings/{postingId}, has jobAd.sections, not
// fetched): Description stays "". typeOfEmployment (its label, else its id) is the
// EmploymentType, experienceLevel's id the Seniority (mid_senior_level, which spans two, none),
// location.hybrid and location.remote the WorkplaceType.
type smartRecruiters struct{}

func (smartRecruiters) Vendor() string { return "smartrecruiters" }

type srResponse struct {
	Limit      flexNum   `json:"limit"`
	Offset     flexNum   `json:"offset"`
	TotalFound flexNum   `json:"totalFound"`
	Content    *[]srItem `json:"content"`
}

type srItem struct {
	ID           flexString `json:"id"`
	Name         string     `json:"name"`
	RefNumber    flexString `json:"refNumber"`
	ReleasedDate flexTime   `json:"releasedDate"`
	PostingURL   flexString `json:"postingUrl"`
	ApplyURL     flexString `json:"applyUrl"`
	Company      struct {
		Identifier flexString `json:"identifier"`
		Name       flexString `json:"name"`
	} `json:"company"`
	Location struct {
		City         flexString `json:"city"`
		Region       flexString `json:"region"`
		Country      flexString `json:"country"`
		FullLocation flexString `json:"fullLocation"`
		Remote       flexBool   `json:"remote"`
		Hybrid       flexBool   `json:"hybrid"`
	} `json:"location"`
	Department struct {
		Label flexString `json:"label"`
	} `json:"department"`
	TypeOfEmployment srLabel `json:"typeOfEmployment"`
	ExperienceLevel  srLabel `json:"experienceLevel"`
	Compensation     *struct {
		Min      flexNum    `json:"min"`
		Max      flexNum    `json:"max"`
		Currency flexString `json:"currency"`
		Period   flexString `json:"period"`
	} `json:"compensation"`
}

// srLabel is SmartRecruiters' {id, label} of a listed value.
type srLabel struct {
	ID    flexString `json:"id"`
	Label flexString `json:"label"`
}

func (it *srItem) idTitle() (string, string) { return clean(it.ID), clean(it.Name) }

func (smartRecruiters) Parse(body []byte, pageURL string) (Page, error) {
	var resp srResponse
	pageCompany := srCompanyOfURL(pageURL)
	page, err := decodePage("smartrecruiters", body, "content", &resp, func(r *srResponse) *[]srItem { return r.Content }, func(it *srItem, id string, ps []Posting) []Posting {
		loc := &it.Location
		city, region, country := clean(loc.City), clean(loc.Region), clean(loc.Country)
		remote := bool(loc.Remote)
		if strings.EqualFold(region, "remote") {
			// The remote shape: city holds the remote area, region says REMOTE.
			remote = true
			area := city
			city = ""
			if area != "" {
				region = "Remote - " + area
			} else {
				region = "Remote"
			}
		}
		p := Posting{
			SourceID:      id,
			RequisitionID: clean(it.RefNumber),
			Title:         it.Name,
			CompanyName:   clean(it.Company.Name),
			Location:      tidyPlace(clean(loc.FullLocation)),
			City:          city,
			Country:       country,
			Remote:        remote,
			Department:    clean(it.Department.Label),
			URL:           firstNonEmpty(clean(it.PostingURL), clean(it.ApplyURL)),
			PostedAt:      it.ReleasedDate.T,
			Seniority:     normalize.SeniorityOfLevel(clean(it.ExperienceLevel.ID)),
		}
		switch {
		case bool(loc.Hybrid):
			p.setWorkplace(normalize.Hybrid)
		case remote:
			p.setWorkplace(normalize.Remote)
		}
		p.setTerms([]string{string(it.TypeOfEmployment.Label), string(it.TypeOfEmployment.ID)}, nil)
		if p.Location == "" {
			p.Location = joinNonEmpty(", ", city, region, country)
		}
		if p.URL == "" {
			p.URL = srPostingURL(firstNonEmpty(clean(it.Company.Identifier), pageCompany), id)
		}
		if c := it.Compensation; c != nil {
			period := clean(c.Period)
			if period == "" {
				period = "year"
			}
			p.Salary = makeSalary(c.Min, c.Max, string(c.Currency), period)
		}
		return append(ps, p)
	})
	if err != nil {
		return Page{}, err
	}
	page.NextURL = srNext(pageURL, resp, len(*resp.Content))
	return page, nil
}

// srPostingURL is the public posting page of a SmartRecruiters posting, "" without a company.
func srPostingURL(company, id string) string {
	if company == "" {
		return ""
	}
	return "https://jobs.smartrecruiters.com/" + url.PathEscape(company) + "/" + url.PathEscape(id)
}

// srCompanyOfURL returns the company id of a list URL (…/companies/{id}/postings), or "".
func srCompanyOfURL(pageURL string) string {
	u := parseAbs(pageURL)
	if u == nil {
		return ""
	}
	_, rest, ok := strings.Cut(u.Path, "/companies/")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	return id
}

// srNext returns the URL of the page after this one, or "" when offset+n reaches totalFound
// (or the page was empty, so paging cannot advance).
func srNext(pageURL string, resp srResponse, n int) string {
	u := parseAbs(pageURL)
	if u == nil || n == 0 || !resp.TotalFound.OK {
		return ""
	}
	offset := float64(queryInt(u, "offset", 0))
	if resp.Offset.OK && resp.Offset.V >= 0 {
		offset = math.Floor(resp.Offset.V)
	}
	next := offset + float64(n)
	if next >= resp.TotalFound.V || next > math.MaxInt32 {
		return ""
	}
	out := withQuery(pageURL, "offset", strconv.Itoa(int(next)))
	if _, ok := queryValue(u.RawQuery, "limit"); !ok && out != "" && resp.Limit.OK && resp.Limit.V >= 1 && resp.Limit.V <= math.MaxInt32 {
		out = withQuery(out, "limit", strconv.Itoa(int(resp.Limit.V)))
	}
	return out
}

// tidyPlace drops the empty parts of a comma-separated place: SmartRecruiters' fullLocation
// leaves a slot for an absent region ("Atlanta, , United States").
func tidyPlace(s string) string {
	if !strings.Contains(s, ",") {
		return s
	}
	var kept []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ", ")
}
