package api

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNegotiateHonoursQValues(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"":                                 "",
		"gzip":                             "gzip",
		"GZIP":                             "gzip",
		"x-gzip":                           "gzip",
		"gzip, br, zstd":                   "zstd",
		"gzip, br":                         "br",
		" gzip ; q=1 , br ; q=0.5":         "gzip",
		"zstd;q=0.2, br;q=0.2, gzip;q=.3":  "gzip", // read leniently
		"gzip;q=NaN":                       "",
		"zstd;q=0.2, br;q=0.2, gzip;q=0.3": "gzip",
		"zstd;q=0, gzip":                   "gzip",
		"*":                                "zstd",
		"*;q=0":                            "",
		"identity":                         "",
		"identity;q=0":                     "",
		"identity;q=0, *;q=0":              "",
		"br;q=0.9, *;q=0.1":                "br",
		"gzip;q=0, *":                      "zstd",
		"zstd;q=0, br;q=0, *":              "gzip",
		"gzip;q=abc":                       "",
		"gzip;q=1.5":                       "",
		"gzip;q=-1":                        "",
		"deflate, compress":                "",
		",,;q=1,gzip":                      "gzip",
		"gzip;level=1":                     "gzip",
	} {
		require.Equal(t, want, negotiate([]byte(header)), "Accept-Encoding: %q", header)
	}
}

func TestIsJSON(t *testing.T) {
	t.Parallel()
	for ct, want := range map[string]bool{
		"application/json": true, "application/json; charset=utf-8": true, "Application/JSON": true,
		"application/problem+json": true, "text/plain; charset=utf-8": false, "text/html": false,
		"application/javascript": false, "": false, "+json": false, "text/x+json": false,
	} {
		require.Equal(t, want, isJSON([]byte(ct)), ct)
	}
}
