package jobtext

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Whole postings as feeds send them (testdata/postings: Greenhouse's escaped content, Lever and
// Personio HTML, plain text with CRLF), in English, German, French and Spanish, read end to end.
// Their company, benefits and equal-opportunity paragraphs name funding, budgets, the company's
// age and "senior leadership" and must add nothing.
func TestPostings(t *testing.T) {
	t.Parallel()
	payOf := func(min, max float64, cur, period, stated string, dollar bool) *Pay {
		return &Pay{Min: min, Max: max, Currency: cur, Period: period, Stated: stated, DollarSign: dollar, Source: PaySourceText}
	}
	for _, c := range []struct {
		file, title string
		want        Derived
	}{
		{"en_backend_greenhouse.txt", "Senior Backend Engineer, Ledger", Derived{
			Technologies: []Technology{req("go"), seen("kubernetes"), req("postgresql"), seen("kafka"), req("aws"),
				seen("terraform"), seen("datadog"), req("java")},
			Seniority: "senior", EmploymentType: FullTime, WorkplaceType: Remote, RemoteCountries: []string{"United States"},
			YearsExperienceMin: intp(6), VisaSponsorship: boolp(false),
			Pay: payOf(165000, 195000, "USD", "year", "$165,000 - $195,000 per year", true),
		}},
		{"en_sales_lever.html", "Mid-Market Account Executive", Derived{
			Technologies:  []Technology{seen("outreach"), seen("sales_navigator"), req("salesforce"), req("hubspot"), nice("gong"), nice("chorus")},
			WorkplaceType: Hybrid, YearsExperienceMin: intp(3),
			Pay: payOf(90000, 110000, "GBP", "", "£90,000 - £110,000", false),
		}},
		{"en_analyst_plain.txt", "Data Analyst (12-month contract)", Derived{
			Technologies: []Technology{seen("tableau"), seen("power_bi"), req("sql"), seen("snowflake"), req("python"),
				seen("pandas"), req("excel"), req("r"), nice("dbt"), nice("looker")},
			Seniority: "junior", EmploymentType: Contract, WorkplaceType: Onsite, YearsExperienceMin: intp(1),
			VisaSponsorship: boolp(false), Pay: payOf(32, 38, "USD", "hour", "$32 - $38 per hour", true),
		}},
		{"de_devops_personio.html", "Senior DevOps Engineer (m/w/d)", Derived{
			Technologies: []Technology{seen("azure"), req("kubernetes"), seen("terraform"), seen("gitlab_ci"), seen("prometheus"),
				seen("grafana"), req("docker"), req("linux"), req("python"), req("go"), nice("ansible")},
			Seniority: "senior", EmploymentType: FullTime, WorkplaceType: Hybrid, YearsExperienceMin: intp(5),
			Pay: payOf(75000, 90000, "EUR", "year", "75.000 bis 90.000 €", false),
		}},
		{"de_werkstudent_plain.txt", "Werkstudent Marketing (m/w/d)", Derived{
			Technologies: []Technology{seen("hubspot"), seen("google_ads"), seen("canva"), seen("figma"), seen("google_analytics"),
				req("microsoft_office"), req("excel")},
			Seniority: "intern", EmploymentType: PartTime, WorkplaceType: Onsite,
			Pay: payOf(15, 15, "EUR", "hour", "15 € pro Stunde", false),
		}},
		{"de_sales_remote.html", "Key Account Manager (m/w/d) – 100% Remote", Derived{
			Technologies: []Technology{seen("salesforce"), nice("sales_navigator")},
			Seniority:    "manager", EmploymentType: FullTime, WorkplaceType: Remote, RemoteCountries: []string{"Germany"},
		}},
		{"fr_data_hybrid.html", "Data Engineer (H/F)", Derived{
			Technologies: []Technology{seen("airflow"), seen("dbt"), seen("bigquery"), req("python"), req("sql"), req("gcp"),
				nice("spark"), nice("kafka")},
			EmploymentType: FullTime, WorkplaceType: Hybrid, YearsExperienceMin: intp(4),
			Pay: payOf(55000, 65000, "EUR", "year", "55 000 € - 65 000 € bruts annuels", false),
		}},
		{"fr_stage_plain.txt", "Stage - Assistant(e) Chef de Projet Marketing (6 mois)", Derived{
			Technologies: []Technology{seen("mailchimp"), seen("wordpress"), req("photoshop"), req("indesign")},
			Seniority:    "intern", EmploymentType: Internship, WorkplaceType: Onsite,
			Pay: payOf(1200, 1200, "EUR", "month", "1 200 € par mois", false),
		}},
		{"es_backend_remote.html", "Desarrollador/a Backend Java", Derived{
			Technologies: []Technology{req("java"), seen("spring_boot"), seen("rest_api"), seen("kafka"), req("spring"),
				req("postgresql"), req("docker"), nice("kubernetes"), nice("aws")},
			EmploymentType: FullTime, WorkplaceType: Remote, RemoteCountries: []string{"Spain"}, YearsExperienceMin: intp(3),
			Pay: payOf(45000, 55000, "EUR", "year", "45.000 - 55.000 € brutos anuales", false),
		}},
		{"es_practicas_plain.txt", "Prácticas en Diseño UX/UI", Derived{
			Technologies: []Technology{seen("figma"), seen("react")},
			Seniority:    "intern", EmploymentType: Internship, WorkplaceType: Hybrid,
			Pay: payOf(800, 800, "EUR", "month", "800 € al mes", false),
		}},
	} {
		raw, err := os.ReadFile(filepath.Join("testdata", "postings", c.file))
		require.NoError(t, err)
		require.Equal(t, c.want, Derive(c.title, Clean(string(raw), DefaultMax)), c.file)
	}
}

// The boilerplate around a posting (benefits, company, equal opportunity, privacy, how to apply)
// names no technology, level, contract, place or pay, and derives nothing.
func TestBoilerplateDerivesNothing(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		`Benefits
- Medical, dental and vision insurance for you and your dependants
- 401(k) with a 4% company match
- $1,500 annual learning and development budget
- Home office stipend of $500 and a monthly wellness allowance of $100
- 25 days of paid time off plus public holidays
- Paid parental leave and a company-wide week off in December

We are an equal opportunity employer and value diversity at our company. We do not discriminate on the basis of race, religion, color, national origin, gender, sexual orientation, age, marital status, veteran status, or disability status. We will ensure that individuals with disabilities are provided reasonable accommodation to participate in the job application or interview process.

Founded 12 years ago, we raised $40 million from leading investors and serve 3,000 customers in 40 countries. Our senior leadership team meets every employee once a quarter.`,
		`Das bieten wir
- 30 Tage Urlaub und flexible Arbeitszeiten
- Ein Weiterbildungsbudget von 1.500 € pro Jahr
- Zuschuss zum Deutschlandticket und JobRad
- Betriebliche Altersvorsorge

Über uns
Seit über 20 Jahren entwickeln wir Lösungen für den Mittelstand. Heute arbeiten mehr als 400 Menschen an sechs Standorten für uns.

Wir freuen uns über Bewerbungen von Menschen jeden Geschlechts, jeder Herkunft, Religion und sexuellen Identität, mit und ohne Behinderung.`,
		`Avantages
- Mutuelle prise en charge à 100 %
- Tickets restaurant et prime de participation
- Budget formation de 1 000 € par an

Qui sommes-nous ?
Fondée en 2010, notre entreprise compte 250 collaborateurs et a réalisé un chiffre d'affaires de 30 millions d'euros.

Nous nous engageons pour la diversité et l'égalité des chances ; tous nos postes sont ouverts aux personnes en situation de handicap.`,
		`Beneficios
- Seguro médico privado
- Presupuesto de formación de 1.200 € al año
- Retribución flexible: ticket restaurante y transporte

Quiénes somos
Desde hace más de 15 años ayudamos a empresas de toda Europa. En 2023 facturamos 50 millones de euros.

Promovemos la igualdad de oportunidades y no discriminamos por razón de sexo, origen, religión, edad o discapacidad. Tus datos serán tratados conforme al RGPD.`,
	} {
		require.Equal(t, Derived{}, Derive("", Clean(text, 0)), text)
	}
}
