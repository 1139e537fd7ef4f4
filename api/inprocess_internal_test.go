package api

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// appendPath writes the path Execute used to build by replacing each parameter in turn, and
// refuses what it refused (a parameter left unreplaced).
func TestAppendPathReplacesEveryParameter(t *testing.T) {
	t.Parallel()
	replaced := func(template string, path map[string]string) (string, bool) {
		for name, v := range path {
			template = strings.Replace(template, "{"+name+"}", url.PathEscape(v), 1)
		}
		return template, !strings.Contains(template, "{")
	}
	for _, c := range []struct {
		template string
		path     map[string]string
	}{
		{"/v1/whoami", nil},
		{"/v1/companies/{company_id}/pre-action-brief", map[string]string{"company_id": "42"}},
		{"/v1/companies/{company_id}/pre-action-brief", map[string]string{"company_id": "a/b c?{x}é"}},
		{"/v1/companies/{company_id}/pre-action-brief", map[string]string{"company_id": ""}},
		{"/v1/companies/{company_id}/pre-action-brief", map[string]string{"other": "1"}},
		{"/v1/companies/{company_id}/pre-action-brief", nil},
		{"/v1/watches/{watch_id}/deliveries/{delivery_id}", map[string]string{"watch_id": "w", "delivery_id": "d", "extra": "e"}},
		{"/v1/watches/{watch_id}/deliveries/{delivery_id}", map[string]string{"watch_id": "{delivery_id}"}},
	} {
		want, wantOK := replaced(c.template, c.path)
		got, ok := appendPath([]byte("stale"), c.template, c.path)
		require.Equal(t, wantOK, ok, "%s %v", c.template, c.path)
		if ok {
			require.Equal(t, "stale"+want, string(got), "%s %v", c.template, c.path)
			require.Equal(t, want, replacedPath(c.template, c.path))
		}
	}
}

// An in-process call's memory goes back once: releasing its answer again, or a copy of it, after
// the call was reused, does not take it from the call that holds it now.
func TestAReleasedAnswerIsReleasedOnce(t *testing.T) {
	t.Parallel()
	x := &inProcessCall{header: map[string]string{}}
	first := InternalResponse{Status: 200, call: x, gen: x.gen.Load()}
	copied := first
	first.Release()
	require.Equal(t, uint64(1), x.gen.Load())
	x.rc.Response.SetBodyString("the next call's answer") // x reused by a later call
	second := InternalResponse{Status: 200, Body: x.rc.Response.Body(), call: x, gen: x.gen.Load()}
	first.Release()
	copied.Release()
	require.Equal(t, uint64(1), x.gen.Load(), "a stale answer released nothing")
	require.Equal(t, "the next call's answer", string(second.Body))
	second.Release()
	require.Equal(t, uint64(2), x.gen.Load())
	InternalResponse{Status: 200}.Release() // built by hand: nothing to release
}
