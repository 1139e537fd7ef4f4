package jobtext

// The wording tables: section headings, required and nice-to-have cues, and the phrases each
// field is read from, in English, German, French and Spanish. Phrases are folded like the text
// (case and Latin diacritics do not matter) and matched by words, so "must-have", "must have" and
// "Must Have" are one phrase, as are "d'expérience" and "d’expérience".

// Phrase kinds.
const (
	kTech      = iota + 1
	kHead      // val: section
	kCueReq    // the sentence states a requirement
	kCueNice   // the sentence states a nice-to-have
	kEmp       // val: employment term
	kRemote    // a remote statement that needs no context ("fully remote", "work from home")
	kRemoteW   // the word remote (or remoto, …): a statement only in context
	kHybrid    // a hybrid statement
	kHybridW   // the word hybrid: a statement only in context
	kHybridS   // remote work some of the time, unless the text says fully remote ("Homeoffice")
	kOnsiteW   // the word on-site (or vor Ort, …): a statement only in context
	kHire      // "we are looking for", "wir suchen": a seniority word may follow
	kPeriodPre // a pay period said before the figure ("annual salary", "Stundenlohn")
	kOnsite    // an on-site statement
	kNoRemote  // remote work ruled out ("no remote", "kein Homeoffice")
	kVisaYes
	kVisaNo
	kSen      // val: seniority rank; explicit level wording ("entry-level role")
	kSenLabel // "seniority:", "experience level:"
	kPeriod   // val: pay period
	kPayWord  // the sentence is about pay
	kPayVeto  // the amount is something else (budget, funding, revenue)
	kRegion   // val: region or group of countries
)

// Sections.
const (
	secNone     = iota
	secRequired // requirements, profile, qualifications
	secNice     // nice to have, bonus, preferred
	secDuties   // responsibilities, tasks
	secBenefits // benefits, what we offer
	secCompany  // about us
	secLegal    // equal opportunity, privacy
	secPay      // compensation, salary
	secOther    // a heading not in the tables
	secTitle    // the title
)

var headings = []struct {
	sec     int32
	phrases string
}{
	{secRequired, "requirements|requirement|required|required skills|required qualifications|required experience|" +
		"minimum qualifications|basic qualifications|qualifications|must have|must haves|must-haves|" +
		"what you bring|what you ll bring|what you will bring|what we re looking for|what we are looking for|" +
		"who you are|about you|you have|you are|you bring|profile|skills|skills and experience|experience|" +
		"key skills|what you need|what you ll need|what you will need|what you need to succeed|essential|" +
		"essential skills|essential criteria|essential requirements|the ideal candidate|ideal candidate|" +
		"background|who we are looking for|we are looking for|we re looking for|what we expect|" +
		"knowledge and experience|requirements and qualifications|what makes you a great fit|" +
		"what it takes|you should have|qualifications and experience|technical skills|your experience|" +
		"anforderungen|anforderungsprofil|profil|das bringst du mit|was du mitbringst|was sie mitbringen|" +
		"das bringen sie mit|voraussetzungen|qualifikationen|was wir erwarten|was wir von dir erwarten|" +
		"was wir von ihnen erwarten|das zeichnet dich aus|das zeichnet sie aus|damit uberzeugst du uns|" +
		"damit uberzeugen sie uns|was dich auszeichnet|was sie auszeichnet|dein skillset|kenntnisse|" +
		"fachliche anforderungen|wen wir suchen|exigences|profil recherche|competences requises|" +
		"competences|prerequis|pre requis|ce que nous recherchons|ce que tu apportes|ce que vous apportez|" +
		"qui etes vous|qui es tu|vous etes|tu es|savoir faire|requisitos|requisitos minimos|perfil|" +
		"perfil buscado|que buscamos|lo que buscamos|buscamos|que necesitas|lo que necesitas|" +
		"requerimientos|habilidades|competencias|experiencia requerida|conocimientos|que pedimos"},
	{secNice, "nice to have|nice to haves|nice-to-have|bonus|bonus points|bonus points if|bonus if|" +
		"pluses|plus|preferred|preferred qualifications|preferred skills|preferred experience|desirable|" +
		"desired|desired skills|desired qualifications|good to have|even better|extra credit|" +
		"what would make you stand out|it would be great if|it s a plus if|optional|" +
		"wunschenswert|von vorteil|idealerweise|pluspunkte|was wunschenswert ware|kein muss|" +
		"wunschenswerte kenntnisse|un plus|atouts|atout|les plus|serait un plus|apprecie|souhaite|" +
		"souhaitable|competences appreciees|idealement|deseable|deseables|valorable|se valorara|" +
		"valoraremos|seria un plus|requisitos deseables|suma puntos"},
	{secDuties, "responsibilities|key responsibilities|what you ll do|what you will do|what you ll be doing|" +
		"what you will be doing|role|the role|about the role|your role|tasks|your tasks|day to day|" +
		"your mission|the job|job description|about the job|the opportunity|your impact|" +
		"aufgaben|deine aufgaben|ihre aufgaben|das erwartet dich|das erwartet sie|deine rolle|ihre rolle|" +
		"was dich erwartet|was sie erwartet|stellenbeschreibung|missions|vos missions|tes missions|" +
		"responsabilites|le poste|description du poste|responsabilidades|funciones|tus funciones|" +
		"que haras|tu rol|el puesto|descripcion del puesto"},
	{secBenefits, "benefits|what we offer|we offer|perks|perks and benefits|benefits and perks|why join us|" +
		"why us|why you ll love working here|what s in it for you|our offer|wir bieten|was wir bieten|" +
		"unser angebot|deine vorteile|ihre vorteile|das bieten wir|das bieten wir dir|was wir dir bieten|" +
		"was wir ihnen bieten|avantages|ce que nous offrons|nous offrons|ce que nous proposons|" +
		"pourquoi nous rejoindre|ofrecemos|que ofrecemos|lo que ofrecemos|beneficios"},
	{secCompany, "about us|who we are|about the company|about the team|our company|our story|our mission|" +
		"uber uns|wer wir sind|das sind wir|unternehmen|a propos|a propos de nous|qui sommes nous|" +
		"sobre nosotros|quienes somos|la empresa"},
	{secLegal, "equal opportunity|equal opportunity employer|equal employment opportunity|eeo|" +
		"diversity|diversity and inclusion|diversity equity and inclusion|accommodations|privacy|" +
		"privacy notice|data protection|datenschutz|chancengleichheit|diversite|diversidad|" +
		"igualdad de oportunidades|proteccion de datos|protection des donnees"},
	{secPay, "compensation|salary|pay|pay range|salary range|base salary|compensation range|" +
		"gehalt|vergutung|salaire|remuneration|salario|retribucion|sueldo"},
}

// headFillers are the words a heading may have besides its phrase: possessives, articles,
// "and", punctuation words.
var headFillers = map[string]bool{
	"your": true, "our": true, "the": true, "you": true, "and": true, "&": true, "of": true, "a": true,
	"dein": true, "deine": true, "ihr": true, "ihre": true, "unsere": true, "unser": true, "und": true,
	"das": true, "die": true, "der": true, "votre": true, "ton": true, "ta": true, "vos": true, "tes": true,
	"nos": true, "notre": true, "le": true, "la": true, "les": true, "et": true, "tu": true, "tus": true,
	"el": true, "los": true, "las": true, "y": true, "nuestro": true, "nuestra": true, "what": true,
	"job": true, "position": true, "stelle": true, "poste": true, "puesto": true, "s": true, "more": true,
}

// cues are sentence-level phrases: a requirement or a nice-to-have stated inside a sentence.
var cueReq = "required|requirement|requirements|must|must have|mandatory|essential|need to have|" +
	"you will need|you ll need|is a must|erforderlich|zwingend|vorausgesetzt|voraussetzung|" +
	"setzen voraus|setzen wir voraus|musst|mitbringst|bringst du mit|bringen sie mit|requis|requise|" +
	"exige|exigee|indispensable|obligatoire|imperatif|necessaire|requisito|imprescindible|obligatorio|" +
	"se requiere|requerido|requerida|excluyente"

var cueNice = "nice to have|nice-to-have|is a plus|a plus|are a plus|would be a plus|bonus|preferred|" +
	"preferably|ideally|desirable|good to have|would be great|advantageous|beneficial|an advantage|" +
	"is an advantage|not required|not a must|optional|von vorteil|wunschenswert|idealerweise|" +
	"pluspunkt|gerne gesehen|kein muss|ein plus|un plus|un atout|apprecie|appreciee|apprecies|" +
	"appreciees|souhaite|souhaitee|souhaitable|idealement|de preference|serait un plus|deseable|" +
	"valorable|se valorara|valoraremos|idealmente|preferiblemente|sera un plus|es un plus|sumara"

// Employment terms, each one bit: a text may state several ("Vollzeit, unbefristet").
const (
	empFullHours = 1 << iota // full-time hours
	empPartHours             // part-time hours
	empPermanent             // a permanent contract
	empTemporary             // fixed-term, temporary, seasonal
	empContract              // contractor, freelance
	empIntern                // internship, apprenticeship, working student
)

var employment = []struct {
	val     int32
	phrases string
}{
	{empFullHours, "full time|fulltime|full time position|full time role|vollzeit|in vollzeit|temps plein|" +
		"temps complet|a temps plein|jornada completa|tiempo completo|a tiempo completo|40 hours per week|" +
		"40 hours a week|40 stunden"},
	{empPartHours, "part time|parttime|teilzeit|in teilzeit|temps partiel|mi temps|a temps partiel|" +
		"media jornada|jornada parcial|tiempo parcial|a tiempo parcial|minijob|werkstudent|werkstudentin|" +
		"working student|werkstudierende"},
	{empPermanent, "permanent basis|permanent position|permanent role|permanent contract|permanent employment|" +
		"festanstellung|unbefristet|unbefristete|unbefristeten|unbefristeter|unbefristetes|cdi|" +
		"contrat a duree indeterminee|contrato indefinido|indefinido|contrato fijo"},
	{empTemporary, "temporary role|temporary position|temporary contract|fixed term|" +
		"fixed term contract|temporary basis|temporary assignment|temporary employment|temp to perm|" +
		"seasonal role|seasonal position|seasonal job|maternity cover|parental leave cover|befristet|" +
		"befristete|befristeten|befristeter|befristetes|befristeter vertrag|elternzeitvertretung|cdd|" +
		"contrat a duree determinee|interim role|interim position|contrato temporal|por obra y servicio|" +
		"contrato de sustitucion"},
	{empContract, "contract role|contract position|contract basis|contract job|contract assignment|" +
		"contract engagement|contract opportunity|contractor|independent contractor|freelance|freelancer|" +
		"freelancing|freiberuflich|freie mitarbeit|contract to hire|contrat freelance|mission freelance|" +
		"autonomo|1099|corp to corp|c2c|b2b contract"},
	{empIntern, "internship|internships|intern position|praktikum|pflichtpraktikum|praktikant|" +
		"praktikantin|praktikanten|ausbildungsplatz|ausbildungsstelle|azubi|apprenticeship|apprentice|" +
		"trainee program|traineeprogramm|stagiaire|alternance|alternant|alternante|apprentissage|" +
		"stage de fin d etudes|offre de stage|stage de 6 mois|stage de six mois|stage conventionne|" +
		"en stage|un stage|practicas|becario|becaria|practicas profesionales"},
}

// Workplace phrases.
var (
	remoteStrong = "fully remote|full remote|100 remote|100% remote|remote first|remote-first|" +
		"remote friendly|work from home|working from home|work from anywhere|wfh|work remotely|" +
		"working remotely|can be done remotely|vollstandig remote|komplett remote|100 homeoffice|" +
		"vollstandig im homeoffice|ausschliesslich homeoffice|remote arbeiten|full teletravail|" +
		"100 teletravail|teletravail complet|teletravail total|100 remoto|totalmente remoto|" +
		"trabajo remoto|en remoto|desde casa|100 teletrabajo|teletrabajo completo|a distancia|remote only"
	remoteWord   = "remote|remoto|remota"
	hybridStrong = "hybrid work|hybrid working|hybrid model|hybrid role|hybrid position|hybrid setup|" +
		"hybrid schedule|hybrides arbeiten|hybrid arbeiten|mobiles arbeiten|mobile arbeit|mobile working|" +
		"teletravail partiel|jours de teletravail|modele hybride|modelo hibrido|hibrido|hibrida|hybride"
	hybridSoft = "homeoffice|home-office|homeoffice moglich|mobiles arbeiten|mobile arbeit|teletravail|" +
		"teletravail possible|teletrabajo|posibilidad de teletrabajo"
	hybridWord   = "hybrid"
	onsiteStrong = "fully on site|100 on site|100% on site|fully onsite|office based|office-based|" +
		"in office role|in-office role|on site role|onsite role|on-site role|on site position|" +
		"onsite position|on-site position|100 vor ort|100 presentiel|en presentiel|100 presencial|" +
		"trabajo presencial|puesto presencial|presencial"
	onsiteWord = "on site|onsite|on-site|in office|in-office|vor ort|presentiel|sur site"
	noRemote   = "no remote|not remote|not a remote|non remote|not fully remote|no remote work|" +
		"remote work is not possible|remote is not possible|kein homeoffice|kein remote|keine remote|" +
		"nicht remote|pas de teletravail|pas de remote|sin teletrabajo|no remoto|no es remoto|sin remoto"
)

// Visa sponsorship phrases.
var (
	visaYes = "visa sponsorship available|visa sponsorship is available|sponsorship is available|" +
		"sponsorship available|we sponsor visas|we sponsor visa|we will sponsor|we can sponsor|we do sponsor|" +
		"we offer visa sponsorship|offer visa sponsorship|provide visa sponsorship|we provide visa sponsorship|" +
		"visa sponsorship provided|visa sponsorship offered|visa support|visa assistance|" +
		"sponsorship for this role|sponsor work visas|able to sponsor|visa sponsorship|relocation and visa|" +
		"visa unterstutzung|visaunterstutzung|visa sponsoring|unterstutzung beim visum|" +
		"unterstutzung bei der visumbeantragung|parrainage de visa|sponsoring de visa|accompagnement visa|" +
		"patrocinio de visa|patrocinio de visado|patrocinamos"
	visaNo = "no visa sponsorship|no sponsorship|not offer visa sponsorship|not provide visa sponsorship|" +
		"unable to sponsor|cannot sponsor|can not sponsor|can t sponsor|will not sponsor|won t sponsor|" +
		"do not sponsor|don t sponsor|does not sponsor|not able to sponsor|not in a position to sponsor|" +
		"sponsorship is not available|sponsorship not available|without sponsorship|" +
		"without the need for sponsorship|without requiring sponsorship|without visa sponsorship|" +
		"not eligible for sponsorship|no visa|does not offer sponsorship|do not offer sponsorship|" +
		"not provide sponsorship|unable to provide sponsorship|unable to offer sponsorship|" +
		"kein visa sponsoring|keine visa|kein visum|keine unterstutzung beim visum|" +
		"ne pouvons pas sponsoriser|pas de parrainage|pas de sponsoring|no ofrecemos patrocinio|" +
		"sin patrocinio|no podemos patrocinar|no patrocinamos"
)

// Explicit seniority wording in the text.
var seniorityPhrases = []struct {
	sen     string
	phrases string
}{
	{"intern", "intern level|internship level|praktikantenstelle"},
	{"junior", "entry level|entry-level|junior level|junior-level|graduate role|graduate position|" +
		"berufseinsteiger|berufseinsteigerin|einsteiger|einstiegsposition|young professional|" +
		"debutant|debutante|jeune diplome|jeune diplomee|recien graduado|recien graduada|sin experiencia"},
	{"mid", "mid level|mid-level|intermediate level|semi senior|semisenior|" +
		"ssr|confirme|confirmee|niveau confirme|nivel intermedio"},
	{"senior", "senior level|senior-level|senior position|senior role|experienced level|sr level|senior niveau"},
	{"staff", "staff level|staff-level"},
	{"principal", "principal level|principal-level"},
	{"lead", "lead level|lead role"},
	{"manager", "manager level|management level|managerial level|people manager role"},
	{"director", "director level|director-level"},
	{"vp", "vp level|vp-level|vice president level"},
	{"executive", "executive level|executive-level|c suite role"},
}

// seniorityLabels introduce a seniority ("Seniority: Senior").
var seniorityLabels = "seniority|seniority level|experience level|career level|job level|level|" +
	"karrierestufe|erfahrungslevel|erfahrungsstufe|senioritat|berufserfahrung level|niveau|" +
	"niveau d experience|niveau de poste|nivel|nivel de experiencia|seniority nivel|seniority niveau"

// Pay periods.
const (
	perYear = iota + 1
	perMonth
	perWeek
	perDay
	perHour
)

// periodNames are the period values Derive serves, by constant.
var periodNames = [...]string{perYear: "year", perMonth: "month", perWeek: "week", perDay: "day", perHour: "hour"}

var periods = []struct {
	val     int32
	phrases string
}{
	{perYear, "per year|a year|year|yr|per annum|p a|pa|annually|annual|yearly|per yr|jahr|pro jahr|im jahr|" +
		"jahrlich|brutto jahr|jahresgehalt|jahresbrutto|brutto pro jahr|brutto im jahr|par an|an|annuel|" +
		"annuels|brut annuel|bruts annuels|brut par an|k an|al ano|ano|anual|anuales|bruto anual|" +
		"brutos anuales|por ano"},
	{perMonth, "per month|a month|month|mo|monthly|pro monat|monat|im monat|monatlich|monatsgehalt|" +
		"brutto monat|brutto pro monat|brutto im monat|monatsbrutto|par mois|mois|mensuel|mensuels|" +
		"brut mensuel|bruts mensuels|al mes|mes|mensual|mensuales|bruto mensual|por mes"},
	{perWeek, "per week|a week|week|wk|weekly|pro woche|woche|wochentlich|par semaine|semaine|por semana|semana"},
	{perDay, "per day|a day|day|daily|daily rate|day rate|pro tag|tag|tagessatz|par jour|jour|tjm|" +
		"por dia|dia|al dia"},
	{perHour, "per hour|an hour|hour|hr|hourly|hourly rate|ph|p h|pro stunde|stunde|stundenlohn|" +
		"par heure|heure|de l heure|h|por hora|hora|la hora"},
}

// periodsBefore are periods said before the figure.
var periodsBefore = []struct {
	val     int32
	phrases string
}{
	{perYear, "annual salary|annual base salary|yearly salary|annual compensation|annual base pay|" +
		"jahresgehalt|bruttojahresgehalt|jahresbruttogehalt|salaire annuel|remuneration annuelle|" +
		"salario anual|salario bruto anual|retribucion anual"},
	{perMonth, "monthly salary|monatsgehalt|bruttomonatsgehalt|salaire mensuel|salario mensual"},
	{perDay, "daily rate|day rate|tagessatz|tjm|taux journalier"},
	{perHour, "hourly rate|hourly wage|hourly pay|stundenlohn|stundensatz|taux horaire|salario por hora"},
}

// hirePhrases introduce who is hired ("we are looking for a senior …").
var hirePhrases = "we are looking for|we re looking for|looking for|we are hiring|we re hiring|seeking|" +
	"we are seeking|join us as|join our team as|as a|as an|wir suchen|suchen wir|zur verstarkung|" +
	"nous recherchons|nous cherchons|recherchons|buscamos|estamos buscando|seleccionamos|en tant que"

// payWords make a sentence one about pay.
var payWords = "salary|salaries|compensation|pay|pay range|base pay|base salary|base|ote|on target earnings|" +
	"total compensation|wage|wages|hourly rate|rate|earn|earning|earnings|gehalt|gehaltsspanne|" +
	"gehaltsrahmen|vergutung|verdienst|jahresgehalt|bruttojahresgehalt|stundenlohn|lohn|entgelt|" +
	"salaire|remuneration|fourchette|remuneration annuelle|tjm|salario|sueldo|retribucion|banda salarial|" +
	"rango salarial|range|band|brutto|brut|bruto|gross|tarif|tarifvertrag"

// payVetoes mark an amount as something other than the job's pay.
var payVetoes = "budget|stipend|allowance|voucher|vouchers|reimbursement|funding|raised|revenue|arr|" +
	"valuation|series|signing bonus|sign on bonus|referral bonus|bonus of|credits|donation|" +
	"contribution|match|matching|per employee|zuschuss|budget pro jahr|weiterbildungsbudget|pramie|" +
	"umsatz|finanzierung|prime|chiffre d affaires|levee de fonds|presupuesto|ayuda|facturacion|" +
	"financiacion|learning budget|education budget|home office budget|wellness|gym|lunch|meal|" +
	"cash|gift|million|millions|billion|billions|mio|mrd|millionen|milliarden|bn|mn|millones|" +
	"milliards"

// Regions a remote role may be open to. Values index regionsTable.
var regionsTable = []struct {
	name      string // the value served in RemoteRegions, "" when the phrase only lists countries
	countries string // ISO 3166-1 alpha-2 codes the phrase names
	phrases   string
}{
	{"", "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE",
		"=EU|European Union|Europaische Union|Union europeenne|Union Europea|=UE|EU countries|EU member states"},
	{"", "AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO",
		"=EEA|European Economic Area|=EWR"},
	{"", "DE AT CH", "=DACH|D-A-CH"},
	{"", "DK FI IS NO SE", "Nordics|Nordic countries|Nordic region"},
	{"", "BE NL LU", "Benelux"},
	{"", "GB IE", "UK and Ireland|UK & Ireland|UK/Ireland|=UKI"},
	{"", "US CA", "US and Canada|US or Canada|USA and Canada|United States and Canada|US/Canada"},
	{"europe", "", "Europe|European time zones|Europa|europeen|europaischen"},
	{"emea", "", "EMEA"},
	{"americas", "", "Americas|the Americas"},
	{"north_america", "", "North America|Nordamerika|Amerique du Nord|Norteamerica|America del Norte"},
	{"latam", "", "LATAM|LatAm|Latin America|Lateinamerika|Amerique latine|Latinoamerica|America Latina"},
	{"apac", "", "APAC|Asia Pacific|Asia-Pacific"},
	{"worldwide", "", "worldwide|anywhere|anywhere in the world|globally|global|weltweit|partout|" +
		"partout dans le monde|en cualquier lugar|cualquier parte del mundo|desde cualquier lugar"},
}

// Stop words of each language, for the language guess.
var stopWords = map[string]uint8{
	"the": langEN, "and": langEN, "you": langEN, "with": langEN, "our": langEN, "we": langEN,
	"are": langEN, "for": langEN, "of": langEN, "to": langEN, "will": langEN, "your": langEN,
	"und": langDE, "der": langDE, "die": langDE, "das": langDE, "mit": langDE, "fur": langDE,
	"wir": langDE, "du": langDE, "sie": langDE, "ist": langDE, "von": langDE, "zu": langDE, "ein": langDE, "eine": langDE,
	"et": langFR, "le": langFR, "les": langFR, "des": langFR, "vous": langFR, "nous": langFR,
	"avec": langFR, "pour": langFR, "une": langFR, "est": langFR, "dans": langFR, "sur": langFR,
	"y": langES, "el": langES, "los": langES, "las": langES, "con": langES, "para": langES,
	"una": langES, "que": langES, "nuestro": langES, "tu": langES, "por": langES, "del": langES,
}

// Languages.
const (
	langUnknown = iota
	langEN
	langDE
	langFR
	langES
)
