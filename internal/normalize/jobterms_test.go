package normalize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEmploymentTypeOfFeedValues(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{
		"Full-time": FullTime, "FULL_TIME": FullTime, "FullTime": FullTime, "fulltime_permanent": FullTime, "full_time": FullTime,
		"permanent_full_time": FullTime, "Full Time": FullTime, "permanent": FullTime,
		"Part-Time": PartTime, "PART_TIME": PartTime, "partTime": PartTime, "working_student": PartTime,
		"Contract": Contract, "CONTRACTOR": Contract, "Freelance": Contract,
		"Temporary": Temporary, "TEMPORARY": Temporary, "fulltime_fixed_term": Temporary,
		"Intern": Internship, "INTERN": Internship, "internship": Internship, "trainee": Internship,
		"Employee": FullTime, "Working Student": PartTime, "Mini-job": PartTime, "Freelancer": Contract, "OTHER": "", "VOLUNTEER": "", "": "", "full-time or part-time": "",
	} {
		require.Equal(t, want, EmploymentTypeOf(v), v)
	}
}

func TestWorkplaceTypeOfFeedValues(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{
		"OnSite": Onsite, "ON_SITE": Onsite, "on-site": Onsite, "ONSITE": Onsite, "onsite": Onsite,
		"Hybrid": Hybrid, "HYBRID": Hybrid, "Remote": Remote, "REMOTE": Remote, "Fully Remote": Remote, "TELECOMMUTE": Remote,
		"unspecified": "", "Flexible": "", "": "",
	} {
		require.Equal(t, want, WorkplaceTypeOf(v), v)
	}
}

func TestSeniorityOfLevelFeedValues(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{
		"Entry level": "junior", "entry_level": "junior", "entry-level": "junior", "internship": "intern", "student": "intern",
		"Associate": "junior", "Director": "director", "executive": "executive",
		"Mid-Senior level": "", "mid_senior_level": "", "experienced": "", "Not Applicable": "", "": "",
	} {
		got := SeniorityOfLevel(v)
		require.Equal(t, want, got, v)
		if got != "" {
			require.GreaterOrEqual(t, SeniorityRank(got), 0, "%s is in Seniorities", got)
		}
	}
}

func TestTermVocabulariesAreClosed(t *testing.T) {
	t.Parallel()
	for k, v := range employmentWords {
		require.Contains(t, EmploymentTypes, v, k)
		require.Equal(t, k, termKey(k), "a table key is folded")
	}
	for k, v := range workplaceTerms {
		require.Contains(t, WorkplaceTypes, v, k)
		require.Equal(t, k, termKey(k), "a table key is folded")
	}
	for k, v := range levelWords {
		require.GreaterOrEqual(t, SeniorityRank(v), 0, k)
		require.Equal(t, k, termKey(k), "a table key is folded")
	}
}
