package normalize

// Place tables used by CountryFromLocation and by the location-suffix rule of
// TitleKey. Keys are folded (see foldKey); values are ISO alpha-2 codes.

// cityCountry maps major employment cities (and their usual spellings) to the
// country they are in. Names that are also common English words or job words
// ("Mobile", "Reading", "Nice", "Split", "Bath") are left out on purpose, and so
// are names shared by two big cities in different countries ("Cambridge").
var cityCountry = map[string]string{
	// United States
	"new york": "US", "new york city": "US", "nyc": "US", "manhattan": "US", "brooklyn": "US",
	"san francisco": "US", "sf": "US", "bay area": "US", "san francisco bay area": "US",
	"los angeles": "US", "san diego": "US", "san jose": "US", "palo alto": "US",
	"mountain view": "US", "menlo park": "US", "sunnyvale": "US", "santa clara": "US",
	"redwood city": "US", "oakland": "US", "irvine": "US", "sacramento": "US",
	"seattle": "US", "bellevue": "US", "redmond": "US", "portland": "US",
	"austin": "US", "dallas": "US", "houston": "US", "san antonio": "US", "fort worth": "US",
	"chicago": "US", "boston": "US", "somerville": "US", "washington": "US", "washington dc": "US",
	"atlanta": "US", "miami": "US", "orlando": "US", "tampa": "US", "jacksonville": "US",
	"denver": "US", "boulder": "US", "phoenix": "US", "scottsdale": "US", "tempe": "US",
	"salt lake city": "US", "lehi": "US", "las vegas": "US", "minneapolis": "US",
	"detroit": "US", "ann arbor": "US", "columbus": "US", "cleveland": "US", "cincinnati": "US",
	"pittsburgh": "US", "philadelphia": "US", "baltimore": "US", "raleigh": "US", "durham": "US",
	"charlotte": "US", "nashville": "US", "indianapolis": "US", "st louis": "US", "saint louis": "US",
	"kansas city": "US", "milwaukee": "US", "new orleans": "US", "richmond": "US",
	"arlington": "US", "reston": "US", "mclean": "US", "herndon": "US", "jersey city": "US",
	"newark": "US", "stamford": "US", "hoboken": "US", "honolulu": "US", "anchorage": "US",
	"albuquerque": "US", "tucson": "US", "omaha": "US", "boise": "US", "madison": "US",
	// Canada
	"toronto": "CA", "montreal": "CA", "vancouver": "CA", "ottawa": "CA", "calgary": "CA",
	"edmonton": "CA", "waterloo": "CA", "kitchener": "CA", "quebec city": "CA", "winnipeg": "CA",
	"halifax": "CA", "mississauga": "CA",
	// Latin America
	"mexico city": "MX", "ciudad de mexico": "MX", "cdmx": "MX", "guadalajara": "MX", "monterrey": "MX",
	"sao paulo": "BR", "rio de janeiro": "BR", "belo horizonte": "BR", "curitiba": "BR",
	"porto alegre": "BR", "florianopolis": "BR", "recife": "BR", "brasilia": "BR",
	"buenos aires": "AR", "santiago": "CL", "santiago de chile": "CL", "bogota": "CO", "medellin": "CO",
	"lima": "PE", "montevideo": "UY", "quito": "EC", "san jose costa rica": "CR", "panama city": "PA",
	"caracas": "VE", "guatemala city": "GT", "santo domingo": "DO", "san juan": "PR",
	// United Kingdom and Ireland
	"london": "GB", "greater london": "GB", "manchester": "GB", "birmingham": "GB", "edinburgh": "GB",
	"glasgow": "GB", "leeds": "GB", "bristol": "GB", "liverpool": "GB", "newcastle": "GB",
	"sheffield": "GB", "nottingham": "GB", "belfast": "GB", "cardiff": "GB", "oxford": "GB",
	"brighton": "GB", "southampton": "GB", "milton keynes": "GB", "leicester": "GB", "aberdeen": "GB",
	"dublin": "IE", "cork": "IE", "galway": "IE", "limerick": "IE",
	// DACH
	"berlin": "DE", "munich": "DE", "munchen": "DE", "muenchen": "DE", "hamburg": "DE",
	"frankfurt": "DE", "frankfurt am main": "DE", "cologne": "DE", "koln": "DE", "koeln": "DE",
	"dusseldorf": "DE", "duesseldorf": "DE", "stuttgart": "DE", "leipzig": "DE", "dresden": "DE",
	"hanover": "DE", "hannover": "DE", "nuremberg": "DE", "nurnberg": "DE", "nuernberg": "DE",
	"karlsruhe": "DE", "mannheim": "DE", "heidelberg": "DE", "bonn": "DE", "essen": "DE",
	"dortmund": "DE", "bremen": "DE", "aachen": "DE", "freiburg": "DE", "potsdam": "DE",
	"vienna": "AT", "wien": "AT", "graz": "AT", "linz": "AT", "salzburg": "AT", "innsbruck": "AT",
	"zurich": "CH", "geneva": "CH", "geneve": "CH", "basel": "CH", "bern": "CH", "lausanne": "CH",
	"zug": "CH", "lugano": "CH",
	// Rest of Europe
	"paris": "FR", "lyon": "FR", "marseille": "FR", "toulouse": "FR", "bordeaux": "FR", "lille": "FR",
	"nantes": "FR", "montpellier": "FR", "grenoble": "FR", "sophia antipolis": "FR",
	"amsterdam": "NL", "rotterdam": "NL", "the hague": "NL", "den haag": "NL", "utrecht": "NL",
	"eindhoven": "NL", "delft": "NL", "brussels": "BE", "bruxelles": "BE", "brussel": "BE",
	"antwerp": "BE", "antwerpen": "BE", "ghent": "BE", "gent": "BE", "leuven": "BE",
	"madrid": "ES", "barcelona": "ES", "valencia": "ES", "seville": "ES", "sevilla": "ES",
	"malaga": "ES", "bilbao": "ES", "lisbon": "PT", "lisboa": "PT", "porto": "PT", "braga": "PT",
	"milan": "IT", "milano": "IT", "rome": "IT", "roma": "IT", "turin": "IT", "torino": "IT",
	"bologna": "IT", "florence": "IT", "firenze": "IT", "naples": "IT", "napoli": "IT",
	"stockholm": "SE", "gothenburg": "SE", "goteborg": "SE", "malmo": "SE", "uppsala": "SE",
	"oslo": "NO", "bergen": "NO", "trondheim": "NO", "copenhagen": "DK", "kobenhavn": "DK",
	"aarhus": "DK", "helsinki": "FI", "espoo": "FI", "tampere": "FI", "reykjavik": "IS",
	"warsaw": "PL", "warszawa": "PL", "krakow": "PL", "wroclaw": "PL", "gdansk": "PL", "poznan": "PL",
	"lodz": "PL", "katowice": "PL", "prague": "CZ", "praha": "CZ", "brno": "CZ",
	"budapest": "HU", "bucharest": "RO", "bucuresti": "RO", "cluj napoca": "RO", "cluj": "RO",
	"iasi": "RO", "sofia": "BG", "belgrade": "RS", "beograd": "RS", "novi sad": "RS",
	"zagreb": "HR", "ljubljana": "SI", "bratislava": "SK", "tallinn": "EE", "tartu": "EE",
	"riga": "LV", "vilnius": "LT", "kaunas": "LT", "athens": "GR", "thessaloniki": "GR",
	"istanbul": "TR", "ankara": "TR", "izmir": "TR", "kyiv": "UA", "kiev": "UA", "lviv": "UA",
	"kharkiv": "UA", "minsk": "BY", "moscow": "RU", "saint petersburg": "RU", "st petersburg": "RU",
	"luxembourg city": "LU", "valletta": "MT", "nicosia": "CY", "limassol": "CY", "tbilisi": "GE",
	"yerevan": "AM", "chisinau": "MD",
	// Middle East and Africa
	"dubai": "AE", "abu dhabi": "AE", "riyadh": "SA", "jeddah": "SA", "doha": "QA",
	"tel aviv": "IL", "tel aviv yafo": "IL", "jerusalem": "IL", "haifa": "IL", "herzliya": "IL",
	"amman": "JO", "beirut": "LB", "cairo": "EG", "alexandria": "EG", "casablanca": "MA",
	"rabat": "MA", "tunis": "TN", "lagos": "NG", "abuja": "NG", "nairobi": "KE", "accra": "GH",
	"kigali": "RW", "addis ababa": "ET", "johannesburg": "ZA", "cape town": "ZA", "durban": "ZA",
	"pretoria": "ZA", "kampala": "UG", "dar es salaam": "TZ", "kuwait city": "KW", "manama": "BH",
	"muscat": "OM",
	// Asia Pacific
	"bangalore": "IN", "bengaluru": "IN", "mumbai": "IN", "bombay": "IN", "delhi": "IN",
	"new delhi": "IN", "gurgaon": "IN", "gurugram": "IN", "noida": "IN", "hyderabad": "IN",
	"chennai": "IN", "pune": "IN", "kolkata": "IN", "ahmedabad": "IN", "kochi": "IN",
	"jaipur": "IN", "karachi": "PK", "lahore": "PK", "islamabad": "PK", "dhaka": "BD",
	"colombo": "LK", "kathmandu": "NP",
	"beijing": "CN", "shanghai": "CN", "shenzhen": "CN", "guangzhou": "CN", "hangzhou": "CN",
	"chengdu": "CN", "nanjing": "CN", "wuhan": "CN", "suzhou": "CN", "taipei": "TW",
	"hsinchu": "TW", "tokyo": "JP", "osaka": "JP", "kyoto": "JP", "yokohama": "JP", "fukuoka": "JP",
	"nagoya": "JP", "seoul": "KR", "busan": "KR", "pangyo": "KR",
	"kuala lumpur": "MY", "penang": "MY", "jakarta": "ID", "bandung": "ID", "bali": "ID",
	"manila": "PH", "makati": "PH", "cebu": "PH", "bangkok": "TH", "chiang mai": "TH",
	"ho chi minh city": "VN", "saigon": "VN", "hanoi": "VN", "da nang": "VN", "phnom penh": "KH",
	"yangon": "MM", "ulaanbaatar": "MN", "almaty": "KZ", "astana": "KZ", "tashkent": "UZ",
	"sydney": "AU", "melbourne": "AU", "brisbane": "AU", "perth": "AU", "adelaide": "AU",
	"canberra": "AU", "gold coast": "AU", "auckland": "NZ", "wellington": "NZ", "christchurch": "NZ",
}

// usStates maps folded US state (and DC) names to their postal codes.
var usStates = map[string]string{
	"alabama": "AL", "alaska": "AK", "arizona": "AZ", "arkansas": "AR", "california": "CA",
	"colorado": "CO", "connecticut": "CT", "delaware": "DE", "florida": "FL", "georgia": "GA",
	"hawaii": "HI", "idaho": "ID", "illinois": "IL", "indiana": "IN", "iowa": "IA",
	"kansas": "KS", "kentucky": "KY", "louisiana": "LA", "maine": "ME", "maryland": "MD",
	"massachusetts": "MA", "michigan": "MI", "minnesota": "MN", "mississippi": "MS",
	"missouri": "MO", "montana": "MT", "nebraska": "NE", "nevada": "NV", "new hampshire": "NH",
	"new jersey": "NJ", "new mexico": "NM", "new york state": "NY", "north carolina": "NC",
	"north dakota": "ND", "ohio": "OH", "oklahoma": "OK", "oregon": "OR", "pennsylvania": "PA",
	"rhode island": "RI", "south carolina": "SC", "south dakota": "SD", "tennessee": "TN",
	"texas": "TX", "utah": "UT", "vermont": "VT", "virginia": "VA", "washington state": "WA",
	"west virginia": "WV", "wisconsin": "WI", "wyoming": "WY", "district of columbia": "DC",
}

// usStateCodes is the set of folded US postal codes (states and DC).
var usStateCodes = func() map[string]bool {
	m := make(map[string]bool, len(usStates))
	for _, code := range usStates {
		m[foldKey(code)] = true
	}
	return m
}()

// caProvinces maps folded Canadian province and territory names to their codes.
var caProvinces = map[string]string{
	"ontario": "ON", "quebec": "QC", "british columbia": "BC", "alberta": "AB", "manitoba": "MB",
	"saskatchewan": "SK", "nova scotia": "NS", "new brunswick": "NB", "newfoundland and labrador": "NL",
	"newfoundland": "NL", "prince edward island": "PE", "yukon": "YT", "northwest territories": "NT",
	"nunavut": "NU",
}

// caProvinceCodes is the set of folded Canadian province codes.
var caProvinceCodes = func() map[string]bool {
	m := make(map[string]bool, len(caProvinces))
	for _, code := range caProvinces {
		m[foldKey(code)] = true
	}
	return m
}()

// regionWords are places larger than a country. They end a title as a
// location suffix but never resolve to a country.
var regionWords = []string{
	"emea", "apac", "latam", "dach", "nordics", "nordic", "benelux", "europe", "eu", "americas",
	"north america", "south america", "latin america", "central america", "asia", "asia pacific",
	"africa", "middle east", "mena", "anz", "uki", "cee", "southeast asia",
	"western europe", "eastern europe", "central europe", "worldwide", "anywhere", "us canada",
}

// workplaceWords are the work-arrangement words of location suffixes.
var workplaceWords = []string{
	"remote", "hybrid", "onsite", "on site", "on-site", "in office", "office based", "remote first",
	"fully remote", "remote friendly", "remote only", "remote ok", "wfh", "work from home",
	"home office", "homeoffice", "telecommute", "telework", "mobiles arbeiten", "home based",
}

// isWorkplaceOrRegion reports whether key is a workplace or region word.
func isWorkplaceOrRegion(key string) bool {
	k, ok := locWords[key]
	return ok && (k == locWorkplace || k == locRegion)
}
