package ats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// JoinCompany reads a JOIN company page (join.com/companies/{slug}, the page a careers site
// links to) for the company it names: JOIN's API takes the company's number, which only the
// page's data states. The page is a Next.js app whose embedded data holds the company as
// `"company":{"id":310,"name":"Acme Software GmbH","domain":"acme-software",...}`, `domain`
// being the page's slug; that object may appear several times, and JOIN has been seen serving
// a placeholder company's data on a new company's page, so only an object whose domain is slug
// counts. It returns the number (the JOIN tenant) and the name the page states, or an error
// when the page names no company of that slug.
func JoinCompany(body []byte, slug string) (id, name string, err error) {
	const key = `"company":`
	rest := body
	sawOther := false
	for {
		i := bytes.Index(rest, []byte(key))
		if i < 0 {
			break
		}
		rest = rest[i+len(key):]
		var c struct {
			ID     flexString `json:"id"`
			Name   flexString `json:"name"`
			Domain flexString `json:"domain"`
		}
		if json.NewDecoder(bytes.NewReader(rest)).Decode(&c) != nil {
			continue // not an object (a string or a cut-off copy): look further
		}
		n, perr := strconv.ParseUint(strings.TrimSpace(string(c.ID)), 10, 64)
		if perr != nil || n == 0 {
			continue
		}
		if !strings.EqualFold(strings.TrimSpace(string(c.Domain)), slug) {
			sawOther = true
			continue
		}
		return strconv.FormatUint(n, 10), clean(string(c.Name)), nil
	}
	if sawOther {
		return "", "", fmt.Errorf("join company page of %q names only other companies (a placeholder page)", slug)
	}
	return "", "", errors.New("join company page names no company: want its data's \"company\":{\"id\",\"name\",\"domain\"}")
}
