package ats

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// workday parses the list endpoint of a Workday career site (the CXS API its own pages call):
//
//	POST https://{company}.{wdN}.myworkdayjobs.com/wday/cxs/{company}/{site}/jobs
//	Content-Type: application/json
//	{"appliedFacets":{},"limit":20,"offset":0,"searchText":""}
//
//	{"total":156,"facets":[…],"userAuthenticated":false,"jobPostings":[
//	  {"title":"Technology Analyst Intern","externalPath":"/job/TORONTO-Ontario-Canada/Technology-Analyst-Intern_R-0000187520",
//	   "locationsText":"TORONTO, Ontario, Canada","postedOn":"Posted 5 Days Ago","bulletFields":["R-0000187520"]}]}
//
// Paging: limit 20 (Workday answers 400 to more), offset in the body. A page's position rides in
// its URL's fragment, which is never sent: the first page is the bare URL (offset 0), the next
// https://…/jobs#offset=20&total=156; Request renders the body from it. total is set on the
// first page only (later pages say 0), so NextURL carries it on: the next page exists while
// offset+len(jobPostings) < total, or, with no total known, while a page comes back full.
//
// SourceID is externalPath (the posting's path on the site; a repost gets a "-1" suffix);
// RequisitionID the bulletField that ends externalPath (R-0000187520), else the first
// bulletField that looks like an id. URL is the public posting page
// https://{company}.{wdN}.myworkdayjobs.com/{site}{externalPath}, from the page URL (on the
// simulator, …/workday/{wdN}/wday/cxs/{company}/{site}/jobs). Location is locationsText, except
// a count of places ("3 Locations"), which is no place: Location stays "" (the pipeline falls
// back to the company's HQ country). remoteType (when sent) or a "Remote" locationsText gives
// Remote; remoteType is the WorkplaceType when it states one ("Fully Remote", "Hybrid",
// "On-site"), and a bulletField that names an employment type ("Full time") the EmploymentType. A record without title or externalPath (Workday lists stubs mid-publish,
// {"bulletFields":["10151065"]}) or whose externalPath is not a /job/ path is malformed.
//
// PostedAt: postedOn is relative text, "Posted Today", "Posted Yesterday", "Posted 3 Days Ago",
// "Posted 30+ Days Ago". It is read against the day the page was served (ParseServed; the
// fetcher gives the response's Date header): PostedAt is 00:00 UTC of that day minus the days
// the text names, a day's precision and never a time of day. "30+ Days" is a bound, not a day,
// and gives no PostedAt; so does any other wording (another language) and Parse, which knows no
// serving time.
//
// The list carries no description: Description stays "". The job's own endpoint
// (GET …/wday/cxs/{company}/{site}{externalPath}) has it as jobPostingInfo.jobDescription, one
// request per job, which the crawl does not make.
type workday struct{}

func (workday) Vendor() string { return "workday" }

// workdayLimit is the page size asked for: Workday's maximum.
const workdayLimit = 20

type workdayResponse struct {
	Total       flexNum           `json:"total"`
	JobPostings *[]workdayPosting `json:"jobPostings"`
}

type workdayPosting struct {
	Title         string     `json:"title"`
	ExternalPath  flexString `json:"externalPath"`
	LocationsText flexString `json:"locationsText"`
	PostedOn      flexString `json:"postedOn"`
	RemoteType    flexString `json:"remoteType"`
	BulletFields  rawJSON    `json:"bulletFields"`
}

func (p *workdayPosting) idTitle() (string, string) {
	path := clean(p.ExternalPath)
	if !strings.HasPrefix(path, "/job/") || strings.Contains(path, "..") {
		path = ""
	}
	return path, clean(p.Title)
}

// Request is the POST of the page at pageURL: its offset from the URL's fragment.
func (workday) Request(pageURL string) (string, []byte, string) {
	offset, _ := workdayPosition(pageURL)
	b := make([]byte, 0, 80)
	b = append(b, `{"appliedFacets":{},"limit":`...)
	b = strconv.AppendInt(b, workdayLimit, 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(offset), 10)
	b = append(b, `,"searchText":""}`...)
	return "POST", b, "application/json"
}

func (w workday) Parse(body []byte, pageURL string) (Page, error) {
	return w.ParseServed(body, pageURL, time.Time{})
}

func (workday) ParseServed(body []byte, pageURL string, served time.Time) (Page, error) {
	var resp workdayResponse
	base := workdayJobBase(pageURL)
	page, err := decodePage("workday", body, "jobPostings", &resp, func(r *workdayResponse) *[]workdayPosting { return r.JobPostings }, func(p *workdayPosting, id string, ps []Posting) []Posting {
		loc := clean(p.LocationsText)
		if workdayCount.MatchString(loc) {
			loc = ""
		}
		remote := strings.Contains(strings.ToLower(clean(p.RemoteType)), "remote")
		if !remote && loc != "" {
			remote = hasWord(loc, "remote")
		}
		q := Posting{
			SourceID:      id,
			RequisitionID: workdayReqID(id, p.BulletFields),
			Title:         p.Title,
			Location:      loc,
			Remote:        remote,
			PostedAt:      workdayPostedAt(clean(p.PostedOn), served),
		}
		q.setWorkplace(normalize.WorkplaceTypeOf(clean(p.RemoteType)))
		q.setTerms(workdayBullets(p.BulletFields), nil)
		if base != "" {
			q.URL = base + id
		}
		return append(ps, q)
	})
	if err != nil {
		return Page{}, err
	}
	page.NextURL = workdayNext(pageURL, resp, len(*resp.JobPostings))
	return page, nil
}

// workdayCount is a locationsText that counts places instead of naming one.
var workdayCount = regexp.MustCompile(`(?i)^\d+\s+locations?$`)

// workdayPosition reads a page URL's fragment: offset (0 when absent) and the total the first
// page stated (0 when not yet known).
func workdayPosition(pageURL string) (offset, total int) {
	u, err := url.Parse(strings.TrimSpace(pageURL))
	if err != nil {
		return 0, 0
	}
	frag := u.Fragment
	if v, ok := queryValue(frag, "offset"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			offset = n
		}
	}
	if v, ok := queryValue(frag, "total"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			total = n
		}
	}
	return offset, total
}

// workdayMaxOffset bounds paging, so that no total a page states can page on for ever.
const workdayMaxOffset = 10_000

// workdayNext is the URL of the page after this one, "" when this was the last.
func workdayNext(pageURL string, resp workdayResponse, n int) string {
	u := parseAbs(pageURL)
	if u == nil || n == 0 {
		return ""
	}
	offset, total := workdayPosition(pageURL)
	if resp.Total.OK && resp.Total.V >= 1 && resp.Total.V <= workdayMaxOffset {
		total = int(resp.Total.V)
	}
	next := offset + n
	switch {
	case next >= workdayMaxOffset:
		return ""
	case total > 0 && next >= total:
		return ""
	case total == 0 && n < workdayLimit:
		return ""
	}
	frag := "offset=" + strconv.Itoa(next)
	if total > 0 {
		frag += "&total=" + strconv.Itoa(total)
	}
	u.Fragment, u.RawFragment = frag, ""
	return finishURL(u)
}

// workdayJobBase is "https://{company}.{wdN}.myworkdayjobs.com/{site}" for a list URL, the
// prefix of every posting's externalPath; "" when the URL names no site.
func workdayJobBase(pageURL string) string {
	u := parseAbs(pageURL)
	if u == nil {
		return ""
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	at := -1
	for i := 0; i+3 < len(segs); i++ {
		if segs[i] == "wday" && segs[i+1] == "cxs" {
			at = i
			break
		}
	}
	if at < 0 {
		return ""
	}
	company, site := strings.ToLower(segs[at+2]), segs[at+3]
	dc := ""
	host := strings.ToLower(u.Hostname())
	if rest, ok := strings.CutSuffix(host, ".myworkdayjobs.com"); ok {
		if c, d, ok := strings.Cut(rest, "."); ok && c == company {
			dc = d
		}
	} else if at > 0 {
		dc = strings.ToLower(segs[at-1]) // the simulator's /workday/{wdN}/wday/cxs/…
	}
	if !workdaySegment.MatchString(company) || !workdayDataCentre.MatchString(dc) || !workdaySegment.MatchString(site) {
		return ""
	}
	return "https://" + company + "." + dc + ".myworkdayjobs.com/" + site
}

var (
	workdaySegment    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$`)
	workdayDataCentre = regexp.MustCompile(`^wd[1-9][0-9]{0,2}$`)
)

// workdayReqID picks the requisition id among bulletFields: the one externalPath ends with
// ("…_R-0000187520", or "…_R-0000187520-1" for a repost), else the first that looks like an
// id (no space, a digit).
func workdayReqID(path string, bullets rawJSON) string {
	fields := workdayBullets(bullets)
	if len(fields) == 0 {
		return ""
	}
	if i := strings.LastIndexByte(path, '_'); i >= 0 {
		tail := path[i+1:]
		for _, f := range fields {
			if tail == f || strings.HasPrefix(tail, f+"-") {
				return f
			}
		}
	}
	for _, f := range fields {
		if !strings.ContainsAny(f, " \t") && strings.ContainsAny(f, "0123456789") {
			return f
		}
	}
	return ""
}

// workdayBullets are the non-blank strings of bulletFields.
func workdayBullets(bullets rawJSON) []string {
	var fields []string
	forEachRaw(bullets, func(r rawJSON) bool {
		if s := strings.TrimSpace(rawString(r)); s != "" {
			fields = append(fields, s)
		}
		return true
	})
	return fields
}

// workdayPostedOn reads "Posted Today", "Posted Yesterday" and "Posted N Days Ago".
var workdayPostedOn = regexp.MustCompile(`(?i)^posted\s+(today|yesterday|(\d{1,4})\s+days?\s+ago)$`)

// workdayPostedAt is 00:00 UTC of the day postedOn names, counted back from the day served;
// zero when served is zero or the text names no day ("Posted 30+ Days Ago").
func workdayPostedAt(postedOn string, served time.Time) time.Time {
	if served.IsZero() {
		return time.Time{}
	}
	m := workdayPostedOn.FindStringSubmatch(strings.Join(strings.Fields(postedOn), " "))
	if m == nil {
		return time.Time{}
	}
	days := 0
	switch {
	case strings.EqualFold(m[1], "today"):
	case strings.EqualFold(m[1], "yesterday"):
		days = 1
	default:
		days, _ = strconv.Atoi(m[2])
	}
	y, mo, d := served.UTC().Date()
	return time.Date(y, mo, d-days, 0, 0, 0, 0, time.UTC)
}

// hasWord reports whether s has word (ASCII letters, any case) as a whole word.
func hasWord(s, word string) bool {
	ls := strings.ToLower(s)
	for i := 0; ; {
		j := strings.Index(ls[i:], word)
		if j < 0 {
			return false
		}
		at := i + j
		before := at == 0 || !isASCIILetter(ls[at-1])
		end := at + len(word)
		after := end == len(ls) || !isASCIILetter(ls[end])
		if before && after {
			return true
		}
		i = at + 1
	}
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
