package normalize

// Seniority.
//
// Seniorities is the one seniority vocabulary of the service, most junior first: what
// reqs/qualified serves as seniority and req.seniority filters on, and what jobtext derives
// from a posting. A title's seniority is its most senior seniority word (seniorityWords) among
// Tokens(title), so abbreviations count as their expansion ("Sr." is senior, "SVP" is vp) and
// "Associate Director" is director; a seniority word inside a pair that names something else
// ("Mid-Market", "Senior Living", "Data Entry") does not count. A title without one has none:
// nothing is inferred from the rest of the title.

// Seniorities lists the seniorities, most junior first.
var Seniorities = []string{"intern", "junior", "mid", "senior", "staff", "principal", "lead", "manager", "director", "vp", "executive"}

// seniorityWords maps a title token (as Tokens writes it) to a seniority.
var seniorityWords = map[string]string{
	"intern": "intern", "internship": "intern", "trainee": "intern", "apprentice": "intern", "werkstudent": "intern",
	"junior": "junior", "jr": "junior", "graduate": "junior", "entry": "junior", "associate": "junior",
	"mid": "mid", "intermediate": "mid",
	"senior": "senior", "sr": "senior", "experienced": "senior",
	"staff":     "staff",
	"principal": "principal", "distinguished": "principal",
	"lead": "lead", "head": "director",
	"manager": "manager", "management": "manager",
	"director": "director",
	"vp":       "vp", "vice": "vp", "svp": "vp", "evp": "vp",
	"chief": "executive", "cto": "executive", "ceo": "executive", "cfo": "executive", "coo": "executive", "cmo": "executive", "cio": "executive", "ciso": "executive",
}

// notSeniority are word pairs in which a seniority word names something else: a market segment
// ("Mid-Market Account Executive"), an industry ("Senior Living Sales Director" is a director),
// a task ("Data Entry Clerk").
var notSeniority = map[string]bool{
	"mid market": true, "mid size": true, "mid sized": true, "senior living": true, "senior care": true,
	"data entry": true,
}

// SeniorityRank is the position of s in Seniorities (0 for intern), or -1 when s is none.
func SeniorityRank(s string) int {
	for i, v := range Seniorities {
		if v == s {
			return i
		}
	}
	return -1
}

// TitleSeniority is the seniority a raw title names: its most senior seniority word, or ""
// when it names none. "Sr. Backend Engineer (m/w/d)" is senior, "VP of Engineering" vp,
// "Head of Sales" director, "Software Engineer" "".
func TitleSeniority(rawTitle string) string {
	best := -1
	toks := Tokens(rawTitle)
	for i, tok := range toks {
		s, ok := seniorityWords[tok]
		if !ok || i+1 < len(toks) && notSeniority[tok+" "+toks[i+1]] || i > 0 && notSeniority[toks[i-1]+" "+tok] {
			continue
		}
		if r := SeniorityRank(s); r > best {
			best = r
		}
	}
	if best < 0 {
		return ""
	}
	return Seniorities[best]
}

// SeniorityOfWord is the seniority one title word names (folded as Tokens writes it: "sr" and
// "senior" are senior), or "" when it names none.
func SeniorityOfWord(word string) string { return seniorityWords[word] }
