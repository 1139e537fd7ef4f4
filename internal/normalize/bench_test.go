package normalize

import "testing"

// Representative inputs: plain, abbreviated, gender-tagged, location-suffixed.
var benchTitles = []string{
	"Senior Software Engineer",
	"Sr. Backend Eng. (m/w/d) - Berlin",
	"Product Marketing Manager – Remote (US)",
	"Customer Success Manager, London, GB",
	"Data Engineer II",
	"Entwickler*in Frontend (all genders) | Hybrid",
	"Account Executive - New York, NY",
	"VP of Engineering",
}

var benchCompanies = []string{
	"Acme Inc.",
	"Acme Holdings Pte. Ltd.",
	"Northwind GmbH & Co. KG",
	"Contoso",
	"Globex Corporation",
	"Initech Sp. z o.o.",
}

var sink string

func BenchmarkTitleKey(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sink = TitleKey(benchTitles[i%len(benchTitles)])
	}
}

func BenchmarkClassify(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sink, _ = Classify(benchTitles[i%len(benchTitles)])
	}
}

func BenchmarkCompanyKey(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sink = CompanyKey(benchCompanies[i%len(benchCompanies)])
	}
}

func BenchmarkCountryName(b *testing.B) {
	in := []string{"Germany", "DE", "usa", "United Kingdom", "South Korea"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sink, _ = CountryName(in[i%len(in)])
	}
}

func BenchmarkCountryFromLocation(b *testing.B) {
	in := []string{"Berlin, Germany", "Remote - US", "San Francisco, CA, United States", "London", "Austin, TX"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sink, _ = CountryFromLocation(in[i%len(in)])
	}
}

func BenchmarkTokens(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		toks := Tokens(benchTitles[i%len(benchTitles)])
		if len(toks) > 0 {
			sink = toks[0]
		}
	}
}

func BenchmarkCleanTitle(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sink = CleanTitle(benchTitles[i%len(benchTitles)])
	}
}
