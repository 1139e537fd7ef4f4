package criteria

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/planehq/hiringsignal/internal/normalize"
	"github.com/planehq/hiringsignal/internal/problem"
)

// Input bounds of the criteria object and of the search routes' parameters (docs/decisions.md,
// "Search"). Every array and string a caller sends is bounded: a value over its bound is answered
// 422, never cut or searched in part, so the work and the answer of one call stay bounded
// whatever the body. Validation collects at most problem.MaxFieldErrors items (Problems) and
// lists a vocabulary (function names, allowed fields, an enum) once, in the first item that needs it.
const (
	// MaxQWords is the most words q (reqs/search, jobs/search, req.q) and each req.q_excludes
	// phrase may have: every word must match, so a longer one is refused, not cut.
	MaxQWords = 32
	// MaxQLength is the most characters of q and of each req.q_excludes phrase.
	MaxQLength = 300
	// MaxCriterionValues is the most values of one criteria field (an array), company.company_id
	// aside, and of one repeatable query parameter (geo, industry, industry_terms, headcount_band).
	MaxCriterionValues = 100
	// MaxCompanyIDs is the most values of company.company_id.
	MaxCompanyIDs = 1000
	// MaxValueLength is the most characters of one string value of a criteria field or of a
	// repeatable query parameter.
	MaxValueLength = 200
)

// Problems collects the 422 items of one call, at most problem.MaxFieldErrors.
type Problems struct {
	items []problem.FieldError
}

// Add appends items while there is room.
func (p *Problems) Add(items ...problem.FieldError) {
	for _, fe := range items {
		if p.Full() {
			return
		}
		p.items = append(p.items, fe)
	}
}

// Full reports whether no further item would be kept: validation may stop.
func (p *Problems) Full() bool { return len(p.items) >= problem.MaxFieldErrors }

// Items are the items collected (nil without any).
func (p *Problems) Items() []problem.FieldError { return p.items }

// Clip shortens a caller's string echoed in a 422 (input, loc) to MaxValueLength characters.
func Clip(s string) string { return problem.Clip(s, MaxValueLength) }

// TooLong is the 422 item of an array over its bound; the array is not echoed.
func TooLong(n, limit int, loc ...any) problem.FieldError {
	return problem.TooLong(loc, nil, n, limit)
}

// stringTooLong is the 422 item of a string over limit characters (echoed clipped).
func stringTooLong(s string, limit int, loc ...any) problem.FieldError {
	return problem.FieldError{Type: "string_too_long", Loc: loc, Input: Clip(s),
		Msg: "String should have at most " + strconv.Itoa(limit) + " characters", Ctx: map[string]any{"max_length": limit}}
}

// CheckValue bounds one string value of a criteria field or repeatable parameter.
func CheckValue(s string, loc ...any) *problem.FieldError {
	if len(s) > MaxValueLength && utf8.RuneCountInString(s) > MaxValueLength {
		fe := stringTooLong(s, MaxValueLength, loc...)
		return &fe
	}
	return nil
}

// CheckQ bounds a full-text query (q, req.q, a req.q_excludes phrase): at most MaxQLength
// characters and MaxQWords words, every one of them read (normalize.QueryTokens), so the search
// never runs on a prefix of what was asked.
func CheckQ(s string, loc ...any) *problem.FieldError {
	if len(s) > MaxQLength && utf8.RuneCountInString(s) > MaxQLength {
		fe := stringTooLong(s, MaxQLength, loc...)
		return &fe
	}
	toks, complete := normalize.QueryTokens(s)
	if !complete || len(toks) > MaxQWords {
		msg := fmt.Sprintf("the query is longer than the search reads: at most %d words (abbreviations such as 'VP' count as the words they stand for); every word must match, so none is dropped", MaxQWords)
		fe := problem.ValueError(Clip(s), msg, loc...)
		fe.Ctx["max_words"] = MaxQWords
		return &fe
	}
	return nil
}
