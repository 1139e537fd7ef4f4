package ats

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// eachElement must yield exactly what encoding/json gives for []json.RawMessage.
func TestEachElementMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, arr := range []string{
		`[]`, `[ ]`, "[\n\t]", `[1]`, `[ 1 , 2 ]`, `["a","b"]`, `[ "a\"]," , "\\" ]`,
		`[{"a":[1,2,{"b":"]"}]}, [ [ ] ], null, true, false, -1.5e3]`,
		"[\r\n {\"x\" : \"y\\u005d\"}\r\n,\"z\" ]", `[[[[1]]],[2]]`, `["}","{","[","]"]`,
	} {
		var want []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(arr), &want), arr)
		var got []json.RawMessage
		eachElement(rawJSON(arr), func(r rawJSON) bool {
			got = append(got, json.RawMessage(r))
			return true
		})
		require.Equal(t, len(want), len(got), arr)
		for i := range want {
			require.Equal(t, string(want[i]), string(got[i]), arr)
		}
	}
	n := 0
	eachElement(rawJSON(`[1,2,3]`), func(rawJSON) bool { n++; return n < 2 })
	require.Equal(t, 2, n, "stops when fn returns false")
}

// FuzzEachElement checks eachElement against encoding/json on every valid array.
func FuzzEachElement(f *testing.F) {
	f.Add([]byte(`[1, "a\"]", {"b":[2]}, null]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []json.RawMessage
		if len(b) == 0 || b[0] != '[' || json.Unmarshal(b, &want) != nil {
			return
		}
		var got []string
		eachElement(rawJSON(b), func(r rawJSON) bool { got = append(got, string(r)); return true })
		require.Equal(t, len(want), len(got))
		for i := range want {
			require.Equal(t, string(want[i]), got[i])
		}
	})
}

// membersProbe has a field of every kind decodeMembers serves.
type membersProbe struct {
	Name    flexString `json:"name"`
	SameAs  rawJSON    `json:"sameAs"`
	Min     flexNum    `json:"minValue"`
	Country ldCountry  `json:"addressCountry"`
	At      flexString `json:"@id"`
}

func (p *membersProbe) member(k []byte, v rawJSON) {
	switch {
	case keyIs(k, "name"):
		_ = p.Name.UnmarshalJSON(v)
	case keyIs(k, "sameAs"):
		p.SameAs = v
	case keyIs(k, "minValue"):
		_ = p.Min.UnmarshalJSON(v)
	case keyIs(k, "addressCountry"):
		_ = p.Country.UnmarshalJSON(v)
	case keyIs(k, "@id"):
		_ = p.At.UnmarshalJSON(v)
	}
}

// checkMembers decodes obj with decodeMembers (no fallback) and with encoding/json, and
// requires the same fields.
func checkMembers(t *testing.T, obj []byte) {
	var want, got membersProbe
	if len(obj) == 0 || obj[0] != '{' || !unmarshalTolerant(obj, &want) {
		return
	}
	fellBack := false
	require.True(t, decodeMembers(obj, got.member, func() bool { fellBack = true; return unmarshalTolerant(obj, &got) }))
	require.Equal(t, want, got, "%s (fallback %v)", obj, fellBack)
}

func TestDecodeMembersMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, obj := range []string{
		`{}`, `{ "name" : "A" , "NAME":"B" }`, `{"sameAs":["x", {"y":"}"}], "minValue":"85,000"}`,
		`{"sameAs":null,"minValue":null,"name":null}`, `{"addressCountry":{"@type":"Country","name":" DE "}}`,
		`{"@ID":7,"other":{"name":"nested"},"name":"a\"b"}`, `{"na\u006de":"escaped key"}`, `{"ſameAs":"folded"}`,
	} {
		checkMembers(t, []byte(obj))
	}
}

func FuzzDecodeMembers(f *testing.F) {
	f.Add([]byte(`{"name":"A","sameAs":["u"],"minValue":1,"addressCountry":"DE","@id":"x"}`))
	f.Fuzz(func(t *testing.T, obj []byte) { checkMembers(t, obj) })
}

// checkNode decodes obj into an ldNode member by member and with encoding/json, and requires
// the same node.
func checkNode(t *testing.T, obj []byte) {
	var want, got ldNode
	if len(obj) == 0 || obj[0] != '{' || !json.Valid(obj) || !unmarshalTolerant(obj, &want) {
		return
	}
	require.True(t, decodeMembers(obj, got.member, func() bool { return unmarshalTolerant(obj, &got) }))
	require.Equal(t, want, got, "%s", obj)
}

func TestNodeMembersMatchEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, obj := range []string{
		`{"@type":"JobPosting","title":"A","name":"B","title":7,"TITLE":"C","datePosted":"2026-01-05","url":5}`,
		`{"title":"caf\u00e9","name":null,"name":"x\"y","identifier":{"value":"1"},"@graph":[{"@type":"JobPosting"}]}`,
		"{\"title\":\"bad \xff utf8\",\"jobLocation\":[{\"address\":\"Berlin\"}],\"baseSalary\":{\"value\":1}}",
		`{"title":{"x":1},"name":["y"],"hiringOrganization":"Acme","jobLocationType":["TELECOMMUTE"],"applicantLocationRequirements":null}`,
	} {
		checkNode(t, []byte(obj))
	}
}

func FuzzNodeMembers(f *testing.F) {
	f.Add([]byte(`{"@type":"JobPosting","title":"A","identifier":{"value":"1"},"datePosted":"2026-01-05","url":"u"}`))
	f.Fuzz(func(t *testing.T, obj []byte) { checkNode(t, obj) })
}
