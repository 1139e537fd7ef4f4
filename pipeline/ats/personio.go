package ats

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// personio parses the Personio XML feed: GET {tenant}.jobs.personio.de/xml?language=en
//
//	<workzag-jobs>
//	  <position>
//	    <id>1234567</id><subcompany>Acme GmbH</subcompany><office>Berlin</office>
//	    <department>Engineering</department><recruitingCategory>…</recruitingCategory>
//	    <name>Backend Engineer (m/w/d)</name><jobDescriptions>…</jobDescriptions>
//	    <employmentType>permanent</employmentType><seniority>experienced</seniority>
//	    <schedule>full-time</schedule><occupationCategory>…</occupationCategory>
//	    <createdAt>2026-01-05T09:12:44+00:00</createdAt>
//	  </position>
//	</workzag-jobs>
//
// One page, no paging. The feed has no country, salary or url. office is a city;
// <office>Remote</office> means a remote job (Remote, Location "Remote", no City);
// <additionalOffices><office>…</office></additionalOffices> lists further offices, each its
// own Posting (see appendPlaces). The country stays blank (the pipeline reads it from the
// office's city, else the company's HQ). URL is the public posting page
// https://{tenant}.jobs.personio.de/job/{id}: the tenant is the feed's host
// ({tenant}.jobs.personio.de or .com), or on the simulator the path /personio/{tenant}/xml.
// subcompany, when present, is the CompanyName. Description is the jobDescriptions'
// <jobDescription> sections in order, each <value> (HTML, usually CDATA) after its <name> as
// <h3>name</h3>. employmentType and schedule give the EmploymentType (personioEmployment),
// seniority ("entry-level", "experienced", "executive", "student"; experienced, which says only
// "not a beginner", and executive, which spans every leadership level from a director up, are
// none: personioLevel) the Seniority, yearsOfExperience ("lt-1", "2-5", "7+") its least
// figure as YearsExperienceMin. keywords (the employer's tags, "go,kubernetes") are Keywords.
type personio struct{}

func (personio) Vendor() string { return "personio" }

type personioPosition struct {
	ID         string `xml:"id"`
	Subcompany string `xml:"subcompany"`
	Office     string `xml:"office"`
	Department string `xml:"department"`
	Name       string `xml:"name"`
	CreatedAt  string `xml:"createdAt"`
	Employment string `xml:"employmentType"`
	Schedule   string `xml:"schedule"`
	Seniority  string `xml:"seniority"`
	Years      string `xml:"yearsOfExperience"`
	Keywords   string `xml:"keywords"`
	Additional struct {
		Offices []string `xml:"office"`
	} `xml:"additionalOffices"`
	Descriptions struct {
		Sections []struct {
			Name  string `xml:"name"`
			Value string `xml:"value"`
		} `xml:"jobDescription"`
	} `xml:"jobDescriptions"`
}

func (personio) Parse(body []byte, pageURL string) (Page, error) {
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = false // real feeds carry stray '&' and HTML entities in descriptions
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charsetReader
	var page Page
	jobBase := personioJobBase(pageURL)
	depth, roots := 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Page{}, fmt.Errorf("personio: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if roots > 1 {
					return Page{}, errors.New("personio: more than one root element")
				}
			}
			if depth > 0 && t.Name.Local == "position" {
				var pos personioPosition
				if err := d.DecodeElement(&pos, &t); err != nil {
					return Page{}, fmt.Errorf("personio: %w", err)
				}
				if p, ok := pos.posting(); ok {
					if jobBase != "" {
						p.URL = jobBase + url.PathEscape(p.SourceID)
					}
					places := make([]place, 0, 1+len(pos.Additional.Offices))
					for _, o := range append([]string{pos.Office}, pos.Additional.Offices...) {
						if o = strings.TrimSpace(o); o != "" {
							places = append(places, personioPlace(o))
						}
					}
					page.Postings = appendPlaces(page.Postings, p, places)
				} else {
					page.Malformed++
				}
				continue
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return Page{}, errors.New("personio: text outside the root element")
			}
		}
	}
	if roots == 0 {
		return Page{}, errors.New("personio: no root element")
	}
	if depth != 0 {
		return Page{}, errors.New("personio: unexpected end of document")
	}
	return page, nil
}

func (pos *personioPosition) posting() (Posting, bool) {
	id, title := strings.TrimSpace(pos.ID), strings.TrimSpace(pos.Name)
	if id == "" || title == "" {
		return Posting{}, false
	}
	office := strings.TrimSpace(pos.Office)
	pl := personioPlace(office)
	secs := make([]section, 0, len(pos.Descriptions.Sections))
	for _, s := range pos.Descriptions.Sections {
		secs = append(secs, section{heading: s.Name, body: s.Value})
	}
	p := Posting{
		SourceID:           id,
		Title:              title,
		CompanyName:        strings.TrimSpace(pos.Subcompany),
		Location:           pl.location,
		City:               pl.city,
		Remote:             isRemoteWord(office),
		Department:         strings.TrimSpace(pos.Department),
		PostedAt:           parseTime(pos.CreatedAt),
		Description:        htmlSections(secs...),
		EmploymentType:     personioEmployment(pos.Employment, pos.Schedule),
		Seniority:          personioLevel(pos.Seniority),
		YearsExperienceMin: personioYears(pos.Years),
		Keywords:           boundText(strings.TrimSpace(pos.Keywords), MaxKeywords),
	}
	if p.Remote {
		p.setWorkplace(normalize.Remote)
	}
	return p, true
}

// personioEmployment is the employment type of employmentType (permanent, intern, trainee,
// freelance, temporary, working_student) and schedule (full-time, part-time,
// full-or-part-time): a permanent position's (or an unstated one's) is its schedule's, when the
// feed gives one ("full-or-part-time" states none), else permanent is full_time.
func personioEmployment(employment, schedule string) string {
	employment, schedule = strings.TrimSpace(employment), strings.TrimSpace(schedule)
	if (employment == "" || strings.EqualFold(employment, "permanent")) && schedule != "" {
		return normalize.EmploymentTypeOf(schedule)
	}
	return normalize.EmploymentTypeOf(employment)
}

// personioLevel is the seniority of Personio's level: entry-level junior, student intern. Its
// other two levels are bands: "experienced" (mid to manager) and "executive" (director to the
// C-suite, where LinkedIn's Director and Executive are two) name no one seniority.
func personioLevel(v string) string {
	if v = strings.TrimSpace(v); strings.EqualFold(v, "executive") {
		return ""
	}
	return normalize.SeniorityOfLevel(v)
}

// personioYears is the least of yearsOfExperience ("lt-1" is 0, "1-2" 1, "3-5" 3, "7+" 7),
// nil when absent or not one of those shapes.
func personioYears(v string) *int {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "lt-") {
		n := 0
		return &n
	}
	n, digits := 0, 0
	for digits < len(v) && digits < 3 && v[digits] >= '0' && v[digits] <= '9' {
		n = n*10 + int(v[digits]-'0')
		digits++
	}
	if digits == 0 || n > 50 {
		return nil
	}
	if rest := v[digits:]; rest != "" && rest[0] != '-' && rest[0] != '+' {
		return nil
	}
	return &n
}

// personioPlace is an office: a city, or "Remote" (no city).
func personioPlace(office string) place {
	if isRemoteWord(office) {
		return place{location: "Remote"}
	}
	return place{location: office, city: office}
}

// isRemoteWord reports whether s says only "remote" (any case, e.g. "Remote", "REMOTE").
func isRemoteWord(s string) bool { return strings.EqualFold(strings.TrimSpace(s), "remote") }

// personioJobBase returns "https://{tenant}.jobs.personio.de/job/" for a feed URL, or "" when
// the URL names no tenant.
func personioJobBase(pageURL string) string {
	u := parseAbs(pageURL)
	if u == nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	for _, suffix := range []string{".jobs.personio.de", ".jobs.personio.com"} {
		if t, ok := strings.CutSuffix(host, suffix); ok && t != "" && !strings.Contains(t, ".") {
			return "https://" + host + "/job/"
		}
	}
	_, rest, ok := strings.Cut(u.Path, "/personio/")
	if !ok {
		return ""
	}
	tenant, _, _ := strings.Cut(rest, "/")
	if tenant == "" || strings.ContainsAny(tenant, ".:@%") {
		return ""
	}
	return "https://" + strings.ToLower(tenant) + ".jobs.personio.de/job/"
}

// charsetReader lets encoding/xml read Latin-1 / Windows-1252 declared documents (the
// Windows-1252 extras are mapped as Latin-1, close enough for titles) and passes any other
// declared charset through as UTF-8 rather than failing the whole feed.
func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(charset)) {
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "windows-1252", "cp1252", "us-ascii", "ascii":
		return &latin1Reader{r: bufio.NewReader(input)}, nil
	}
	return input, nil
}

type latin1Reader struct {
	r   *bufio.Reader
	buf [utf8.UTFMax]byte
	n   int // pending bytes of buf not yet returned
	off int
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) {
		if l.off < l.n {
			c := copy(p[w:], l.buf[l.off:l.n])
			l.off += c
			w += c
			continue
		}
		b, err := l.r.ReadByte()
		if err != nil {
			if w > 0 {
				return w, nil
			}
			return 0, err
		}
		if b < utf8.RuneSelf {
			p[w] = b
			w++
			continue
		}
		l.n = utf8.EncodeRune(l.buf[:], rune(b))
		l.off = 0
	}
	return w, nil
}
