package ats

import (
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// recruitee parses the Recruitee careers-site offers API: GET {tenant}.recruitee.com/api/offers/
//
//	{"offers":[{"id":1234567,"slug":"backend-engineer","title":"Backend Engineer","status":"published",
//	  "company_name":"Acme B.V.","department":"Engineering","location":"Amsterdam, Netherlands",
//	  "city":"Amsterdam","country":"Netherlands","country_code":"NL","remote":false,"hybrid":true,"on_site":false,
//	  "created_at":"2026-08-18 14:20:01 UTC","published_at":"2026-08-19 09:02:14 UTC",
//	  "careers_url":"https://acme.recruitee.com/o/backend-engineer",
//	  "salary":{"min":"50000","max":"65000","period":"year","currency":"EUR"}}]}
//
// One page, no paging. Offers whose status is not "published" are skipped without being
// counted as malformed. Salary bounds are strings; a blank salary (all four fields null or
// empty) means no salary. Description is description (HTML), then requirements (HTML) under
// the heading "Requirements". The flags hybrid, remote and on_site are the WorkplaceType (hybrid
// first), employment_type_code ("fulltime_permanent", "parttime", "contract", "internship") the
// EmploymentType, experience_code ("entry_level", "mid_level", ...) the Seniority.
type recruitee struct{}

func (recruitee) Vendor() string { return "recruitee" }

type recruiteeResponse struct {
	Offers *[]recruiteeOffer `json:"offers"`
}

type recruiteeOffer struct {
	ID           flexString `json:"id"`
	Title        string     `json:"title"`
	Status       flexString `json:"status"`
	CompanyName  flexString `json:"company_name"`
	Department   flexString `json:"department"`
	Location     flexString `json:"location"`
	City         flexString `json:"city"`
	Country      flexString `json:"country"`
	CountryCode  flexString `json:"country_code"`
	Remote       flexBool   `json:"remote"`
	Hybrid       flexBool   `json:"hybrid"`
	OnSite       flexBool   `json:"on_site"`
	Employment   flexString `json:"employment_type_code"`
	Experience   flexString `json:"experience_code"`
	CreatedAt    flexTime   `json:"created_at"`
	PublishedAt  flexTime   `json:"published_at"`
	CareersURL   flexString `json:"careers_url"`
	URL          flexString `json:"url"`
	Description  flexString `json:"description"`
	Requirements flexString `json:"requirements"`
	Salary       *struct {
		Min      flexNum    `json:"min"`
		Max      flexNum    `json:"max"`
		Period   flexString `json:"period"`
		Currency flexString `json:"currency"`
	} `json:"salary"`
}

func (o *recruiteeOffer) idTitle() (string, string) { return clean(o.ID), clean(o.Title) }

func (recruitee) Parse(body []byte, pageURL string) (Page, error) {
	var resp recruiteeResponse
	return decodePage("recruitee", body, "offers", &resp, func(r *recruiteeResponse) *[]recruiteeOffer { return r.Offers }, func(o *recruiteeOffer, id string, ps []Posting) []Posting {
		if st := clean(o.Status); st != "" && !strings.EqualFold(st, "published") {
			return ps
		}
		p := Posting{
			SourceID:    id,
			Title:       o.Title,
			CompanyName: clean(o.CompanyName),
			Location:    clean(o.Location),
			City:        clean(o.City),
			Country:     firstNonEmpty(clean(o.Country), clean(o.CountryCode)),
			Remote:      bool(o.Remote),
			Department:  clean(o.Department),
			URL:         firstNonEmpty(clean(o.CareersURL), clean(o.URL)),
			PostedAt:    firstTime(o.PublishedAt.T, o.CreatedAt.T),
			Description: htmlSections(section{body: string(o.Description)},
				section{heading: "Requirements", body: string(o.Requirements)}),
			Seniority: normalize.SeniorityOfLevel(clean(o.Experience)),
		}
		switch { // the flags as Recruitee sets them: hybrid beside remote or on_site is hybrid
		case bool(o.Hybrid):
			p.setWorkplace(normalize.Hybrid)
		case bool(o.Remote):
			p.setWorkplace(normalize.Remote)
		case bool(o.OnSite):
			p.setWorkplace(normalize.Onsite)
		}
		p.setTerms([]string{string(o.Employment)}, nil)
		if p.Location == "" {
			p.Location = joinNonEmpty(", ", p.City, p.Country)
		}
		if s := o.Salary; s != nil {
			p.Salary = makeSalary(s.Min, s.Max, string(s.Currency), string(s.Period))
		}
		return append(ps, p)
	})
}
