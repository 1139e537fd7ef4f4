package sim

// Function names (the human-readable taxonomy the truth reports).
var functionNames = [...]string{
	"Engineering", "Data & Analytics", "Product", "Design", "Sales", "Marketing",
	"Customer Success", "Support", "Finance", "Legal", "People", "Operations", "IT", "Security",
}

const (
	fnEngineering = iota
	fnData
	fnProduct
	fnDesign
	fnSales
	fnMarketing
	fnCustomerSuccess
	fnSupport
	fnFinance
	fnLegal
	fnPeople
	fnOperations
	fnIT
	fnSecurity
)

// functionPay is the mid-level yearly USD base salary per function (United States level).
var functionPay = [...]float64{120000, 110000, 125000, 100000, 85000, 90000, 78000, 58000, 88000, 130000, 80000, 78000, 82000, 125000}

// functionCode prefixes requisition ids.
var functionCode = [...]string{"ENG", "DATA", "PROD", "DES", "SALES", "MKT", "CS", "SUP", "FIN", "LEG", "PPL", "OPS", "IT", "SEC"}

// Seniority prefixes and their pay multipliers.
var seniorityPrefix = [...]string{"", "Senior ", "Junior ", "Lead ", "Staff ", "Principal ", "Associate "}
var seniorityPay = [...]float64{1.0, 1.3, 0.72, 1.45, 1.6, 1.8, 0.8}

const (
	snMid = 1 << iota
	snSenior
	snJunior
	snLead
	snStaff
	snPrincipal
	snAssociate
)

const (
	snIC    = snMid | snSenior | snJunior | snLead | snStaff | snPrincipal
	snBasic = snMid | snSenior | snJunior
	snPlus  = snMid | snSenior | snJunior | snLead
)

type roleDef struct {
	fn    int
	name  string
	ranks int // bit set of seniorityPrefix entries
}

// leaderDef is a title used as is (no seniority prefix) with its pay multiplier.
type leaderDef struct {
	fn   int
	name string
	pay  float64
}

// Role pools. Canonical titles are ASCII, single-spaced, and no title is another title plus a
// decoration a normalizer strips (gender tags, location suffixes, abbreviations, case).
var roles = []roleDef{
	{fnEngineering, "Backend Engineer", snIC}, {fnEngineering, "Frontend Engineer", snIC},
	{fnEngineering, "Full Stack Engineer", snIC}, {fnEngineering, "Software Engineer", snIC},
	{fnEngineering, "Mobile Engineer", snIC}, {fnEngineering, "iOS Developer", snPlus},
	{fnEngineering, "Android Developer", snPlus}, {fnEngineering, "Platform Engineer", snIC},
	{fnEngineering, "Site Reliability Engineer", snIC}, {fnEngineering, "DevOps Engineer", snIC},
	{fnEngineering, "QA Engineer", snPlus}, {fnEngineering, "Embedded Software Engineer", snIC},
	{fnEngineering, "Machine Learning Engineer", snIC}, {fnEngineering, "Software Developer", snPlus},
	{fnEngineering, "Test Automation Engineer", snPlus}, {fnEngineering, "Java Developer", snPlus},
	{fnEngineering, "Python Developer", snPlus}, {fnEngineering, "Go Developer", snPlus},
	{fnEngineering, "Infrastructure Engineer", snIC}, {fnEngineering, "Firmware Engineer", snPlus},

	{fnData, "Data Scientist", snIC}, {fnData, "Data Engineer", snIC}, {fnData, "Data Analyst", snPlus},
	{fnData, "Analytics Engineer", snPlus}, {fnData, "Business Intelligence Analyst", snBasic},
	{fnData, "BI Developer", snBasic}, {fnData, "Research Scientist", snIC},

	{fnProduct, "Product Manager", snMid | snSenior | snLead | snPrincipal | snAssociate},
	{fnProduct, "Technical Product Manager", snMid | snSenior | snPrincipal},
	{fnProduct, "Product Owner", snBasic}, {fnProduct, "Product Analyst", snBasic},
	{fnProduct, "Product Operations Manager", snMid | snSenior},

	{fnDesign, "Product Designer", snIC}, {fnDesign, "UX Designer", snPlus}, {fnDesign, "UI Designer", snBasic},
	{fnDesign, "UX Researcher", snPlus}, {fnDesign, "Visual Designer", snBasic},
	{fnDesign, "Graphic Designer", snBasic}, {fnDesign, "Brand Designer", snBasic},
	{fnDesign, "Content Designer", snBasic},

	{fnSales, "Account Executive", snBasic}, {fnSales, "Enterprise Account Executive", snMid | snSenior},
	{fnSales, "Sales Development Representative", snMid | snSenior}, {fnSales, "Business Development Representative", snMid | snSenior},
	{fnSales, "Account Manager", snBasic}, {fnSales, "Key Account Manager", snBasic},
	{fnSales, "Sales Engineer", snPlus}, {fnSales, "Solutions Consultant", snBasic},
	{fnSales, "Inside Sales Representative", snBasic}, {fnSales, "Sales Manager", snMid | snSenior},
	{fnSales, "Channel Sales Manager", snMid | snSenior}, {fnSales, "Partner Manager", snMid | snSenior},
	{fnSales, "Sales Operations Analyst", snBasic},

	{fnMarketing, "Marketing Manager", snBasic}, {fnMarketing, "Product Marketing Manager", snMid | snSenior | snLead},
	{fnMarketing, "Content Marketing Manager", snMid | snSenior}, {fnMarketing, "Growth Marketing Manager", snMid | snSenior},
	{fnMarketing, "Performance Marketing Manager", snMid | snSenior}, {fnMarketing, "SEO Specialist", snBasic},
	{fnMarketing, "Marketing Coordinator", snMid | snJunior}, {fnMarketing, "Social Media Manager", snBasic},
	{fnMarketing, "Brand Manager", snBasic}, {fnMarketing, "Demand Generation Manager", snMid | snSenior},
	{fnMarketing, "Marketing Operations Manager", snMid | snSenior}, {fnMarketing, "Copywriter", snBasic},
	{fnMarketing, "Events & Community Manager", snMid | snSenior}, {fnMarketing, "Public Relations Manager", snMid | snSenior},

	{fnCustomerSuccess, "Customer Success Manager", snPlus}, {fnCustomerSuccess, "Customer Success Associate", snMid},
	{fnCustomerSuccess, "Implementation Manager", snMid | snSenior}, {fnCustomerSuccess, "Onboarding Specialist", snBasic},
	{fnCustomerSuccess, "Technical Account Manager", snBasic}, {fnCustomerSuccess, "Renewals Manager", snMid | snSenior},
	{fnCustomerSuccess, "Customer Success Operations Analyst", snMid | snSenior},

	{fnSupport, "Customer Support Specialist", snBasic}, {fnSupport, "Technical Support Engineer", snPlus},
	{fnSupport, "Support Engineer", snBasic}, {fnSupport, "Customer Service Representative", snBasic},
	{fnSupport, "Support Team Lead", snMid}, {fnSupport, "Customer Support Manager", snMid | snSenior},

	{fnFinance, "Financial Analyst", snBasic}, {fnFinance, "Accountant", snBasic}, {fnFinance, "Controller", snMid | snSenior},
	{fnFinance, "Payroll Specialist", snBasic}, {fnFinance, "Accounts Payable Specialist", snBasic},
	{fnFinance, "Accounts Receivable Specialist", snBasic}, {fnFinance, "FP&A Analyst", snBasic},
	{fnFinance, "Tax Manager", snMid | snSenior}, {fnFinance, "Treasury Analyst", snBasic},
	{fnFinance, "Finance Manager", snMid | snSenior}, {fnFinance, "Billing Specialist", snBasic},
	{fnFinance, "Revenue Accountant", snBasic},

	{fnLegal, "Legal Counsel", snBasic}, {fnLegal, "Corporate Counsel", snMid | snSenior}, {fnLegal, "Paralegal", snBasic},
	{fnLegal, "Compliance Manager", snMid | snSenior}, {fnLegal, "Compliance Analyst", snBasic},
	{fnLegal, "Contract Manager", snMid | snSenior}, {fnLegal, "Privacy Counsel", snMid | snSenior},
	{fnLegal, "Legal Operations Manager", snMid | snSenior}, {fnLegal, "Risk & Compliance Officer", snMid | snSenior},

	{fnPeople, "Recruiter", snPlus}, {fnPeople, "Technical Recruiter", snPlus},
	{fnPeople, "Talent Acquisition Partner", snMid | snSenior}, {fnPeople, "HR Business Partner", snBasic},
	{fnPeople, "People Operations Specialist", snBasic}, {fnPeople, "HR Generalist", snBasic},
	{fnPeople, "Learning & Development Manager", snMid | snSenior}, {fnPeople, "Compensation & Benefits Analyst", snBasic},
	{fnPeople, "People Partner", snMid | snSenior}, {fnPeople, "Talent Sourcer", snBasic},
	{fnPeople, "HR Coordinator", snMid | snJunior}, {fnPeople, "HR Manager", snMid | snSenior},

	{fnOperations, "Operations Manager", snBasic}, {fnOperations, "Business Operations Analyst", snBasic},
	{fnOperations, "Project Manager", snBasic}, {fnOperations, "Program Manager", snMid | snSenior | snPrincipal},
	{fnOperations, "Office Manager", snMid}, {fnOperations, "Supply Chain Analyst", snBasic},
	{fnOperations, "Logistics Coordinator", snBasic}, {fnOperations, "Procurement Specialist", snBasic},
	{fnOperations, "Revenue Operations Manager", snMid | snSenior}, {fnOperations, "Executive Assistant", snMid | snSenior},
	{fnOperations, "Facilities Manager", snMid}, {fnOperations, "Research and Development Coordinator", snMid},

	{fnIT, "IT Support Specialist", snBasic}, {fnIT, "Systems Administrator", snPlus}, {fnIT, "Network Engineer", snPlus},
	{fnIT, "IT Manager", snMid | snSenior}, {fnIT, "Help Desk Technician", snBasic}, {fnIT, "Cloud Engineer", snPlus},
	{fnIT, "Database Administrator", snPlus}, {fnIT, "IT Project Manager", snMid | snSenior},
	{fnIT, "Salesforce Administrator", snBasic}, {fnIT, "Solutions Architect", snMid | snSenior | snPrincipal},

	{fnSecurity, "Security Engineer", snIC}, {fnSecurity, "Security Analyst", snPlus},
	{fnSecurity, "Application Security Engineer", snIC}, {fnSecurity, "Cloud Security Engineer", snIC},
	{fnSecurity, "Penetration Tester", snPlus}, {fnSecurity, "SOC Analyst", snBasic},
	{fnSecurity, "Security Architect", snMid | snSenior | snPrincipal}, {fnSecurity, "GRC Analyst", snBasic},
	{fnSecurity, "Identity & Access Management Engineer", snPlus},
}

var leaders = []leaderDef{
	{fnEngineering, "Engineering Manager", 1.6}, {fnEngineering, "Senior Engineering Manager", 1.8},
	{fnEngineering, "Director of Engineering", 2.1}, {fnEngineering, "Head of Engineering", 2.2}, {fnEngineering, "VP of Engineering", 2.5},
	{fnData, "Head of Data", 2.0}, {fnData, "Data Science Manager", 1.6}, {fnData, "Director of Analytics", 1.9},
	{fnProduct, "Head of Product", 2.1}, {fnProduct, "Director of Product Management", 2.0},
	{fnProduct, "VP of Product", 2.4}, {fnProduct, "Group Product Manager", 1.7},
	{fnDesign, "Design Manager", 1.5}, {fnDesign, "Head of Design", 1.9},
	{fnSales, "Head of Sales", 2.0}, {fnSales, "VP of Sales", 2.4}, {fnSales, "Regional Sales Director", 1.9},
	{fnMarketing, "Head of Marketing", 1.9}, {fnMarketing, "VP of Marketing", 2.3},
	{fnCustomerSuccess, "Head of Customer Success", 1.9}, {fnCustomerSuccess, "Director of Customer Success", 1.8},
	{fnSupport, "Head of Support", 1.8},
	{fnFinance, "Head of Finance", 2.0}, {fnFinance, "Finance Director", 2.0}, {fnFinance, "VP of Finance", 2.3},
	{fnLegal, "General Counsel", 2.2}, {fnLegal, "Head of Legal", 2.1},
	{fnPeople, "Head of People", 1.9}, {fnPeople, "VP of People", 2.2},
	{fnOperations, "Chief of Staff", 1.8}, {fnOperations, "Head of Operations", 1.9}, {fnOperations, "Director of Operations", 1.9},
	{fnIT, "Head of IT", 1.8},
	{fnSecurity, "Head of Security", 2.1}, {fnSecurity, "Chief Information Security Officer", 2.6},
}

// titleDef is one canonical title of the world's title pool.
type titleDef struct {
	name string
	fn   uint8
	pay  float64 // multiplier on functionPay
}

// buildTitles expands roles and leaders into the canonical title pool (deterministic order).
func buildTitles() []titleDef {
	var out []titleDef
	seen := map[string]bool{}
	add := func(t titleDef) {
		if seen[t.name] {
			return
		}
		seen[t.name] = true
		out = append(out, t)
	}
	for _, r := range roles {
		for i, p := range seniorityPrefix {
			if r.ranks&(1<<i) == 0 {
				continue
			}
			add(titleDef{name: p + r.name, fn: uint8(r.fn), pay: seniorityPay[i]})
		}
	}
	for _, l := range leaders {
		add(titleDef{name: l.name, fn: uint8(l.fn), pay: l.pay})
	}
	return out
}
