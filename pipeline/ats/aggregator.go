package ats

// aggregator parses our aggregator feed (docs/crawl-contract.md):
// GET {base}/aggregator/v1/feed?region={region}[&cursor=…]
//
//	{"jobs":[{"id":"agg-1","title":"…","company":{"name":"Acme Inc.","domain":"acme.com"},
//	  "location":{"city":"Berlin","country":"Germany"},"url":"https://…","posted_at":"2026-01-05T00:00:00Z",
//	  "source":"jobsnorth","salary":{"min":70000,"max":90000,"currency":"EUR","period":"year"}|null}],
//	 "next_cursor":"…"}
//
// A job's optional "description" (HTML or text, as the board it copied from published it) is
// its Description. The next page is the same URL with cursor=<next_cursor> (an existing cursor is replaced);
// an absent or empty next_cursor ends paging.
type aggregator struct{}

func (aggregator) Vendor() string { return "aggregator" }

type aggResponse struct {
	Jobs       *[]aggJob  `json:"jobs"`
	NextCursor flexString `json:"next_cursor"`
}

type aggJob struct {
	ID      flexString `json:"id"`
	Title   string     `json:"title"`
	Company struct {
		Name   flexString `json:"name"`
		Domain flexString `json:"domain"`
	} `json:"company"`
	Location struct {
		City    flexString `json:"city"`
		Country flexString `json:"country"`
	} `json:"location"`
	URL         flexString `json:"url"`
	PostedAt    flexTime   `json:"posted_at"`
	Remote      flexBool   `json:"remote"`
	Description flexString `json:"description"`
	Salary      *struct {
		Min      flexNum    `json:"min"`
		Max      flexNum    `json:"max"`
		Currency flexString `json:"currency"`
		Period   flexString `json:"period"`
	} `json:"salary"`
}

func (j *aggJob) idTitle() (string, string) { return clean(j.ID), clean(j.Title) }

func (aggregator) Parse(body []byte, pageURL string) (Page, error) {
	var resp aggResponse
	page, err := decodePage("aggregator", body, "jobs", &resp, func(r *aggResponse) *[]aggJob { return r.Jobs }, func(j *aggJob, id string, ps []Posting) []Posting {
		city, country := clean(j.Location.City), clean(j.Location.Country)
		p := Posting{
			SourceID:      id,
			Title:         j.Title,
			CompanyName:   clean(j.Company.Name),
			CompanyDomain: hostOf(string(j.Company.Domain)),
			Location:      joinNonEmpty(", ", city, country),
			City:          city,
			Country:       country,
			Remote:        bool(j.Remote),
			URL:           clean(j.URL),
			PostedAt:      j.PostedAt.T,
			Description:   boundDescription(string(j.Description)),
		}
		if s := j.Salary; s != nil {
			p.Salary = makeSalary(s.Min, s.Max, string(s.Currency), string(s.Period))
		}
		return append(ps, p)
	})
	if err != nil {
		return Page{}, err
	}
	if cur := clean(resp.NextCursor); cur != "" {
		if u := parseAbs(pageURL); u != nil {
			if old, ok := queryValue(u.RawQuery, "cursor"); !ok || old != cur {
				page.NextURL = withQuery(pageURL, "cursor", cur)
			}
		}
	}
	return page, nil
}
