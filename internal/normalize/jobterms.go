package normalize

// A posting's terms: the vocabularies of employment type and workplace type, and the readings of
// the words feeds state them (and a seniority level) in. A feed's structured field is read here
// (pipeline/ats), a posting's own text in internal/jobtext; both give these values.
//
// A feed value is read by its letters and digits only, case folded ("Full-time", "FULL_TIME",
// "FullTime" and "full time" are one key), and a value no table knows is "": nothing is guessed
// from a word the table does not list.

// Employment types.
const (
	FullTime   = "full_time"
	PartTime   = "part_time"
	Contract   = "contract"
	Temporary  = "temporary"
	Internship = "internship"
)

// EmploymentTypes is the employment type vocabulary, in the order the API lists it.
var EmploymentTypes = []string{FullTime, PartTime, Contract, Temporary, Internship}

// Workplace types.
const (
	Onsite = "onsite"
	Hybrid = "hybrid"
	Remote = "remote"
)

// WorkplaceTypes is the workplace type vocabulary, in the order the API lists it.
var WorkplaceTypes = []string{Onsite, Hybrid, Remote}

// RemoteRegions are the wider areas a remote role may be open to ("Remote - EMEA", "remote
// within Europe"), as stored and served beside its countries; internal/jobtext reads them.
var RemoteRegions = []string{"worldwide", "europe", "emea", "americas", "north_america", "latam", "apac"}

// employmentWords maps a folded feed value to its employment type. "permanent" without hours is
// full_time, as internal/jobtext reads "permanent contract"; a fixed-term value is temporary
// whatever its hours; a working student is part_time; an apprenticeship or traineeship is an
// internship. JOIN's "Employee" is its permanent contract ("Festanstellung"), with part-time,
// working student, mini-job, freelancer, internship and temporary as types of their own, so it
// reads as full_time as "permanent" does. Values that state none of them ("other",
// "volunteer", "per diem") are absent.
var employmentWords = map[string]string{
	"fulltime": FullTime, "fulltimepermanent": FullTime, "permanentfulltime": FullTime, "fulltimeemployee": FullTime,
	"fulltimeregular": FullTime, "regularfulltime": FullTime, "permanent": FullTime, "permanentemployee": FullTime, "employee": FullTime,
	"vollzeit": FullTime, "tempsplein": FullTime, "cdi": FullTime, "ft": FullTime,
	"parttime": PartTime, "parttimepermanent": PartTime, "permanentparttime": PartTime, "parttimeemployee": PartTime,
	"workingstudent": PartTime, "werkstudent": PartTime, "minijob": PartTime, "teilzeit": PartTime, "tempspartiel": PartTime,
	"pt":       PartTime,
	"contract": Contract, "contractor": Contract, "contracttohire": Contract, "freelance": Contract, "freelancer": Contract,
	"contractual": Contract, "independentcontractor": Contract, "fixedcontract": Contract,
	"temporary": Temporary, "temp": Temporary, "fixedterm": Temporary, "seasonal": Temporary, "fulltimefixedterm": Temporary,
	"parttimefixedterm": Temporary, "fixedtermfulltime": Temporary, "fixedtermparttime": Temporary, "temporaryfulltime": Temporary,
	"temporaryparttime": Temporary, "befristet": Temporary, "cdd": Temporary,
	"intern": Internship, "internship": Internship, "trainee": Internship, "traineeship": Internship,
	"apprentice": Internship, "apprenticeship": Internship, "praktikum": Internship, "stage": Internship,
	"ausbildung": Internship,
}

// workplaceTerms maps a folded feed value to its workplace type.
var workplaceTerms = map[string]string{
	"onsite": Onsite, "office": Onsite, "inoffice": Onsite, "officebased": Onsite, "inperson": Onsite, "onpremise": Onsite,
	"onlocation": Onsite,
	"hybrid":     Hybrid, "hybridremote": Hybrid, "partiallyremote": Hybrid, "partlyremote": Hybrid, "partialremote": Hybrid,
	"remote": Remote, "fullyremote": Remote, "fullremote": Remote, "100remote": Remote, "remoteonly": Remote,
	"telecommute": Remote, "remotefirst": Remote, "workfromhome": Remote, "wfh": Remote,
}

// levelWords maps a folded seniority level as feeds state it (LinkedIn's levels, which
// SmartRecruiters and Workable use; Personio's) to a seniority. A level that spans several
// ("Mid-Senior level") or says only "not a beginner" (Personio's "experienced") is absent.
var levelWords = map[string]string{
	"internship": "intern", "intern": "intern", "student": "intern",
	"entrylevel": "junior", "entry": "junior", "graduate": "junior", "junior": "junior", "associate": "junior",
	"midlevel": "mid", "mid": "mid", "intermediate": "mid",
	"senior": "senior", "seniorlevel": "senior",
	"lead": "lead", "manager": "manager", "director": "director",
	"vp": "vp", "vicepresident": "vp",
	"executive": "executive", "cxo": "executive",
}

// EmploymentTypeOf is the employment type a feed's value states ("Full-time", "FULL_TIME",
// "FullTime", "fulltime_permanent", "Contractor", "Intern"), "" when it states none.
func EmploymentTypeOf(v string) string { return employmentWords[termKey(v)] }

// WorkplaceTypeOf is the workplace type a feed's value states ("OnSite", "ON_SITE", "on-site",
// "Hybrid", "Remote", "Fully Remote", "TELECOMMUTE"), "" when it states none.
func WorkplaceTypeOf(v string) string { return workplaceTerms[termKey(v)] }

// SeniorityOfLevel is the seniority a feed's experience level states ("Entry level",
// "entry_level", "Director", "internship"), "" when it states none or several.
func SeniorityOfLevel(v string) string { return levelWords[termKey(v)] }

// termKey folds a feed value to its lower-case ASCII letters and digits; "" for a value longer
// than any the tables hold (a description sent in the wrong field is no term).
func termKey(v string) string {
	if len(v) > 64 {
		return ""
	}
	var buf [64]byte
	n := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			buf[n] = c
			n++
		case c >= 'A' && c <= 'Z':
			buf[n] = c + 'a' - 'A'
			n++
		}
	}
	return string(buf[:n])
}
