package normalize

import "strings"

// Crawl regions: the 7 partitions the corpus is re-read in. A company's region follows its
// headquarters' country; a multi-employer feed carries the region it serves.
const (
	RegionNA    = "na"
	RegionLatam = "latam"
	RegionUKI   = "uki"
	RegionDACH  = "dach"
	RegionEU    = "eu"
	RegionAPAC  = "apac"
	RegionMEA   = "mea"
)

// Regions lists the crawl regions in contract order.
func Regions() []string {
	return []string{RegionNA, RegionLatam, RegionUKI, RegionDACH, RegionEU, RegionAPAC, RegionMEA}
}

// ValidRegion reports whether r is a crawl region.
func ValidRegion(r string) bool {
	for _, x := range Regions() {
		if x == r {
			return true
		}
	}
	return false
}

// regionMembers lists the ISO 3166-1 alpha-2 codes of each region; every country of the table
// is in exactly one (a test checks it). Europe outside the UK, Ireland and DACH is eu; the
// Caribbean and Central and South America are latam; Asia, Central Asia and Oceania are apac;
// the Middle East, Turkey and Africa are mea.
var regionMembers = map[string]string{
	RegionNA:    "US CA BM PM UM GL",
	RegionLatam: "MX BZ CR SV GT HN NI PA AG AI AW BB BL BQ BS CU CW DM DO GD GP HT JM KN KY LC MF MQ MS PR SX TC TT VC VG VI AR BO BR CL CO EC FK GF GY PE PY SR UY VE GS",
	RegionUKI:   "GB IE IM JE GG",
	RegionDACH:  "DE AT CH LI",
	RegionEU: "AD AL AX BA BE BG BY CY CZ DK EE ES FI FO FR GI GR HR HU IS IT LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA " +
		"AM AZ GE",
	RegionAPAC: "CN HK MO TW JP KR KP MN BN KH ID LA MY MM PH SG TH TL VN AF BD BT IN MV NP PK LK KZ KG TJ TM UZ " +
		"AU NZ FJ PG SB VU NC PF WS TO TV KI NR PW FM MH CK NU TK WF PN NF CX CC HM AS GU MP IO AQ BV TF",
	RegionMEA: "AE BH IQ IR IL JO KW LB OM PS QA SA SY YE TR DZ AO BJ BW BF BI CV CM CF TD KM CG CD CI DJ EG GQ ER SZ ET GA GM GH GN GW KE LS LR LY " +
		"MG MW ML MR MU MA MZ NA NE NG RW ST SN SC SL SO ZA SS SD TZ TG TN UG ZM ZW EH RE YT SH",
}

// regionByAlpha2 is built from regionMembers once, at package init.
var regionByAlpha2 = func() map[string]string {
	m := make(map[string]string, len(countryTable))
	for region, codes := range regionMembers {
		for _, c := range strings.Fields(codes) {
			m[c] = region
		}
	}
	return m
}()

// RegionOf is the crawl region of a country given as an ISO 3166-1 alpha-2 or alpha-3 code or
// a name CountryName reads ("Germany", "UK", "Deutschland"); "" when it names no country.
func RegionOf(country string) string {
	row, ok := lookupCountry(country)
	if !ok {
		return ""
	}
	return regionByAlpha2[row.alpha2]
}
