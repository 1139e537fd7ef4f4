package sim

import (
	"fmt"
	"strings"
)

// Technology stacks: what a req names, by the kind of job its title is. A stack is groups of
// vocabulary slugs (jobtext.Vocabulary); a description draws min..max from each group, then
// makes each drawn one a nice-to-have with the stack's nice share. none is the share of
// descriptions of that kind that name no technology beyond the title's, years the share that
// state years of experience.

type techGroup struct {
	min, max int
	techs    []uint16
}

type stackDef struct {
	name   string
	none   float64
	nice   float64
	years  float64
	groups []techGroup
}

// stackSrc is a stack as written: each group "min-max: slug slug ...".
type stackSrc struct {
	name              string
	none, nice, years float64
	groups            []string
}

var stackSrcs = []stackSrc{
	{"backend", 0.02, 0.25, 0.8, []string{
		"1-2: go java python kotlin typescript ruby php csharp scala rust elixir nodejs",
		"1-2: postgresql mysql redis mongodb dynamodb cassandra elasticsearch",
		"0-1: kafka rabbitmq grpc rest_api graphql",
		"1-1: aws gcp azure",
		"0-2: docker kubernetes terraform datadog github_actions"}},
	{"frontend", 0.02, 0.3, 0.75, []string{
		"1-1: typescript javascript",
		"1-1: react vue angular svelte nextjs",
		"0-2: html css sass tailwind redux graphql",
		"0-1: jest cypress playwright storybook testing_library",
		"0-1: webpack vite figma"}},
	{"fullstack", 0.02, 0.25, 0.75, []string{
		"1-1: typescript python ruby go java php",
		"1-1: react vue nextjs angular",
		"0-1: nodejs django rails laravel spring_boot",
		"1-1: postgresql mysql mongodb redis",
		"0-1: aws gcp docker"}},
	{"mobile", 0.02, 0.3, 0.75, []string{
		"1-2: swift kotlin react_native flutter",
		"0-1: firebase graphql rest_api",
		"0-1: xcode android ios"}},
	{"ios", 0, 0.3, 0.75, []string{
		"1-1: swift",
		"1-2: swiftui uikit objective_c xcode",
		"0-1: firebase graphql rest_api git"}},
	{"android", 0, 0.3, 0.75, []string{
		"1-1: kotlin",
		"1-2: jetpack_compose java gradle",
		"0-1: firebase rest_api git"}},
	{"ops", 0, 0.25, 0.85, []string{
		"2-3: kubernetes docker terraform helm argocd ansible",
		"1-1: aws gcp azure",
		"1-1: prometheus grafana datadog opentelemetry elk",
		"1-1: go python bash",
		"0-1: linux",
		"0-1: github_actions gitlab_ci jenkins"}},
	{"qa", 0.02, 0.3, 0.75, []string{
		"2-3: selenium cypress playwright appium jmeter postman pytest junit cucumber",
		"1-1: java python typescript javascript",
		"0-1: jira testrail jenkins github_actions"}},
	{"embedded", 0, 0.3, 0.8, []string{
		"1-2: c cpp",
		"1-1: freertos zephyr yocto linux",
		"1-1: arm can_bus ble fpga",
		"0-1: python git"}},
	{"ml", 0, 0.3, 0.8, []string{
		"1-1: python",
		"1-2: pytorch tensorflow scikit_learn jax hugging_face",
		"0-1: mlflow kubeflow sagemaker vertex_ai airflow",
		"0-2: spark databricks kubernetes docker aws gcp"}},
	{"java", 0, 0.25, 0.8, []string{
		"1-2: spring_boot spring hibernate maven gradle junit mockito",
		"1-1: postgresql mysql oracle_db mongodb",
		"0-2: kafka docker kubernetes aws"}},
	{"python", 0, 0.25, 0.8, []string{
		"1-2: django fastapi flask pydantic sqlalchemy pytest",
		"1-1: postgresql mysql redis mongodb",
		"0-2: docker aws"}},
	{"golang", 0, 0.25, 0.8, []string{
		"2-3: grpc kubernetes docker postgresql kafka prometheus",
		"0-1: aws gcp"}},
	{"datasci", 0.02, 0.3, 0.75, []string{
		"1-2: python r sql",
		"1-2: pandas scikit_learn pytorch tensorflow xgboost numpy jupyter",
		"0-1: spark databricks snowflake bigquery aws",
		"0-1: tableau looker"}},
	{"research", 0.05, 0.3, 0.6, []string{
		"1-1: python",
		"1-2: pytorch jax tensorflow cuda cpp"}},
	{"dataeng", 0, 0.25, 0.8, []string{
		"1-2: python scala sql java",
		"1-2: spark airflow dbt kafka flink dagster",
		"1-1: snowflake bigquery redshift databricks postgresql delta_lake",
		"0-1: aws gcp azure",
		"0-1: terraform docker"}},
	{"analyst", 0.03, 0.3, 0.7, []string{
		"1-1: sql",
		"0-1: python r excel",
		"1-1: tableau power_bi looker metabase google_sheets qlik",
		"0-1: dbt snowflake bigquery",
		"0-1: google_analytics amplitude mixpanel"}},
	{"product", 0.3, 0.35, 0.7, []string{
		"0-2: jira confluence amplitude mixpanel figma sql notion miro google_analytics looker"}},
	{"design", 0.05, 0.35, 0.65, []string{
		"1-1: figma",
		"0-3: sketch adobe_cc photoshop illustrator after_effects framer protopie miro indesign webflow"}},
	{"uxresearch", 0.2, 0.35, 0.65, []string{
		"1-2: figma miro qualtrics hotjar fullstory"}},
	{"sales", 0.2, 0.35, 0.6, []string{
		"1-1: salesforce hubspot",
		"0-3: outreach salesloft gong zoominfo sales_navigator apollo_io clari chorus docusign pandadoc"}},
	{"salesengineer", 0.05, 0.3, 0.7, []string{
		"1-1: salesforce hubspot",
		"1-2: rest_api sql aws python postman"}},
	{"marketing", 0.2, 0.35, 0.6, []string{
		"0-1: hubspot marketo salesforce pardot",
		"0-2: google_analytics google_ads meta_ads linkedin_ads semrush ahrefs",
		"0-2: wordpress webflow canva figma mailchimp braze klaviyo",
		"0-1: looker tableau excel"}},
	{"cs", 0.25, 0.35, 0.6, []string{
		"0-1: salesforce hubspot",
		"1-2: gainsight totango churnzero planhat zendesk intercom jira",
		"0-1: excel sql looker"}},
	{"support", 0.2, 0.3, 0.5, []string{
		"1-2: zendesk intercom freshworks salesforce servicenow jira"}},
	{"supporttech", 0.05, 0.3, 0.65, []string{
		"1-2: zendesk jira servicenow intercom",
		"1-2: sql rest_api postman linux"}},
	{"finance", 0.25, 0.3, 0.7, []string{
		"0-1: excel",
		"1-2: netsuite sap quickbooks xero oracle_erp sage anaplan adaptive_planning blackline coupa concur bill_com expensify",
		"0-1: power_bi tableau sql"}},
	{"legal", 0.7, 0.4, 0.7, []string{
		"1-1: docusign microsoft_office salesforce"}},
	{"people", 0.3, 0.35, 0.6, []string{
		"1-2: workday bamboohr personio hibob culture_amp deel rippling adp",
		"0-1: excel google_workspace"}},
	{"recruiting", 0.2, 0.35, 0.6, []string{
		"1-2: greenhouse lever ashby workday linkedin_recruiter smartrecruiters beamery"}},
	{"bizops", 0.35, 0.35, 0.6, []string{
		"1-3: excel google_sheets sap netsuite jira asana smartsheet salesforce notion monday tableau sql"}},
	{"revops", 0.05, 0.3, 0.65, []string{
		"1-1: salesforce hubspot",
		"0-2: clari gong outreach zoominfo tableau looker sql"}},
	{"supply", 0.3, 0.35, 0.6, []string{
		"1-2: sap netsuite oracle_erp excel coupa power_bi"}},
	{"it", 0.02, 0.3, 0.65, []string{
		"2-4: active_directory intune jamf okta microsoft_office windows_server vmware servicenow powershell google_workspace sccm",
		"0-1: azure aws linux"}},
	{"network", 0, 0.3, 0.7, []string{
		"2-3: cisco juniper bgp tcp_ip arista palo_alto fortinet wireshark",
		"0-1: linux python ansible"}},
	{"dba", 0, 0.3, 0.8, []string{
		"1-2: postgresql oracle_db sql_server mysql mongodb",
		"0-2: linux aws bash terraform"}},
	{"sfadmin", 0, 0.3, 0.7, []string{
		"0-2: apex salesforce_cpq sfmc jira"}},
	{"architect", 0, 0.25, 0.85, []string{
		"1-2: aws azure gcp",
		"1-2: kubernetes terraform rest_api kafka",
		"0-1: java python go"}},
	{"security", 0.02, 0.3, 0.75, []string{
		"1-2: aws azure gcp kubernetes",
		"1-2: splunk crowdstrike snyk wiz okta terraform",
		"0-1: python go"}},
	{"appsec", 0, 0.3, 0.75, []string{
		"2-3: burp_suite owasp metasploit kali_linux nmap snyk sonarqube",
		"0-1: python"}},
	{"soc", 0, 0.3, 0.7, []string{
		"2-3: splunk microsoft_sentinel crowdstrike wireshark elk qualys nessus"}},
	{"grc", 0.6, 0.4, 0.7, []string{
		"1-1: jira excel servicenow"}},
	{"iam", 0, 0.3, 0.75, []string{
		"2-3: okta sailpoint cyberark active_directory keycloak auth0"}},
}

// stacks is stackSrcs resolved to vocabulary rows (TestStacksNameTheVocabulary checks that
// every slug has one).
var stacks = func() []stackDef {
	out := make([]stackDef, len(stackSrcs))
	for i, s := range stackSrcs {
		d := stackDef{name: s.name, none: s.none, nice: s.nice, years: s.years}
		for _, g := range s.groups {
			spec, list, ok := strings.Cut(g, ":")
			var lo, hi int
			if _, err := fmt.Sscanf(spec, "%d-%d", &lo, &hi); !ok || err != nil {
				panic("sim: bad stack group " + g)
			}
			var tg techGroup
			tg.min, tg.max = lo, hi
			for _, slug := range strings.Fields(list) {
				if x, ok := slugIdx[slug]; ok {
					tg.techs = append(tg.techs, x)
				}
			}
			d.groups = append(d.groups, tg)
		}
		out[i] = d
	}
	return out
}()

// stackNamed is the index of the stack called name.
func stackNamed(name string) uint8 {
	for i, s := range stackSrcs {
		if s.name == name {
			return uint8(i)
		}
	}
	panic("sim: no stack " + name)
}

// stackOf chooses the stack of a canonical title by its function and the words of its role.
func stackOf(title string, fn int) uint8 {
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(title, w) {
				return true
			}
		}
		return false
	}
	name := ""
	switch fn {
	case fnEngineering:
		switch {
		case has("Frontend"):
			name = "frontend"
		case has("Full Stack"):
			name = "fullstack"
		case has("iOS"):
			name = "ios"
		case has("Android"):
			name = "android"
		case has("Mobile"):
			name = "mobile"
		case has("Platform", "Site Reliability", "DevOps", "Infrastructure"):
			name = "ops"
		case has("QA", "Test Automation"):
			name = "qa"
		case has("Embedded", "Firmware"):
			name = "embedded"
		case has("Machine Learning"):
			name = "ml"
		case has("Java Developer"):
			name = "java"
		case has("Python Developer"):
			name = "python"
		case has("Go Developer"):
			name = "golang"
		default:
			name = "backend"
		}
	case fnData:
		switch {
		case has("Data Scientist", "Data Science"):
			name = "datasci"
		case has("Research Scientist"):
			name = "research"
		case has("Data Engineer", "Head of Data"):
			name = "dataeng"
		default:
			name = "analyst"
		}
	case fnProduct:
		name = "product"
	case fnDesign:
		name = "design"
		if has("Researcher") {
			name = "uxresearch"
		}
	case fnSales:
		name = "sales"
		if has("Sales Engineer", "Solutions Consultant") {
			name = "salesengineer"
		}
	case fnMarketing:
		name = "marketing"
	case fnCustomerSuccess:
		name = "cs"
	case fnSupport:
		name = "support"
		if has("Engineer") {
			name = "supporttech"
		}
	case fnFinance:
		name = "finance"
	case fnLegal:
		name = "legal"
	case fnPeople:
		name = "people"
		if has("Recruit", "Talent") {
			name = "recruiting"
		}
	case fnOperations:
		switch {
		case has("Revenue Operations"):
			name = "revops"
		case has("Supply Chain", "Logistics", "Procurement"):
			name = "supply"
		default:
			name = "bizops"
		}
	case fnIT:
		switch {
		case has("Network"):
			name = "network"
		case has("Database"):
			name = "dba"
		case has("Salesforce"):
			name = "sfadmin"
		case has("Cloud Engineer"):
			name = "ops"
		case has("Architect"):
			name = "architect"
		default:
			name = "it"
		}
	case fnSecurity:
		switch {
		case has("Penetration", "Application Security"):
			name = "appsec"
		case has("SOC", "Security Analyst"):
			name = "soc"
		case has("GRC"):
			name = "grc"
		case has("Identity"):
			name = "iam"
		default:
			name = "security"
		}
	}
	return stackNamed(name)
}
