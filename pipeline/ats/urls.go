package ats

import (
	"net/url"
	"strconv"
	"strings"
)

// parseAbs parses an absolute http(s) URL with a host; nil otherwise.
func parseAbs(raw string) *url.URL {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return nil
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return u
	}
	return nil
}

// finishURL renders u and checks the result is still an absolute http(s) URL; "" otherwise.
func finishURL(u *url.URL) string {
	s := u.String()
	if parseAbs(s) == nil {
		return ""
	}
	return s
}

// queryValue returns the first value of key in a raw query string.
func queryValue(rawQuery, key string) (string, bool) {
	for rawQuery != "" {
		var part string
		part, rawQuery, _ = strings.Cut(rawQuery, "&")
		k, v, _ := strings.Cut(part, "=")
		if uk, err := url.QueryUnescape(k); err == nil && uk == key {
			uv, err := url.QueryUnescape(v)
			if err != nil {
				return "", false
			}
			return uv, true
		}
	}
	return "", false
}

// queryInt returns key's value in the page URL as a non-negative int, or def.
func queryInt(u *url.URL, key string, def int) int {
	v, ok := queryValue(u.RawQuery, key)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return def
	}
	return n
}

// withQuery returns pageURL with key set to value: the first occurrence is replaced in place,
// later duplicates are dropped, and the key is appended when absent. Other parameters keep
// their order and encoding. It returns "" when pageURL is not an absolute http(s) URL.
func withQuery(pageURL, key, value string) string {
	u := parseAbs(pageURL)
	if u == nil {
		return ""
	}
	pair := url.QueryEscape(key) + "=" + url.QueryEscape(value)
	var b strings.Builder
	found := false
	rest := u.RawQuery
	for rest != "" {
		var part string
		part, rest, _ = strings.Cut(rest, "&")
		if part == "" {
			continue
		}
		k, _, _ := strings.Cut(part, "=")
		if uk, err := url.QueryUnescape(k); err == nil && uk == key {
			if found {
				continue
			}
			found = true
			part = pair
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(part)
	}
	if !found {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(pair)
	}
	u.RawQuery = b.String()
	u.ForceQuery = false
	return finishURL(u)
}

// resolveRef resolves href (as found in a page) against pageURL and returns an absolute
// http(s) URL, or "".
func resolveRef(pageURL, href string) string {
	href = strings.TrimSpace(href)
	if href == "" {
		return ""
	}
	ref, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if ref.IsAbs() {
		if parseAbs(href) == nil {
			return ""
		}
		return finishURL(ref)
	}
	base := parseAbs(pageURL)
	if base == nil {
		return ""
	}
	return finishURL(base.ResolveReference(ref))
}

// hostOf returns the lower-cased host of a website reference ("https://www.acme.com/about",
// "acme.com", "//acme.com"), without port and without a leading "www.". "" when there is none.
func hostOf(site string) string {
	site = strings.TrimSpace(site)
	if site == "" {
		return ""
	}
	if !strings.Contains(site, "://") && !strings.HasPrefix(site, "//") {
		site = "http://" + site
	}
	u, err := url.Parse(site)
	if err != nil {
		return ""
	}
	h := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	h = strings.TrimPrefix(h, "www.")
	if h == "" || strings.ContainsAny(h, " /\\@") || !strings.Contains(h, ".") {
		return ""
	}
	return h
}
