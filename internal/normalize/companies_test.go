package normalize

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCompanyKeyVariantsCollapse(t *testing.T) {
	t.Parallel()
	variants := []string{
		"Acme", "acme", "ACME", " Acme ", "Acme Inc.", "Acme Inc", "ACME INC", "Acme, Inc.", "Acme, Inc",
		"Acme Incorporated", "Acme GmbH", "Acme S.A.", "Acme SA", "Acme B.V.", "Acme BV", "Acme Pty Ltd",
		"Acme Pty. Ltd.", "Acme Sp. z o.o.", "Acme sp. z o. o.", "Acme S.p.A.", "Acme SpA", "Acme KK",
		"Acme AB", "Acme AB (publ)", "Acme Oy", "Acme Oyj", "Acme AS", "Acme A/S", "Acme ApS", "Acme SAS",
		"Acme SARL", "Acme S.à r.l.", "Acme LLC", "Acme L.L.C.", "Acme LLP", "Acme PLC", "Acme plc",
		"Acme Ltd.", "Acme Ltd", "Acme Limited", "Acme Corp.", "Acme Corp", "Acme Corporation",
		"Acme Co.", "Acme Company", "Acme AG", "Acme NV", "Acme N.V.", "Acme SE", "Acme Pte. Ltd.",
		"Acme Pte Ltd", "Acme Private Limited", "Acme Pvt. Ltd.", "Acme GmbH & Co. KG", "Acme GmbH and Co KG",
		"Acme & Co.", "Acme S.L.", "Acme S.R.L.", "Acme s.r.o.", "Acme Kft.", "Acme Ltda.", "Acme S.A. de C.V.",
		"Acme Sdn. Bhd.", "Acme Co., Ltd.", "Acme K.K.", "Acme UG (haftungsbeschränkt)", "Acme e.V.",
		"PT Acme Tbk", "Acme OÜ", "Acme UAB", "Acme FZ-LLC", "Acme Inc. Ltd.", "The Acme Company",
	}
	for _, v := range variants {
		require.Equal(t, "acme", CompanyKey(v), v)
	}
}

func TestCompanyKey(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"Acme Holdings Pte. Ltd.":  "acme holdings",
		"Acme Holdings":            "acme holdings",
		"Johnson & Johnson":        "johnson and johnson",
		"Johnson and Johnson Inc.": "johnson and johnson",
		"Coca-Cola Company":        "coca cola",
		"McDonald's Corporation":   "mcdonalds",
		"Société Générale S.A.":    "societe generale",
		"Zalando SE":               "zalando",
		"Inc":                      "inc", // never strip to nothing
		"Limited":                  "limited",
		"":                         "",
		"  ,  ":                    "",
		"The Trade Desk":           "trade desk",
		"Acme Software GmbH":       "acme software",
		"Acme Labs, Inc.":          "acme labs",
	}
	for in, want := range cases {
		require.Equal(t, want, CompanyKey(in), in)
	}
	require.NotEqual(t, CompanyKey("Acme"), CompanyKey("Acme Labs"))
	require.NotEqual(t, CompanyKey("Acme Holdings"), CompanyKey("Acme"))
}

func TestLegalFormsFolded(t *testing.T) {
	t.Parallel()
	for _, f := range legalForms {
		require.Equal(t, lexKey(f), f, "legal forms must be folded")
	}
	require.GreaterOrEqual(t, len(legalForms), 150)
}

func TestStripLegalSuffix(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, base string
		stripped bool
	}{
		{"Acme", "Acme", false},
		{"  Acme  ", "Acme", false},
		{"Acme Inc.", "Acme", true},
		{"Acme, Inc.", "Acme", true},
		{"ACME INC", "ACME", true},
		{"Acme Holdings Pte. Ltd.", "Acme Holdings", true},
		{"Acme GmbH & Co. KG", "Acme", true},
		{"PT Acme Tbk", "Acme", true},
		{"Acme Labs", "Acme Labs", false},
		{"Inc.", "Inc.", false},
	}
	for _, c := range cases {
		base, stripped := StripLegalSuffix(c.in)
		require.Equal(t, c.base, base, c.in)
		require.Equal(t, c.stripped, stripped, c.in)
	}
}

func TestDomainKey(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"https://www.Acme.com/careers":       "acme.com",
		"http://acme.com":                    "acme.com",
		"acme.com":                           "acme.com",
		"www.acme.com":                       "acme.com",
		"WWW.ACME.COM.":                      "acme.com",
		"https://acme.com:8443/jobs?x=1#top": "acme.com",
		"acme.com/careers":                   "acme.com",
		"//cdn.acme.co.uk/x":                 "cdn.acme.co.uk",
		"https://user:pw@jobs.acme.io/":      "jobs.acme.io",
		"jobs@acme.com":                      "acme.com",
		"  https://Acme.com  ":               "acme.com",
		"":                                   "",
	}
	for in, want := range cases {
		require.Equal(t, want, DomainKey(in), in)
	}
}
