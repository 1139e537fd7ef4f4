package jobtext_test

import (
	"fmt"

	"github.com/planehq/hiringsignal/internal/jobtext"
)

func ExampleClean() {
	// Greenhouse sends its content HTML-escaped.
	raw := "&lt;p&gt;We build &lt;b&gt;payments&lt;/b&gt; infrastructure.&lt;/p&gt;" +
		"&lt;h3&gt;Requirements&lt;/h3&gt;&lt;ul&gt;&lt;li&gt;Go&lt;/li&gt;&lt;li&gt;PostgreSQL&lt;/li&gt;&lt;/ul&gt;"
	fmt.Println(jobtext.Clean(raw, jobtext.DefaultMax))
	// Output:
	// We build payments infrastructure.
	//
	// Requirements
	//
	// - Go
	// - PostgreSQL
}

func ExampleDerive() {
	text := jobtext.Clean(`<p>This is a full-time, fully remote role open to candidates in the United States.</p>
<h3>Requirements</h3><ul><li>5+ years of experience with Go and PostgreSQL</li></ul>
<h3>Nice to have</h3><ul><li>Kafka</li></ul>
<p>The base salary range is $150,000 - $180,000 per year. We are unable to sponsor visas.</p>`, jobtext.DefaultMax)
	d := jobtext.Derive("Senior Backend Engineer", text)
	for _, t := range d.Technologies {
		fmt.Printf("%s required=%v nice=%v\n", t.Slug, t.Required, t.NiceToHave)
	}
	fmt.Println(d.Seniority, d.EmploymentType, d.WorkplaceType, d.RemoteCountries, *d.YearsExperienceMin, *d.VisaSponsorship)
	fmt.Println(d.Pay.Min, d.Pay.Max, d.Pay.Currency, d.Pay.Period, d.Pay.Source)
	// Output:
	// go required=true nice=false
	// postgresql required=true nice=false
	// kafka required=false nice=true
	// senior full_time remote [United States] 5 false
	// 150000 180000 USD year text
}
