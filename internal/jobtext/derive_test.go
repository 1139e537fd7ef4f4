package jobtext

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func req(slug string) Technology  { return Technology{Slug: slug, Required: true} }
func nice(slug string) Technology { return Technology{Slug: slug, NiceToHave: true} }
func seen(slug string) Technology { return Technology{Slug: slug} }
func intp(n int) *int             { return &n }
func boolp(b bool) *bool          { return &b }

// Technologies are read by words in every language, required and nice-to-have apart where the
// posting separates them.
func TestTechnologies(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, title, text string
		want              []Technology
	}{
		{"en sections", "", "Requirements\n- 5+ years with Go and PostgreSQL\n\nNice to have\n- Kafka, Terraform",
			[]Technology{req("go"), req("postgresql"), nice("kafka"), nice("terraform")}},
		{"en inline cues", "", "Must have: Salesforce, SFDC admin experience. Nice to have: HubSpot, Marketo.",
			[]Technology{req("salesforce"), nice("hubspot"), nice("marketo")}},
		{"en a plus", "", "Experience with Snowflake is required; dbt is a plus.",
			[]Technology{req("snowflake"), nice("dbt")}},
		{"de sections", "", "Anforderungen:\n- Sehr gute Kenntnisse in Java und Spring Boot\n- Erfahrung mit Kafka wünschenswert",
			[]Technology{req("java"), req("spring_boot"), nice("kafka")}},
		{"de von vorteil", "", "Dein Profil\n- Erfahrung mit Python\n- Kenntnisse in Ansible sind von Vorteil",
			[]Technology{req("python"), nice("ansible")}},
		{"fr", "", "Exigences : maîtrise de Node.js et TypeScript. La connaissance de MongoDB est un plus.",
			[]Technology{req("nodejs"), req("typescript"), nice("mongodb")}},
		{"es", "", "Requisitos: experiencia con C# y .NET Core. Deseable: Azure DevOps.",
			[]Technology{req("csharp"), req("dotnet"), nice("azure_devops")}},
		{"es se valorara", "", "Requisitos\n- Java 17\n\nSe valorará\n- Kubernetes",
			[]Technology{req("java"), nice("kubernetes")}},
		{"no sections: mentioned only", "", "You will use NodeJS, node.js and Node JS daily; also ReactJS, React.js and Vue.js.",
			[]Technology{seen("nodejs"), seen("react"), seen("vue")}},
		{"spellings", "", "Our stack: Golang, C++17, F#, ASP.NET, VB.NET, Objective-C, PL/SQL, T-SQL, GitHub Actions, K8s, Postgres.",
			[]Technology{seen("go"), seen("cpp"), seen("fsharp"), seen("dotnet"), seen("visual_basic"), seen("objective_c"),
				seen("plsql"), seen("tsql"), seen("github_actions"), seen("kubernetes"), seen("postgresql")}},
		{"the title is required", "Senior Go Engineer (Kubernetes)", "You will work on our platform.",
			[]Technology{req("go"), req("kubernetes")}},
		{"title and nice text", "Data Engineer - Python", "Nice to have: Python 3 and Airflow",
			[]Technology{req("python"), nice("airflow")}},
		{"longest alias wins", "", "Experience with Spring Boot, React Native and Azure DevOps.",
			[]Technology{seen("spring_boot"), seen("react_native"), seen("azure_devops")}},
		{"GTM tools", "", "You'll live in Salesforce, Outreach and Gong; HubSpot and ZoomInfo experience helps.",
			[]Technology{seen("salesforce"), seen("outreach"), seen("gong"), seen("hubspot"), seen("zoominfo")}},
		{"ambiguous in a list", "", "Experience with Go, Rust and C is required.",
			[]Technology{req("go"), req("rust"), req("c")}},
		{"single letters beside a language", "", "Proficiency in R or Python; C/C++ a plus.",
			[]Technology{seen("r"), seen("python"), nice("c"), nice("cpp")}},
		{"ambiguous by a cue word", "", "Services written in Go. Strong Swift skills. We use Spring and Hibernate.",
			[]Technology{seen("go"), seen("swift"), seen("spring"), seen("hibernate")}},
		{"a list of items", "", "Our stack:\n- Go\n- Kubernetes\n- Terraform",
			[]Technology{seen("go"), seen("kubernetes"), seen("terraform")}},
		{"R programming", "", "Statistical modelling with R programming and SQL.", []Technology{seen("r"), seen("sql")}},
		{"exact case", "", "Keep Slack tidy and Excel models current; excel at slack times.",
			[]Technology{seen("slack"), seen("excel")}},
	} {
		got := Derive(c.title, Clean(c.text, 0)).Technologies
		require.Equal(t, c.want, got, c.name)
	}
}

// Words that look like technologies and are not derive nothing.
func TestTechnologiesNegative(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"We go beyond what is expected. Go ahead and apply!",
		"Let's Go! We move fast and go deep.",
		"Our R&D team reports to the CTO.",
		"You will present to C-level executives and the C-suite.",
		"Fluent in Javanese and Bahasa Indonesia.",
		"Start date: Spring 2026. Join us this Spring.",
		"We value swift decisions. Swift onboarding for every hire.",
		"A Series C company with a Plan B and vitamin C in the kitchen.",
		"Our sales team will go to market with partners. Go-to-market experience matters.",
		"React quickly to customer issues. Rust never sleeps.",
		"The Ruby Princess sails with Julia on board.",
		"You will lift to go. Go live by March.",
		"Tableau de bord mensuel et suivi des ventes.",
		"Point de vue client, en vue de la croissance.",
		"Our DAX-listed customers and the R Value of insulation.",
		"Manage outreach to partners and segment the market; amplitude of the signal.",
		"Notion of quality, a flask of coffee and a sketch of the plan.",
		"Titulación en Ingeniería Informática o similar.", // the degree, not the ETL suite
	} {
		require.Empty(t, Derive("", Clean(text, 0)).Technologies, text)
	}
	require.Empty(t, Derive("Go-to-Market Manager", "").Technologies)
	require.Empty(t, Derive("Go Live Specialist", "").Technologies)
}

// Seniority: the title first, then the text's explicit words; never a guess.
func TestSeniority(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ title, text, want string }{
		{"Senior Backend Engineer", "We are looking for a junior.", "senior"},
		{"Backend Engineer", "We are looking for a senior engineer to join the team.", "senior"},
		{"Backend Engineer", "This is an entry-level role.", "junior"},
		{"Analyst", "Seniority level: Entry level", "junior"},
		{"Analyst", "Experience level: Mid-Senior", ""},
		{"Entwickler (m/w/d)", "Wir suchen einen Junior Entwickler für unser Team.", "junior"},
		{"Entwickler (m/w/d)", "Karrierestufe: Senior", "senior"},
		{"Développeur", "Nous recherchons un développeur junior pour rejoindre l'équipe.", "junior"},
		{"Développeur", "Poste de niveau confirmé.", "mid"},
		{"Desarrollador", "Buscamos un perfil semi senior.", "mid"},
		{"Desarrollador", "Buscamos un desarrollador senior.", "senior"},
		{"Engineer", "This is an entry-level role. We are looking for a senior engineer.", ""},
		{"Engineer", "You will present to senior leadership and work with senior stakeholders.", ""},
		{"Engineer", "About us\nOur senior team has 20 years of experience.", ""},
		{"Head of Data", "", "director"},
		{"VP Sales", "", "vp"},
		{"Product Designer", "", ""},
	} {
		require.Equal(t, c.want, Derive(c.title, c.text).Seniority, "%s / %s", c.title, c.text)
	}
}

// Employment type in each language; two that exclude each other are none.
func TestEmploymentType(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ title, text, want string }{
		{"", "This is a full-time position.", FullTime},
		{"", "Part-time, 20 hours per week.", PartTime},
		{"", "This is a 6-month contract role.", Contract},
		{"", "Fixed-term contract until December.", Temporary},
		{"", "Summer internship, 12 weeks.", Internship},
		{"", "Festanstellung in Vollzeit", FullTime},
		{"", "Unbefristete Stelle in Teilzeit (25 Stunden)", PartTime},
		{"", "Befristeter Vertrag für 12 Monate als Elternzeitvertretung", Temporary},
		{"", "Wir bieten eine Stelle in Voll- oder Teilzeit.", ""},
		{"", "CDI, temps plein", FullTime},
		{"", "CDD de 6 mois, temps partiel", Temporary},
		{"", "Offre de stage conventionné de 6 mois.", Internship},
		{"Stage - Assistant Marketing", "", Internship},
		{"", "Contrato indefinido y jornada completa.", FullTime},
		{"", "Media jornada, 20 horas semanales.", PartTime},
		{"", "Prácticas remuneradas de 6 meses.", Internship},
		{"", "Full-time or part-time.", ""},
		{"", "CDD ou CDI selon profil.", ""},
		{"", "Requirements\n- Completed internship in marketing\n- Part-time studies are fine", ""},
		{"", "We manage vendor contracts and temporary access for all employees.", ""},
		{"Werkstudent Marketing (m/w/d)", "", PartTime},
		{"Freelance Designer", "", Contract},
	} {
		require.Equal(t, c.want, Derive(c.title, Clean(c.text, 0)).EmploymentType, "%s / %s", c.title, c.text)
	}
}

// Workplace: remote, hybrid, on-site, with the countries a remote role is open to.
func TestWorkplace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		title, text string
		kind        string
		countries   []string
		regions     []string
	}{
		{"Backend Engineer - Remote (US only)", "", Remote, []string{"United States"}, nil},
		{"Sr. Data Engineer - Remote", "", Remote, nil, nil}, // "Sr" is senior, not Suriname
		{"", "This is a fully remote role open to candidates within the EU.", Remote,
			[]string{"Austria", "Belgium", "Bulgaria", "Croatia", "Cyprus", "Czechia", "Denmark", "Estonia", "Finland", "France",
				"Germany", "Greece", "Hungary", "Ireland", "Italy", "Latvia", "Lithuania", "Luxembourg", "Malta", "Netherlands",
				"Poland", "Portugal", "Romania", "Slovakia", "Slovenia", "Spain", "Sweden"}, nil},
		{"", "Location: Remote (UK or Ireland)", Remote, []string{"Ireland", "United Kingdom"}, nil},
		{"", "Remote, anywhere in Europe.", Remote, nil, []string{"europe"}},
		{"", "Work from anywhere in the world.", Remote, nil, []string{"worldwide"}},
		{"", "Remote role; you must overlap with US time zones.", Remote, nil, nil},
		{"", "100% Remote innerhalb Deutschlands", Remote, []string{"Germany"}, nil},
		{"", "100% remoto desde cualquier lugar de España", Remote, []string{"Spain"}, nil},
		{"", "Full remote depuis la France", Remote, []string{"France"}, nil},
		{"", "This is a hybrid role: 3 days a week in our London office.", Hybrid, nil, nil},
		{"", "Hybrides Arbeiten: 2 Tage pro Woche im Büro in München", Hybrid, nil, nil},
		{"", "2 Tage Homeoffice pro Woche", Hybrid, nil, nil},
		{"", "Homeoffice möglich", Hybrid, nil, nil},
		{"", "Télétravail partiel : 2 jours par semaine", Hybrid, nil, nil},
		{"", "Modelo híbrido con 2 días de teletrabajo", Hybrid, nil, nil},
		{"", "This is an on-site role in Chicago, five days a week in the office.", Onsite, nil, nil},
		{"", "Poste basé à Lyon, en présentiel.", Onsite, nil, nil},
		{"", "Trabajo presencial en Madrid.", Onsite, nil, nil},
		{"", "Arbeit vor Ort in Berlin, Homeoffice ist leider nicht möglich.", Onsite, nil, nil},
		{"", "This role is not remote.", Onsite, nil, nil},
		{"", "Remote or on-site in Berlin.", "", nil, nil},
		{"", "Experience with remote control systems and remote sensing.", "", nil, nil},
		{"", "We're a hybrid cloud company building hybrid apps.", "", nil, nil},
		{"", "Onsite interviews take place in our Berlin office.", "", nil, nil},
		{"", "Requirements\n- Experience working in remote teams", "", nil, nil},
		{"", "Remote Sensing Analyst", "", nil, nil},
	} {
		d := Derive(c.title, Clean(c.text, 0))
		require.Equal(t, c.kind, d.WorkplaceType, "%s / %s", c.title, c.text)
		require.Equal(t, c.countries, d.RemoteCountries, "%s / %s", c.title, c.text)
		require.Equal(t, c.regions, d.RemoteRegions, "%s / %s", c.title, c.text)
	}
}

// Years of experience: the lower figure of what is asked, never the company's age.
func TestYearsExperience(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want *int
	}{
		{"5+ years of experience in backend development", intp(5)},
		{"At least 3 years of professional experience", intp(3)},
		{"3-5 years of experience with SQL", intp(3)},
		{"3 to 5 years in a similar role is required", intp(3)},
		{"Five years of experience or more", intp(5)},
		{"5 or more years of experience; 2+ years with Go", intp(5)},
		{"Mindestens 3 Jahre Berufserfahrung", intp(3)},
		{"Du hast 2+ Jahre Erfahrung in der Softwareentwicklung", intp(2)},
		{"3 ans d'expérience minimum", intp(3)},
		{"Au moins 4 ans d'expérience en tant que Data Engineer", intp(4)},
		{"Mínimo 3 años de experiencia", intp(3)},
		{"Al menos dos años de experiencia como backend", intp(2)},
		{"Requirements\n- 4+ years as a data engineer", intp(4)},
		{"Founded 10 years ago, we have grown every year.", nil},
		{"With over 20 years of experience, we are the market leader.", nil},
		{"Nice to have\n- 8+ years of experience", nil},
		{"Mehrjährige Berufserfahrung im Vertrieb", nil},
		{"About us\nFor 15 years of experience we serve customers.", nil},
		{"Our 401(k) vests over 4 years.", nil},
	} {
		require.Equal(t, c.want, Derive("", Clean(c.text, 0)).YearsExperienceMin, c.text)
	}
}

// Visa sponsorship: offered, ruled out, or not said.
func TestVisaSponsorship(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want *bool
	}{
		{"Visa sponsorship is available for this role.", boolp(true)},
		{"We offer visa sponsorship and relocation support.", boolp(true)},
		{"We are unable to sponsor visas.", boolp(false)},
		{"We cannot sponsor work visas at this time.", boolp(false)},
		{"Candidates must be authorized to work in the US without sponsorship.", boolp(false)},
		{"No visa sponsorship.", boolp(false)},
		{"Visa sponsorship is not available.", boolp(false)},
		{"Wir bieten Unterstützung beim Visum und Umzug.", boolp(true)},
		{"Nous ne pouvons pas sponsoriser de visa.", boolp(false)},
		{"Ofrecemos patrocinio de visa.", boolp(true)},
		{"Will you now or in the future require visa sponsorship?", nil},
		{"Engage executive sponsors across the account.", nil},
		{"We offer visa sponsorship. We cannot sponsor visas.", nil},
		{"", nil},
	} {
		require.Equal(t, c.want, Derive("", Clean(c.text, 0)).VisaSponsorship, c.text)
	}
}

// Pay as stated: figures, currency, period, in the common forms; never a budget or funding.
func TestPay(t *testing.T) {
	t.Parallel()
	pay := func(min, max float64, cur, period, stated string) *Pay {
		return &Pay{Min: min, Max: max, Currency: cur, Period: period, Stated: stated, Source: PaySourceText, DollarSign: cur == "USD" && stated != "" && stated[0] == '$'}
	}
	for _, c := range []struct {
		text string
		want *Pay
	}{
		{"The salary range is $120,000 - $150,000 per year.", pay(120000, 150000, "USD", "year", "$120,000 - $150,000 per year")},
		{"Salary: €60k–75k", pay(60000, 75000, "EUR", "", "€60k–75k")},
		{"Gehalt: 60.000 - 75.000 € brutto/Jahr", pay(60000, 75000, "EUR", "year", "60.000 - 75.000 € brutto/Jahr")},
		{"£45,000 pa plus benefits", pay(45000, 45000, "GBP", "year", "£45,000 pa")},
		{"Pay: $32 - $38 per hour", pay(32, 38, "USD", "hour", "$32 - $38 per hour")},
		{"Rémunération : 55 000 € - 65 000 € bruts annuels", pay(55000, 65000, "EUR", "year", "55 000 € - 65 000 € bruts annuels")},
		{"Salario: 40.000€ - 50.000€ brutos anuales", pay(40000, 50000, "EUR", "year", "40.000€ - 50.000€ brutos anuales")},
		{"Jahresgehalt von 75.000 bis 90.000 € brutto", pay(75000, 90000, "EUR", "year", "75.000 bis 90.000 €")},
		{"Base salary of up to $180k.", pay(0, 180000, "USD", "", "$180k")},
		{"Compensation: CA$95,000 - CA$110,000 annually", &Pay{Min: 95000, Max: 110000, Currency: "CAD", Period: "year", Stated: "CA$95,000 - CA$110,000 annually", Source: PaySourceText}},
		{"Salary: 70 - 80k EUR per year", pay(70000, 80000, "EUR", "year", "70 - 80k EUR per year")},
		{"Stundenlohn: 15 €", pay(15, 15, "EUR", "hour", "15 €")},
		{`<div class="pay-input"><div class="title">US Base Salary Range</div><div class="pay-range"><span>$150,000</span><span class="divider">&mdash;</span><span>$180,000 USD</span></div></div>`,
			&Pay{Min: 150000, Max: 180000, Currency: "USD", Stated: "$150,000—$180,000 USD", Source: PaySourceText}},
		{"Salary: $100k+ DOE", pay(100000, 0, "USD", "", "$100k")},
		{"The salary for this role is between $100,000 and $120,000.", pay(100000, 120000, "USD", "", "$100,000 and $120,000")},
		{"USD 120,000–150,000 base", &Pay{Min: 120000, Max: 150000, Currency: "USD", Stated: "USD 120,000–150,000", Source: PaySourceText}},
		{"Gehalt: 4.000 € brutto/Monat", pay(4000, 4000, "EUR", "month", "4.000 € brutto/Monat")},
		{"$50/hr on a W2", pay(50, 50, "USD", "hour", "$50/hr")},
		{"Compensation: 95.000 CHF p.a.", pay(95000, 95000, "CHF", "year", "95.000 CHF p.a")},
		{"Sueldo: 2.000 € netos al mes", pay(2000, 2000, "EUR", "month", "2.000 € netos al mes")},
		// Figures with more than one thousands group after a short first one.
		{"Salary: ¥8,500,000 - ¥9,800,000 per year", pay(8500000, 9800000, "JPY", "year", "¥8,500,000 - ¥9,800,000 per year")},
		{"Salario: COP 10.000.000 - 11.500.000 al mes", pay(10000000, 11500000, "COP", "month", "COP 10.000.000 - 11.500.000 al mes")},
		{"Salary: INR 1,800,000 per annum", pay(1800000, 1800000, "INR", "year", "INR 1,800,000 per annum")},
		{"We raised $60M in our Series B.", nil},
		{"$1,500 annual learning budget", nil},
		{"Home office stipend of $500 and a €1,000 yearly allowance.", nil},
		{"Revenue grew to €20 million last year.", nil},
		{"Our 401(k) matches 4% of salary.", nil},
		{"Salary: competitive", nil},
		{"We serve 4,000 customers in 30 countries.", nil},
	} {
		require.Equal(t, c.want, Derive("", Clean(c.text, 0)).Pay, c.text)
	}
}
