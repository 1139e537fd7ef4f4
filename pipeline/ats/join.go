package ats

import (
	"math"
	"net/url"
	"strconv"
	"strings"
)

// join parses JOIN's public jobs API, the list behind every join.com careers page:
// GET join.com/api/public/companies/{companyId}/jobs?page=1&pageSize=5
//
//	{"items":[{"id":9134723,"idParam":"9134723-backend-engineer","title":"Backend Engineer (m/w/d)",
//	  "createdAt":"2026-01-05T09:12:44.907Z","workplaceType":"ONSITE",
//	  "city":{"cityName":"Berlin","regionName":"Berlin","countryName":"Germany","countryCode":"DE"},
//	  "category":{"id":17,"name":"Software Development"},"employmentType":{"id":1,"name":"Employee"},
//	  "salaryAmountFrom":{"amount":6000000,"currency":"EUR"},"salaryAmountTo":{"amount":7500000,"currency":"EUR"},
//	  "salaryFrequency":"PER_YEAR"}],
//	 "pagination":{"page":1,"pageSize":5,"pageCount":3,"rowCount":12}}
//
// The API refuses a pageSize above 5 (HTTP 422), so a tenant is read five jobs a page: the next
// page is page+1 until pagination.pageCount (without one, a page shorter than pageSize is the
// last). The company is the URL's number; the feed names neither the company nor its careers
// page, so URL is JOIN's job link https://join.com/jobs/{id}. Salary amounts are in minor units
// (cents) and salaryFrequency is PER_YEAR, PER_MONTH, PER_WEEK, PER_DAY or PER_HOUR.
// workplaceType (ONSITE, HYBRID, REMOTE) is the WorkplaceType, employmentType's name
// ("Employee", JOIN's permanent contract, is full_time; "Part-time", "Working Student",
// "Internship", "Freelancer") the EmploymentType. The country is city.countryName (else its code, else a
// top-level country {name}); Department is department, else category. The list carries no
// description; an item that does ("description") has it as its Description.
type join struct{}

func (join) Vendor() string { return "join" }

type joinResponse struct {
	Items      *[]joinItem `json:"items"`
	Pagination struct {
		PageCount flexNum `json:"pageCount"`
	} `json:"pagination"`
}

type joinAmount struct {
	Amount   flexNum    `json:"amount"`
	Currency flexString `json:"currency"`
}

type joinItem struct {
	ID            flexString  `json:"id"`
	IDParam       flexString  `json:"idParam"`
	Title         string      `json:"title"`
	URL           flexString  `json:"url"`
	CreatedAt     flexTime    `json:"createdAt"`
	PublishedAt   flexTime    `json:"publishedAt"`
	WorkplaceType flexString  `json:"workplaceType"`
	Employment    breezyNamed `json:"employmentType"`
	Department    breezyNamed `json:"department"`
	Category      breezyNamed `json:"category"`
	City          struct {
		CityName    flexString `json:"cityName"`
		RegionName  flexString `json:"regionName"`
		CountryName flexString `json:"countryName"`
		CountryCode flexString `json:"countryCode"`
	} `json:"city"`
	Country         breezyNamed `json:"country"`
	SalaryFrom      *joinAmount `json:"salaryAmountFrom"`
	SalaryTo        *joinAmount `json:"salaryAmountTo"`
	SalaryFrequency flexString  `json:"salaryFrequency"`
	Description     flexString  `json:"description"`
}

func (it *joinItem) idTitle() (string, string) { return clean(it.ID), clean(it.Title) }

func (join) Parse(body []byte, pageURL string) (Page, error) {
	var resp joinResponse
	page, err := decodePage("join", body, "items", &resp, func(r *joinResponse) *[]joinItem { return r.Items }, func(it *joinItem, id string, ps []Posting) []Posting {
		city := clean(it.City.CityName)
		country := firstNonEmpty(clean(it.City.CountryName), clean(it.City.CountryCode), it.Country.text())
		p := Posting{
			SourceID:   id,
			Title:      it.Title,
			City:       city,
			Country:    country,
			Location:   joinNonEmpty(", ", city, country),
			Remote:     strings.EqualFold(clean(it.WorkplaceType), "remote"),
			Department: firstNonEmpty(it.Department.text(), it.Category.text()),
			PostedAt:   firstTime(it.PublishedAt.T, it.CreatedAt.T),
			Salary:     joinSalary(it),
		}
		p.Description = boundDescription(string(it.Description))
		p.setTerms([]string{it.Employment.name}, []string{string(it.WorkplaceType)})
		if p.Location == "" && p.Remote {
			p.Location = "Remote"
		}
		if u := parseAbs(clean(it.URL)); u != nil {
			p.URL = finishURL(u)
		} else {
			p.URL = "https://join.com/jobs/" + url.PathEscape(id)
		}
		return append(ps, p)
	})
	if err != nil {
		return Page{}, err
	}
	page.NextURL = joinNext(pageURL, resp.Pagination.PageCount, len(*resp.Items))
	return page, nil
}

// joinSalary reads the minor-unit bounds; the currency is either bound's.
func joinSalary(it *joinItem) *Salary {
	var lo, hi flexNum
	currency := ""
	if f := it.SalaryFrom; f != nil {
		lo, currency = f.Amount, clean(f.Currency)
	}
	if t := it.SalaryTo; t != nil {
		hi = t.Amount
		currency = firstNonEmpty(currency, clean(t.Currency))
	}
	lo.V /= 100
	hi.V /= 100
	return makeSalary(lo, hi, currency, clean(it.SalaryFrequency))
}

// joinNext returns the URL of the page after this one: page+1 while it is below pageCount, or,
// without a pageCount, while this page (n records) was a full pageSize.
func joinNext(pageURL string, pageCount flexNum, n int) string {
	u := parseAbs(pageURL)
	if u == nil || n == 0 {
		return ""
	}
	cur := queryInt(u, "page", 1)
	if cur == 0 {
		cur = 1
	}
	if cur >= math.MaxInt32 {
		return ""
	}
	if pageCount.OK {
		if float64(cur) >= pageCount.V {
			return ""
		}
	} else if size := queryInt(u, "pageSize", 5); size == 0 || n < size {
		return ""
	}
	return withQuery(pageURL, "page", strconv.Itoa(cur+1))
}
