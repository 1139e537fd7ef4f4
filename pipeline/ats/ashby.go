package ats

import (
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// ashby parses the Ashby public job posting API:
// GET api.ashbyhq.com/posting-api/job-board/{name}?includeCompensation=true
//
//	{"apiVersion":"1","jobs":[{"id":"…","title":"Product Manager","location":"Houston, TX",
//	  "department":"Product","team":"Growth","isListed":true,"isRemote":false,"workplaceType":"OnSite",
//	  "publishedAt":"2021-04-30T16:21:55.393+00:00","employmentType":"FullTime",
//	  "address":{"postalAddress":{"addressLocality":"Houston","addressRegion":"Texas","addressCountry":"USA"}},
//	  "jobUrl":"https://jobs.ashbyhq.com/acme/…","applyUrl":"…",
//	  "compensation":{"compensationTiers":[{"components":[{"compensationType":"Salary","interval":"1 YEAR",
//	    "currencyCode":"USD","minValue":81000,"maxValue":87000}]}],"summaryComponents":[…]}}]}
//
// One page, no paging. Unlisted entries (isListed false) are skipped without being counted as
// malformed. addressCountry may be a name or an alpha-3 code; it is passed on as published.
// secondaryLocations ([{"location":"London","address":{"postalAddress":{…,"addressCountry":
// "United Kingdom"}}}]) are further places of the same job, each its own Posting (see
// appendPlaces) with its own country. Description is descriptionHtml, else descriptionPlain.
// employmentType (FullTime, PartTime, Intern, Contract, Temporary) and workplaceType (OnSite,
// Hybrid, Remote; isRemote true is Remote) are the posting's terms.
type ashby struct{}

func (ashby) Vendor() string { return "ashby" }

type ashbyResponse struct {
	Jobs *[]ashbyJob `json:"jobs"`
}

type ashbyJob struct {
	ID            flexString   `json:"id"`
	Title         string       `json:"title"`
	Location      flexString   `json:"location"`
	Department    flexString   `json:"department"`
	Team          flexString   `json:"team"`
	IsListed      optBool      `json:"isListed"`
	IsRemote      flexBool     `json:"isRemote"`
	WorkplaceType flexString   `json:"workplaceType"`
	Employment    flexString   `json:"employmentType"`
	PublishedAt   flexTime     `json:"publishedAt"`
	JobURL        flexString   `json:"jobUrl"`
	ApplyURL      flexString   `json:"applyUrl"`
	Address       ashbyAddress `json:"address"`
	Secondary     []struct {
		Location flexString   `json:"location"`
		Address  ashbyAddress `json:"address"`
	} `json:"secondaryLocations"`
	DescriptionHTML  flexString `json:"descriptionHtml"`
	DescriptionPlain flexString `json:"descriptionPlain"`
	Compensation     struct {
		SummaryComponents []ashbyComponent `json:"summaryComponents"`
		CompensationTiers []struct {
			Components []ashbyComponent `json:"components"`
		} `json:"compensationTiers"`
	} `json:"compensation"`
}

// ashbyAddress is address{postalAddress{…}}; the fields are also accepted one level up
// (address{addressLocality, addressCountry}), as some secondaryLocations carry them.
type ashbyAddress struct {
	PostalAddress   ashbyPostal `json:"postalAddress"`
	AddressLocality flexString  `json:"addressLocality"`
	AddressCountry  ldCountry   `json:"addressCountry"`
}

type ashbyPostal struct {
	AddressLocality flexString `json:"addressLocality"`
	AddressCountry  ldCountry  `json:"addressCountry"`
}

// postal returns the postal address, falling back to the fields placed one level up.
func (a *ashbyAddress) postal() ashbyPostal {
	p := a.PostalAddress
	if p.AddressLocality == "" {
		p.AddressLocality = a.AddressLocality
	}
	if p.AddressCountry == "" {
		p.AddressCountry = a.AddressCountry
	}
	return p
}

type ashbyComponent struct {
	CompensationType flexString `json:"compensationType"`
	Interval         flexString `json:"interval"`
	CurrencyCode     flexString `json:"currencyCode"`
	MinValue         flexNum    `json:"minValue"`
	MaxValue         flexNum    `json:"maxValue"`
}

func (j *ashbyJob) idTitle() (string, string) { return clean(j.ID), clean(j.Title) }

func (ashby) Parse(body []byte, pageURL string) (Page, error) {
	var resp ashbyResponse
	return decodePage("ashby", body, "jobs", &resp, func(r *ashbyResponse) *[]ashbyJob { return r.Jobs }, func(j *ashbyJob, id string, ps []Posting) []Posting {
		if j.IsListed.Set && !j.IsListed.V {
			return ps
		}
		addr := j.Address.postal()
		p := Posting{
			SourceID:   id,
			Title:      j.Title,
			Location:   clean(j.Location),
			City:       clean(addr.AddressLocality),
			Country:    string(addr.AddressCountry),
			Remote:     bool(j.IsRemote) || strings.EqualFold(clean(j.WorkplaceType), "remote"),
			Department: clean(j.Department),
			URL:        clean(j.JobURL),
			PostedAt:   j.PublishedAt.T,
		}
		p.Description = boundDescription(firstNonBlank(string(j.DescriptionHTML), string(j.DescriptionPlain)))
		if bool(j.IsRemote) {
			p.setWorkplace(normalize.Remote)
		}
		p.setTerms([]string{string(j.Employment)}, []string{string(j.WorkplaceType)})
		if p.Department == "" {
			p.Department = clean(j.Team)
		}
		if p.URL == "" {
			p.URL = clean(j.ApplyURL)
		}
		p.Salary = ashbySalary(j.Compensation.SummaryComponents)
		if p.Salary == nil {
			for _, t := range j.Compensation.CompensationTiers {
				if p.Salary = ashbySalary(t.Components); p.Salary != nil {
					break
				}
			}
		}
		var places []place
		if len(j.Secondary) > 0 {
			places = append(places, place{location: p.Location, city: p.City, country: p.Country})
			for _, sl := range j.Secondary {
				a := sl.Address.postal()
				pl := place{location: clean(sl.Location), city: clean(a.AddressLocality), country: string(a.AddressCountry)}
				if pl.location == "" {
					pl.location = joinNonEmpty(", ", pl.city, pl.country)
				}
				places = append(places, pl)
			}
		}
		return appendPlaces(ps, p, places)
	})
}

// ashbySalary returns the first usable "Salary" component (equity, bonus and commission
// components are ignored).
func ashbySalary(cs []ashbyComponent) *Salary {
	for _, c := range cs {
		if !strings.EqualFold(clean(c.CompensationType), "salary") {
			continue
		}
		if s := makeSalary(c.MinValue, c.MaxValue, string(c.CurrencyCode), string(c.Interval)); s != nil {
			return s
		}
	}
	return nil
}
