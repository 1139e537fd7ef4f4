package ats

import (
	"strings"
)

// pinpoint parses a Pinpoint career site's public postings feed:
// GET {tenant}.pinpointhq.com/postings.json
//
//	{"data":[{"id":"547660","title":"Senior Platform Engineer",
//	  "url":"https://acme.pinpointhq.com/en/postings/142f2b86-97ea-478f-9727-69e5049873ce",
//	  "path":"/en/postings/142f2b86-97ea-478f-9727-69e5049873ce","description":"<div>…</div>",
//	  "location":{"id":"1","city":"Berlin","name":"Berlin","province":"","postal_code":"10115"},
//	  "workplace_type":"hybrid","workplace_type_text":"Hybrid","employment_type":"full_time",
//	  "compensation_visible":true,"compensation_minimum":80000,"compensation_maximum":100000,
//	  "compensation_currency":"EUR","compensation_frequency":"year",
//	  "compensation":"€80,000 - €100,000 / year","deadline_at":null,
//	  "job":{"id":"306744","requisition_id":"REQ-0350","department":{"id":"62809","name":"Engineering"}}}]}
//
// One page, no paging. The feed states no country and no posting date (first_published_at is
// read when a feed carries it): the location's name is the tenant's own label for the place
// ("Berlin", "Chicago, IL", "Remote", "Cali, Colombia"), Location is that name (else "City,
// Province"), and the pipeline places a job by it, else in the employer's HQ country.
// workplace_type (onsite, hybrid, remote) is the WorkplaceType, employment_type ("full_time",
// "permanent_full_time", "contract", ...; else employment_type_text) the EmploymentType. Pay is published only where compensation_visible is
// true: the figures of a job that hides its pay are the employer's internal band and are
// ignored. job.requisition_id is the RequisitionID. Description is description, then
// key_responsibilities, skills_knowledge_expertise and benefits (HTML each), each under its
// _header as the tenant titled it. URL is url, else the tenant's host and path.
type pinpoint struct{}

func (pinpoint) Vendor() string { return "pinpoint" }

type pinpointResponse struct {
	Data *[]pinpointPosting `json:"data"`
}

type pinpointPosting struct {
	ID       flexString `json:"id"`
	Title    string     `json:"title"`
	URL      flexString `json:"url"`
	Path     flexString `json:"path"`
	Location struct {
		Name     flexString `json:"name"`
		City     flexString `json:"city"`
		Province flexString `json:"province"`
		Country  flexString `json:"country"`
	} `json:"location"`
	WorkplaceType       flexString `json:"workplace_type"`
	EmploymentType      flexString `json:"employment_type"`
	EmploymentTypeText  flexString `json:"employment_type_text"`
	Description         flexString `json:"description"`
	Responsibilities    flexString `json:"key_responsibilities"`
	ResponsibilitiesH   flexString `json:"key_responsibilities_header"`
	Skills              flexString `json:"skills_knowledge_expertise"`
	SkillsH             flexString `json:"skills_knowledge_expertise_header"`
	Benefits            flexString `json:"benefits"`
	BenefitsH           flexString `json:"benefits_header"`
	CompensationVisible flexBool   `json:"compensation_visible"`
	CompensationMin     flexNum    `json:"compensation_minimum"`
	CompensationMax     flexNum    `json:"compensation_maximum"`
	CompensationCur     flexString `json:"compensation_currency"`
	CompensationFreq    flexString `json:"compensation_frequency"`
	FirstPublishedAt    flexTime   `json:"first_published_at"`
	Job                 struct {
		RequisitionID flexString `json:"requisition_id"`
		Department    struct {
			Name flexString `json:"name"`
		} `json:"department"`
	} `json:"job"`
}

func (p *pinpointPosting) idTitle() (string, string) { return clean(p.ID), clean(p.Title) }

func (pinpoint) Parse(body []byte, pageURL string) (Page, error) {
	var resp pinpointResponse
	origin := pinpointOrigin(pageURL)
	return decodePage("pinpoint", body, "data", &resp, func(r *pinpointResponse) *[]pinpointPosting { return r.Data }, func(pp *pinpointPosting, id string, ps []Posting) []Posting {
		loc := &pp.Location
		p := Posting{
			SourceID:      id,
			RequisitionID: clean(pp.Job.RequisitionID),
			Title:         pp.Title,
			Location:      clean(loc.Name),
			City:          clean(loc.City),
			Country:       clean(loc.Country),
			Remote:        strings.EqualFold(clean(pp.WorkplaceType), "remote"),
			Department:    clean(pp.Job.Department.Name),
			PostedAt:      pp.FirstPublishedAt.T,
			Description: htmlSections(section{body: string(pp.Description)},
				section{heading: string(pp.ResponsibilitiesH), body: string(pp.Responsibilities)},
				section{heading: string(pp.SkillsH), body: string(pp.Skills)},
				section{heading: string(pp.BenefitsH), body: string(pp.Benefits)}),
		}
		p.setTerms([]string{string(pp.EmploymentType), string(pp.EmploymentTypeText)}, []string{string(pp.WorkplaceType)})
		if p.Location == "" {
			p.Location = joinNonEmpty(", ", p.City, clean(loc.Province), p.Country)
		}
		if p.Location == "" && p.Remote {
			p.Location = "Remote"
		}
		if u := parseAbs(clean(pp.URL)); u != nil {
			p.URL = finishURL(u)
		} else if path := clean(pp.Path); origin != "" && strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "//") {
			p.URL = resolveRef(origin+"/", path)
		}
		if pp.CompensationVisible {
			p.Salary = makeSalary(pp.CompensationMin, pp.CompensationMax, string(pp.CompensationCur), clean(pp.CompensationFreq))
		}
		return append(ps, p)
	})
}

// pinpointOrigin returns "https://{tenant}.pinpointhq.com" for a feed URL, or "" when the URL
// names no tenant.
func pinpointOrigin(pageURL string) string {
	u := parseAbs(pageURL)
	if u == nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if t, ok := strings.CutSuffix(host, ".pinpointhq.com"); ok && t != "" && !strings.Contains(t, ".") {
		return "https://" + host
	}
	if t := simTenant(u.Path, "/pinpoint/"); t != "" {
		return "https://" + t + ".pinpointhq.com"
	}
	return ""
}
