package ats

import (
	"html"
	"strings"
	"time"
	"unicode"
)

// greenhouse parses the Greenhouse Job Board API list:
// GET boards-api.greenhouse.io/v1/boards/{token}/jobs[?content=true]
//
//	{"jobs":[{"id":127817,"internal_job_id":144381,"title":"...","updated_at":"2016-01-14T10:55:28-05:00",
//	  "first_published":"...","requisition_id":"50","location":{"name":"NYC"},
//	  "absolute_url":"https://boards.greenhouse.io/acme/jobs/127817","company_name":"...",
//	  "departments":[{"id":1,"name":"Engineering"}],"offices":[...],
//	  "pay_input_ranges":[{"min_cents":12000000,"max_cents":15000000,"currency_type":"USD"}]}],
//	 "meta":{"total":1}}
//
// The board is one page (no paging). There is no country field, so Country stays "":
// location.name is free text ("Berlin, Germany", "Remote - United States", "San Francisco,
// CA"), and with content=true offices[].location is the office's full place with its country
// ("London, England, United Kingdom"). Location is each office's location when an office
// carries one (one Posting per office, see appendPlaces), else location.name; the pipeline
// reads the country from it. Remote is a location.name that says "remote". Pay ranges are in
// cents and, having no interval field, taken as yearly. With content=true, content is the job's
// description as HTML that the API escapes once more ("&lt;p&gt;…"): Description is that HTML,
// unescaped once.
type greenhouse struct{}

func (greenhouse) Vendor() string { return "greenhouse" }

type ghResponse struct {
	Jobs *[]ghJob `json:"jobs"`
}

type ghJob struct {
	ID             flexString `json:"id"`
	Title          string     `json:"title"`
	RequisitionID  flexString `json:"requisition_id"`
	UpdatedAt      flexTime   `json:"updated_at"`
	FirstPublished flexTime   `json:"first_published"`
	AbsoluteURL    flexString `json:"absolute_url"`
	CompanyName    flexString `json:"company_name"`
	Content        flexString `json:"content"`
	Location       struct {
		Name flexString `json:"name"`
	} `json:"location"`
	Departments []struct {
		Name flexString `json:"name"`
	} `json:"departments"`
	Offices []struct {
		Name     flexString `json:"name"`
		Location flexString `json:"location"`
	} `json:"offices"`
	PayInputRanges []struct {
		MinCents     flexNum    `json:"min_cents"`
		MaxCents     flexNum    `json:"max_cents"`
		CurrencyType flexString `json:"currency_type"`
	} `json:"pay_input_ranges"`
}

func (j *ghJob) idTitle() (string, string) { return clean(j.ID), clean(j.Title) }

func (greenhouse) Parse(body []byte, pageURL string) (Page, error) {
	var resp ghResponse
	return decodePage("greenhouse", body, "jobs", &resp, func(r *ghResponse) *[]ghJob { return r.Jobs }, func(j *ghJob, id string, ps []Posting) []Posting {
		p := Posting{
			SourceID:      id,
			RequisitionID: clean(j.RequisitionID),
			Title:         j.Title,
			CompanyName:   clean(j.CompanyName),
			Location:      clean(j.Location.Name),
			URL:           clean(j.AbsoluteURL),
			PostedAt:      firstTime(j.FirstPublished.T, j.UpdatedAt.T),
			Remote:        mentionsRemote(clean(j.Location.Name)),
			Description:   boundDescription(html.UnescapeString(string(j.Content))),
		}
		var places []place
		for _, o := range j.Offices {
			if loc := clean(o.Location); loc != "" {
				places = append(places, place{location: loc})
			}
		}
		for _, d := range j.Departments {
			if name := clean(d.Name); name != "" {
				p.Department = name
				break
			}
		}
		for _, r := range j.PayInputRanges {
			min, max := r.MinCents, r.MaxCents
			min.V /= 100
			max.V /= 100
			if s := makeSalary(min, max, string(r.CurrencyType), "year"); s != nil {
				p.Salary = s
				break
			}
		}
		return appendPlaces(ps, p, places)
	})
}

// mentionsRemote reports whether a free-text location has the word "remote" ("Remote - US",
// "US (Remote)", "remote"), not as part of another word.
func mentionsRemote(loc string) bool {
	for _, w := range strings.FieldsFunc(loc, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if strings.EqualFold(w, "remote") {
			return true
		}
	}
	return false
}

// firstTime returns the first non-zero time.
func firstTime(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}
