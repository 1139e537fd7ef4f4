package normalize

// Classify: title → function id by ordered keyword rules.
//
// The title is normalised exactly as for TitleKey (gender tag and location
// suffix dropped, abbreviations expanded, compounds joined), then every rule
// phrase found as consecutive words competes and the earliest rule in
// classifyRules wins. The list runs from most to least specific: role phrases
// that cut across domains first ("Technical Recruiter" is People, "Sales
// Engineer" is Sales, "Support Engineer" is Support, "IT Support" is IT),
// then each function's specific phrases, then lone domain words ("sales",
// "data", "security"), and the bare "engineer"/"developer" last.

type classifyRule struct {
	id      string
	phrases []string // normalised words joined by single spaces
}

var classifyRules = []classifyRule{
	// Role phrases that win whatever domain they recruit, sell or support for.
	{idRecruiting, []string{"recruiter", "recruiters", "recruiting", "recruitment", "talent acquisition",
		"sourcer", "talent sourcer", "headhunter", "talent partner", "recruiting coordinator"}},
	{idSalesEng, []string{"sales engineer", "sales engineering", "solutions engineer", "solution engineer",
		"presales", "solutions consultant", "solution consultant", "value engineer"}},
	{idIT, []string{"helpdesk", "service desk", "desktop support", "it support", "it specialist", "it manager",
		"it administrator", "it technician", "it engineer", "it analyst", "it operations", "it director",
		"system administrator", "systems administrator", "sysadmin", "network administrator",
		"end user support", "it service", "chief information officer", "cio", "it project manager",
		"salesforce administrator", "salesforce admin", "crm administrator", "solutions architect", "solution architect",
		"cloud engineer", "network engineer", "network administrator", "database administrator", "dba"}},
	{idSecurity, []string{"security engineer", "security engineering", "security analyst", "security architect",
		"security researcher", "security operations", "security specialist", "security manager",
		"security consultant", "security lead", "application security", "appsec", "infosec",
		"information security", "cybersecurity", "penetration tester", "penetration testing", "pentester",
		"pen tester", "soc analyst", "ciso", "it security", "network security", "cloud security",
		"product security", "privacy engineer", "detection engineer", "threat intelligence",
		"vulnerability", "devsecops", "identity and access management", "offensive security",
		"grc", "governance risk and compliance"}},
	{idSupport, []string{"support engineer", "technical support", "customer support", "support specialist",
		"support agent", "support representative", "support associate", "support analyst",
		"customer service", "customer care", "support manager", "support lead", "support team lead",
		"product support", "application support"}},
	// Engineers who build machine-learning systems are Engineering; scientists and researchers are
	// Data & Analytics (the simulator's taxonomy, TestFunctionAttributionAgainstTruth).
	{idSoftware, []string{"machine learning engineer", "ml engineer", "ai engineer", "mlops engineer"}},
	{idML, []string{"machine learning", "ml engineer", "ml scientist", "ml researcher", "mlops",
		"ai engineer", "ai researcher", "ai scientist", "artificial intelligence", "data scientist",
		"data science", "deep learning", "computer vision", "nlp", "research scientist",
		"applied scientist", "llm", "generative ai", "ml platform"}},
	{idAnalytics, []string{"data engineer", "data engineering", "analytics engineer", "data analyst",
		"data analytics", "business intelligence", "bi analyst", "bi developer", "bi engineer",
		"bi manager", "data architect", "data warehouse", "etl developer", "etl engineer",
		"business analyst", "business analytics", "statistician", "data modeler", "data governance",
		"data quality", "data manager", "head of data", "analytics manager", "insights analyst",
		"reporting analyst", "quantitative analyst", "marketing analyst"}},
	{idDesign, []string{"product designer", "product design", "ux", "user experience", "user researcher",
		"design researcher", "ui designer", "visual designer", "graphic designer", "interaction designer",
		"motion designer", "brand designer", "web designer", "creative director", "art director",
		"illustrator", "designer", "design lead", "head of design", "design director", "design manager",
		"content designer", "service designer", "ui ux", "ux ui"}},
	{idProduct, []string{"product manager", "product owner", "product lead", "head of product",
		"vice president product", "vice president of product", "director of product", "product director",
		"chief product officer", "cpo", "product management", "product operations", "product specialist",
		"product strategy", "product analyst"}},
	{idMarketing, []string{"product marketing", "growth marketing", "marketing manager", "demand generation",
		"demand gen", "seo", "sem", "ppc", "content marketing", "content strategist", "content writer",
		"copywriter", "brand manager", "communications manager", "public relations", "pr manager",
		"social media", "community manager", "field marketing", "lifecycle marketing",
		"marketing operations", "cmo", "chief marketing officer", "events manager", "email marketing",
		"performance marketing", "influencer", "partner marketing"}},
	{idSalesDev, []string{"sdr", "bdr", "sales development", "business development representative",
		"sales development representative", "lead generation"}},
	{idCustSuccess, []string{"customer success", "csm", "client success", "technical account manager",
		"customer experience", "onboarding manager", "onboarding specialist", "implementation manager",
		"implementation consultant", "implementation specialist", "customer onboarding", "renewals",
		"renewal manager", "customer engagement", "client services", "customer relationship manager",
		"account management"}},
	{idSales, []string{"account executive", "ae", "sales manager", "sales director", "sales representative",
		"sales executive", "sales lead", "account manager", "key account manager", "key account",
		"business development", "business developer", "partnerships", "partner manager",
		"channel manager", "alliances", "chief revenue officer", "cro", "sales operations", "inside sales", "field sales", "enterprise sales"}},
	{idFinance, []string{"payroll", "fp and a", "fpa", "financial analyst", "finance manager", "financial controller",
		"controller", "accountant", "accounting", "bookkeeper", "accounts payable", "accounts receivable",
		"treasury", "tax", "auditor", "audit", "cfo", "chief financial officer",
		"billing specialist", "investor relations", "credit analyst", "revenue accountant"}},
	{idLegal, []string{"counsel", "general counsel", "legal counsel", "paralegal", "lawyer", "attorney",
		"solicitor", "legal counsel", "contracts manager", "contract manager", "legal operations", "privacy counsel", "clo", "compliance officer",
		"chief legal officer", "regulatory affairs"}},
	{idHR, []string{"human resources", "hr", "hrbp", "people partner", "people operations",
		"compensation", "benefits", "total rewards", "learning and development", "l and d",
		"talent management", "employee experience", "chro", "chief people officer", "head of people",
		"people and culture", "hris", "hr generalist", "people business partner", "people team"}},
	{idSoftware, []string{"technical program manager"}}, // before Operations' "program manager"
	{idOperations, []string{"chief of staff", "office manager", "executive assistant", "administrative assistant",
		"operations manager", "business operations", "project manager", "program manager",
		"supply chain", "logistics", "procurement", "purchasing", "facilities", "workplace",
		"strategy and operations", "coo", "chief operating officer", "operations analyst", "receptionist",
		"warehouse", "fulfillment", "dispatcher", "office administrator", "operations associate",
		"operations specialist", "revenue operations", "research and development"}},

	// Engineering sub-families.
	{idMobile, []string{"ios", "android", "mobile engineer", "mobile developer", "mobile engineering",
		"react native", "flutter", "swift", "kotlin"}},
	{idFrontend, []string{"frontend", "ui engineer", "ui developer", "ux engineer", "web developer",
		"web engineer", "javascript", "typescript", "react", "angular", "vue", "css"}},
	{idInfra, []string{"devops", "site reliability", "sre", "platform engineer", "platform engineering",
		"infrastructure", "cloud engineer", "cloud architect", "kubernetes", "release engineer",
		"build engineer", "systems engineer", "reliability engineer", "operations engineer",
		"network engineer", "database administrator", "dba", "database engineer"}},
	{idBackend, []string{"backend", "server side", "api", "java", "golang", "go developer", "go engineer",
		"python", "ruby", "rails", "php", "node", "scala", "rust", "cpp", "csharp", "dotnet", "elixir",
		"erlang", "haskell", "clojure", "distributed systems"}},
	{idHardware, []string{"embedded", "firmware", "hardware", "electrical engineer", "mechanical engineer",
		"fpga", "asic", "robotics", "pcb", "rf engineer", "electronics", "silicon"}},
	{idQuality, []string{"qa", "quality assurance", "test engineer", "sdet", "tester", "test automation",
		"quality engineer", "engineer in test", "automation engineer", "test analyst"}},

	{idSoftware, []string{"software engineer", "software developer", "software development engineer",
		"fullstack", "engineering manager", "technical program manager", "tech lead", "technical lead",
		"cto", "chief technology officer", "vice president engineering", "vice president of engineering",
		"head of engineering", "director of engineering", "engineering director", "engineering lead",
		"software architect", "programmer", "swe", "sde"}},

	// Lone domain words.
	{idSecurity, []string{"security", "cyber"}},
	{idML, []string{"ai", "ml"}},
	{idAnalytics, []string{"data", "analytics", "bi"}},
	{idDesign, []string{"design", "ui"}},
	{idSupport, []string{"support"}},
	{idMarketing, []string{"marketing", "content", "brand", "communications"}},
	{idSales, []string{"sales"}},
	{idFinance, []string{"finance", "financial"}},
	{idLegal, []string{"legal", "compliance"}},
	{idHR, []string{"people"}},
	{idOperations, []string{"operations"}},
	{idIT, []string{"it"}},
	{idMobile, []string{"mobile"}},
	{idFrontend, []string{"web"}},
	{idInfra, []string{"platform", "cloud"}},
	{idAnalytics, []string{"analyst"}},

	// Bare engineering words, last.
	{idSoftware, []string{"architect", "developer", "developers", "engineer", "engineers", "engineering",
		"software"}},
}

// classifyEntry is one phrase of classifyRules, indexed by its first word.
type classifyEntry struct {
	phrase string
	prio   int
	id     string
}

// classifyIndex maps a first word to the phrases starting with it. Read-only.
var classifyIndex = func() map[string][]classifyEntry {
	m := make(map[string][]classifyEntry)
	for prio, r := range classifyRules {
		for _, p := range r.phrases {
			first := p
			for i := 0; i < len(p); i++ {
				if p[i] == ' ' {
					first = p[:i]
					break
				}
			}
			m[first] = append(m[first], classifyEntry{phrase: p, prio: prio, id: r.id})
		}
	}
	return m
}()

// Classify returns the function id of a raw title. ok is false when no rule
// matches ("Manager", "Intern").
func Classify(title string) (id string, ok bool) {
	var l lexer
	l.lexTitle(title)
	var wb wordBuf
	l.words(&wb)
	return wb.classify()
}

func (wb *wordBuf) classify() (string, bool) {
	best := len(classifyRules)
	id := ""
	for i := 0; i < wb.nw; i++ {
		entries, found := classifyIndex[string(wb.word(i))]
		if !found {
			continue
		}
		start := wb.w[i][0]
		for _, e := range entries {
			if e.prio >= best {
				continue
			}
			end := start + len(e.phrase)
			if end > wb.nbuf || string(wb.buf[start:end]) != e.phrase ||
				end < wb.nbuf && wb.buf[end] != ' ' {
				continue
			}
			best, id = e.prio, e.id
		}
	}
	return id, id != ""
}
