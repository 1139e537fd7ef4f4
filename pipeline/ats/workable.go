package ats

import (
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// workable parses the Workable widget API: GET apply.workable.com/api/v1/widget/accounts/{sub}
//
//	{"name":"Acme","description":"…","jobs":[{"title":"Sales Lead","shortcode":"9F1A2B3C4D","code":"REQ-17",
//	  "employment_type":"Full-time","telecommuting":false,"department":"Sales",
//	  "url":"https://apply.workable.com/j/9F1A2B3C4D","shortlink":"…","application_url":"…",
//	  "published_on":"2026-01-12","created_at":"2026-01-10","country":"Germany","city":"Berlin",
//	  "state":"Berlin","locations":[{"country":"Germany","countryCode":"DE","city":"Berlin","region":"Berlin"}]}]}
//
// One page, no paging. A job advertised in several locations appears once per location with
// the same shortcode; each entry becomes its own Posting whose SourceID is
// shortcode + "/" + country + "/" + city (as published), so entries stay distinct and stable.
// The account name is the CompanyName of every posting; code is the RequisitionID. A job's
// description ("description" HTML, with details=true; "requirements" and "benefits" where the
// account fills them) is its Description, the two further sections under those headings; an
// entry of a job listed in several locations that carries none takes the description another
// entry of its shortcode carries (the same job, so every place's req is described). The
// account's own "description" is the employer's, not a job's, and is not read. employment_type is
// the EmploymentType, experience the Seniority ("Mid-Senior level", which spans two, none),
// workplace (on_site, hybrid, remote) the WorkplaceType, telecommuting or remote true Remote.
type workable struct{}

func (workable) Vendor() string { return "workable" }

type workableResponse struct {
	Name flexString     `json:"name"`
	Jobs *[]workableJob `json:"jobs"`
}

type workableLocation struct {
	Country     flexString `json:"country"`
	CountryCode flexString `json:"countryCode"`
	City        flexString `json:"city"`
	Region      flexString `json:"region"`
}

type workableJob struct {
	Title          string             `json:"title"`
	Shortcode      flexString         `json:"shortcode"`
	Code           flexString         `json:"code"`
	Telecommuting  flexBool           `json:"telecommuting"`
	Remote         flexBool           `json:"remote"`
	Workplace      flexString         `json:"workplace"`
	Department     flexString         `json:"department"`
	URL            flexString         `json:"url"`
	Shortlink      flexString         `json:"shortlink"`
	ApplicationURL flexString         `json:"application_url"`
	PublishedOn    flexTime           `json:"published_on"`
	CreatedAt      flexTime           `json:"created_at"`
	Country        flexString         `json:"country"`
	City           flexString         `json:"city"`
	State          flexString         `json:"state"`
	Locations      []workableLocation `json:"locations"`
	Description    flexString         `json:"description"`
	Requirements   flexString         `json:"requirements"`
	Benefits       flexString         `json:"benefits"`
	EmploymentType flexString         `json:"employment_type"`
	Experience     flexString         `json:"experience"`
}

func (j *workableJob) idTitle() (string, string) { return clean(j.Shortcode), clean(j.Title) }

func (workable) Parse(body []byte, pageURL string) (Page, error) {
	var resp workableResponse
	page, err := decodePage("workable", body, "jobs", &resp, func(r *workableResponse) *[]workableJob { return r.Jobs }, func(j *workableJob, code string, ps []Posting) []Posting {
		country, city, region := clean(j.Country), clean(j.City), clean(j.State)
		if country == "" && city == "" && len(j.Locations) == 1 {
			l := &j.Locations[0]
			country, city, region = clean(l.Country), clean(l.City), clean(l.Region)
			if country == "" {
				country = clean(l.CountryCode)
			}
		}
		p := Posting{
			SourceID:      code,
			RequisitionID: clean(j.Code),
			Title:         j.Title,
			CompanyName:   clean(resp.Name),
			Location:      joinNonEmpty(", ", city, region, country),
			City:          city,
			Country:       country,
			Remote:        bool(j.Telecommuting) || bool(j.Remote) || strings.EqualFold(clean(j.Workplace), "remote"),
			Department:    clean(j.Department),
			URL:           firstNonEmpty(clean(j.URL), clean(j.Shortlink), clean(j.ApplicationURL)),
			PostedAt:      firstTime(j.PublishedOn.T, j.CreatedAt.T),
			Description: htmlSections(section{body: string(j.Description)},
				section{heading: "Requirements", body: string(j.Requirements)},
				section{heading: "Benefits", body: string(j.Benefits)}),
			Seniority: normalize.SeniorityOfLevel(clean(j.Experience)),
		}
		if p.Remote {
			p.setWorkplace(normalize.Remote)
		}
		p.setTerms([]string{string(j.EmploymentType)}, []string{string(j.Workplace)})
		if country != "" || city != "" {
			p.SourceID = code + "/" + country + "/" + city
		}
		return append(ps, p)
	})
	if err != nil {
		return Page{}, err
	}
	shareDescriptions(page.Postings)
	return page, nil
}

// shareDescriptions gives an entry without a description the first description another entry of
// its shortcode (the SourceID before its first "/") carries.
func shareDescriptions(ps []Posting) {
	var byCode map[string]string
	for i := range ps {
		if ps[i].Description == "" {
			continue
		}
		code, _, _ := strings.Cut(ps[i].SourceID, "/")
		if byCode == nil {
			byCode = map[string]string{}
		}
		if _, ok := byCode[code]; !ok {
			byCode[code] = ps[i].Description
		}
	}
	if byCode == nil {
		return
	}
	for i := range ps {
		if ps[i].Description == "" {
			code, _, _ := strings.Cut(ps[i].SourceID, "/")
			ps[i].Description = byCode[code]
		}
	}
}

// joinNonEmpty joins the non-empty parts with sep, dropping a part equal to the previous one
// ("Berlin, Berlin, Germany" → "Berlin, Germany").
func joinNonEmpty(sep string, parts ...string) string {
	var b strings.Builder
	prev := ""
	for _, s := range parts {
		if s == "" || strings.EqualFold(s, prev) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(s)
		prev = s
	}
	return b.String()
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
