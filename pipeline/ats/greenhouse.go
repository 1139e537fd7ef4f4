package ats

import (
	"errors"
	"fmt"
	"time"
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
// The board is one page (no paging). There is no country field: location.name is free text
// ("Berlin, Germany", "Remote - US") left for the pipeline to interpret, so Country stays "".
// Pay ranges are in cents and, having no interval field, taken as yearly.
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
	Location       struct {
		Name flexString `json:"name"`
	} `json:"location"`
	Departments []struct {
		Name flexString `json:"name"`
	} `json:"departments"`
	PayInputRanges []struct {
		MinCents     flexNum    `json:"min_cents"`
		MaxCents     flexNum    `json:"max_cents"`
		CurrencyType flexString `json:"currency_type"`
	} `json:"pay_input_ranges"`
}

func (greenhouse) Parse(body []byte, pageURL string) (Page, error) {
	var resp ghResponse
	if err := decodeTop(body, '{', &resp, "jobs"); err != nil {
		return Page{}, fmt.Errorf("greenhouse: %w", err)
	}
	if resp.Jobs == nil {
		return Page{}, errors.New("greenhouse: no jobs array")
	}
	jobs := *resp.Jobs
	page := Page{Postings: make([]Posting, 0, len(jobs))}
	for i := range jobs {
		j := &jobs[i]
		id, title := clean(j.ID), clean(j.Title)
		if id == "" || title == "" {
			page.Malformed++
			continue
		}
		p := Posting{
			SourceID:      id,
			RequisitionID: clean(j.RequisitionID),
			Title:         j.Title,
			CompanyName:   clean(j.CompanyName),
			Location:      clean(j.Location.Name),
			URL:           clean(j.AbsoluteURL),
			PostedAt:      firstTime(j.FirstPublished.T, j.UpdatedAt.T),
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
		page.Postings = append(page.Postings, p)
	}
	return page, nil
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
