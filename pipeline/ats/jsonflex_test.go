package ats

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
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

// jsonStringMatches checks jsonStringValue against json.Unmarshal into a string: the same value
// where encoding/json takes the literal, false where it refuses it.
func jsonStringMatches(t *testing.T, lit []byte) {
	t.Helper()
	var want string
	werr := json.Unmarshal(lit, &want)
	got, ok := jsonStringValue(lit)
	if werr != nil {
		require.False(t, ok, "%q: encoding/json refuses it (%v), jsonStringValue read %q", lit, werr, got)
		return
	}
	require.True(t, ok, "%q", lit)
	require.Equal(t, want, got, "%q", lit)
}

// A string literal with escapes is read as encoding/json reads it: every escape, surrogate pairs
// and lone surrogates, bytes that are not UTF-8, and the literals it refuses.
func TestJSONStringValueMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, inner := range []string{
		`\u003cp\u003eHello \u0026amp; welcome\u003c/p\u003e`, `\"quoted\" \\ \/ \b\f\n\r\t`, `a\u00e9b\u00C9`,
		`\ud83d\ude00 smile`, `\uD83D\uDE00`, `\ud83d alone`, `\ude00 low first`, `\ud83d\u0041`, `\ud83d\ud83d\ude00`,
		`\ud83d\u12`, `\u12`, `\u12G4`, `\x41`, `\'`, `tail\`, "raw \x01 control\\n", `bare " quote\n`,
		"\xff\xfe not utf-8\\n", "caf\xc3\xa9\\t", "\xe2\x82 cut\\n", "\xf0\x9f\x98\x80 emoji\\n", "\u2028 sep\\n", "\x7f del\\n",
		`\u0000 nul`, `\uFFFD`, `\uffff`, `\\\\\\`, `\\u0041`, `\`, `\\`,
	} {
		jsonStringMatches(t, []byte(`"`+inner+`"`))
	}
	// Every two-byte tail after a backslash, and random mixes of escapes and bytes.
	for a := 0; a < 256; a++ {
		for _, b := range []byte{'0', 'a', 'd', 'D', '8', 'F', '"', 'x'} {
			jsonStringMatches(t, []byte{'"', 'x', '\\', byte(a), b, 'y', '"'})
		}
	}
	pieces := []string{`\n`, `\"`, `\\`, `\u00e9`, `\ud83d`, `\ude00`, `\uD800`, `\u0041`, "a", " ", "é", "\xff", "\xe2\x82", "\x1f", `"`, `\`, "<p>"}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		lit := []byte{'"', '\\', 'n'}
		for range rnd.IntN(12) {
			lit = append(lit, pieces[rnd.IntN(len(pieces))]...)
		}
		jsonStringMatches(t, append(lit, '"'))
	}
}

// FuzzJSONStringValue checks jsonStringValue against encoding/json on any literal with an escape
// (one without is its bytes as they are, encoding/json's validation left to the page's).
func FuzzJSONStringValue(f *testing.F) {
	f.Add([]byte(`"\u003cp\u003e\ud83d\ude00\"x\"\n\xff"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' || !bytes.Contains(b[1:len(b)-1], []byte{'\\'}) {
			return
		}
		jsonStringMatches(t, b)
	})
}
