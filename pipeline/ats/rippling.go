package ats

import (
	"strconv"
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// rippling parses Rippling's job board API, the list its boards (ats.rippling.com/{board}/jobs)
// call: GET https://ats.rippling.com/api/v2/board/{board}/jobs?page=0&pageSize=50
//
//	{"items":[{"id":"6f2c…","name":"BizOps Manager","url":"https://ats.rippling.com/acme/jobs/6f2c…",
//	  "department":{"name":"Bizops"},"locations":[{"name":"New York, NY","city":"New York","state":"New York",
//	  "country":"United States","countryCode":"US","workplaceType":"ON_SITE"}]}],
//	 "page":0,"pageSize":50,"totalItems":609,"totalPages":13}
//
// Paging: page= zero-based; the next page is the page URL with page+1 while page+1 < totalPages
// (else while (page+1)*pageSize < totalItems; with neither, while a page comes back full). A
// posting for several places may come once per place, rows sharing the id: the rows of a page
// are one posting with the places in their order, each a Posting (appendPlaces: the n-th further
// place is {id}#{n}); a posting whose rows straddle two pages gives its id twice. A place's City
// is city, Country countryCode (else country), Location name; a posting whose every place has
// workplaceType REMOTE is Remote, and the workplaceType every place states (ON_SITE, HYBRID,
// REMOTE) the WorkplaceType. The list has no date, salary, company name, requisition id or
// description (the posting's own endpoint has them; a row carrying "description" has it used). The older API's bare array ({"uuid","name","url",
// "department":{"label"},"workLocation":{"label"}}) is read too, as one page.
type rippling struct{}

func (rippling) Vendor() string { return "rippling" }

type ripplingResponse struct {
	Items      *[]ripplingItem `json:"items"`
	PageSize   flexNum         `json:"pageSize"`
	TotalItems flexNum         `json:"totalItems"`
	TotalPages flexNum         `json:"totalPages"`
}

type ripplingItem struct {
	ID           flexString         `json:"id"`
	UUID         flexString         `json:"uuid"`
	Name         string             `json:"name"`
	URL          flexString         `json:"url"`
	Department   rawJSON            `json:"department"`
	Locations    []ripplingLocation `json:"locations"`
	Description  flexString         `json:"description"`
	WorkLocation struct {
		Label flexString `json:"label"`
	} `json:"workLocation"`
}

type ripplingLocation struct {
	Name          flexString `json:"name"`
	City          flexString `json:"city"`
	Country       flexString `json:"country"`
	CountryCode   flexString `json:"countryCode"`
	WorkplaceType flexString `json:"workplaceType"`
}

func (it *ripplingItem) idTitle() (string, string) {
	return firstNonEmpty(clean(it.ID), clean(it.UUID)), clean(it.Name)
}

// ripplingPosting is the posting of one id: its first row and every place of its rows.
type ripplingPosting struct {
	item   *ripplingItem
	places []place
	remote bool // every place is REMOTE
	// workplace is the workplace type every place states (normalize.WorkplaceTypeOf); "" when
	// one states none or two differ (mixed).
	workplace string
	mixed     bool
}

func (rippling) Parse(body []byte, pageURL string) (Page, error) {
	trimmed := trimJSON(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var items []ripplingItem
		return ripplingPage(body, "", &items, func(e *[]ripplingItem) *[]ripplingItem { return e })
	}
	var resp ripplingResponse
	page, err := ripplingPage(body, "items", &resp, func(r *ripplingResponse) *[]ripplingItem { return r.Items })
	if err != nil {
		return Page{}, err
	}
	page.NextURL = ripplingNext(pageURL, resp, len(*resp.Items))
	return page, nil
}

// ripplingPage decodes a page (the envelope env, its rows under key) and folds the rows of one
// id into one posting.
func ripplingPage[E any](body []byte, key string, env *E, list func(*E) *[]ripplingItem) (Page, error) {
	var order []string
	byID := map[string]*ripplingPosting{}
	page, err := decodePage("rippling", body, key, env, list, func(it *ripplingItem, id string, ps []Posting) []Posting {
		rp := byID[id]
		if rp == nil {
			rp = &ripplingPosting{item: it, remote: true}
			byID[id] = rp
			order = append(order, id)
		}
		for _, l := range it.Locations {
			pl := place{location: clean(l.Name), city: clean(l.City), country: firstNonEmpty(clean(l.CountryCode), clean(l.Country))}
			if pl == (place{}) {
				continue
			}
			rp.places = append(rp.places, pl)
			rp.remote = rp.remote && strings.EqualFold(clean(l.WorkplaceType), "remote")
			switch w := normalize.WorkplaceTypeOf(clean(l.WorkplaceType)); {
			case w == "" || rp.workplace != "" && w != rp.workplace:
				rp.mixed = true
			default:
				rp.workplace = w
			}
		}
		if len(it.Locations) == 0 {
			if label := clean(it.WorkLocation.Label); label != "" {
				rp.places = append(rp.places, place{location: label})
				rp.remote = rp.remote && strings.HasPrefix(strings.ToLower(label), "remote")
			}
		}
		return ps
	})
	if err != nil {
		return Page{}, err
	}
	for _, id := range order {
		rp := byID[id]
		it := rp.item
		p := Posting{
			SourceID:   id,
			Title:      it.Name,
			URL:        clean(it.URL),
			Department: ripplingDepartment(it.Department),
			Remote:     rp.remote && len(rp.places) > 0,
		}
		p.Description = boundDescription(string(it.Description))
		if !rp.mixed {
			p.setWorkplace(rp.workplace)
		}
		if parseAbs(p.URL) == nil {
			p.URL = ""
		}
		if rp.remote {
			for i := range rp.places {
				if isRemoteWord(rp.places[i].city) {
					rp.places[i].city = ""
				}
			}
		}
		page.Postings = appendPlaces(page.Postings, p, rp.places)
	}
	return page, nil
}

// ripplingDepartment reads department as {"name"}, {"label"} or a plain string.
func ripplingDepartment(raw rawJSON) string {
	if isNull(raw) {
		return ""
	}
	if raw[0] == '"' {
		return strings.TrimSpace(rawString(raw))
	}
	var d struct {
		Name  flexString `json:"name"`
		Label flexString `json:"label"`
	}
	if !unmarshalInto(raw, &d) {
		return ""
	}
	return firstNonEmpty(clean(d.Name), clean(d.Label))
}

// ripplingNext is the URL of the page after this one, "" when this was the last.
func ripplingNext(pageURL string, resp ripplingResponse, n int) string {
	u := parseAbs(pageURL)
	if u == nil || n == 0 {
		return ""
	}
	page := queryInt(u, "page", 0)
	size := queryInt(u, "pageSize", 0)
	if resp.PageSize.OK && resp.PageSize.V >= 1 && resp.PageSize.V < 1e6 {
		size = int(resp.PageSize.V)
	}
	switch {
	case page >= 10_000:
		return ""
	case resp.TotalPages.OK:
		if float64(page+1) >= resp.TotalPages.V {
			return ""
		}
	case resp.TotalItems.OK && size > 0:
		if float64((page+1)*size) >= resp.TotalItems.V {
			return ""
		}
	case size == 0 || n < size:
		return ""
	}
	return withQuery(pageURL, "page", strconv.Itoa(page+1))
}
