package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// terms is what a posting's structured fields state.
type terms struct {
	emp, work, sen string
	years          int // -1: none
}

func termsOf(p Posting) terms {
	t := terms{emp: p.EmploymentType, work: p.WorkplaceType, sen: p.Seniority, years: -1}
	if p.YearsExperienceMin != nil {
		t.years = *p.YearsExperienceMin
	}
	return t
}

// Every captured payload that states a posting's terms in structured fields gives them, in the
// vocabularies of package normalize; a payload that does not leaves them unset.
func TestCapturedPayloadsGiveTheirTerms(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		vendor, file, url string
		want              map[string]terms
	}{
		{"ashby", "ashby_jobs.json", ashbyURL, map[string]terms{
			"0f3c2a8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b": {"full_time", "onsite", "", -1},
			"1a2b3c4d-0000-0000-0000-000000000002": {"", "remote", "", -1},
			"1a2b3c4d-0000-0000-0000-000000000003": {"", "", "", -1}}},
		{"bamboohr", "bamboohr_list.json", bambooURL, map[string]terms{
			"232": {"full_time", "onsite", "", -1}, "245": {"part_time", "remote", "", -1}, "317": {"full_time", "hybrid", "", -1}}},
		{"breezy", "breezy_positions.json", breezyURL, map[string]terms{
			"9aa01a0d81cd": {"part_time", "remote", "", -1}, "60cec77079df": {"contract", "", "", -1}, "12b3ed96c30c": {"internship", "", "", -1}}},
		{"join", "join_jobs_page2.json", joinURL, map[string]terms{
			"9134727": {"part_time", "onsite", "", -1}, "9134728": {"full_time", "onsite", "", -1}}}, // "Employee": JOIN's permanent contract
		{"jsonld", "jsonld_page1.html", ldURL, map[string]terms{
			"jn-88123": {"full_time", "", "", -1}, "88125": {"", "remote", "", -1}}},
		{"lever", "lever_postings.json", leverURL, map[string]terms{
			"5ac2b1e0-6f0e-4c1d-9a52-2f1f3c7d9e01": {"full_time", "hybrid", "", -1},
			"7d8e9f00-1111-2222-3333-444455556666": {"contract", "remote", "", -1}}},
		{"personio", "personio_positions.xml", personioURL, map[string]terms{
			"1234567": {"full_time", "", "", 3}, "1234568": {"part_time", "", "junior", -1}, "1234569": {"", "", "", -1}}},
		{"pinpoint", "pinpoint_postings.json", pinpointURL, map[string]terms{
			"547660": {"full_time", "hybrid", "", -1}, "547661": {"full_time", "remote", "", -1}}},
		{"recruitee", "recruitee_offers.json", recruiteeURL, map[string]terms{
			"1234567": {"full_time", "hybrid", "", -1}, "1234568": {"", "remote", "", -1}}},
		{"rippling", "rippling_jobs.json", ripplingURL, map[string]terms{
			"7a1b2c3d-0000-4000-8000-000000000002": {"", "remote", "", -1}, "7a1b2c3d-0000-4000-8000-000000000003": {"", "hybrid", "", -1}}},
		{"teamtailor", "teamtailor_jobs.rss", teamtailorURL, map[string]terms{
			"7308188": {"", "hybrid", "", -1}, "8191515": {"", "remote", "", -1}, "8384421": {"", "", "", -1}, // remoteStatus none: the default
			"b3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d": {"", "", "", -1}}}, // remoteStatus temporary
		{"workable", "workable_account.json", workableURL, map[string]terms{
			"9F1A2B3C4D/Germany/Berlin": {"full_time", "", "", -1}, "AB12CD34EF/Portugal/": {"part_time", "remote", "", -1}}},
		{"workday", "workday_jobs.json", workdayURL, map[string]terms{
			"/job/US-TX-Austin/Data-Center-Technician_JR2001234":      {"full_time", "", "", -1}, // bulletFields "Full time"
			"/job/Remote---United-States/Account-Executive_JR2000555": {"", "remote", "", -1}}},  // remoteType Fully Remote
		{"jazzhr", "jazzhr_apply.html", jazzURL, map[string]terms{
			"RHnK3IiNee": {"full_time", "", "", -1}, "evgnhR5LkV": {"", "", "", -1}}}, // the clock entry "Full Time"; none
		{"icims", "icims_search_page1.html", icimsURL, map[string]terms{
			"15550": {"", "", "", -1}}}, // Position Type "Experienced Professional" names no employment type
		{"smartrecruiters", "smartrecruiters_page1.json", "https://api.smartrecruiters.com/v1/companies/acme/postings?limit=100&offset=0", map[string]terms{
			"744000012345678": {"full_time", "remote", "director", -1}, "744000012345679": {"", "", "", -1}}},
	} {
		m := bySourceID(t, mustParse(t, c.vendor, fixture(t, c.file), c.url))
		for id, want := range c.want {
			p, ok := m[id]
			require.True(t, ok, "%s %s", c.vendor, id)
			require.Equal(t, want, termsOf(p), "%s %s", c.vendor, id)
			if p.WorkplaceType == "remote" {
				require.True(t, p.Remote, "%s %s: a remote workplace type is Remote", c.vendor, id)
			}
		}
	}
}

// An iCIMS card's position type is its employment type where the value names one.
func TestICIMSPositionType(t *testing.T) {
	t.Parallel()
	card := func(id, label, value string) string {
		return `<li class="iCIMS_JobCardItem"><div class="row"><div class="col-xs-12 title"><a href="https://careers-acme.icims.com/jobs/` + id +
			`/analyst/job?in_iframe=1"><h3>Analyst</h3></a></div><div class="col-xs-12 additionalFields"><dl class="iCIMS_JobHeaderGroup">` +
			`<div class="iCIMS_JobHeaderTag"><dt class="iCIMS_JobHeaderField">` + label + `</dt><dd class="iCIMS_JobHeaderData"><span>` + value +
			`</span></dd></div></dl></div></div></li>`
	}
	body := `<html><body><h2 class="iCIMS_SubHeader iCIMS_SubHeader_Jobs">Search Results Page 1 of 1</h2><ul class="iCIMS_JobsTable">` +
		card("1", "Position Type", "Regular Full-Time") + card("2", "Employment Type", "Part-Time") + card("3", "Job Type", "Temporary") +
		card("4", "Position Type (Portal Searching)", "Experienced Professional") + card("5", "Category", "Full-Time") + `</ul></body></html>`
	m := bySourceID(t, mustParse(t, "icims", []byte(body), icimsURL))
	for id, want := range map[string]string{"1": "full_time", "2": "part_time", "3": "temporary", "4": "", "5": ""} {
		require.Equal(t, want, m[id].EmploymentType, id)
	}
}

func TestPersonioTerms(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ emp, schedule, want string }{
		{"permanent", "full-time", "full_time"}, {"permanent", "part-time", "part_time"}, {"permanent", "full-or-part-time", ""},
		{"permanent", "", "full_time"}, {"", "part-time", "part_time"}, {"intern", "full-time", "internship"},
		{"freelance", "", "contract"}, {"temporary", "full-time", "temporary"}, {"working_student", "part-time", "part_time"},
		{"trainee", "", "internship"}, {"sometimes", "", ""},
	} {
		require.Equal(t, c.want, personioEmployment(c.emp, c.schedule), "%s/%s", c.emp, c.schedule)
	}
	for v, want := range map[string]int{"lt-1": 0, "1-2": 1, "2-5": 2, "3-5": 3, "5-7": 5, "7+": 7, " 10+ ": 10} {
		got := personioYears(v)
		require.NotNil(t, got, v)
		require.Equal(t, want, *got, v)
	}
	for _, v := range []string{"", "some", "x-5", "5 years", "999"} {
		require.Nil(t, personioYears(v), v)
	}
	for v, want := range map[string]string{"entry-level": "junior", "student": "intern", "experienced": "", "executive": "", " Executive ": "", "": ""} {
		require.Equal(t, want, personioLevel(v), "%q: Personio's bands name one seniority only at their bottom", v)
	}
}

func TestJSONLDTerms(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`"FULL_TIME"`: "full_time", `["PART_TIME"]`: "part_time", `["FULL_TIME","PART_TIME"]`: "", `["OTHER","CONTRACTOR"]`: "contract",
		`"VOLUNTEER"`: "", `null`: "", `{"a":1}`: "", `"INTERN"`: "internship", `["TEMPORARY","TEMPORARY"]`: "temporary",
	} {
		require.Equal(t, want, ldEmployment(rawJSON(raw)), raw)
	}
	for raw, want := range map[string]int{
		`{"@type":"OccupationalExperienceRequirements","monthsOfExperience":36}`: 3,
		`{"monthsOfExperience":"18"}`:                                            1, `[{"monthsOfExperience":60}]`: 5, `{"monthsOfExperience":0}`: 0,
	} {
		got := ldExperienceYears(rawJSON(raw))
		require.NotNil(t, got, raw)
		require.Equal(t, want, *got, raw)
	}
	for _, raw := range []string{`"3 years of Go"`, `{"@type":"OccupationalExperienceRequirements"}`, `{"monthsOfExperience":-4}`, `null`, ``} {
		require.Nil(t, ldExperienceYears(rawJSON(raw)), raw)
	}
}

func TestRipplingMixedWorkplaceStatesNone(t *testing.T) {
	t.Parallel()
	body := `{"items":[{"id":"a","name":"Analyst","url":"https://ats.rippling.com/acme/jobs/a","locations":[
	  {"name":"Berlin","city":"Berlin","countryCode":"DE","workplaceType":"ON_SITE"},
	  {"name":"Remote (DE)","countryCode":"DE","workplaceType":"REMOTE"}]},
	 {"id":"b","name":"Analyst","url":"https://ats.rippling.com/acme/jobs/b","locations":[
	  {"name":"Berlin","city":"Berlin","countryCode":"DE","workplaceType":"HYBRID"},
	  {"name":"Munich","city":"Munich","countryCode":"DE","workplaceType":"HYBRID"}]}]}`
	m := bySourceID(t, mustParse(t, "rippling", []byte(body), ripplingURL))
	require.Empty(t, m["a"].WorkplaceType, "onsite in one place, remote in another: the posting states none")
	require.False(t, m["a"].Remote)
	require.Equal(t, "hybrid", m["b"].WorkplaceType)
	require.Equal(t, "hybrid", m["b#1"].WorkplaceType)
}
