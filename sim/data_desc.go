package sim

// The wordings of job descriptions, per language. Templates name their variables in braces
// (descVars): {t} the title, {a} the title with its English article ("an iOS Developer"), {co}
// the company, {team} the function, {city}, {hq} the company's home city, {ctry} the country
// in the language ({ctrya} with its article, {ctryg} in the German genitive), {area} the field
// of work, {ind} the industry, {n}, {m}, {yr}, {ppl}, {k} numbers, {x} a list of technologies,
// {lvl} a level, {pay} a pay range, {amt} an amount. A template starting with "|" is a line
// of its own ("Location: Remote (Germany)"), not a sentence of the paragraph around it.
//
// No wording outside the technology, level, employment, workplace, visa and pay templates
// names any of them: company, duties, benefits and equal-opportunity text is the noise a reader
// must not take for a statement (no product names, no "full-time" in a pension benefit, no
// Homeoffice in a German benefit unless the job is hybrid).

// Function groups of the duties and soft requirements.
const (
	grpEng = iota
	grpIT
	grpData
	grpProduct
	grpSales
	grpMarketing
	grpCustomer
	grpBiz
	numGroups
)

var fnGroup = [...]uint8{
	fnEngineering: grpEng, fnData: grpData, fnProduct: grpProduct, fnDesign: grpProduct,
	fnSales: grpSales, fnMarketing: grpMarketing, fnCustomerSuccess: grpCustomer, fnSupport: grpCustomer,
	fnFinance: grpBiz, fnLegal: grpBiz, fnPeople: grpBiz, fnOperations: grpBiz, fnIT: grpIT, fnSecurity: grpIT,
}

// Workplace statements.
const (
	wsOnsite = iota
	wsHybrid
	wsRemoteIn
	wsRemoteAny
	numWS
)

type langText struct {
	heads       [numParts][]string
	aboutOpen   []string
	aboutGrowth []string
	aboutMore   []string
	hire        []string
	hireNoCity  []string
	roleMore    []string
	work        [numWS][]string
	hybridItem  []string
	senSentence []string  // {lvl}
	senLabel    []string  // {lvl}
	lvl         [3]string // junior, mid, senior as the text names them
	emp         [numEmpTypes][]string
	empItem     [numEmpTypes][]string
	duties      [numGroups][]string
	dutyTech    [2][]string // technical functions, the others: {x}
	years       []string    // {n}, {area}
	yearsRange  []string    // {n}, {m}, {area}
	techReq     [2][]string // {x}
	techNice    []string    // items of a nice-to-have section
	niceYears   []string    // a nice-to-have about the industry ({n} years: never the minimum asked)
	niceInline  []string    // a nice-to-have among the requirements
	soft        [numGroups][]string
	langSkill   []string
	areas       [len(functionNames)]string
	benefits    []string // {n} days off
	budget      []string // {amt}
	payLine     []string // {pay}
	payItem     []string
	payPara     []string // under a compensation heading
	perYear     []string
	perMonth    []string
	perHour     []string
	visaYes     []string
	visaNo      []string
	apply       []string
	process     []string // the hiring process, noise of the closing
	eeo         []string
	and         string
	// Number format: thousands and decimal separators; a currency symbol before the figure
	// (English) or after it.
	thousands, decimal string
	symAfter           bool
}

var descTexts = [numLangs]langText{
	langEN: {
		heads: [numParts][]string{
			pAbout:    {"About us", "Who we are", "About the company", "Our story"},
			pRole:     {"The role", "About the role", "The opportunity", "Your role"},
			pDuties:   {"What you'll do", "Responsibilities", "Your responsibilities", "Key responsibilities", "What you will be doing"},
			pReq:      {"What we're looking for", "Requirements", "About you", "What you'll bring", "Qualifications", "Who you are"},
			pNice:     {"Nice to have", "Bonus points", "Preferred qualifications", "Nice-to-haves"},
			pBenefits: {"What we offer", "Benefits", "Perks and benefits", "Why join us", "What's in it for you"},
			pPay:      {"Compensation", "Salary", "Pay range"},
			pClosing:  {"How to apply"},
			pEEO:      {"Equal opportunity", "Diversity and inclusion", "Equal Opportunity Employer"},
		},
		aboutOpen: []string{
			"{co} is a {ind} company headquartered in {hq}.",
			"At {co}, we build products that help {ind} businesses work smarter.",
			"{co} is on a mission to make {ind} simpler for everyone.",
		},
		aboutGrowth: []string{
			"Founded in {yr}, we have grown to more than {ppl} people across {k} offices.",
			"Today, more than {ppl} colleagues serve thousands of customers worldwide.",
			"Since {yr}, we have helped companies in more than {k} countries.",
		},
		aboutMore: []string{
			"We have raised ${m} million from leading investors.",
			"Our senior leadership team brings decades of experience in {ind}.",
			"With over {n} years of experience, we know our customers well.",
			"We are profitable and have grown every year since we started.",
		},
		hire: []string{
			"We are looking for {a} to join our {team} team in {city}.",
			"{co} is hiring {a} for our {team} team in {city}.",
			"As {a} in our {team} team in {city}, you will help shape how we grow.",
		},
		hireNoCity: []string{
			"We are looking for {a} to join our {team} team.",
			"{co} is hiring {a} for our {team} team.",
			"Join our {team} team as {a} and help shape how we grow.",
		},
		roleMore: []string{
			"You will work closely with people across the business and have real impact from day one.",
			"You'll have the autonomy to make decisions and the support to grow.",
			"This is a great opportunity to help build something that matters.",
		},
		work: [numWS][]string{
			wsOnsite:    {"This is an office-based role in {city}.", "This role is on-site at our {city} office.", "You will work on-site in {city}."},
			wsHybrid:    {"We work in a hybrid model, with {n} days a week in our {city} office.", "This is a hybrid role: {n} days a week in the {city} office, the rest from home.", "|Hybrid working: at least {n} days a week in the office"},
			wsRemoteIn:  {"This is a fully remote position open to candidates based in {ctry}.", "You will work remotely from anywhere in {ctry}.", "|Location: Remote ({ctry})"},
			wsRemoteAny: {"This is a fully remote role.", "We are a remote-first company and this position is fully remote.", "|Location: Remote"},
		},
		hybridItem:  []string{"Hybrid working: {n} days a week in our {city} office", "A hybrid model with {n} office days a week in {city}"},
		senSentence: []string{"This is {lvla} role.", "This is {lvla} position."},
		senLabel:    []string{"|Seniority: {Lvl}", "|Experience level: {Lvl}"},
		lvl:         [3]string{"entry-level", "mid-level", "senior-level"},
		emp: [numEmpTypes][]string{
			empFullTime:   {"This is a full-time, permanent position.", "|Employment type: Full-time", "We offer a permanent, full-time contract."},
			empPartTime:   {"This is a part-time position ({n} hours per week).", "|Employment type: Part-time ({n} hours per week)"},
			empContract:   {"This is a {m}-month contract role with the possibility of extension.", "|Employment type: Contract role, {m} months"},
			empTemporary:  {"This is a fixed-term contract for {m} months.", "|Employment type: Temporary position ({m} months)"},
			empInternship: {"This is a {m}-month internship.", "|Employment type: Internship ({m} months)"},
		},
		empItem: [numEmpTypes][]string{
			empFullTime: {"A permanent, full-time contract", "Full-time employment with a permanent contract"},
			empPartTime: {"A part-time role of {n} hours per week"},
		},
		duties: [numGroups][]string{
			grpEng: {
				"Design, build and maintain reliable, well-tested services",
				"Own features end to end, from technical design to production",
				"Review code and share knowledge with your teammates",
				"Improve the performance, observability and security of our systems",
				"Work closely with product and design to shape what we build next",
				"Help us keep our architecture simple as we scale",
			},
			grpIT: {
				"Manage accounts, devices and access for a growing team",
				"Monitor our systems, investigate alerts and respond to incidents",
				"Harden our infrastructure and keep it in line with our security policies",
				"Document processes and automate recurring tasks",
				"Support colleagues with technical questions and onboarding",
				"Work with engineering to reduce risk across our platform",
			},
			grpData: {
				"Turn business questions into analyses and clear recommendations",
				"Build and maintain reliable data models",
				"Define and track the metrics that matter for our teams",
				"Partner with product, finance and operations on data-driven decisions",
				"Communicate findings to technical and non-technical audiences",
				"Improve data quality, documentation and self-service reporting",
			},
			grpProduct: {
				"Talk to customers regularly and turn their problems into clear priorities",
				"Work closely with engineering and design from discovery to launch",
				"Define success metrics and learn from every release",
				"Create prototypes, flows and specifications the team can build on",
				"Own the roadmap for your area and communicate it across the company",
				"Contribute to our design system and product principles",
			},
			grpSales: {
				"Own the full sales cycle, from first conversation to close",
				"Build and manage a healthy pipeline of qualified opportunities",
				"Run discovery calls and product demos with prospects",
				"Work with marketing and customer success to grow accounts",
				"Forecast accurately and keep your account data up to date",
				"Represent us at industry events and customer meetings",
			},
			grpMarketing: {
				"Plan and run campaigns across paid, owned and earned channels",
				"Create content that speaks to our customers' problems",
				"Work with sales to generate and convert qualified leads",
				"Measure performance and report on what works",
				"Manage agencies and your own budget",
				"Keep our brand consistent across every touchpoint",
			},
			grpCustomer: {
				"Onboard new customers and make sure they succeed from day one",
				"Be the first point of contact for customer questions and issues",
				"Build strong relationships with key stakeholders at our customers",
				"Identify risks early and work with the team to resolve them",
				"Share customer feedback with product and engineering",
				"Write and maintain help center articles",
			},
			grpBiz: {
				"Own and improve the processes of your area as we grow",
				"Prepare reports and analyses for the leadership team",
				"Work with teams across the company to solve problems pragmatically",
				"Make sure we stay compliant with local regulations",
				"Keep documentation accurate and up to date",
				"Support audits, planning cycles and company-wide projects",
			},
		},
		dutyTech: [2][]string{
			{"Develop and run our services using {x}", "Build new features using {x}", "Design systems using {x} that scale with our customers"},
			{"Use {x} daily to manage your work", "Keep our processes running smoothly using {x}"},
		},
		years:      []string{"{n}+ years of experience in {area}", "At least {n} years of professional experience in {area}", "{n}+ years of relevant work experience"},
		yearsRange: []string{"{n}–{m} years of experience in {area}", "{n} to {m} years of experience in a similar role"},
		techReq: [2][]string{
			{"Strong experience with {x}", "Hands-on experience with {x}", "Solid knowledge of {x}", "Proficiency in {x}", "Production experience with {x}"},
			{"Experience with {x}", "Working knowledge of {x}", "Practical experience with {x}"},
		},
		techNice:   []string{"Experience with {x}", "Familiarity with {x}", "Knowledge of {x}"},
		niceYears:  []string{"{n}+ years in the {ind} industry", "Experience in {ind}"},
		niceInline: []string{"Experience with {x} is a plus", "Knowledge of {x} would be a plus", "Familiarity with {x} is nice to have"},
		soft: [numGroups][]string{
			grpEng:       {"A pragmatic, product-minded approach to engineering", "Clear written and verbal communication", "A degree in computer science or equivalent practical experience", "You enjoy mentoring others and learning from them"},
			grpIT:        {"A structured, service-oriented way of working", "Good judgement when it comes to security and privacy", "Clear communication with technical and non-technical colleagues"},
			grpData:      {"Strong analytical and problem-solving skills", "The ability to explain complex findings simply", "A degree in a quantitative field such as statistics or economics"},
			grpProduct:   {"Excellent communication and stakeholder management", "A strong sense of ownership and attention to detail", "A portfolio or track record of shipped work"},
			grpSales:     {"A track record of meeting or exceeding targets", "Excellent negotiation and presentation skills", "Genuine curiosity about our customers' businesses"},
			grpMarketing: {"Strong writing skills and an eye for detail", "A data-driven approach to experiments", "A collaborative mindset and a bias for action"},
			grpCustomer:  {"Empathy and patience with customers", "Excellent written communication", "The ability to prioritise in a busy environment"},
			grpBiz:       {"Strong organisational skills and attention to detail", "Confidence working with stakeholders across the company", "A degree in a relevant field or equivalent experience"},
		},
		langSkill: []string{"Fluent English, written and spoken"},
		areas: [...]string{"software engineering", "data and analytics", "product management", "product or visual design",
			"B2B sales", "B2B marketing", "customer success or account management", "customer support",
			"finance or accounting", "a legal role", "HR or people operations", "operations", "IT administration",
			"information security"},
		benefits: []string{
			"{n} days of paid vacation plus public holidays",
			"Private health insurance for you and your family",
			"A company pension plan",
			"Paid parental leave",
			"The latest equipment of your choice",
			"Regular team events and a yearly offsite",
			"Flexible working hours",
			"Mental health support",
			"Stock options so you share in our success",
			"Mentoring and regular feedback from senior colleagues",
		},
		budget:   []string{"An annual learning budget of {amt}", "A home office budget of {amt}"},
		payLine:  []string{"The base salary range for this role is {pay}.", "|Salary: {pay}", "|Compensation: {pay}", "We offer a salary of {pay}, depending on experience."},
		payItem:  []string{"A competitive salary of {pay}", "Salary: {pay}"},
		payPara:  []string{"The salary range for this position is {pay}. Final offers depend on experience and location.", "{pay}, plus benefits."},
		perYear:  []string{"per year", "per annum", "a year", "annually"},
		perMonth: []string{"per month", "a month"},
		perHour:  []string{"per hour", "an hour"},
		visaYes:  []string{"Visa sponsorship is available for this position.", "We offer visa sponsorship and relocation support."},
		visaNo:   []string{"We are unable to sponsor work visas for this role.", "Please note that we cannot offer visa sponsorship for this position.", "Applicants must already have the right to work in {ctry}; we do not sponsor visas."},
		apply:    []string{"Sounds like you? We'd love to hear from you.", "Apply with your CV, no cover letter needed.", "Please apply through our careers page."},
		process: []string{
			"Our hiring process is simple: an intro call, a conversation with the hiring manager, a practical exercise and a final interview with the team.",
			"We review every application and aim to get back to you within two weeks.",
			"We keep our interviews practical and respectful of your time, and we share feedback at every stage.",
		},
		eeo: []string{
			"We are an equal opportunity employer and value diversity at our company. We do not discriminate on the basis of race, religion, color, national origin, gender, sexual orientation, age, marital status, veteran status, or disability status.",
			"{co} is committed to building a diverse and inclusive team. We welcome applications from people of all backgrounds and will provide reasonable accommodations during the hiring process.",
		},
		and:       "and",
		thousands: ",", decimal: ".",
	},
	langDE: {
		heads: [numParts][]string{
			pAbout:    {"Über uns", "Wer wir sind", "Das sind wir"},
			pRole:     {"Deine Rolle", "Stellenbeschreibung", "Ihre Rolle"},
			pDuties:   {"Deine Aufgaben", "Ihre Aufgaben", "Das erwartet dich", "Was dich erwartet"},
			pReq:      {"Dein Profil", "Das bringst du mit", "Anforderungen", "Was du mitbringst", "Ihr Profil"},
			pNice:     {"Wünschenswert", "Von Vorteil", "Pluspunkte"},
			pBenefits: {"Wir bieten", "Das bieten wir", "Deine Vorteile", "Unser Angebot"},
			pPay:      {"Gehalt", "Vergütung"},
			pClosing:  {"Bewerbung"},
			pEEO:      {"Chancengleichheit"},
		},
		aboutOpen: []string{
			"{co} ist ein Unternehmen aus der Branche {ind} mit Sitz in {hq}.",
			"Bei {co} entwickeln wir Lösungen für Kunden aus der Branche {ind}.",
		},
		aboutGrowth: []string{
			"Seit der Gründung im Jahr {yr} sind wir auf über {ppl} Mitarbeitende an {k} Standorten gewachsen.",
			"Heute arbeiten mehr als {ppl} Menschen für uns.",
		},
		aboutMore: []string{
			"Seit über {n} Jahren unterstützen wir den Mittelstand.",
			"Im letzten Jahr haben wir {m} Millionen Euro Wachstumskapital eingesammelt.",
			"Wir wachsen nachhaltig und sind seit Jahren profitabel.",
		},
		hire: []string{
			"Zur Verstärkung unseres {team}-Teams in {city} suchen wir dich als {t}.",
			"Wir suchen eine:n {t} (m/w/d) für unser {team}-Team in {city}.",
		},
		hireNoCity: []string{
			"Zur Verstärkung unseres {team}-Teams suchen wir dich als {t}.",
			"Wir suchen eine:n {t} (m/w/d) für unser {team}-Team.",
		},
		roleMore: []string{
			"Du arbeitest eng mit Kolleginnen und Kollegen aus allen Bereichen zusammen.",
			"Dich erwarten flache Hierarchien und viel Gestaltungsspielraum.",
		},
		work: [numWS][]string{
			wsOnsite:    {"Die Tätigkeit erfolgt vor Ort in unserem Büro in {city}.", "|Arbeitsort: {city} (vor Ort)"},
			wsHybrid:    {"|Hybrides Arbeiten: {n} Tage pro Woche im Büro in {city}, den Rest mobil", "Mobiles Arbeiten ist bei uns möglich, an {n} Tagen pro Woche bist du im Büro in {city}."},
			wsRemoteIn:  {"Die Stelle ist zu 100% remote innerhalb {ctryg} möglich.", "|Arbeitsort: Remote ({ctry})"},
			wsRemoteAny: {"Du arbeitest komplett remote.", "|100% Homeoffice möglich"},
		},
		hybridItem:  []string{"Hybrides Arbeiten: {n} Tage pro Woche im Büro in {city}, den Rest mobil"},
		senSentence: []string{"|Karrierestufe: {Lvl}"},
		senLabel:    []string{"|Karrierestufe: {Lvl}"},
		lvl:         [3]string{"Berufseinsteiger", "Mid-Level", "Senior-Level"},
		emp: [numEmpTypes][]string{
			empFullTime:   {"Es handelt sich um eine unbefristete Festanstellung in Vollzeit.", "|Anstellungsart: Festanstellung in Vollzeit"},
			empPartTime:   {"Die Stelle ist in Teilzeit ({n} Stunden pro Woche) zu besetzen.", "|Anstellungsart: Teilzeit ({n} Stunden pro Woche)"},
			empContract:   {"Die Zusammenarbeit erfolgt freiberuflich für zunächst {m} Monate.", "|Anstellungsart: freiberuflich, {m} Monate"},
			empTemporary:  {"Die Stelle ist auf {m} Monate befristet.", "|Anstellungsart: befristet auf {m} Monate"},
			empInternship: {"Wir bieten ein Praktikum für {m} Monate.", "|Anstellungsart: Praktikum ({m} Monate)"},
		},
		empItem: [numEmpTypes][]string{
			empFullTime: {"Unbefristete Festanstellung in Vollzeit", "Einen unbefristeten Arbeitsvertrag in Vollzeit"},
			empPartTime: {"Teilzeit mit {n} Stunden pro Woche"},
		},
		duties: [numGroups][]string{
			grpEng: {
				"Konzeption, Entwicklung und Betrieb zuverlässiger Services",
				"Verantwortung für Features von der technischen Konzeption bis zum Betrieb",
				"Code Reviews und Wissensaustausch im Team",
				"Verbesserung von Performance, Monitoring und Sicherheit unserer Systeme",
				"Enge Zusammenarbeit mit Produkt und Design",
			},
			grpIT: {
				"Verwaltung von Benutzerkonten, Geräten und Zugriffsrechten",
				"Überwachung unserer Systeme und Bearbeitung von Störungen",
				"Umsetzung unserer Sicherheitsrichtlinien",
				"Dokumentation und Automatisierung wiederkehrender Aufgaben",
				"Unterstützung der Kolleginnen und Kollegen bei technischen Fragen",
			},
			grpData: {
				"Analyse von Geschäftsfragen und Ableitung klarer Empfehlungen",
				"Aufbau und Pflege zuverlässiger Datenmodelle",
				"Definition und Monitoring zentraler Kennzahlen",
				"Zusammenarbeit mit Produkt, Finanzen und Operations",
				"Verständliche Aufbereitung von Ergebnissen für alle Zielgruppen",
			},
			grpProduct: {
				"Regelmäßiger Austausch mit Kundinnen und Kunden",
				"Enge Zusammenarbeit mit Engineering und Design von der Idee bis zum Launch",
				"Definition von Erfolgskennzahlen für jedes Release",
				"Erstellung von Prototypen, Konzepten und Spezifikationen",
				"Verantwortung für die Roadmap deines Bereichs",
			},
			grpSales: {
				"Verantwortung für den gesamten Vertriebszyklus",
				"Aufbau und Pflege einer gesunden Pipeline",
				"Durchführung von Bedarfsanalysen und Produktdemos",
				"Zusammenarbeit mit Marketing und Customer Success",
				"Präsenz auf Messen und bei Kundenterminen",
			},
			grpMarketing: {
				"Planung und Umsetzung von Kampagnen über alle Kanäle",
				"Erstellung von Inhalten für unsere Zielgruppen",
				"Zusammenarbeit mit dem Vertrieb bei der Leadgenerierung",
				"Messung und Reporting der Kampagnenergebnisse",
				"Steuerung von Agenturen und des eigenen Budgets",
			},
			grpCustomer: {
				"Onboarding neuer Kundinnen und Kunden",
				"Erste Ansprechperson für Fragen und Anliegen",
				"Aufbau vertrauensvoller Beziehungen zu unseren Kunden",
				"Weitergabe von Kundenfeedback an Produkt und Entwicklung",
				"Pflege unseres Hilfe-Centers",
			},
			grpBiz: {
				"Weiterentwicklung der Prozesse deines Bereichs",
				"Erstellung von Berichten und Analysen für die Geschäftsführung",
				"Bereichsübergreifende Zusammenarbeit mit allen Teams",
				"Sicherstellung der Einhaltung gesetzlicher Vorgaben",
				"Unterstützung bei Audits und unternehmensweiten Projekten",
			},
		},
		dutyTech: [2][]string{
			{"Entwicklung und Betrieb unserer Services mit {x}", "Weiterentwicklung unserer Services mit {x}"},
			{"Tägliche Arbeit mit Tools wie {x}"},
		},
		years:      []string{"Mindestens {n} Jahre Berufserfahrung im Bereich {area}", "{n}+ Jahre einschlägige Berufserfahrung"},
		yearsRange: []string{"{n}–{m} Jahre Berufserfahrung im Bereich {area}"},
		techReq: [2][]string{
			{"Sehr gute Kenntnisse in {x}", "Praktische Erfahrung mit {x}", "Fundierte Kenntnisse in {x}"},
			{"Erfahrung mit {x}", "Gute Kenntnisse in {x}"},
		},
		techNice:   []string{"Erfahrung mit {x}", "Kenntnisse in {x}"},
		niceInline: []string{"Erfahrung mit {x} ist von Vorteil", "Kenntnisse in {x} sind wünschenswert"},
		soft: [numGroups][]string{
			grpEng:       {"Abgeschlossenes Studium der Informatik oder eine vergleichbare Ausbildung", "Teamfähigkeit und eine strukturierte Arbeitsweise"},
			grpIT:        {"Eine strukturierte und serviceorientierte Arbeitsweise", "Verantwortungsbewusstsein im Umgang mit sensiblen Daten"},
			grpData:      {"Ausgeprägte analytische Fähigkeiten", "Abgeschlossenes Studium mit quantitativem Schwerpunkt"},
			grpProduct:   {"Ausgeprägte Kommunikationsstärke", "Hohe Eigenverantwortung und Liebe zum Detail"},
			grpSales:     {"Nachweisbare Vertriebserfolge", "Verhandlungsgeschick und Überzeugungskraft"},
			grpMarketing: {"Sehr gute Schreibfähigkeiten", "Eine datengetriebene Arbeitsweise"},
			grpCustomer:  {"Empathie und Geduld im Umgang mit Kunden", "Eine strukturierte Arbeitsweise"},
			grpBiz:       {"Organisationstalent und Sorgfalt", "Abgeschlossenes Studium oder eine vergleichbare Ausbildung"},
		},
		langSkill: []string{"Sehr gute Deutsch- und Englischkenntnisse", "Verhandlungssicheres Deutsch und gutes Englisch"},
		areas: [...]string{"Softwareentwicklung", "Datenanalyse", "Produktmanagement", "Design", "B2B-Vertrieb", "Marketing",
			"Customer Success", "Kundensupport", "Finanzen oder Rechnungswesen", "Recht", "HR", "Operations",
			"IT-Administration", "IT-Sicherheit"},
		benefits: []string{
			"{n} Tage Urlaub",
			"Betriebliche Altersvorsorge",
			"Zuschuss zum Deutschlandticket",
			"JobRad-Leasing",
			"Moderne Ausstattung",
			"Regelmäßige Teamevents",
			"Flexible Arbeitszeiten",
			"Mitgliedschaft bei Urban Sports Club",
		},
		budget:   []string{"Ein Weiterbildungsbudget von {amt} pro Jahr"},
		payLine:  []string{"|Gehalt: {pay}", "Das Gehalt für diese Position liegt bei {pay}.", "|Vergütung: {pay}"},
		payItem:  []string{"Ein Gehalt von {pay}", "Jahresgehalt: {pay}"},
		payPara:  []string{"Das Gehalt für diese Position liegt bei {pay}, abhängig von deiner Erfahrung."},
		perYear:  []string{"brutto pro Jahr", "pro Jahr", "brutto im Jahr"},
		perMonth: []string{"brutto pro Monat", "pro Monat"},
		perHour:  []string{"pro Stunde"},
		visaYes:  []string{"Visa-Sponsoring und Unterstützung beim Umzug sind möglich."},
		visaNo:   []string{"Leider können wir kein Visa-Sponsoring anbieten."},
		apply:    []string{"Wir freuen uns auf deine Bewerbung!", "Bewirb dich jetzt mit deinem Lebenslauf."},
		process: []string{
			"Unser Bewerbungsprozess: ein kurzes Kennenlernen, ein Fachgespräch mit dem Team und ein abschließendes Gespräch mit der Geschäftsführung.",
			"Wir melden uns innerhalb von zwei Wochen bei dir.",
		},
		eeo: []string{
			"Wir freuen uns über Bewerbungen von Menschen jeden Geschlechts, jeder Herkunft, Religion und sexuellen Identität, mit und ohne Behinderung.",
		},
		and:       "und",
		thousands: ".", decimal: ",", symAfter: true,
	},
	langFR: {
		heads: [numParts][]string{
			pAbout:    {"À propos de nous", "Qui sommes-nous ?"},
			pRole:     {"Le poste", "Description du poste"},
			pDuties:   {"Vos missions", "Tes missions", "Missions"},
			pReq:      {"Profil recherché", "Votre profil", "Compétences requises", "Ce que nous recherchons"},
			pNice:     {"Les plus", "Atouts", "Compétences appréciées"},
			pBenefits: {"Ce que nous offrons", "Avantages", "Pourquoi nous rejoindre ?"},
			pPay:      {"Rémunération", "Salaire"},
			pClosing:  {"Candidature"},
			pEEO:      {"Diversité"},
		},
		aboutOpen: []string{
			"{co} est une entreprise du secteur {ind} basée à {hq}.",
			"Chez {co}, nous aidons les entreprises du secteur {ind} à mieux travailler.",
		},
		aboutGrowth: []string{
			"Fondée en {yr}, l'entreprise compte aujourd'hui plus de {ppl} collaborateurs.",
			"Nous sommes aujourd'hui plus de {ppl} personnes réparties dans {k} bureaux.",
		},
		aboutMore: []string{
			"Depuis plus de {n} ans, nous accompagnons nos clients dans leur croissance.",
			"Nous avons réalisé une levée de fonds de {m} millions d'euros.",
		},
		hire: []string{
			"Nous recherchons un(e) {t} pour rejoindre notre équipe {team} à {city}.",
			"Dans le cadre de notre croissance, nous recrutons un(e) {t} pour notre équipe {team} à {city}.",
		},
		hireNoCity: []string{
			"Nous recherchons un(e) {t} pour rejoindre notre équipe {team}.",
		},
		roleMore: []string{
			"Vous travaillerez en étroite collaboration avec l'ensemble des équipes.",
			"Vous aurez une vraie autonomie et un impact direct sur notre croissance.",
		},
		work: [numWS][]string{
			wsOnsite:    {"Poste en présentiel à {city}.", "|Lieu : {city} (présentiel)"},
			wsHybrid:    {"Télétravail partiel : {n} jours de télétravail par semaine.", "Modèle hybride : {n} jours par semaine au bureau de {city}."},
			wsRemoteIn:  {"Télétravail complet possible depuis {ctrya}.", "|Lieu : Remote ({ctry})"},
			wsRemoteAny: {"Ce poste est en full remote.", "|100% télétravail"},
		},
		hybridItem:  []string{"Télétravail partiel : {n} jours de télétravail par semaine"},
		senSentence: []string{"|Niveau : {Lvl}"},
		senLabel:    []string{"|Niveau : {Lvl}"},
		lvl:         [3]string{"Débutant", "Confirmé", "Senior"},
		emp: [numEmpTypes][]string{
			empFullTime:   {"Il s'agit d'un CDI à temps plein.", "|Type de contrat : CDI à temps plein"},
			empPartTime:   {"Poste en CDI à temps partiel ({n} heures par semaine).", "|Type de contrat : CDI à temps partiel"},
			empContract:   {"Il s'agit d'une mission freelance de {m} mois.", "|Type de contrat : mission freelance ({m} mois)"},
			empTemporary:  {"Il s'agit d'un CDD de {m} mois.", "|Type de contrat : CDD de {m} mois"},
			empInternship: {"Il s'agit d'un stage de {m} mois.", "|Type de contrat : stage conventionné de {m} mois"},
		},
		empItem: [numEmpTypes][]string{
			empFullTime: {"Un CDI à temps plein"},
		},
		duties: [numGroups][]string{
			grpEng: {
				"Concevoir, développer et maintenir des services fiables",
				"Prendre en charge des fonctionnalités de la conception à la mise en production",
				"Participer aux revues de code et au partage de connaissances",
				"Améliorer la performance et la sécurité de nos systèmes",
				"Travailler main dans la main avec les équipes produit et design",
				"Contribuer aux choix d'architecture de la plateforme",
			},
			grpIT: {
				"Gérer les comptes, les postes de travail et les accès",
				"Surveiller nos systèmes et traiter les incidents",
				"Appliquer notre politique de sécurité",
				"Documenter et automatiser les tâches récurrentes",
				"Accompagner les collaborateurs sur leurs questions techniques",
			},
			grpData: {
				"Traduire les questions métier en analyses et en recommandations",
				"Construire et maintenir des modèles de données fiables",
				"Définir et suivre les indicateurs clés",
				"Présenter vos résultats à des publics variés",
				"Améliorer la qualité et la documentation des données",
			},
			grpProduct: {
				"Échanger régulièrement avec nos clients",
				"Travailler avec les équipes techniques et design de la découverte au lancement",
				"Définir les indicateurs de succès de chaque lancement",
				"Porter la feuille de route de votre périmètre",
				"Rédiger des spécifications claires avec l'équipe",
			},
			grpSales: {
				"Gérer l'ensemble du cycle de vente",
				"Développer un portefeuille d'opportunités qualifiées",
				"Mener des rendez-vous de découverte et des démonstrations",
				"Collaborer avec le marketing et le customer success",
				"Représenter l'entreprise lors d'événements professionnels",
			},
			grpMarketing: {
				"Piloter des campagnes sur l'ensemble des canaux",
				"Créer du contenu pour nos cibles",
				"Travailler avec les ventes sur la génération de leads",
				"Mesurer et présenter les résultats",
				"Veiller à la cohérence de notre marque",
			},
			grpCustomer: {
				"Accompagner les nouveaux clients lors de leur démarrage",
				"Être le premier point de contact de nos clients",
				"Remonter les retours clients aux équipes produit",
				"Rédiger et mettre à jour notre centre d'aide",
				"Construire des relations durables avec nos clients",
			},
			grpBiz: {
				"Améliorer les processus de votre périmètre",
				"Préparer des rapports et des analyses pour la direction",
				"Travailler avec toutes les équipes de l'entreprise",
				"Veiller au respect de la réglementation",
				"Participer aux audits et aux projets transverses",
			},
		},
		dutyTech: [2][]string{
			{"Développer nos services avec {x}", "Développement de notre plateforme avec {x}"},
			{"Nous utilisons {x} au quotidien"},
		},
		years:      []string{"Au moins {n} ans d'expérience en {area}", "Une expérience de {n} ans minimum sur un poste similaire"},
		yearsRange: []string{"{n} à {m} ans d'expérience en {area}"},
		techReq: [2][]string{
			{"Maîtrise de {x}", "Bonne connaissance de {x}", "Une solide expérience avec {x}"},
			{"Connaissance de {x}", "Expérience avec {x}"},
		},
		techNice:   []string{"Connaissance de {x}", "Expérience avec {x}"},
		niceInline: []string{"La connaissance de {x} est un plus", "Une expérience avec {x} serait appréciée"},
		soft: [numGroups][]string{
			grpEng:       {"Diplôme d'ingénieur ou équivalent", "Esprit d'équipe et rigueur"},
			grpIT:        {"Rigueur et sens du service", "Discrétion dans le traitement des données sensibles"},
			grpData:      {"Excellentes capacités d'analyse", "Formation supérieure à dominante quantitative"},
			grpProduct:   {"Excellentes qualités de communication", "Sens de l'autonomie et du détail"},
			grpSales:     {"Des résultats commerciaux démontrés", "Aisance en négociation"},
			grpMarketing: {"Excellentes qualités rédactionnelles", "Approche orientée données"},
			grpCustomer:  {"Empathie et sens du service", "Excellente communication écrite"},
			grpBiz:       {"Sens de l'organisation et rigueur", "Formation supérieure dans un domaine pertinent"},
		},
		langSkill: []string{"Anglais courant", "Très bon niveau d'anglais"},
		areas: [...]string{"développement logiciel", "analyse de données", "gestion de produit", "design", "vente B2B", "marketing",
			"customer success", "support client", "finance ou comptabilité", "juridique", "ressources humaines",
			"opérations", "administration des systèmes", "sécurité informatique"},
		benefits: []string{
			"{n} jours de congés payés",
			"Mutuelle prise en charge à 100 %",
			"Tickets restaurant",
			"Afterworks et séminaires d'équipe",
			"Horaires flexibles",
			"Matériel de qualité",
		},
		budget:   []string{"Budget formation de {amt} par an"},
		payLine:  []string{"|Rémunération : {pay}", "Le salaire pour ce poste est de {pay}."},
		payItem:  []string{"Un salaire de {pay}"},
		payPara:  []string{"Le salaire pour ce poste est de {pay}, selon expérience."},
		perYear:  []string{"bruts annuels", "par an"},
		perMonth: []string{"bruts mensuels", "par mois"},
		perHour:  []string{"de l'heure", "par heure"},
		visaYes:  []string{"Nous proposons un parrainage de visa si nécessaire."},
		visaNo:   []string{"Nous ne pouvons pas sponsoriser de visa pour ce poste."},
		apply:    []string{"Envie de nous rejoindre ? Postulez dès maintenant !"},
		process: []string{
			"Notre processus de recrutement : un premier échange, un entretien avec l'équipe et une rencontre avec la direction.",
			"Nous répondons à chaque candidature sous deux semaines.",
		},
		eeo: []string{
			"Nous nous engageons pour la diversité et l'égalité des chances ; tous nos postes sont ouverts aux personnes en situation de handicap.",
		},
		and:       "et",
		thousands: " ", decimal: ",", symAfter: true,
	},
	langES: {
		heads: [numParts][]string{
			pAbout:    {"Sobre nosotros", "Quiénes somos"},
			pRole:     {"El puesto", "Descripción del puesto"},
			pDuties:   {"Tus funciones", "Responsabilidades", "¿Qué harás?"},
			pReq:      {"Requisitos", "Lo que buscamos", "Perfil buscado"},
			pNice:     {"Valorable", "Deseable", "Se valorará"},
			pBenefits: {"Ofrecemos", "¿Qué ofrecemos?", "Beneficios"},
			pPay:      {"Salario", "Retribución"},
			pClosing:  {"Candidatura"},
			pEEO:      {"Igualdad de oportunidades"},
		},
		aboutOpen: []string{
			"{co} es una empresa del sector {ind} con sede en {hq}.",
			"En {co} ayudamos a empresas del sector {ind} a crecer.",
		},
		aboutGrowth: []string{
			"Desde {yr} hemos crecido hasta más de {ppl} personas.",
			"Hoy somos más de {ppl} profesionales en {k} oficinas.",
		},
		aboutMore: []string{
			"Desde hace más de {n} años ayudamos a empresas de toda Europa.",
			"Recientemente cerramos una ronda de financiación de {m} millones de euros.",
		},
		hire: []string{
			"Buscamos un/a {t} para unirse a nuestro equipo de {team} en {city}.",
			"Estamos buscando un/a {t} para nuestro equipo de {team} en {city}.",
		},
		hireNoCity: []string{
			"Buscamos un/a {t} para unirse a nuestro equipo de {team}.",
		},
		roleMore: []string{
			"Trabajarás en estrecha colaboración con todos los equipos de la empresa.",
			"Tendrás autonomía real y un impacto directo en nuestro crecimiento.",
		},
		work: [numWS][]string{
			wsOnsite:    {"Trabajo presencial en nuestra oficina de {city}.", "|Ubicación: {city} (presencial)"},
			wsHybrid:    {"Modelo híbrido: {n} días a la semana en nuestra oficina de {city}.", "Trabajo híbrido, con {n} días de teletrabajo a la semana."},
			wsRemoteIn:  {"Puesto 100% remoto desde {ctry}.", "Trabajo remoto desde cualquier lugar de {ctry}."},
			wsRemoteAny: {"Trabajo 100% remoto.", "Puesto en remoto."},
		},
		hybridItem:  []string{"Modelo híbrido: {n} días a la semana en la oficina"},
		senSentence: []string{"|Nivel: {Lvl}"},
		senLabel:    []string{"|Nivel: {Lvl}"},
		lvl:         [3]string{"Junior", "Semi Senior", "Senior"},
		emp: [numEmpTypes][]string{
			empFullTime:   {"Contrato indefinido a jornada completa.", "|Tipo de contrato: indefinido a jornada completa"},
			empPartTime:   {"Contrato indefinido a media jornada ({n} horas semanales).", "|Jornada: media jornada ({n} horas semanales)"},
			empContract:   {"Colaboración como autónomo durante {m} meses.", "|Tipo de contrato: autónomo ({m} meses)"},
			empTemporary:  {"Contrato temporal de {m} meses.", "|Tipo de contrato: contrato temporal de {m} meses"},
			empInternship: {"Prácticas de {m} meses con posibilidad de incorporación.", "|Tipo de contrato: prácticas ({m} meses)"},
		},
		empItem: [numEmpTypes][]string{
			empFullTime: {"Contrato indefinido a jornada completa"},
		},
		duties: [numGroups][]string{
			grpEng: {
				"Diseñar, desarrollar y mantener servicios fiables",
				"Responsabilizarte de funcionalidades desde el diseño técnico hasta producción",
				"Participar en revisiones de código",
				"Mejorar el rendimiento y la seguridad de nuestros sistemas",
				"Colaborar con producto y diseño en cada nueva funcionalidad",
				"Contribuir a las decisiones de arquitectura de la plataforma",
			},
			grpIT: {
				"Gestionar cuentas, equipos y accesos",
				"Supervisar nuestros sistemas y resolver incidencias",
				"Aplicar nuestras políticas de seguridad",
				"Documentar y automatizar tareas recurrentes",
				"Ayudar a tus compañeros con sus dudas técnicas",
			},
			grpData: {
				"Convertir preguntas de negocio en análisis y recomendaciones",
				"Construir y mantener modelos de datos fiables",
				"Definir y seguir las métricas clave",
				"Comunicar resultados a públicos diversos",
				"Mejorar la calidad y la documentación de los datos",
			},
			grpProduct: {
				"Hablar con clientes de forma regular",
				"Trabajar con ingeniería y diseño desde la idea hasta el lanzamiento",
				"Definir métricas de éxito para cada lanzamiento",
				"Ser responsable de la hoja de ruta de tu área",
				"Redactar especificaciones claras junto al equipo",
			},
			grpSales: {
				"Gestionar todo el ciclo de venta",
				"Construir una cartera de oportunidades cualificadas",
				"Realizar reuniones de descubrimiento y demostraciones",
				"Colaborar con marketing y customer success",
				"Representar a la empresa en eventos del sector",
			},
			grpMarketing: {
				"Planificar y ejecutar campañas en todos los canales",
				"Crear contenido para nuestros clientes",
				"Colaborar con ventas en la generación de leads",
				"Medir y reportar resultados",
				"Cuidar la coherencia de nuestra marca",
			},
			grpCustomer: {
				"Acompañar a los nuevos clientes en sus primeros pasos",
				"Ser el primer punto de contacto de nuestros clientes",
				"Trasladar el feedback de los clientes al equipo de producto",
				"Mantener nuestro centro de ayuda",
				"Construir relaciones duraderas con nuestros clientes",
			},
			grpBiz: {
				"Mejorar los procesos de tu área",
				"Preparar informes y análisis para la dirección",
				"Colaborar con todos los equipos de la empresa",
				"Velar por el cumplimiento de la normativa",
				"Participar en auditorías y proyectos transversales",
			},
		},
		dutyTech: [2][]string{
			{"Utilizamos {x} para construir nuestros servicios", "Desarrollo con {x} de nuevas funcionalidades"},
			{"Utilizamos {x} a diario"},
		},
		years:      []string{"Al menos {n} años de experiencia en {area}", "Experiencia mínima de {n} años en un puesto similar"},
		yearsRange: []string{"Entre {n} y {m} años de experiencia en {area}"},
		techReq: [2][]string{
			{"Experiencia con {x}", "Sólidos conocimientos de {x}", "Dominio de {x}"},
			{"Experiencia con {x}", "Conocimientos de {x}"},
		},
		techNice:   []string{"Conocimientos de {x}", "Experiencia con {x}"},
		niceInline: []string{"Se valorará experiencia con {x}", "Conocimientos de {x} (deseable)"},
		soft: [numGroups][]string{
			grpEng:       {"Titulación en Ingeniería Informática o similar", "Capacidad de trabajo en equipo"},
			grpIT:        {"Orientación al servicio", "Rigor en el tratamiento de datos sensibles"},
			grpData:      {"Gran capacidad analítica", "Formación en un ámbito cuantitativo"},
			grpProduct:   {"Excelentes habilidades de comunicación", "Autonomía y atención al detalle"},
			grpSales:     {"Resultados comerciales demostrables", "Capacidad de negociación"},
			grpMarketing: {"Excelente redacción", "Enfoque basado en datos"},
			grpCustomer:  {"Empatía y orientación al cliente", "Excelente comunicación escrita"},
			grpBiz:       {"Capacidad de organización", "Titulación en un ámbito relacionado"},
		},
		langSkill: []string{"Nivel alto de inglés", "Inglés fluido"},
		areas: [...]string{"desarrollo de software", "análisis de datos", "gestión de producto", "diseño", "ventas B2B", "marketing",
			"customer success", "atención al cliente", "finanzas o contabilidad", "asesoría jurídica", "recursos humanos",
			"operaciones", "administración de sistemas", "seguridad informática"},
		benefits: []string{
			"{n} días de vacaciones",
			"Seguro médico privado",
			"Retribución flexible: ticket restaurante y transporte",
			"Horario flexible",
			"Eventos de equipo",
			"Plan de carrera y formación continua",
		},
		budget:   []string{"Presupuesto de formación de {amt} al año"},
		payLine:  []string{"|Salario: {pay}", "La retribución para este puesto es de {pay}."},
		payItem:  []string{"Salario de {pay}"},
		payPara:  []string{"La retribución para este puesto es de {pay}, según experiencia."},
		perYear:  []string{"brutos anuales", "al año"},
		perMonth: []string{"brutos mensuales", "al mes"},
		perHour:  []string{"por hora"},
		visaYes:  []string{"Ofrecemos patrocinio de visa."},
		visaNo:   []string{"No ofrecemos patrocinio de visado para esta posición."},
		apply:    []string{"¿Te interesa? ¡Esperamos tu candidatura!"},
		process: []string{
			"Nuestro proceso de selección: una primera llamada, una entrevista con el equipo y una reunión final con la dirección.",
			"Respondemos a todas las candidaturas en un plazo de dos semanas.",
		},
		eeo: []string{
			"Promovemos la igualdad de oportunidades y no discriminamos por razón de sexo, origen, religión, edad o discapacidad.",
		},
		and:       "y",
		thousands: ".", decimal: ",", symAfter: true,
	},
}

// localCountry names a country in a description's language: its name, with the article French
// wants after "depuis" and the German genitive after "innerhalb".
type localCountry struct{ name, withArticle, genitive string }

var localCountries = map[string]localCountry{
	"DE": {"Deutschland", "", "Deutschlands"},
	"AT": {"Österreich", "", "Österreichs"},
	"CH": {"Schweiz", "", "der Schweiz"},
	"FR": {"France", "la France", ""},
	"BE": {"Belgique", "la Belgique", ""},
	"ES": {"España", "", ""},
	"MX": {"México", "", ""},
	"AR": {"Argentina", "", ""},
	"CO": {"Colombia", "", ""},
	"CL": {"Chile", "", ""},
}

// Currency symbols written before a figure; other currencies are written as their code.
var currencySymbol = map[string]string{
	"USD": "$", "GBP": "£", "EUR": "€", "CAD": "CA$", "AUD": "A$", "NZD": "NZ$", "SGD": "S$", "BRL": "R$",
	"MXN": "MX$", "JPY": "¥", "INR": "₹", "KRW": "₩", "ILS": "₪",
}
