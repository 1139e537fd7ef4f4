package api

// Fuzz targets of the framework's parsers of outside input, and unit tests of the bounds they
// rely on. Run one with
//
//	go test -run='^$' -fuzz='^FuzzQueryParams$' -fuzztime=10s ./api/

import (
	"encoding/json"
	"net"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/internal/problem"
)

func i64(v int64) *int64 { return &v }

// fuzzRoute declares a parameter of every kind the framework validates, and a body of every
// field type.
func fuzzRoute() *Route {
	return &Route{Name: "fuzz", Method: "POST", Path: "/fuzz", Idempotent: true,
		Params: []Param{
			{Name: "limit", In: "query", Type: "integer", Min: i64(1), Max: i64(100), Default: int64(20)},
			{Name: "since", In: "query", Type: "date-time"},
			{Name: "fresh", In: "query", Type: "boolean"},
			{Name: "sort", In: "query", Type: "string", Enum: []string{"relevance", "recency"}},
			{Name: "band", In: "query", Type: "string", Repeatable: true, Enum: []string{"1-10", "11-50", "51-200"}},
			{Name: "geo", In: "query", Type: "string", Repeatable: true, MaxItems: 5},
			{Name: "q", In: "query", Type: "string", MaxLength: 64},
			{Name: "role", In: "query", Type: "string", AliasOf: "q", Sunset: "2026-11-09"},
			idempotencyKey(),
		},
		Body: &Body{Fields: []Field{
			{Name: "name", Type: "string", Required: true},
			{Name: "kind", Type: "string", Enum: []string{"a", "b"}},
			{Name: "n", Type: "integer"},
			{Name: "x", Type: "number"},
			{Name: "ok", Type: "boolean"},
			{Name: "criteria", Type: "object"},
			{Name: "scopes", Type: "array", Items: "string", Enum: AllScopes},
			{Name: "tier", Type: "string", Forbidden: true},
		}},
	}
}

func fuzzCall(rt *Route, query string, headers ...string) *Call {
	rc := &fasthttp.RequestCtx{}
	rc.Request.SetRequestURI("/fuzz?" + query)
	for i := 0; i+1 < len(headers); i += 2 {
		rc.Request.Header.Set(headers[i], headers[i+1])
	}
	return &Call{Ctx: rc, Route: rt}
}

// requireBounded422 checks a validation answer: a 422 of at most problem.MaxFieldErrors items, each
// with a loc in the request, written as valid JSON.
func requireBounded422(t *testing.T, e *Error, in ...string) {
	t.Helper()
	require.Equal(t, fasthttp.StatusUnprocessableEntity, e.Status)
	items, ok := e.Detail.([]problem.FieldError)
	require.True(t, ok)
	require.NotEmpty(t, items)
	require.LessOrEqual(t, len(items), problem.MaxFieldErrors)
	for _, it := range items {
		require.NotNil(t, it.Ctx)
		if it.Type == "too_many_errors" {
			continue
		}
		require.NotEmpty(t, it.Loc)
		require.Contains(t, in, it.Loc[0])
	}
	rc := &fasthttp.RequestCtx{}
	writeError(rc, e)
	require.Equal(t, fasthttp.StatusUnprocessableEntity, rc.Response.StatusCode())
	require.True(t, json.Valid(rc.Response.Body()), "%q", rc.Response.Body())
}

func FuzzQueryParams(f *testing.F) {
	for _, q := range []string{"", "limit=5", "limit=0", "limit=101&limit=2", "limit=9223372036854775808", "since=2026-01-31T00:00:00Z",
		"since=yesterday", "fresh=yes", "fresh=maybe", "sort=best", "band=1-10&band=7&band=%00", "geo=a&geo=b&geo=c&geo=d&geo=e&geo=f",
		"q=engineer&role=engineer", "role=x", "q=" + strings.Repeat("%ff", 70), "%zz=1&&=&limit", "band=" + strings.Repeat("x&band=", 200)} {
		f.Add(q, "k1")
	}
	f.Add("limit=3", "\xff\xfe")
	f.Add("", strings.Repeat("k", 256))
	rt := fuzzRoute()
	f.Fuzz(func(t *testing.T, query, idem string) {
		c := fuzzCall(rt, query, "Idempotency-Key", idem)
		c.Caller.Demo = len(query)%2 == 1
		e := c.validateParams()
		if e != nil {
			requireBounded422(t, e, "query", "header")
			return
		}
		if n, ok := c.Int("limit"); ok {
			require.GreaterOrEqual(t, n, int64(1))
			require.LessOrEqual(t, n, int64(100))
			if c.Caller.Demo {
				require.LessOrEqual(t, n, int64(DemoPageLimit))
			}
		}
		require.LessOrEqual(t, len(c.Strings("geo")), 5)
		if q, ok := c.String("q"); ok {
			require.LessOrEqual(t, len(q), 64)
		}
	})
}

func FuzzJSONBody(f *testing.F) {
	for _, b := range []string{"", "{", "[]", "null", "1", `"s"`, `{}`, `{"name":"x"}`, `{"name":1,"kind":"c","n":1.5,"x":"y","ok":"t","criteria":[]}`,
		`{"name":"x","scopes":["read","root",3]}`, `{"name":"x","tier":"tier_3","extra":{"a":[1,2]}}`, `{"name":"x","scopes":"read"}`,
		`{"name":"x","scopes":[` + strings.Repeat(`"bad",`, 300) + `"read"]}`, `{"name":"\ud800"}`, "{\"name\":\"x\"}\x00", `{"a":1,"a":2}`} {
		f.Add([]byte(b))
	}
	rt := fuzzRoute()
	f.Fuzz(func(t *testing.T, body []byte) {
		c := fuzzCall(rt, "")
		c.Ctx.Request.SetBody(body)
		e := c.validateBody()
		if e != nil {
			requireBounded422(t, e, "body")
			return
		}
		require.True(t, len(c.body) == 0 || json.Valid(c.body))
	})
}

func FuzzIdempotencyKey(f *testing.F) {
	for _, k := range []string{"", "a", "order-42", "\xff\xfebad", "tab\there", "nul\x00", "caf\u00e9", strings.Repeat("k", 255), strings.Repeat("k", 256)} {
		f.Add(k)
	}
	rt := &Route{Name: "idem", Params: []Param{idempotencyKey()}}
	f.Fuzz(func(t *testing.T, key string) {
		c := fuzzCall(rt, "", "Idempotency-Key", key)
		sent := string(c.Ctx.Request.Header.Peek("Idempotency-Key")) // what the header carries
		e := c.validateParams()
		printable := len(sent) <= MaxIdempotencyKey
		for i := 0; i < len(sent); i++ {
			printable = printable && sent[i] >= ' ' && sent[i] <= '~'
		}
		if e != nil {
			requireBounded422(t, e, "header")
			require.False(t, printable && sent != "", "%q refused", sent)
			return
		}
		require.True(t, printable, "%q accepted", sent)
		got, _ := c.String("Idempotency-Key")
		require.Equal(t, sent, got)
	})
}

func FuzzClientAddr(f *testing.F) {
	f.Add(true, "203.0.113.7", "", []byte{192, 0, 2, 1})
	f.Add(true, "10.0.0.1, 203.0.113.7", "198.51.100.2", []byte{192, 0, 2, 1})
	f.Add(true, "2001:db8:1:2::5", "", []byte{192, 0, 2, 1})
	f.Add(true, "[2001:db8::1]:443, 192.0.2.9:80", "", []byte{192, 0, 2, 1})
	f.Add(true, "fe80::1%eth0, ::ffff:1.2.3.4", "", []byte{192, 0, 2, 1})
	f.Add(true, "garbage,, ,", "", []byte(net.ParseIP("2001:db8::9")))
	f.Add(false, "203.0.113.7", "", []byte{})
	f.Fuzz(func(t *testing.T, trust bool, xff1, xff2 string, peer []byte) {
		var xff [][]byte
		for _, v := range []string{xff1, xff2} {
			if v != "" {
				xff = append(xff, []byte(v))
			}
		}
		var trusted []netip.Prefix
		if trust {
			trusted = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32")}
		}
		got := clientAddr(trusted, xff, net.IP(peer))
		if got == "unknown" {
			return
		}
		if p, err := netip.ParsePrefix(got); err == nil {
			require.True(t, p.Addr().Is6() && !p.Addr().Is4In6())
			require.Equal(t, 64, p.Bits())
			require.Equal(t, p.Masked(), p)
			return
		}
		a, err := netip.ParseAddr(got)
		require.NoError(t, err, "%q", got)
		require.True(t, a.Is4(), "%q", got)
	})
}

func TestClientAddr(t *testing.T) {
	t.Parallel()
	proxies, err := ParseTrustedProxies("192.0.2.0/24, 10.0.0.0/8,2001:db8:ffff::7")
	require.NoError(t, err)
	f := func(xff []string, peer, want string) {
		t.Helper()
		var raw [][]byte
		for _, v := range xff {
			raw = append(raw, []byte(v))
		}
		require.Equal(t, want, clientAddr(proxies, raw, net.ParseIP(peer)))
	}
	// A peer that is no trusted proxy is the client, whatever it sends.
	f([]string{"203.0.113.7"}, "198.51.100.1", "198.51.100.1")
	f([]string{"10.0.0.1, 203.0.113.7"}, "198.51.100.1", "198.51.100.1")
	require.Equal(t, "192.0.2.1", clientAddr(nil, [][]byte{[]byte("203.0.113.7")}, net.ParseIP("192.0.2.1")), "no trusted proxies: the peer")
	// From a trusted proxy: the rightmost entry that is not a trusted proxy.
	f(nil, "192.0.2.1", "192.0.2.1")
	f([]string{"203.0.113.7"}, "192.0.2.1", "203.0.113.7")
	f([]string{"1.1.1.1, 203.0.113.7"}, "192.0.2.1", "203.0.113.7")
	f([]string{"1.1.1.1", "8.8.8.8, 203.0.113.7 "}, "192.0.2.1", "203.0.113.7")
	f([]string{"1.1.1.1, 203.0.113.7, 10.1.2.3"}, "192.0.2.1", "203.0.113.7")    // a chain of trusted proxies
	f([]string{"10.9.9.9, 203.0.113.7", "10.1.2.3"}, "192.0.2.1", "203.0.113.7") // a trusted address written by the client is never reached
	f([]string{"10.9.9.9"}, "192.0.2.1", "10.9.9.9")                             // every hop trusted: the first
	f([]string{"203.0.113.7:4711"}, "192.0.2.1", "203.0.113.7")
	f([]string{"[2001:db8:1:2::5]:443"}, "192.0.2.1", "2001:db8:1:2::/64")
	f([]string{"2001:db8:1:2:aaaa:bbbb:cccc:dddd"}, "2001:db8:ffff::7", "2001:db8:1:2::/64")
	f([]string{"::ffff:203.0.113.7"}, "::ffff:192.0.2.1", "203.0.113.7")
	f([]string{"1.1.1.1, not-an-ip"}, "192.0.2.1", "192.0.2.1") // unusable: the proxy that wrote it
	f([]string{"not-an-ip, 10.0.0.9"}, "192.0.2.1", "10.0.0.9") // the last trusted hop before it
	f(nil, "2001:db8:1:2::1", "2001:db8:1:2::/64")
}

func TestParseTrustedProxies(t *testing.T) {
	t.Parallel()
	p, err := ParseTrustedProxies(" 10.0.0.0/8 ,192.0.2.7,, 2001:db8::/32,::ffff:198.51.100.9")
	require.NoError(t, err)
	require.Equal(t, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"),
		netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("198.51.100.9/32")}, p)
	p, err = ParseTrustedProxies("")
	require.NoError(t, err)
	require.Empty(t, p)
	_, err = ParseTrustedProxies("10.0.0.0/8,haproxy")
	require.ErrorContains(t, err, `"haproxy"`)
}

// A duplicate backs off between polls instead of polling every 25 ms.
func TestIdempotencyDuplicateBacksOff(t *testing.T) {
	t.Parallel()
	polls, waited := 0, time.Duration(0)
	for waited < MaxIdempotencyWait {
		waited += idemPoll(polls)
		polls++
	}
	require.LessOrEqual(t, polls, 20, "looks at a call in flight over %s", MaxIdempotencyWait)
	require.Equal(t, 25*time.Millisecond, idemPoll(0))
	require.Equal(t, time.Second, idemPoll(100))
}

// Validation stops building items past the cap.
func TestValidationWorkIsBounded(t *testing.T) {
	// Not parallel: AllocsPerRun counts the process's allocations, which tests running beside it
	// would add to.
	vocab := make([]string, 200)
	for i := range vocab {
		vocab[i] = strings.Repeat("w", 20)
	}
	rt := &Route{Body: &Body{Fields: []Field{{Name: "v", Type: "array", Items: "string", Enum: vocab, MaxItems: 1 << 20}}}}
	body := []byte(`{"v":[` + strings.Repeat(`"x",`, 20000) + `"x"]}`)
	c := fuzzCall(rt, "")
	c.Ctx.Request.SetBody(body)
	allocs := testing.AllocsPerRun(3, func() { _ = c.validateBody() })
	// Decoding 20,001 values costs about two allocations each; building an item for each would
	// cost several more and a 5 KB message apiece.
	require.Less(t, allocs, float64(3*20001))
	e := c.validateBody()
	items := e.Detail.([]problem.FieldError)
	require.Len(t, items, problem.MaxFieldErrors)
	require.Equal(t, 20001-(problem.MaxFieldErrors-1), items[len(items)-1].Ctx["omitted"])
}

// arrayItems counts and cuts a JSON array's items as encoding/json does, without decoding them.
func TestArrayItemsCountsWithoutDecoding(t *testing.T) {
	t.Parallel()
	f := func(s string) {
		t.Helper()
		var items []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(s), &items), s)
		first, n := arrayItems(json.RawMessage(s), 10)
		require.Equal(t, len(items), n, s)
		require.Len(t, first, min(len(items), 10), s)
		for i := range first {
			require.Equal(t, string(items[i]), string(first[i]), s)
		}
	}
	f(`[]`)
	f(`[ ]`)
	f(`[1]`)
	f(`[1,2,3]`)
	f(`[ "a,b" , {"x":[1,2]}, [3,[4]], null, "q\"]," ]`)
	f(`[{},{},{}]`)
	f(`[[],[]]`)
	f(`["\\"]`)
	f(`[` + strings.Repeat(`{"a":"]"},`, 30) + `0]`)
}

// A body member is not decoded whole into Go values before its field is looked up, nor echoed
// whole in the 422: decoded whole, a 1 MiB array of empty objects took 44 MiB, so 64 such bodies
// in flight were gigabytes. An unknown member is echoed clipped and a known one's type is read
// from its first byte, its items counted without decoding: a few times the body at most.
func TestBodyValidationDoesNotAmplifyMemory(t *testing.T) {
	// Not parallel: it counts the process's allocations, which tests running beside it would add to.
	rt := &Route{Body: &Body{Fields: []Field{{Name: "v", Type: "array", Items: "string"}, {Name: "s", Type: "string"}}}}
	objects := `[` + strings.Repeat(`{},`, 350_000) + `{}]`
	for _, body := range []string{`{"x":` + objects + `}`, `{"v":` + objects + `}`, `{"s":` + objects + `}`} {
		c := fuzzCall(rt, "")
		c.Ctx.Request.SetBody([]byte(body))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		e := c.validateBody()
		runtime.ReadMemStats(&after)
		require.NotNil(t, e)
		require.Equal(t, 422, e.Status)
		allocated := after.TotalAlloc - before.TotalAlloc
		require.Less(t, allocated, uint64(4*len(body)), "validating a %d-byte body allocated %d bytes", len(body), allocated)
		b, err := json.Marshal(e.Detail)
		require.NoError(t, err)
		require.Less(t, len(b), 8<<10, "the 422 echoes a clipped input")
	}
}

// FuzzArrayItems: arrayItems agrees with encoding/json on every valid array.
func FuzzArrayItems(f *testing.F) {
	for _, s := range []string{`[]`, `[1,"a,]",{"b":[2]}]`, `["\\\"",null]`, `[[[]],{}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil || items == nil {
			return
		}
		first, n := arrayItems(raw, 3)
		require.Equal(t, len(items), n, "%q", raw)
		for i := range first {
			require.Equal(t, string(items[i]), string(first[i]), "%q", raw)
		}
	})
}
