package ats

import (
	"bytes"
	"math"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// breezy parses a Breezy HR career site's position list, the public JSON of every Breezy board:
// GET {tenant}.breezy.hr/json
//
//	[{"id":"9fdd4744af8f","friendly_id":"9fdd4744af8f-backend-engineer","name":"Backend Engineer",
//	  "url":"https://acme.breezy.hr/p/9fdd4744af8f-backend-engineer",
//	  "published_date":"2026-06-04T15:01:39.320Z","type":{"id":"fullTime","name":"Full-Time"},
//	  "location":{"country":{"name":"United States","id":"US"},"state":{"name":"Ohio","id":"OH"},
//	    "city":"Columbus","is_remote":false,"name":"Columbus, OH"},
//	  "locations":[{…the same shape…}],"department":"Engineering",
//	  "salary":"$170,000 – $300,000 / year",
//	  "company":{"name":"Acme Inc","logo_url":null,"friendly_id":"acme"}}]
//
// The body is a bare array (an older shape wrapped it as {"company":…,"positions":[…]}, also
// read). One page, no paging. locations, when a tenant lists several, repeats the primary
// location first: each is a place of the position (see appendPlaces); Location is the place's
// name as Breezy renders it ("Columbus, OH"), else "City, Country"; Country is the country's name
// (else its code); is_remote on any place is a remote job. type ({"id":"fullTime","name":
// "Full-Time"}: partTime, contract, temporary, internship) is the EmploymentType. department and type come as a string
// or a {"name"} object. salary is Breezy's rendering of the published pay, a currency symbol or
// code, one or two amounts and "/ year", "/ month", "/ week", "/ day" or "/ hour"
// ("€50,000 – €60,000 / year", "CHF 40 / hour"); "" or text without figures and a unit is no pay.
// URL is url, else https://{tenant}.breezy.hr/p/{friendly_id}. The list carries no description;
// a position that does ("description", HTML) has it as its Description.
type breezy struct{}

func (breezy) Vendor() string { return "breezy" }

// breezyNamed is a string, or an object with a name (and an id): {"name":"Ohio","id":"OH"}.
type breezyNamed struct{ name, id string }

func (n *breezyNamed) UnmarshalJSON(b []byte) error {
	*n = breezyNamed{}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		s, _ := jsonStringValue(b)
		n.name = strings.TrimSpace(s)
	case '{':
		var o struct {
			Name flexString `json:"name"`
			ID   flexString `json:"id"`
		}
		if unmarshalTolerant(b, &o) {
			n.name, n.id = clean(o.Name), clean(o.ID)
		}
	}
	return nil
}

func (n breezyNamed) text() string { return firstNonEmpty(n.name, n.id) }

type breezyPlace struct {
	Name     flexString  `json:"name"`
	City     flexString  `json:"city"`
	State    breezyNamed `json:"state"`
	Country  breezyNamed `json:"country"`
	IsRemote flexBool    `json:"is_remote"`
}

type breezyPosition struct {
	ID            flexString    `json:"id"`
	LegacyID      flexString    `json:"_id"`
	FriendlyID    flexString    `json:"friendly_id"`
	Name          string        `json:"name"`
	URL           flexString    `json:"url"`
	PublishedDate flexTime      `json:"published_date"`
	Location      *breezyPlace  `json:"location"`
	Locations     []breezyPlace `json:"locations"`
	Department    breezyNamed   `json:"department"`
	Type          breezyNamed   `json:"type"`
	Salary        flexString    `json:"salary"`
	Description   flexString    `json:"description"`
	Company       struct {
		Name flexString `json:"name"`
	} `json:"company"`
}

func (p *breezyPosition) idTitle() (string, string) {
	return firstNonEmpty(clean(p.ID), clean(p.LegacyID)), clean(p.Name)
}

type breezyWrapped struct {
	Positions *[]breezyPosition `json:"positions"`
}

func (breezy) Parse(body []byte, pageURL string) (Page, error) {
	base := breezyBase(pageURL)
	add := func(bp *breezyPosition, id string, ps []Posting) []Posting {
		p := Posting{
			SourceID:    id,
			Title:       bp.Name,
			CompanyName: clean(bp.Company.Name),
			Department:  bp.Department.text(),
			PostedAt:    bp.PublishedDate.T,
			Salary:      breezySalary(clean(bp.Salary)),
			Description: boundDescription(string(bp.Description)),
		}
		if u := parseAbs(clean(bp.URL)); u != nil {
			p.URL = finishURL(u)
		} else if f := clean(bp.FriendlyID); f != "" && base != "" {
			p.URL = base + url.PathEscape(f)
		}
		all := bp.Locations
		if len(all) == 0 && bp.Location != nil {
			all = []breezyPlace{*bp.Location}
		}
		var places []place
		for i := range all {
			l := &all[i]
			if l.IsRemote {
				p.Remote = true
			}
			pl := place{city: clean(l.City), country: l.Country.text()}
			pl.location = clean(l.Name)
			if pl.location == "" {
				pl.location = joinNonEmpty(", ", pl.city, l.State.text(), pl.country)
			}
			if pl.location == "" && l.IsRemote {
				pl.location = "Remote"
			}
			if pl != (place{}) {
				places = append(places, pl)
			}
		}
		if p.Remote {
			p.setWorkplace(normalize.Remote)
		}
		p.setTerms([]string{bp.Type.id, bp.Type.name}, nil)
		return appendPlaces(ps, p, places)
	}
	if b := trimJSON(body); len(b) > 0 && b[0] == '{' {
		var env breezyWrapped
		return decodePage("breezy", body, "positions", &env, func(e *breezyWrapped) *[]breezyPosition { return e.Positions }, add)
	}
	var list []breezyPosition
	return decodePage("breezy", body, "", &list, func(l *[]breezyPosition) *[]breezyPosition { return l }, add)
}

// breezyBase returns "https://{tenant}.breezy.hr/p/" for a list URL, or "" when the URL names
// no tenant.
func breezyBase(pageURL string) string {
	u := parseAbs(pageURL)
	if u == nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if t, ok := strings.CutSuffix(host, ".breezy.hr"); ok && t != "" && !strings.Contains(t, ".") {
		return "https://" + host + "/p/"
	}
	if t := simTenant(u.Path, "/breezy/"); t != "" {
		return "https://" + t + ".breezy.hr/p/"
	}
	return ""
}

// currencySigns maps the currency signs Breezy (and pay text generally) writes before or after
// an amount to ISO 4217 codes, longest first so "CA$" wins over "$". A sign several currencies
// share ("kr", "R") is not listed: its pay has no currency.
var currencySigns = []struct{ sign, code string }{
	{"US$", "USD"}, {"CA$", "CAD"}, {"AU$", "AUD"}, {"NZ$", "NZD"}, {"HK$", "HKD"}, {"MX$", "MXN"},
	{"R$", "BRL"}, {"S$", "SGD"}, {"C$", "CAD"}, {"A$", "AUD"}, {"E£", "EGP"}, {"Kč", "CZK"},
	{"zł", "PLN"}, {"RM", "MYR"}, {"Rp", "IDR"},
	{"$", "USD"}, {"€", "EUR"}, {"£", "GBP"}, {"¥", "JPY"}, {"₹", "INR"}, {"₩", "KRW"}, {"₪", "ILS"},
	{"₱", "PHP"}, {"₺", "TRY"}, {"₦", "NGN"}, {"₫", "VND"}, {"฿", "THB"},
}

// breezySalary reads Breezy's rendered pay ("$170,000 – $300,000 / year"): the unit after the
// last '/', the currency from a three-letter code or a sign, and the first two amounts (one
// amount is both bounds' minimum). It returns nil when there is no amount or no unit.
func breezySalary(s string) *Salary {
	amounts, unit, found := cutLast(s, "/")
	if !found || strings.TrimSpace(amounts) == "" {
		return nil
	}
	currency := ""
	for _, w := range strings.FieldsFunc(amounts, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) == 3 && w == strings.ToUpper(w) && isASCIIUpper(w) {
			currency = w
			break
		}
	}
	if currency == "" {
		for _, cs := range currencySigns {
			if strings.Contains(amounts, cs.sign) {
				currency = cs.code
				break
			}
		}
	}
	nums := payAmounts(amounts, 2)
	if len(nums) == 0 {
		return nil
	}
	lo, hi := nums[0], flexNum{}
	if len(nums) > 1 {
		hi = nums[1]
	}
	return makeSalary(lo, hi, currency, strings.TrimSpace(unit))
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func isASCIIUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// payAmounts returns up to max amounts written in s: digit runs with ',', '.' or space (also
// no-break and narrow no-break space) thousands separators and an optional decimal part, "k"
// after a number multiplying it by 1,000.
func payAmounts(s string, max int) []flexNum {
	var out []flexNum
	for i := 0; i < len(s) && len(out) < max; {
		c := s[i]
		if c < '0' || c > '9' {
			i++
			continue
		}
		var tok strings.Builder
		j := i
		for j < len(s) {
			switch {
			case s[j] >= '0' && s[j] <= '9', s[j] == ',', s[j] == '.':
				tok.WriteByte(s[j])
				j++
				continue
			}
			if w := spaceWidth(s[j:]); w > 0 && threeDigits(s[j+w:]) {
				j += w
				continue
			}
			break
		}
		v, ok := parseAmount(strings.TrimRight(tok.String(), ",."))
		if ok && j < len(s) && (s[j] == 'k' || s[j] == 'K') {
			if r, _ := utf8.DecodeRuneInString(s[j+1:]); j+1 == len(s) || !unicode.IsLetter(r) {
				v *= 1000
			}
		}
		if ok && !math.IsInf(v, 0) {
			out = append(out, flexNum{V: v, OK: true})
		}
		i = j
	}
	return out
}

// spaceWidth is the length of the space (ASCII, no-break or narrow no-break) s starts with, or 0.
func spaceWidth(s string) int {
	switch {
	case strings.HasPrefix(s, " "):
		return 1
	case strings.HasPrefix(s, "\u00a0"):
		return len("\u00a0")
	case strings.HasPrefix(s, "\u202f"):
		return len("\u202f")
	}
	return 0
}

// threeDigits reports whether s starts with exactly three digits (a thousands group).
func threeDigits(s string) bool {
	return len(s) >= 3 && allDigits(s[:3]) && (len(s) == 3 || s[3] < '0' || s[3] > '9')
}

// parseAmount reads "170,000", "170,000.50", "50.000" (dots as thousands: groups of three),
// "50.000,50", "12,50" (a decimal comma) and "40.5".
func parseAmount(tok string) (float64, bool) {
	if tok == "" {
		return 0, false
	}
	dots, commas := strings.Count(tok, "."), strings.Count(tok, ",")
	switch {
	case dots >= 1 && commas == 0 && dotThousands(tok):
		tok = strings.ReplaceAll(tok, ".", "")
	case dots >= 1 && commas >= 1 && strings.LastIndexByte(tok, ',') > strings.LastIndexByte(tok, '.'):
		tok = strings.ReplaceAll(tok, ".", "")
		tok = strings.Replace(tok, ",", ".", 1)
	case dots == 0 && commas == 1 && len(tok)-strings.IndexByte(tok, ',') <= 3:
		tok = strings.Replace(tok, ",", ".", 1)
	}
	return parseNumber(tok)
}

// dotThousands reports whether tok is digits grouped by dots in threes ("50.000", "1.250.000").
func dotThousands(tok string) bool {
	parts := strings.Split(tok, ".")
	if len(parts) < 2 || len(parts[0]) == 0 || len(parts[0]) > 3 {
		return false
	}
	for _, p := range parts[1:] {
		if len(p) != 3 {
			return false
		}
	}
	return true
}
