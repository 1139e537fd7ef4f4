package normalize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAgencyKind(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, industry, want string }{
		// industry decides
		{"Acme", "Staffing and Recruiting", AgencyStaffing},
		{"Acme", "staffing & recruiting", AgencyStaffing},
		{"Acme", "Executive Search", AgencyStaffing},
		{"Acme", "Job Boards", AgencyJobBoard},
		// well-known names
		{"Randstad N.V.", "", AgencyStaffing},
		{"Robert Half", "Human Resources", AgencyStaffing},
		{"Indeed", "Internet", AgencyAggregator},
		{"Adzuna Ltd", "", AgencyAggregator},
		{"StepStone GmbH", "", AgencyJobBoard},
		{"Glassdoor, Inc.", "", AgencyJobBoard},
		// name words
		{"Northwind Recruitment Ltd", "", AgencyStaffing},
		{"Blue Staffing Solutions", "", AgencyStaffing},
		{"Apex Talent Partners", "", AgencyStaffing},
		{"Meyer Personnel GmbH", "", AgencyStaffing},
		{"Global Jobs Aggregator", "", AgencyAggregator},
		{"Berlin Startup Jobs", "", AgencyJobBoard},
		{"JobsNorth", "", AgencyJobBoard},
		{"RemoteJobs Inc.", "", AgencyJobBoard},
		{"TechCareers", "", AgencyJobBoard},
		{"Acme Careers", "Internet Publishing", AgencyJobBoard},
		{"Hire Tech", "Online Media", AgencyJobBoard},
		// employers
		{"Acme Careers", "Software", ""},
		{"Acme", "Software", ""},
		{"Acme", "", ""},
		{"Jobvite", "Software", ""},
		{"HireRight", "Background checks", ""},
		{"", "", ""},
	}
	for _, c := range cases {
		require.Equal(t, c.want, AgencyKind(c.name, c.industry), "%q / %q", c.name, c.industry)
	}
	for key := range knownAgencies {
		require.Equal(t, CompanyKey(key), key, "known agency keys are company keys")
	}
}
