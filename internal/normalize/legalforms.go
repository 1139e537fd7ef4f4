package normalize

// legalForms lists company legal forms in folded form (see foldKey: lower
// case, no diacritics, dotted acronyms joined, "&" as "and", other punctuation
// as a space). "S.A." is "sa", "Sp. z o.o." is "sp z oo", "A/S" is "a s".
// Modelled on the term lists of the cleanco project (MIT), grouped by the
// countries that use them; a form used in several countries appears once.
var legalForms = []string{
	// Long forms written out in full (boards often spell the form out)
	"limitada", "aktiengesellschaft", "designated activity company", "gesellschaft mit beschrankter haftung",
	"societe anonyme", "societe par actions simplifiee", "societe a responsabilite limitee",
	"besloten vennootschap", "naamloze vennootschap", "aktiebolag", "osakeyhtio", "aksjeselskap",
	"anpartsselskab", "aktieselskab", "sociedade anonima", "sociedade limitada", "societa per azioni",
	"societa a responsabilita limitata", "spolka z ograniczona odpowiedzialnoscia", "spolka akcyjna",
	"sociedad anonima de capital variable", "public company limited", "kommanditgesellschaft",
	// United States, United Kingdom, Ireland, Canada and other common-law countries
	"inc", "incorporated", "corp", "corporation", "co", "company", "llc", "l l c", "llp", "lp", "lllp",
	"ltd", "limited", "plc", "pllc", "pc", "p c", "ulc", "cic", "dac", "clg", "uc", "teoranta", "cpt",
	"limited liability company", "limited liability partnership", "limited partnership",
	"public limited company", "co ltd", "co inc", "company limited", "corp ltd", "ltee", "limitee",
	"incorporee",
	// Australia, New Zealand, South Africa
	"pty", "pty ltd", "proprietary limited", "pty limited", "soc ltd", "npc", "nl",
	// India, Singapore, Malaysia, Hong Kong, Philippines, Pakistan, Bangladesh
	"pvt", "pvt ltd", "private limited", "pvt limited", "opc", "pte", "pte ltd", "private ltd",
	"sdn bhd", "bhd", "berhad", "sendirian berhad",
	// Germany, Austria, Switzerland, Liechtenstein
	"gmbh", "ag", "kg", "ohg", "gbr", "ug", "ug haftungsbeschrankt", "kgaa", "ag and co kg",
	"gmbh and co kg", "gmbh and co", "ev", "eg", "mbh", "gesmbh", "ges m b h", "se", "e k", "ek",
	"gmbh and co ohg",
	// France, Belgium, Luxembourg, Switzerland (French), Monaco
	"sa", "sas", "sasu", "sarl", "eurl", "sci", "snc", "sca", "scs", "scop", "sa rl", "s a r l",
	"sprl", "srl", "bvba", "cvba", "scrl", "asbl", "gie", "selarl",
	// Netherlands, Belgium (Dutch)
	"bv", "nv", "vof", "cv", "b v", "n v", "bv ba",
	// Italy, San Marino
	"spa", "s p a", "srls", "sapa", "scarl", "scpa", "onlus",
	// Spain
	"sl", "slu", "sll", "sau", "sociedad anonima", "sociedad limitada", "slne", "sccl", "scoop",
	// Portugal, Brazil
	"lda", "unipessoal lda", "ltda", "eireli", "sa de cv", "sgps",
	// Mexico and Latin America
	"s de rl", "s de rl de cv", "sab de cv", "sapi de cv", "sapi", "sab", "sc", "eirl",
	"saic", "saca", "srl de cv", "sac", "saa",
	// Nordics
	"ab", "ab publ", "publ", "hb", "kb", "oy", "oyj", "as", "asa", "aps", "a s", "i s", "k s", "p s",
	"ivs", "amba", "smba", "ehf", "hf", "sf", "ky", "tmi", "ans", "da",
	// Poland, Czechia, Slovakia, Hungary
	"sp z oo", "sp z o o", "spzoo", "sp k", "sp j", "spj", "ska", "sro", "s r o", "spol sro",
	"spol s r o", "vos", "ks", "kft", "zrt", "nyrt", "bt", "kkt", "rt",
	// Romania, Bulgaria, Balkans, Greece, Cyprus, Turkey
	"ood", "eood", "ad", "ead", "et", "doo", "d o o", "dd", "d d", "ae", "epe", "ike", "oe",
	"ltd sti", "sti", "anonim sirketi", "limited sirketi",
	// Baltics, Russia, Ukraine, Belarus, Caucasus, Central Asia
	"uab", "ou", "sia", "ooo", "zao", "oao", "pao", "ao", "tov", "jsc", "ojsc", "cjsc", "pjsc",
	// Japan, Korea, China, Taiwan
	"kk", "kabushiki kaisha", "kabushiki gaisha", "gk", "godo kaisha", "yk", "yugen kaisha",
	"chusik hoesa", "youxian gongsi", "gufen youxian gongsi",
	// South-East Asia
	"tbk", "pcl", "public company limited", "co op",
	// Middle East and Africa
	"bm", "fzco", "fze", "fz llc", "fzllc", "fz co", "dmcc", "psc", "wll", "w l l", "spc", "saog",
	"saoc", "sae",
}

// legalPrefixes are legal forms written before the name ("PT Acme Tbk").
var legalPrefixes = map[string]bool{"pt": true, "ooo": true, "oao": true, "zao": true, "pao": true}

// legalFormSet and legalMaxWords index legalForms. Read-only.
var legalFormSet, legalMaxWords = func() (map[string]bool, int) {
	m := make(map[string]bool, len(legalForms))
	max := 1
	for _, f := range legalForms {
		m[f] = true
		n := 1
		for i := 0; i < len(f); i++ {
			if f[i] == ' ' {
				n++
			}
		}
		if n > max {
			max = n
		}
	}
	return m, max
}()
