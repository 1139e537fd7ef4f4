package ats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A JOIN company page states the company's number (its tenant) and name in its embedded data;
// the first number of the page is a category's, and a placeholder company's data never counts.
func TestJoinCompanyReadsTheNumberOfThePagesSlug(t *testing.T) {
	t.Parallel()
	page := fixture(t, "join_company_page.html")
	id, name, err := JoinCompany(page, "acme-software")
	require.NoError(t, err)
	require.Equal(t, "310", id)
	require.Equal(t, "Acme Software GmbH", name)

	id, _, err = JoinCompany(page, "Acme-Software")
	require.NoError(t, err, "the slug is matched without case")
	require.Equal(t, "310", id)

	_, _, err = JoinCompany(page, "greenteg")
	require.ErrorContains(t, err, "placeholder", "a page of another company's data names no company of the slug")

	for _, body := range []string{
		``, `<html>no data</html>`, `{"company":"acme-software"}`, `{"company":{"id":0,"domain":"acme-software"}}`,
		`{"company":{"id":"-4","domain":"acme-software"}}`, `{"company":{"id":"x","domain":"acme-software"}}`, `{"company":{"id":12,"domain":"acme-sof`,
	} {
		_, _, err := JoinCompany([]byte(body), "acme-software")
		require.Error(t, err, body)
	}
	id, name, err = JoinCompany([]byte(`x"company":null,"company":{"id":"42","name":" Acme ","domain":"acme-software"}`), "acme-software")
	require.NoError(t, err)
	require.Equal(t, []string{"42", "Acme"}, []string{id, name})
}

func FuzzJoinCompany(f *testing.F) {
	f.Add(fixture(f, "join_company_page.html"), "acme-software")
	f.Add([]byte(`"company":{"id":1e400,"domain":"a"}`), "a")
	f.Fuzz(func(t *testing.T, body []byte, slug string) {
		id, _, err := JoinCompany(body, slug)
		if err == nil {
			require.Regexp(t, `^[1-9][0-9]*$`, id)
		}
	})
}
