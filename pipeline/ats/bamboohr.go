package ats

import (
	"net/url"
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// bambooHR parses a BambooHR careers site's list, the JSON its own careers page loads:
// GET {tenant}.bamboohr.com/careers/list
//
//	{"meta":{"totalCount":2},"result":[{"id":"232","jobOpeningName":"Electrical Technologist",
//	  "departmentId":"19011","departmentLabel":"Engineering","employmentStatusLabel":"Full-Time",
//	  "location":{"city":"London","state":"Ontario"},
//	  "atsLocation":{"country":null,"state":null,"province":null,"city":null},
//	  "isRemote":null,"locationType":"0"}]}
//
// One page, no paging (meta.totalCount is len(result)); a bare array of the same records is
// read too. Two place shapes: location {city,
// state} is a company office and has no country; atsLocation {country, state, province, city} is
// a place typed in for the job (remote jobs use it) and names the country. Either may be all
// null; the office is the place when it names one, the country is atsLocation's (else none: the
// employer's own feed, so the pipeline places it in the HQ country). locationType "1" or a true
// isRemote is a remote job, "2" a hybrid and "0" an onsite one (WorkplaceType);
// employmentStatusLabel ("Full-Time", "Contractor", "Intern") is the EmploymentType. The list has no date, no pay and no link: URL is the public posting
// page https://{tenant}.bamboohr.com/careers/{id}, the tenant being the list's host (on the
// simulator, the path /bamboohr/{tenant}/careers/list); a record carrying jobOpeningShareUrl,
// datePosted or description (the detail's shape; the list has no description) has those used.
type bambooHR struct{}

func (bambooHR) Vendor() string { return "bamboohr" }

type bambooResponse struct {
	Result *[]bambooJob `json:"result"`
}

type bambooPlace struct {
	City           flexString `json:"city"`
	State          flexString `json:"state"`
	Province       flexString `json:"province"`
	Country        flexString `json:"country"`
	AddressCountry flexString `json:"addressCountry"`
}

type bambooJob struct {
	ID              flexString  `json:"id"`
	JobOpeningName  string      `json:"jobOpeningName"`
	DepartmentLabel flexString  `json:"departmentLabel"`
	Location        bambooPlace `json:"location"`
	ATSLocation     bambooPlace `json:"atsLocation"`
	IsRemote        flexBool    `json:"isRemote"`
	LocationType    flexString  `json:"locationType"`
	ShareURL        flexString  `json:"jobOpeningShareUrl"`
	DatePosted      flexTime    `json:"datePosted"`
	Description     flexString  `json:"description"`
	Employment      flexString  `json:"employmentStatusLabel"`
}

func (j *bambooJob) idTitle() (string, string) { return clean(j.ID), clean(j.JobOpeningName) }

func (bambooHR) Parse(body []byte, pageURL string) (Page, error) {
	base := bambooJobBase(pageURL)
	add := func(j *bambooJob, id string, ps []Posting) []Posting {
		office, typed := &j.Location, &j.ATSLocation
		country := firstNonEmpty(clean(typed.Country), clean(office.AddressCountry), clean(office.Country))
		p := Posting{
			SourceID:    id,
			Title:       j.JobOpeningName,
			Country:     country,
			Remote:      bool(j.IsRemote) || clean(j.LocationType) == "1",
			Department:  clean(j.DepartmentLabel),
			PostedAt:    j.DatePosted.T,
			Description: boundDescription(string(j.Description)),
		}
		if p.Remote {
			p.setWorkplace(normalize.Remote)
		} else {
			p.setWorkplace(bambooWorkplace[clean(j.LocationType)])
		}
		p.setTerms([]string{string(j.Employment)}, nil)
		if u := parseAbs(clean(j.ShareURL)); u != nil {
			p.URL = finishURL(u)
		}
		pl := office
		if clean(office.City) == "" && clean(office.State) == "" {
			pl = typed
		}
		p.City = clean(pl.City)
		p.Location = joinNonEmpty(", ", p.City, firstNonEmpty(clean(pl.State), clean(pl.Province)), country)
		if p.Location == "" && p.Remote {
			p.Location = "Remote"
		}
		if p.URL == "" && base != "" {
			p.URL = base + url.PathEscape(id)
		}
		return append(ps, p)
	}
	if b := trimJSON(body); len(b) > 0 && b[0] == '[' {
		// The list without its envelope, as some readers have seen it served.
		var list []bambooJob
		return decodePage("bamboohr", body, "", &list, func(l *[]bambooJob) *[]bambooJob { return l }, add)
	}
	var resp bambooResponse
	return decodePage("bamboohr", body, "result", &resp, func(r *bambooResponse) *[]bambooJob { return r.Result }, add)
}

// bambooWorkplace maps locationType to a workplace type ("1", remote, is read with isRemote).
var bambooWorkplace = map[string]string{"0": normalize.Onsite, "2": normalize.Hybrid}

// bambooJobBase returns "https://{tenant}.bamboohr.com/careers/" for a list URL, or "" when the
// URL names no tenant.
func bambooJobBase(pageURL string) string {
	u := parseAbs(pageURL)
	if u == nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if t, ok := strings.CutSuffix(host, ".bamboohr.com"); ok && t != "" && !strings.Contains(t, ".") {
		return "https://" + host + "/careers/"
	}
	tenant := simTenant(u.Path, "/bamboohr/")
	if tenant == "" {
		return ""
	}
	return "https://" + tenant + ".bamboohr.com/careers/"
}

// simTenant returns the tenant of a simulator path {prefix}{tenant}/… (prefix "/bamboohr/"),
// lower-cased, or "" when the path has none or it could not be a host label.
func simTenant(path, prefix string) string {
	_, rest, ok := strings.Cut(path, prefix)
	if !ok {
		return ""
	}
	tenant, _, _ := strings.Cut(rest, "/")
	if tenant == "" || len(tenant) > 63 || tenant[0] == '-' || tenant[len(tenant)-1] == '-' {
		return ""
	}
	for i := 0; i < len(tenant); i++ {
		c := tenant[i] | 0x20
		if !(c >= 'a' && c <= 'z' || tenant[i] >= '0' && tenant[i] <= '9' || tenant[i] == '-') {
			return ""
		}
	}
	return strings.ToLower(tenant)
}
