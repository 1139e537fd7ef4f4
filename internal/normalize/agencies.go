package normalize

import "strings"

// Agency classification, for exclude_agencies. Used only when the source
// registry does not already classify a company.

// Agency kinds returned by AgencyKind ("" is an employer, or unknown).
const (
	AgencyStaffing   = "staffing_agency"
	AgencyJobBoard   = "job_board"
	AgencyAggregator = "aggregator"
)

// knownAgencies maps company keys (CompanyKey) of well-known staffing firms,
// job boards and aggregators to their kind.
var knownAgencies = map[string]string{
	// Aggregators (meta-search over other boards).
	"indeed": AgencyAggregator, "jooble": AgencyAggregator, "adzuna": AgencyAggregator,
	"talent com": AgencyAggregator, "jobrapido": AgencyAggregator, "simplyhired": AgencyAggregator,
	"simply hired": AgencyAggregator, "careerjet": AgencyAggregator, "jora": AgencyAggregator,
	"lensa": AgencyAggregator, "jobsora": AgencyAggregator, "neuvoo": AgencyAggregator,
	"whatjobs": AgencyAggregator, "trovit": AgencyAggregator, "mitula": AgencyAggregator,
	"jobisjob": AgencyAggregator, "jobted": AgencyAggregator, "jobleads": AgencyAggregator,
	"kimeta": AgencyAggregator, "joblift": AgencyAggregator,
	// Job boards.
	"glassdoor": AgencyJobBoard, "monster": AgencyJobBoard, "careerbuilder": AgencyJobBoard,
	"stepstone": AgencyJobBoard, "reed": AgencyJobBoard,
	"totaljobs": AgencyJobBoard, "seek": AgencyJobBoard, "naukri": AgencyJobBoard,
	"ziprecruiter": AgencyJobBoard, "welcome to the jungle": AgencyJobBoard, "wellfound": AgencyJobBoard,
	"otta": AgencyJobBoard, "built in": AgencyJobBoard, "builtin": AgencyJobBoard, "hired": AgencyJobBoard,
	"we work remotely": AgencyJobBoard, "weworkremotely": AgencyJobBoard, "remote ok": AgencyJobBoard,
	"remoteok": AgencyJobBoard, "remotive": AgencyJobBoard, "arbeitnow": AgencyJobBoard,
	"infojobs": AgencyJobBoard, "jobindex": AgencyJobBoard, "xing": AgencyJobBoard,
	"cwjobs": AgencyJobBoard, "efinancialcareers": AgencyJobBoard, "idealist": AgencyJobBoard,
	// Staffing and executive-search firms.
	"randstad": AgencyStaffing, "adecco": AgencyStaffing, "adecco group": AgencyStaffing,
	"manpower": AgencyStaffing, "manpowergroup": AgencyStaffing, "hays": AgencyStaffing,
	"robert half": AgencyStaffing, "kelly services": AgencyStaffing, "allegis group": AgencyStaffing,
	"teksystems": AgencyStaffing, "aerotek": AgencyStaffing, "michael page": AgencyStaffing,
	"pagegroup": AgencyStaffing, "page group": AgencyStaffing, "page personnel": AgencyStaffing,
	"robert walters": AgencyStaffing, "kforce": AgencyStaffing, "insight global": AgencyStaffing,
	"harvey nash": AgencyStaffing, "spherion": AgencyStaffing, "express employment professionals": AgencyStaffing,
	"modis": AgencyStaffing, "akkodis": AgencyStaffing, "experis": AgencyStaffing, "gi group": AgencyStaffing,
	"synergie": AgencyStaffing, "heidrick and struggles": AgencyStaffing, "spencer stuart": AgencyStaffing,
	"egon zehnder": AgencyStaffing, "russell reynolds associates": AgencyStaffing, "korn ferry": AgencyStaffing,
	"cybercoders": AgencyStaffing, "jobot": AgencyStaffing, "apex systems": AgencyStaffing,
	"tempo team": AgencyStaffing, "start people": AgencyStaffing,
}

// Industry phrases (folded) that classify a company on their own.
var staffingIndustries = []string{
	"staffing", "recruiting", "recruitment", "executive search", "employment agencies",
	"employment services", "employment placement", "temporary help", "temp agency", "headhunting",
	"personnel services", "human resources services and staffing",
}

var jobBoardIndustries = []string{"job board", "job boards", "employment websites", "online job", "job search"}

// Publishing industries that make a company a job board when its name also
// has a jobs word.
var publishingIndustries = []string{"internet publishing", "online media", "internet", "publishing", "online audio and video media"}

// Name words (folded tokens) of each kind.
var staffingNameWords = map[string]bool{
	"recruitment": true, "recruiting": true, "recruiters": true, "staffing": true, "personnel": true,
	"headhunters": true, "headhunting": true, "manpower": true, "resourcing": true, "temps": true,
	"personaldienstleistungen": true, "personalvermittlung": true, "zeitarbeit": true, "interim": true,
}

var staffingNamePhrases = []string{
	"talent partners", "talent solutions", "search partners", "executive search", "employment agency",
	"workforce solutions", "recruitment agency", "staffing agency", "staffing group", "search group",
}

// jobBoardNameWords make a name a job board on their own; weakJobBoardNameWords
// only together with a publishing industry.
var jobBoardNameWords = map[string]bool{
	"jobs": true, "jobboard": true, "jobborse": true, "stellenmarkt": true, "stellenangebote": true,
	"vacancies": true, "jobbank": true, "jobsite": true,
}

var weakJobBoardNameWords = map[string]bool{"careers": true, "career": true, "hire": true, "hiring": true, "talent": true}

var aggregatorNameWords = map[string]bool{"aggregator": true, "jobsearch": true}

// AgencyKind classifies a company as "staffing_agency", "job_board" or
// "aggregator" from its name and industry, or returns "" (an employer, or not
// determinable). Rules, in order: a well-known agency, board or aggregator
// name; a staffing or job-board industry ("Staffing and Recruiting"); an
// aggregator word in the name; a staffing word or phrase in the name
// ("Recruitment", "Staffing", "Personnel", "Talent Partners"); a jobs word in
// the name ("Jobs", "Vacancies", or a word starting or ending with
// "jobs"/"careers" such as "JobsNorth"); a weaker one ("Careers", "Hire",
// "Talent") when the industry is internet publishing or online media.
func AgencyKind(name, industry string) string {
	key := CompanyKey(name)
	if k, ok := knownAgencies[key]; ok {
		return k
	}
	ind := " " + foldKey(industry) + " "
	if hasAnyPhrase(ind, staffingIndustries) {
		return AgencyStaffing
	}
	if hasAnyPhrase(ind, jobBoardIndustries) {
		return AgencyJobBoard
	}
	padded := " " + key + " "
	words := strings.Fields(key)
	for _, w := range words {
		if aggregatorNameWords[w] {
			return AgencyAggregator
		}
	}
	if hasAnyPhrase(padded, staffingNamePhrases) {
		return AgencyStaffing
	}
	for _, w := range words {
		if staffingNameWords[w] {
			return AgencyStaffing
		}
	}
	publishing := hasAnyPhrase(ind, publishingIndustries)
	for _, w := range words {
		if jobBoardNameWords[w] || isJobsCompound(w) || publishing && weakJobBoardNameWords[w] {
			return AgencyJobBoard
		}
	}
	return ""
}

// hasAnyPhrase reports whether the space-padded text contains one of the
// phrases as whole words.
func hasAnyPhrase(padded string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(padded, " "+p+" ") {
			return true
		}
	}
	return false
}

// isJobsCompound reports whether w is a single-word board name built on
// "jobs" or "careers" ("jobsnorth", "remotejobs", "techcareers").
func isJobsCompound(w string) bool {
	for _, x := range [...]string{"jobs", "careers"} {
		if len(w) > len(x)+2 && (strings.HasPrefix(w, x) || strings.HasSuffix(w, x)) {
			return true
		}
	}
	return false
}

// ServedAgencyKind is the agency_kind the API serves and the criteria filter matches for a
// company of the directory's kind and name: "employer" for a named company classified as none of
// the agency kinds, "" (null, matching no filter value) when unclassified ("unknown", or no name
// to classify), else the kind. Enrichment and company.agency_kind both use it, so a value
// enrichment shows is one the filter accepts.
func ServedAgencyKind(kind, name string) string {
	switch {
	case kind == "unknown":
		return ""
	case kind == "" && name != "":
		return "employer"
	}
	return kind
}
