package sim

// Syllables for company core names. A core name is 2-3 syllables (capitalised) and never
// repeats within a world, so two companies never share a name once legal suffixes are dropped.
var nameSyllables = []string{
	"ac", "al", "am", "an", "ar", "as", "av", "ax", "bel", "ber", "bri", "bro", "cal", "car", "cel",
	"cor", "cra", "dal", "dar", "del", "dex", "dor", "dra", "el", "em", "en", "er", "ev", "fal", "fen",
	"fer", "fin", "flo", "for", "gal", "gar", "gen", "glo", "gra", "hal", "har", "hel", "hol", "in",
	"ion", "jar", "jo", "kai", "kel", "ken", "kes", "kin", "kor", "lan", "lar", "lex", "lin", "lo",
	"lu", "lyn", "mar", "mel", "mer", "mi", "mo", "mon", "nal", "nav", "nex", "no", "nor", "nov",
	"nu", "ob", "ol", "om", "on", "or", "os", "pal", "par", "pel", "per", "pix", "pol", "pra", "qua",
	"ra", "ral", "ran", "rel", "ren", "rex", "ri", "ro", "ros", "ru", "sal", "san", "sel", "ser",
	"sil", "sol", "sor", "sta", "sur", "syn", "tal", "tan", "tar", "tel", "ter", "tex", "thal", "tor",
	"tra", "tri", "ul", "um", "un", "ur", "val", "van", "vel", "ven", "ver", "vex", "vi", "vol",
	"vor", "wen", "wil", "win", "xa", "yar", "yel", "zan", "zel", "zen", "zor",
}

// Endings make cores read like brands ("Brightwell", "Novalink").
var nameEndings = []string{
	"", "", "", "", "", "a", "ia", "io", "is", "ix", "on", "um", "us", "ex", "link", "well", "wave",
	"ware", "works", "ly", "era", "ora", "eon", "ium", "ant", "ent", "ity", "gate", "point", "stone",
}

// Descriptor words some brands carry as part of their name (never legal suffixes).
var nameDescriptors = []string{
	"Systems", "Analytics", "Robotics", "Labs", "Health", "Logistics", "Media", "Energy", "Foods",
	"Studios", "Networks", "Mobility", "Bio", "Software", "Payments", "Security", "Learning", "Cloud",
}

var industries = []string{
	"Software", "Financial Services", "Healthcare", "Retail", "Manufacturing", "Staffing and Recruiting",
	"Internet Publishing", "Education", "Logistics and Supply Chain", "Telecommunications",
	"Media and Entertainment", "Energy", "Biotechnology", "Consumer Goods", "Real Estate",
	"Hospitality", "Automotive", "Insurance", "Professional Services", "Government Administration",
}

var industryWeights = []float64{
	0.26, 0.10, 0.08, 0.06, 0.07, 0.0, 0.0, 0.04, 0.04, 0.03,
	0.04, 0.03, 0.03, 0.04, 0.03, 0.03, 0.03, 0.03, 0.05, 0.01,
}

const (
	indStaffing = 5
	indInternet = 6
)

// Headcount bands: the ladder, its share of companies, and the mean live reqs of a company.
var bandNames = [...]string{"1-10", "11-50", "51-200", "201-500", "501-1000", "1001-5000", "5001+", ""}
var bandWeights = []float64{0.15, 0.25, 0.25, 0.12, 0.08, 0.07, 0.03, 0.05}
var bandLiveReqs = [...]float64{3, 6, 9, 13, 18, 24, 34, 9}

// Agency kinds.
var agencyKinds = [...]string{"", "staffing_agency", "job_board", "unknown"}
var agencyWeights = []float64{0.955, 0.03, 0.01, 0.005}

// Vendors.
const (
	vNone = iota
	vGreenhouse
	vLever
	vAshby
	vWorkable
	vSmartRecruiters
	vRecruitee
	vPersonio
	vTeamtailor
	vBambooHR
	vBreezy
	vPinpoint
	vJoin
	vWorkday
	vICIMS
	vJobvite
	vJazzHR
	vRippling
	vJSONLD
	vAggregator
	numVendors
)

var vendorNames = [numVendors]string{"", "greenhouse", "lever", "ashby", "workable", "smartrecruiters", "recruitee", "personio",
	"teamtailor", "bamboohr", "breezy", "pinpoint", "join",
	"workday", "icims", "jobvite", "jazzhr", "rippling",
	"jsonld", "aggregator"}

// lastATS is the last ATS vendor: vGreenhouse..lastATS are the vendors a company's tenant is on.
const lastATS = vJSONLD - 1

// atsVendorWeights per region (index vGreenhouse..lastATS, one column per vendor in constant
// order): the first seven vendors keep most of every region. Teamtailor, BambooHR, Breezy,
// Pinpoint and JOIN take a modest share where they sell (Teamtailor in the Nordics and the EU,
// BambooHR and Breezy among North American SMBs, Pinpoint in the UK, JOIN in the DACH region);
// Workday, iCIMS and Jobvite are enterprise ATSs heaviest in North America, JazzHR a
// small-business one there, Rippling North American too.
var atsVendorWeights = [numRegions][]float64{
	//        gh    lever ashby wkbl  smartr recrt pers | ttailor bamboo breezy pinpt join | wday icims jbvt jazz rippl
	regNA:    {0.30, 0.20, 0.16, 0.12, 0.14, 0.04, 0.04, 0.010, 0.050, 0.040, 0.015, 0.005, 0.07, 0.05, 0.03, 0.03, 0.05},
	regLatam: {0.18, 0.16, 0.08, 0.20, 0.22, 0.08, 0.08, 0.010, 0.030, 0.030, 0.005, 0.010, 0.03, 0.02, 0.01, 0.01, 0.02},
	regUKI:   {0.22, 0.16, 0.14, 0.16, 0.12, 0.12, 0.08, 0.050, 0.020, 0.020, 0.080, 0.010, 0.04, 0.02, 0.02, 0.01, 0.03},
	regDACH:  {0.12, 0.08, 0.08, 0.10, 0.14, 0.14, 0.34, 0.040, 0.010, 0.010, 0.010, 0.100, 0.03, 0.01, 0.01, 0.01, 0.01},
	regEU:    {0.14, 0.10, 0.10, 0.16, 0.14, 0.22, 0.14, 0.080, 0.020, 0.020, 0.020, 0.050, 0.03, 0.01, 0.01, 0.01, 0.02},
	regAPAC:  {0.22, 0.16, 0.12, 0.16, 0.22, 0.06, 0.06, 0.020, 0.030, 0.020, 0.020, 0.005, 0.04, 0.02, 0.01, 0.01, 0.02},
	regMEA:   {0.16, 0.12, 0.08, 0.24, 0.24, 0.08, 0.08, 0.030, 0.020, 0.030, 0.010, 0.010, 0.03, 0.02, 0.01, 0.01, 0.01},
}

// atsWeights appends to dst the ATS vendor weights of a company of region and headcount band:
// the region's, with the enterprise ATSs (Workday, iCIMS, and Jobvite less so) weighed up for
// employers of 501 or more and down for those of 50 or fewer, and JazzHR, a small-business ATS,
// the other way round.
func atsWeights(dst []float64, region, band uint8) []float64 {
	dst = append(dst, atsVendorWeights[region]...)
	at := func(v uint8) *float64 { return &dst[v-vGreenhouse] }
	switch {
	case band >= 4 && band <= 6: // 501-1000, 1001-5000, 5001+
		*at(vWorkday) *= 4
		*at(vICIMS) *= 4
		*at(vJobvite) *= 2
		*at(vJazzHR) *= 0.1
	case band <= 1: // 1-10, 11-50
		*at(vWorkday) *= 0.1
		*at(vICIMS) *= 0.1
		*at(vJobvite) *= 0.5
		*at(vJazzHR) *= 3
	}
	return dst
}

// boardDef is one JSON-LD job board.
type boardDef struct {
	name    string // board field of the directory (and path segment of the simulator's own paths)
	display string // name shown on the page and in identifiers
	prefix  string // posting id prefix
	host    string // the board's host: its pages in host mode, its posting URLs, its source key
	region  int
	// pages: a board of job pages (one JobPosting per page, no identifier, @id or url: the page
	// is the posting) instead of list pages; see jobpages.go.
	pages bool
}

var boardDefs = []boardDef{
	{"jobsnorth", "JobsNorth", "jn", "www.jobsnorth.example", regNA, false},
	{"careerharbor", "CareerHarbor", "ch", "careerharbor.example", regNA, false},
	{"empleosur", "EmpleoSur", "es", "www.empleosur.example", regLatam, false},
	{"vagaspro", "VagasPro", "vp", "vagaspro.example", regLatam, false},
	{"britjobs", "BritJobs", "bj", "www.britjobs.example", regUKI, false},
	{"thamesworks", "ThamesWorks", "tw", "thamesworks.example", regUKI, false},
	{"stellenwelt", "Stellenwelt", "sw", "www.stellenwelt.example", regDACH, false},
	{"jobalpin", "JobAlpin", "ja", "jobalpin.example", regDACH, false},
	{"eurotalent", "EuroTalent", "et", "www.eurotalent.example", regEU, false},
	{"werkhub", "WerkHub", "wh", "werkhub.example", regEU, false},
	{"pacifichire", "PacificHire", "ph", "www.pacifichire.example", regAPAC, false},
	{"asiacareers", "AsiaCareers", "ac", "asiacareers.example", regAPAC, false},
	{"gulfroles", "GulfRoles", "gr", "www.gulfroles.example", regMEA, false},
	{"savannajobs", "SavannaJobs", "sj", "savannajobs.example", regMEA, false},
	{"hirelane", "HireLane", "hl", "www.hirelane.example", regNA, true},
	{"trabajored", "TrabajoRed", "tr", "www.trabajored.example", regLatam, true},
	{"joblink", "JobLink", "jl", "uk.joblink.example", regUKI, true},
	{"stellenblick", "Stellenblick", "sb", "de.stellenblick.example", regDACH, true},
	{"vacanteo", "Vacanteo", "vc", "www.vacanteo.example", regEU, true},
	{"jobharbour", "JobHarbour", "jh", "www.jobharbour.example", regAPAC, true},
	{"wazifa", "Wazifa", "wz", "www.wazifa.example", regMEA, true},
}

// aggregatorName is the aggregator's board name (one feed per region); aggregatorDisplay its
// display name; aggregatorHost the host of its posting pages.
const (
	aggregatorName    = "jobmesh"
	aggregatorDisplay = "JobMesh"
	aggregatorHost    = "www.jobmesh.example"
)

// AggregatorFeedHost is the host serving the aggregator's feeds in host mode:
// https://feed.jobmesh.example/v1/feed?region={region}.
const AggregatorFeedHost = "feed.jobmesh.example"

// Gender tags appended to board titles.
var genderTags = []string{" (m/w/d)", " (m/f/d)", " (f/m/x)", " (all genders)"}
