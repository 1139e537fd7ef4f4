package sim

// Regions in contract order.
var regionNames = [...]string{"na", "latam", "uki", "dach", "eu", "apac", "mea"}

const numRegions = len(regionNames)

const (
	regNA = iota
	regLatam
	regUKI
	regDACH
	regEU
	regAPAC
	regMEA
)

// regionWeights is the share of companies headquartered in each region.
var regionWeights = []float64{0.34, 0.08, 0.12, 0.12, 0.16, 0.13, 0.05}

// countryDef describes one country. Names are ISO 3166-1 names as in Debian iso-codes (the
// common_name where one exists).
type countryDef struct {
	name     string
	a2, a3   string
	region   int
	weight   float64 // share of HQs within the region
	currency string
	tld      string   // domain suffix most companies there use besides .com
	pay      float64  // salary level relative to the United States
	fx       float64  // local currency units per USD
	monthly  bool     // salaries usually quoted per month
	tzMin    int      // UTC offset in minutes used for local timestamps
	legal    []int    // indexes into legalForms
	cities   []string // ASCII-safe or UTF-8 city names
}

var countries = []countryDef{
	{name: "United States", a2: "US", a3: "USA", region: regNA, weight: 0.86, currency: "USD", tld: ".com", pay: 1.0, fx: 1, tzMin: -300,
		legal: []int{lfInc, lfLLC, lfCorp}, cities: []string{"New York", "San Francisco", "Austin", "Seattle", "Boston", "Chicago", "Denver", "Atlanta", "Los Angeles", "Miami"}},
	{name: "Canada", a2: "CA", a3: "CAN", region: regNA, weight: 0.14, currency: "CAD", tld: ".ca", pay: 0.78, fx: 1.36, tzMin: -300,
		legal: []int{lfInc, lfLtdCA, lfCorp}, cities: []string{"Toronto", "Vancouver", "Montreal", "Calgary", "Ottawa"}},

	{name: "Brazil", a2: "BR", a3: "BRA", region: regLatam, weight: 0.38, currency: "BRL", tld: ".com.br", pay: 0.32, fx: 5.0, monthly: true, tzMin: -180,
		legal: []int{lfLtda, lfSA}, cities: []string{"São Paulo", "Rio de Janeiro", "Belo Horizonte", "Curitiba", "Porto Alegre"}},
	{name: "Mexico", a2: "MX", a3: "MEX", region: regLatam, weight: 0.26, currency: "MXN", tld: ".com.mx", pay: 0.30, fx: 17.5, monthly: true, tzMin: -360,
		legal: []int{lfSAdeCV}, cities: []string{"Mexico City", "Guadalajara", "Monterrey", "Querétaro"}},
	{name: "Argentina", a2: "AR", a3: "ARG", region: regLatam, weight: 0.12, currency: "ARS", tld: ".com.ar", pay: 0.25, fx: 900, monthly: true, tzMin: -180,
		legal: []int{lfSA, lfSRL}, cities: []string{"Buenos Aires", "Córdoba", "Rosario"}},
	{name: "Colombia", a2: "CO", a3: "COL", region: regLatam, weight: 0.13, currency: "COP", tld: ".com.co", pay: 0.25, fx: 4000, monthly: true, tzMin: -300,
		legal: []int{lfSAS, lfSA}, cities: []string{"Bogotá", "Medellín", "Cali"}},
	{name: "Chile", a2: "CL", a3: "CHL", region: regLatam, weight: 0.11, currency: "CLP", tld: ".cl", pay: 0.30, fx: 920, monthly: true, tzMin: -240,
		legal: []int{lfSpAChile, lfSA}, cities: []string{"Santiago", "Valparaíso"}},

	{name: "United Kingdom", a2: "GB", a3: "GBR", region: regUKI, weight: 0.85, currency: "GBP", tld: ".co.uk", pay: 0.72, fx: 0.79, tzMin: 0,
		legal: []int{lfLtdUK, lfPLC}, cities: []string{"London", "Manchester", "Edinburgh", "Bristol", "Leeds", "Birmingham", "Cambridge"}},
	{name: "Ireland", a2: "IE", a3: "IRL", region: regUKI, weight: 0.15, currency: "EUR", tld: ".ie", pay: 0.72, fx: 0.92, tzMin: 0,
		legal: []int{lfLtdUK, lfDAC}, cities: []string{"Dublin", "Cork", "Galway"}},

	{name: "Germany", a2: "DE", a3: "DEU", region: regDACH, weight: 0.70, currency: "EUR", tld: ".de", pay: 0.70, fx: 0.92, tzMin: 60,
		legal: []int{lfGmbH, lfAG, lfGmbHCoKG}, cities: []string{"Berlin", "Munich", "Hamburg", "Frankfurt", "Cologne", "Stuttgart", "Düsseldorf", "Leipzig"}},
	{name: "Austria", a2: "AT", a3: "AUT", region: regDACH, weight: 0.13, currency: "EUR", tld: ".at", pay: 0.66, fx: 0.92, tzMin: 60,
		legal: []int{lfGmbH, lfAG}, cities: []string{"Vienna", "Graz", "Linz", "Salzburg"}},
	{name: "Switzerland", a2: "CH", a3: "CHE", region: regDACH, weight: 0.17, currency: "CHF", tld: ".ch", pay: 1.05, fx: 0.88, tzMin: 60,
		legal: []int{lfAG, lfGmbH, lfSAFr}, cities: []string{"Zurich", "Geneva", "Basel", "Lausanne", "Bern"}},

	{name: "France", a2: "FR", a3: "FRA", region: regEU, weight: 0.22, currency: "EUR", tld: ".fr", pay: 0.62, fx: 0.92, tzMin: 60,
		legal: []int{lfSAS, lfSAFr, lfSARL}, cities: []string{"Paris", "Lyon", "Toulouse", "Nantes", "Bordeaux", "Lille"}},
	{name: "Netherlands", a2: "NL", a3: "NLD", region: regEU, weight: 0.16, currency: "EUR", tld: ".nl", pay: 0.68, fx: 0.92, tzMin: 60,
		legal: []int{lfBV, lfNV}, cities: []string{"Amsterdam", "Rotterdam", "Utrecht", "Eindhoven", "The Hague"}},
	{name: "Spain", a2: "ES", a3: "ESP", region: regEU, weight: 0.13, currency: "EUR", tld: ".es", pay: 0.50, fx: 0.92, tzMin: 60,
		legal: []int{lfSL, lfSAFr}, cities: []string{"Madrid", "Barcelona", "Valencia", "Seville", "Málaga"}},
	{name: "Italy", a2: "IT", a3: "ITA", region: regEU, weight: 0.10, currency: "EUR", tld: ".it", pay: 0.50, fx: 0.92, tzMin: 60,
		legal: []int{lfSrlIT, lfSpA}, cities: []string{"Milan", "Rome", "Turin", "Bologna"}},
	{name: "Sweden", a2: "SE", a3: "SWE", region: regEU, weight: 0.10, currency: "SEK", tld: ".se", pay: 0.62, fx: 10.5, monthly: true, tzMin: 60,
		legal: []int{lfAB}, cities: []string{"Stockholm", "Gothenburg", "Malmö"}},
	{name: "Poland", a2: "PL", a3: "POL", region: regEU, weight: 0.09, currency: "PLN", tld: ".pl", pay: 0.42, fx: 4.0, monthly: true, tzMin: 60,
		legal: []int{lfSpZoo}, cities: []string{"Warsaw", "Kraków", "Wrocław", "Gdańsk"}},
	{name: "Belgium", a2: "BE", a3: "BEL", region: regEU, weight: 0.07, currency: "EUR", tld: ".be", pay: 0.62, fx: 0.92, tzMin: 60,
		legal: []int{lfBV, lfNV}, cities: []string{"Brussels", "Antwerp", "Ghent"}},
	{name: "Denmark", a2: "DK", a3: "DNK", region: regEU, weight: 0.05, currency: "DKK", tld: ".dk", pay: 0.75, fx: 6.9, monthly: true, tzMin: 60,
		legal: []int{lfApS, lfAS}, cities: []string{"Copenhagen", "Aarhus"}},
	{name: "Portugal", a2: "PT", a3: "PRT", region: regEU, weight: 0.05, currency: "EUR", tld: ".pt", pay: 0.40, fx: 0.92, tzMin: 0,
		legal: []int{lfLda}, cities: []string{"Lisbon", "Porto", "Braga"}},
	{name: "Finland", a2: "FI", a3: "FIN", region: regEU, weight: 0.03, currency: "EUR", tld: ".fi", pay: 0.62, fx: 0.92, tzMin: 120,
		legal: []int{lfOy}, cities: []string{"Helsinki", "Espoo", "Tampere"}},

	{name: "India", a2: "IN", a3: "IND", region: regAPAC, weight: 0.30, currency: "INR", tld: ".in", pay: 0.22, fx: 83, tzMin: 330,
		legal: []int{lfPvtLtd, lfLtdIN}, cities: []string{"Bengaluru", "Mumbai", "Hyderabad", "Pune", "Chennai", "Gurugram", "Noida"}},
	{name: "Japan", a2: "JP", a3: "JPN", region: regAPAC, weight: 0.16, currency: "JPY", tld: ".jp", pay: 0.55, fx: 150, tzMin: 540,
		legal: []int{lfKK, lfGK}, cities: []string{"Tokyo", "Osaka", "Yokohama", "Fukuoka", "Kyoto"}},
	{name: "Singapore", a2: "SG", a3: "SGP", region: regAPAC, weight: 0.14, currency: "SGD", tld: ".sg", pay: 0.70, fx: 1.34, tzMin: 480,
		legal: []int{lfPteLtd}, cities: []string{"Singapore"}},
	{name: "Australia", a2: "AU", a3: "AUS", region: regAPAC, weight: 0.22, currency: "AUD", tld: ".com.au", pay: 0.78, fx: 1.52, tzMin: 600,
		legal: []int{lfPtyLtd}, cities: []string{"Sydney", "Melbourne", "Brisbane", "Perth", "Adelaide"}},
	{name: "New Zealand", a2: "NZ", a3: "NZL", region: regAPAC, weight: 0.06, currency: "NZD", tld: ".co.nz", pay: 0.68, fx: 1.64, tzMin: 720,
		legal: []int{lfLtdNZ}, cities: []string{"Auckland", "Wellington", "Christchurch"}},
	{name: "South Korea", a2: "KR", a3: "KOR", region: regAPAC, weight: 0.12, currency: "KRW", tld: ".co.kr", pay: 0.50, fx: 1330, tzMin: 540,
		legal: []int{lfCoLtd}, cities: []string{"Seoul", "Busan", "Incheon"}},

	{name: "United Arab Emirates", a2: "AE", a3: "ARE", region: regMEA, weight: 0.30, currency: "AED", tld: ".ae", pay: 0.75, fx: 3.67, monthly: true, tzMin: 240,
		legal: []int{lfLLC, lfFZLLC, lfFZE}, cities: []string{"Dubai", "Abu Dhabi", "Sharjah"}},
	{name: "South Africa", a2: "ZA", a3: "ZAF", region: regMEA, weight: 0.20, currency: "ZAR", tld: ".co.za", pay: 0.30, fx: 18.5, tzMin: 120,
		legal: []int{lfPtyLtdZA}, cities: []string{"Johannesburg", "Cape Town", "Durban", "Pretoria"}},
	{name: "Israel", a2: "IL", a3: "ISR", region: regMEA, weight: 0.20, currency: "ILS", tld: ".co.il", pay: 0.75, fx: 3.7, monthly: true, tzMin: 120,
		legal: []int{lfLtdIL}, cities: []string{"Tel Aviv", "Jerusalem", "Haifa"}},
	{name: "Saudi Arabia", a2: "SA", a3: "SAU", region: regMEA, weight: 0.12, currency: "SAR", tld: ".sa", pay: 0.65, fx: 3.75, monthly: true, tzMin: 180,
		legal: []int{lfLLC, lfCoLtd}, cities: []string{"Riyadh", "Jeddah", "Dammam"}},
	{name: "Egypt", a2: "EG", a3: "EGY", region: regMEA, weight: 0.08, currency: "EGP", tld: ".com.eg", pay: 0.12, fx: 48, monthly: true, tzMin: 120,
		legal: []int{lfSAE, lfLLC}, cities: []string{"Cairo", "Alexandria", "Giza"}},
	{name: "Nigeria", a2: "NG", a3: "NGA", region: regMEA, weight: 0.06, currency: "NGN", tld: ".com.ng", pay: 0.10, fx: 1500, monthly: true, tzMin: 60,
		legal: []int{lfLtdNG, lfPLC}, cities: []string{"Lagos", "Abuja"}},
	{name: "Kenya", a2: "KE", a3: "KEN", region: regMEA, weight: 0.04, currency: "KES", tld: ".co.ke", pay: 0.12, fx: 130, monthly: true, tzMin: 180,
		legal: []int{lfLtdNG}, cities: []string{"Nairobi", "Mombasa"}},
}

// legalForm is one legal form with its spellings. Each spelling is the full suffix including
// its separator (" Inc.", ", Inc."). Spelling 0 is the usual one.
type legalForm struct{ spellings []string }

const (
	lfInc = iota
	lfLLC
	lfCorp
	lfLtdCA
	lfLtda
	lfSA
	lfSAdeCV
	lfSRL
	lfSAS
	lfSpAChile
	lfLtdUK
	lfPLC
	lfDAC
	lfGmbH
	lfAG
	lfGmbHCoKG
	lfSAFr
	lfSARL
	lfBV
	lfNV
	lfSL
	lfSrlIT
	lfSpA
	lfAB
	lfSpZoo
	lfApS
	lfAS
	lfLda
	lfOy
	lfPvtLtd
	lfLtdIN
	lfKK
	lfGK
	lfPteLtd
	lfPtyLtd
	lfLtdNZ
	lfCoLtd
	lfFZLLC
	lfFZE
	lfPtyLtdZA
	lfLtdIL
	lfSAE
	lfLtdNG
)

var legalForms = []legalForm{
	lfInc:      {[]string{" Inc.", ", Inc.", " Incorporated", " Inc"}},
	lfLLC:      {[]string{" LLC", ", LLC", " L.L.C."}},
	lfCorp:     {[]string{" Corp.", " Corporation", " Corp"}},
	lfLtdCA:    {[]string{" Ltd.", " Limited", " Ltd"}},
	lfLtda:     {[]string{" Ltda.", " Ltda", " Limitada"}},
	lfSA:       {[]string{" S.A.", " SA", " Sociedad Anónima"}},
	lfSAdeCV:   {[]string{" S.A. de C.V.", " SA de CV", " S.A. de C.V"}},
	lfSRL:      {[]string{" S.R.L.", " SRL"}},
	lfSAS:      {[]string{" SAS", " S.A.S.", " S.A.S"}},
	lfSpAChile: {[]string{" SpA", " S.p.A."}},
	lfLtdUK:    {[]string{" Ltd", " Ltd.", " Limited"}},
	lfPLC:      {[]string{" plc", " PLC", " Public Limited Company"}},
	lfDAC:      {[]string{" DAC", " Designated Activity Company"}},
	lfGmbH:     {[]string{" GmbH", " Gmbh", " G.m.b.H."}},
	lfAG:       {[]string{" AG", " Aktiengesellschaft"}},
	lfGmbHCoKG: {[]string{" GmbH & Co. KG", " GmbH & Co KG"}},
	lfSAFr:     {[]string{" S.A.", " SA"}},
	lfSARL:     {[]string{" SARL", " S.A.R.L.", " Sàrl"}},
	lfBV:       {[]string{" B.V.", " BV", " B.V"}},
	lfNV:       {[]string{" N.V.", " NV"}},
	lfSL:       {[]string{" S.L.", " SL", " S.L"}},
	lfSrlIT:    {[]string{" S.r.l.", " Srl", " SRL"}},
	lfSpA:      {[]string{" S.p.A.", " SpA", " S.P.A."}},
	lfAB:       {[]string{" AB", " Aktiebolag"}},
	lfSpZoo:    {[]string{" sp. z o.o.", " Sp. z o.o.", " Sp. z.o.o."}},
	lfApS:      {[]string{" ApS", " Aps"}},
	lfAS:       {[]string{" A/S", " AS"}},
	lfLda:      {[]string{" Lda.", " Lda", " Limitada"}},
	lfOy:       {[]string{" Oy", " OY", " Osakeyhtiö"}},
	lfPvtLtd:   {[]string{" Pvt. Ltd.", " Private Limited", " Pvt Ltd", " Pvt. Ltd"}},
	lfLtdIN:    {[]string{" Ltd.", " Limited", " Ltd"}},
	lfKK:       {[]string{" K.K.", " Kabushiki Kaisha", " KK"}},
	lfGK:       {[]string{" G.K.", " Godo Kaisha", " GK"}},
	lfPteLtd:   {[]string{" Pte. Ltd.", " Pte Ltd", " Private Limited"}},
	lfPtyLtd:   {[]string{" Pty Ltd", " Pty. Ltd.", " Proprietary Limited"}},
	lfLtdNZ:    {[]string{" Limited", " Ltd", " Ltd."}},
	lfCoLtd:    {[]string{" Co., Ltd.", " Co. Ltd", " Company Limited"}},
	lfFZLLC:    {[]string{" FZ-LLC", " FZ LLC", " FZ-L.L.C."}},
	lfFZE:      {[]string{" FZE", " F.Z.E."}},
	lfPtyLtdZA: {[]string{" (Pty) Ltd", " Pty Ltd", " (Proprietary) Limited"}},
	lfLtdIL:    {[]string{" Ltd.", " Ltd", " Limited"}},
	lfSAE:      {[]string{" S.A.E.", " SAE"}},
	lfLtdNG:    {[]string{" Limited", " Ltd", " Ltd."}},
}
