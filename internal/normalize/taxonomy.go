package normalize

import "sort"

// Function taxonomy.
//
// Ids are opaque, fixed string literals of the form "fn_" plus four base-36
// characters. They are stored on reqs and accepted by the `function` filter;
// clients must not parse them. Names are the human vocabulary served as
// function_name. Several ids may serve one name (Engineering is served by the
// general, backend, frontend, mobile, infrastructure, hardware and quality
// sub-families), and a name given to the filter covers every id that serves
// it. Legacy ids kept for old reqs have no name: function_name is null for
// them and FunctionName reports false. Never reuse or renumber an id.

// Function is one taxonomy id and its name ("" for an unnamed legacy id).
type Function struct {
	ID   string
	Name string
}

// The named vocabulary.
const (
	fnEngineering     = "Engineering"
	fnData            = "Data & Analytics"
	fnProduct         = "Product"
	fnDesign          = "Design"
	fnSales           = "Sales"
	fnMarketing       = "Marketing"
	fnCustomerSuccess = "Customer Success"
	fnSupport         = "Support"
	fnFinance         = "Finance"
	fnLegal           = "Legal"
	fnPeople          = "People"
	fnOperations      = "Operations"
	fnIT              = "IT"
	fnSecurity        = "Security"
)

// Taxonomy ids.
const (
	idSoftware    = "fn_7k2q" // Engineering: general software engineering
	idBackend     = "fn_b3xw" // Engineering: backend
	idFrontend    = "fn_f9m1" // Engineering: frontend and web
	idMobile      = "fn_m4pz" // Engineering: mobile
	idInfra       = "fn_i8vc" // Engineering: infrastructure, platform, DevOps, SRE
	idHardware    = "fn_h2ne" // Engineering: hardware and embedded
	idQuality     = "fn_q5ta" // Engineering: QA and test
	idAnalytics   = "fn_d6rj" // Data & Analytics: data engineering, analytics, BI
	idML          = "fn_m7lx" // Data & Analytics: data science, ML, AI
	idProduct     = "fn_p3gh" // Product
	idDesign      = "fn_g8ds" // Design
	idSales       = "fn_s2kv" // Sales: account executives, account management
	idSalesDev    = "fn_s9dr" // Sales: SDR/BDR
	idSalesEng    = "fn_s4pe" // Sales: sales engineering, presales
	idMarketing   = "fn_k5mc" // Marketing
	idCustSuccess = "fn_c1uw" // Customer Success
	idSupport     = "fn_u6sp" // Support
	idFinance     = "fn_n4fa" // Finance
	idLegal       = "fn_l7gq" // Legal
	idRecruiting  = "fn_r3tq" // People: recruiting, talent acquisition
	idHR          = "fn_e9hp" // People: HR, people operations, payroll
	idOperations  = "fn_o2bx" // Operations
	idIT          = "fn_t5iy" // IT
	idSecurity    = "fn_y8sc" // Security
	idLegacyA     = "fn_z0lg" // legacy, unnamed
	idLegacyB     = "fn_x4nd" // legacy, unnamed
)

// functions is the taxonomy, named ids first, in display order.
var functions = [...]Function{
	{idSoftware, fnEngineering},
	{idBackend, fnEngineering},
	{idFrontend, fnEngineering},
	{idMobile, fnEngineering},
	{idInfra, fnEngineering},
	{idHardware, fnEngineering},
	{idQuality, fnEngineering},
	{idAnalytics, fnData},
	{idML, fnData},
	{idProduct, fnProduct},
	{idDesign, fnDesign},
	{idSales, fnSales},
	{idSalesDev, fnSales},
	{idSalesEng, fnSales},
	{idMarketing, fnMarketing},
	{idCustSuccess, fnCustomerSuccess},
	{idSupport, fnSupport},
	{idFinance, fnFinance},
	{idLegal, fnLegal},
	{idRecruiting, fnPeople},
	{idHR, fnPeople},
	{idOperations, fnOperations},
	{idIT, fnIT},
	{idSecurity, fnSecurity},
	{idLegacyA, ""},
	{idLegacyB, ""},
}

// functionByID maps an id to its name ("" when unnamed). Read-only.
var functionByID = func() map[string]string {
	m := make(map[string]string, len(functions))
	for _, f := range functions {
		m[f.ID] = f.Name
	}
	return m
}()

// idsByName maps a folded name to the ids serving it, and functionNames lists
// the names sorted. Read-only.
var idsByName, functionNames = func() (map[string][]string, []string) {
	m := make(map[string][]string)
	var names []string
	for _, f := range functions {
		if f.Name == "" {
			continue
		}
		k := foldKey(f.Name)
		if _, ok := m[k]; !ok {
			names = append(names, f.Name)
		}
		m[k] = append(m[k], f.ID)
	}
	sort.Strings(names)
	return m, names
}()

// Functions returns every taxonomy id with its name ("" for unnamed legacy
// ids), named ids first. The slice is the caller's.
func Functions() []Function {
	return append([]Function(nil), functions[:]...)
}

// FunctionName returns the name of a taxonomy id. ok is false for an unknown
// id and for an id outside the named vocabulary (function_name is null).
func FunctionName(id string) (name string, ok bool) {
	name = functionByID[id]
	return name, name != ""
}

// FunctionNames returns the named vocabulary, sorted (for 422 messages).
func FunctionNames() []string {
	return append([]string(nil), functionNames...)
}

// ResolveFunction resolves a `function` filter value: an exact taxonomy id
// (named or not) gives that id; a name, in any case and with "and" for "&"
// ("data and analytics"), gives every id serving it. ok is false otherwise.
// The slice is the caller's.
func ResolveFunction(s string) (ids []string, ok bool) {
	if _, ok := functionByID[s]; ok {
		return []string{s}, true
	}
	if found, ok := idsByName[foldKey(s)]; ok {
		return append([]string(nil), found...), true
	}
	return nil, false
}
