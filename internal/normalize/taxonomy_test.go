package normalize

import (
	"regexp"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFunctionsTable(t *testing.T) {
	t.Parallel()
	idFormat := regexp.MustCompile(`^fn_[0-9a-z]{4}$`)
	seen := map[string]bool{}
	named := 0
	for _, f := range Functions() {
		require.Regexp(t, idFormat, f.ID)
		require.False(t, seen[f.ID], "duplicate id %s", f.ID)
		seen[f.ID] = true
		if f.Name != "" {
			named++
		}
	}
	require.Greater(t, named, 14, "some names are served by several ids")
	require.Len(t, FunctionNames(), 14)
	require.True(t, sort.StringsAreSorted(FunctionNames()))
	for _, r := range classifyRules {
		_, ok := FunctionName(r.id)
		require.True(t, ok, "Classify must only return named ids: %s", r.id)
		for _, p := range r.phrases {
			require.Equal(t, TitleKey(p), p, "rule phrases must be normalised words: %q", p)
		}
	}
}

func TestFunctionName(t *testing.T) {
	t.Parallel()
	name, ok := FunctionName(idBackend)
	require.True(t, ok)
	require.Equal(t, "Engineering", name)
	name, ok = FunctionName(idML)
	require.True(t, ok)
	require.Equal(t, "Data & Analytics", name)

	for _, id := range []string{idLegacyA, idLegacyB, "fn_nope", "", "Engineering"} {
		name, ok := FunctionName(id)
		require.False(t, ok, id)
		require.Empty(t, name, id)
	}
}

func TestResolveFunction(t *testing.T) {
	t.Parallel()
	// An id resolves to itself, named or not.
	for _, id := range []string{idBackend, idSecurity, idLegacyA} {
		ids, ok := ResolveFunction(id)
		require.True(t, ok, id)
		require.Equal(t, []string{id}, ids)
	}
	// A name covers every id serving it.
	ids, ok := ResolveFunction("Engineering")
	require.True(t, ok)
	require.ElementsMatch(t, []string{idSoftware, idBackend, idFrontend, idMobile, idInfra, idHardware, idQuality}, ids)
	for _, in := range []string{"Data & Analytics", "data and analytics", "DATA & ANALYTICS", " data  &  analytics "} {
		ids, ok := ResolveFunction(in)
		require.True(t, ok, in)
		require.ElementsMatch(t, []string{idAnalytics, idML}, ids, in)
	}
	for _, in := range []string{"sales", "People", "customer success", "Customer-Success", "IT", "it", "security"} {
		ids, ok := ResolveFunction(in)
		require.True(t, ok, in)
		require.NotEmpty(t, ids, in)
	}
	ids, ok = ResolveFunction("Sales")
	require.True(t, ok)
	require.Len(t, ids, 3)
	// Every name resolves to ids that carry it back.
	for _, name := range FunctionNames() {
		ids, ok := ResolveFunction(name)
		require.True(t, ok, name)
		for _, id := range ids {
			got, ok := FunctionName(id)
			require.True(t, ok)
			require.Equal(t, name, got)
		}
	}
	for _, in := range []string{"", "Engineers", "fn_7K2Q", "Narnia", "Data"} {
		ids, ok := ResolveFunction(in)
		require.False(t, ok, in)
		require.Nil(t, ids, in)
	}
	// Callers get their own slice.
	ids, _ = ResolveFunction("Engineering")
	ids[0] = "x"
	again, _ := ResolveFunction("Engineering")
	require.NotEqual(t, "x", again[0])
}

func TestClassify(t *testing.T) {
	t.Parallel()
	cases := []struct{ title, want string }{
		// Security before Engineering
		{"Security Engineer", idSecurity},
		{"Senior Application Security Engineer", idSecurity},
		{"Cybersecurity Analyst", idSecurity},
		{"Cyber Security Analyst", idSecurity},
		{"Penetration Tester", idSecurity},
		{"CISO", idSecurity},
		// Data & Analytics
		{"Data Engineer", idAnalytics},
		{"Senior Data Analyst (m/w/d)", idAnalytics},
		{"Analytics Engineer", idAnalytics},
		{"BI Developer", idAnalytics},
		{"Business Analyst", idAnalytics},
		{"Data Scientist", idML},
		{"Machine Learning Engineer", idSoftware}, // engineers building ML systems are Engineering (the simulator's taxonomy)
		{"ML Engineer", idSoftware},
		{"AI Engineer", idSoftware},
		// Sales
		{"Account Executive", idSales},
		{"Enterprise Account Executive - Remote", idSales},
		{"Sales Manager", idSales},
		{"Key Account Manager", idSales},
		{"SDR", idSalesDev},
		{"BDR (m/w/d)", idSalesDev},
		{"Sales Development Representative", idSalesDev},
		{"Sales Engineer", idSalesEng},
		{"Solutions Engineer", idSalesEng},
		{"Sales Recruiter", idRecruiting},
		// Design
		{"Product Designer", idDesign},
		{"UX Designer", idDesign},
		{"UX Researcher", idDesign},
		{"Senior UX/UI Designer", idDesign},
		{"Graphic Designer", idDesign},
		// Product
		{"Product Manager", idProduct},
		{"Sr. Product Mgr", idProduct},
		{"Product Owner", idProduct},
		{"Senior Product Manager, Security", idProduct},
		// Marketing
		{"Product Marketing Manager", idMarketing},
		{"Growth Marketing Manager", idMarketing},
		{"SEO Specialist", idMarketing},
		{"Content Writer", idMarketing},
		// People
		{"Recruiter", idRecruiting},
		{"Technical Recruiter", idRecruiting},
		{"Talent Acquisition Partner", idRecruiting},
		{"Payroll Specialist", idFinance}, // payroll is run by Finance (the simulator's taxonomy),
		{"HR Business Partner", idHR},
		{"HR Manager", idHR},
		{"People Operations Manager", idHR},
		// Finance
		{"Accountant", idFinance},
		{"Senior Accountant (m/w/d)", idFinance},
		{"Financial Controller", idFinance},
		{"Controller", idFinance},
		{"FP&A Analyst", idFinance},
		{"FP & A Manager", idFinance},
		{"Financial Analyst", idFinance},
		// Legal
		{"Senior Counsel", idLegal},
		{"General Counsel", idLegal},
		{"Paralegal", idLegal},
		{"Compliance Manager", idLegal},
		// Customer Success and Support
		{"Customer Success Manager", idCustSuccess},
		{"CSM - Enterprise", idCustSuccess},
		{"Technical Account Manager", idCustSuccess},
		{"Support Specialist", idSupport},
		{"Customer Support Agent", idSupport},
		{"Technical Support Engineer", idSupport},
		// IT
		{"Help Desk Technician", idIT},
		{"Helpdesk Analyst", idIT},
		{"IT Support Specialist", idIT},
		{"System Administrator", idIT},
		// Operations
		{"Office Manager", idOperations},
		{"Chief of Staff", idOperations},
		{"Executive Assistant", idOperations},
		{"Operations Manager", idOperations},
		{"Supply Chain Analyst", idOperations},
		// Engineering sub-families
		{"Backend Engineer", idBackend},
		{"Senior Back-End Developer", idBackend},
		{"Python Developer", idBackend},
		{"Java Engineer", idBackend},
		{"Golang Engineer", idBackend},
		{"C++ Developer", idBackend},
		{"Software Engineer, Backend", idBackend},
		{"Frontend Engineer", idFrontend},
		{"Front-End Developer", idFrontend},
		{"React Developer", idFrontend},
		{"UI Engineer", idFrontend},
		{"iOS Engineer", idMobile},
		{"Android Developer", idMobile},
		{"Mobile Engineer", idMobile},
		{"React Native Developer", idMobile},
		{"DevOps Engineer", idInfra},
		{"Site Reliability Engineer", idInfra},
		{"SRE", idInfra},
		{"Platform Engineer", idInfra},
		{"Cloud Engineer", idIT},
		{"Embedded Software Engineer", idHardware},
		{"Firmware Engineer", idHardware},
		{"QA Engineer", idQuality},
		{"Software Engineer in Test", idQuality},
		{"SDET", idQuality},
		{"Software Engineer", idSoftware},
		{"Sr. Eng.", idSoftware},
		{"Sr. Software Eng. (m/w/d) - Berlin", idSoftware},
		{"Full-Stack Developer", idSoftware},
		{"Engineering Manager", idSoftware},
		{"Engineering Manager, Data Platform", idSoftware},
		{"Technical Program Manager", idSoftware},
		{"VP of Engineering", idSoftware},
		{"CTO", idSoftware},
		{"Developer", idSoftware},
	}
	for _, c := range cases {
		got, ok := Classify(c.title)
		require.True(t, ok, c.title)
		gotName, _ := FunctionName(got)
		wantName, _ := FunctionName(c.want)
		require.Equal(t, c.want, got, "%q: got %s (%s), want %s (%s)", c.title, got, gotName, c.want, wantName)
	}
	for _, title := range []string{"", "Manager", "Intern", "Consultant", "Director", "(m/w/d)", "Remote"} {
		id, ok := Classify(title)
		require.False(t, ok, title)
		require.Empty(t, id, title)
	}
}
