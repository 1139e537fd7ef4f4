// Package outcomes serves outcome write-back, the intent score and attribution (spec 1, 2.3, 4.2,
// 4.4): POST /v1/companies/{company_id}/outcomes appends a conversion outcome to the caller's own
// labels; GET /v1/companies/{company_id}/intent answers the calibrated intent score computed live
// from every customer's labels (counts only) and the company's pulse in the read snapshot; GET
// /v1/attribution joins the caller's labels to the deliveries its own endpoints accepted.
//
// It owns the outcome vocabulary, the label body rules and the fitted model it keeps between
// calls (refitted when the snapshot moves or the model is older than Deps.RefitEvery). The method
// is package intent's; every statement is in oltp. It must not write deliveries, watches or
// anything but outcome labels, query ClickHouse, or serve one customer's labels to another.
package outcomes

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/internal/problem"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/intent"
	"github.com/planehq/hiringsignal/read/snapshot"
)

// Outcome is one word of the vocabulary and its polarity.
type Outcome struct {
	Name     string
	Positive bool
	Meaning  string
}

// Vocabulary is every outcome a label may carry: positive ones count as a conversion.
var Vocabulary = []Outcome{
	{"won", true, "a deal closed won"},
	{"meeting", true, "a meeting or demo was booked"},
	{"lost", false, "a deal closed lost"},
	{"no_response", false, "outreach got no answer"},
	{"disqualified", false, "the account was disqualified (no fit, no budget)"},
}

// Names are the outcome words, in the vocabulary's order.
func Names() []string {
	out := make([]string, len(Vocabulary))
	for i, o := range Vocabulary {
		out[i] = o.Name
	}
	return out
}

func positive(name string) bool {
	for _, o := range Vocabulary {
		if o.Name == name {
			return o.Positive
		}
	}
	return false
}

// Bounds of a label body.
const (
	MaxExternalID = 255  // printable ASCII characters
	MaxNote       = 2000 // characters
	// MaxFuture is how far after the server's clock occurred_at may be (clock skew of a CRM).
	MaxFuture = 24 * time.Hour
)

// TrainingWindow is how far back the labels the model is fitted on go (by occurred_at): the
// model joins them to the company's current pulse, which older outcomes say little about.
const TrainingWindow = 180 * 24 * time.Hour

// DefaultRefitEvery is how old the fitted model may get before a call refits it (it is also
// refitted when the read snapshot moves).
const DefaultRefitEvery = time.Minute

// Snapshots gives the current read snapshot (*snapshot.Service implements it).
type Snapshots interface{ Current() *snapshot.Snapshot }

// Deps is what the handlers need.
type Deps struct {
	Pool       *pgxpool.Pool
	Log        *slog.Logger // default: discard
	Snapshots  Snapshots
	RefitEvery time.Duration // 0: DefaultRefitEvery
}

type handlers struct {
	d Deps

	refit    sync.Mutex // held by the one call refitting the model
	mu       sync.Mutex // guards the fitted model below
	model    *intent.Model
	fitErr   error // intent.ErrTooFewLabels when no model could be fitted
	fittedWM uint64
	fittedAt time.Time
}

// Register installs the routes of this package on srv (before srv.Start).
func Register(srv *api.Server, d Deps) { srv.Register(Routes(d)...) }

func newHandlers(d Deps) *handlers {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.RefitEvery <= 0 {
		d.RefitEvery = DefaultRefitEvery
	}
	return &handlers{d: d}
}

// current is the read snapshot and company id's entry in it: 503 before the first build, 404 for
// a company it does not know.
func (h *handlers) current(id int64) (*snapshot.Snapshot, error) {
	if r, ok := h.d.Snapshots.(interface{ Ready() bool }); ok && !r.Ready() {
		return nil, api.Unavailable("The company read model (first build in progress)", nil)
	}
	if h.d.Snapshots == nil {
		return nil, api.NotFound(fmt.Sprintf("No company with company_id %d", id))
	}
	s := h.d.Snapshots.Current()
	if s == nil || s.Model.Company(uint64(id)) == nil {
		return nil, api.NotFound(fmt.Sprintf("No company with company_id %d", id))
	}
	return s, nil
}

// labelBody is the body of POST /v1/companies/{company_id}/outcomes (types checked by the chain).
type labelBody struct {
	Outcome    string  `json:"outcome"`
	OccurredAt *string `json:"occurred_at"`
	ExternalID *string `json:"external_id"`
	Note       *string `json:"note"`
}

// validate checks the members' values against the rules the chain cannot: occurred_at's format
// and range, external_id's and note's lengths and characters.
func (b *labelBody) validate(now time.Time) (at time.Time, err error) {
	var errs []problem.FieldError
	at = now.UTC().Truncate(time.Microsecond)
	if b.OccurredAt != nil {
		t, perr := time.Parse(time.RFC3339Nano, *b.OccurredAt)
		switch {
		case perr != nil:
			errs = append(errs, problem.FieldError{Type: "datetime_from_date_parsing", Loc: problem.Loc("body", "occurred_at"),
				Msg: "Input should be a valid RFC 3339 date-time, e.g. 2026-11-02T15:04:05Z", Input: *b.OccurredAt, Ctx: map[string]any{}})
		case t.After(now.Add(MaxFuture)):
			errs = append(errs, problem.ValueError(*b.OccurredAt, fmt.Sprintf("occurred_at is more than %s after the server's clock: send when the outcome happened", MaxFuture), "body", "occurred_at"))
		case t.Before(now.Add(-oltp.OutcomeRetention)):
			errs = append(errs, problem.ValueError(*b.OccurredAt, fmt.Sprintf("occurred_at is older than the label retention (%d days): such a label would be deleted at once", int(oltp.OutcomeRetention.Hours()/24)), "body", "occurred_at"))
		default:
			at = t.UTC().Truncate(time.Microsecond) // Postgres keeps microseconds
		}
	}
	if e := b.ExternalID; e != nil {
		if n := len(*e); n < 1 || n > MaxExternalID || strings.IndexFunc(*e, func(r rune) bool { return r < ' ' || r > '~' }) >= 0 {
			errs = append(errs, problem.FieldError{Type: "string_pattern_mismatch", Loc: problem.Loc("body", "external_id"),
				Msg:   fmt.Sprintf("external_id must be 1 to %d printable ASCII characters (your CRM's id of the activity or deal)", MaxExternalID),
				Input: *e, Ctx: map[string]any{"pattern": api.PrintableASCII, "min_length": 1, "max_length": MaxExternalID}})
		}
	}
	if n := b.Note; n != nil {
		switch {
		case utf8.RuneCountInString(*n) > MaxNote:
			errs = append(errs, problem.FieldError{Type: "string_too_long", Loc: problem.Loc("body", "note"),
				Msg: fmt.Sprintf("String should have at most %d characters", MaxNote), Input: nil, Ctx: map[string]any{"max_length": MaxNote}})
		case strings.ContainsRune(*n, 0):
			errs = append(errs, problem.ValueError(nil, "note must not contain the NUL character", "body", "note"))
		}
	}
	if len(errs) > 0 {
		return at, api.Invalid(errs...)
	}
	return at, nil
}

// labelJSON is a label as its own customer sees it.
type labelJSON struct {
	oltp.Label
	Polarity      string    `json:"polarity"`
	RetainedUntil time.Time `json:"retained_until"`
	Replayed      bool      `json:"replayed"`
}

func toJSON(l oltp.Label, replayed bool) labelJSON {
	return labelJSON{Label: l, Polarity: oltp.Polarity(l.Positive), RetainedUntil: l.OccurredAt.Add(oltp.OutcomeRetention), Replayed: replayed}
}

// ReasonExternalIDConflict is the reason of the 409 of a re-sent external_id saying something else.
const ReasonExternalIDConflict = "external_id_conflict"

// Conflict is the detail of that 409.
type Conflict struct {
	Reason    string    `json:"reason"`
	Message   string    `json:"message"`
	Endpoint  string    `json:"endpoint"`
	Label     labelJSON `json:"label"`
	OutcomeID int64     `json:"outcome_id"`
}

// ReasonLabelBudget is the reason of the 409 of a label past the customer's daily budget.
const ReasonLabelBudget = "label_budget_exhausted"

// BudgetConflict is the detail of that 409.
type BudgetConflict struct {
	Reason     string `json:"reason"`
	Message    string `json:"message"`
	Endpoint   string `json:"endpoint"`
	Limit      int    `json:"limit"`
	RetryAfter int64  `json:"retry_after"`
}

func (h *handlers) append(c *api.Call) (int, error) {
	id, _ := c.Int("company_id")
	var b labelBody
	if err := c.Decode(&b); err != nil {
		return 0, err
	}
	at, err := b.validate(c.Now())
	if err != nil {
		return 0, err
	}
	if _, err := h.current(id); err != nil {
		return 0, err
	}
	a := c.KeyAuth()
	l, created, err := oltp.AppendLabel(c.Context(), h.d.Pool, oltp.NewLabel{CustomerID: c.Caller.CustomerID, AccountID: a.AccountID, KeyID: c.Caller.KeyID,
		CompanyID: id, Outcome: b.Outcome, Positive: positive(b.Outcome), OccurredAt: at, OccurredSent: b.OccurredAt != nil, ExternalID: b.ExternalID, Note: b.Note})
	var budget *oltp.LabelBudgetError
	if errors.As(err, &budget) {
		secs := int64(math.Ceil(budget.RetryAfter.Seconds()))
		return 0, &api.Error{Status: fasthttp.StatusConflict, Headers: map[string]string{"Retry-After": strconv.FormatInt(secs, 10)}, Detail: BudgetConflict{Reason: ReasonLabelBudget, Endpoint: c.Route.Path, Message: err.Error(),
			Limit: oltp.MaxLabelsPerDay, RetryAfter: secs}}
	}
	if errors.Is(err, oltp.ErrLabelConflict) {
		return 0, &api.Error{Status: fasthttp.StatusConflict, Detail: Conflict{Reason: ReasonExternalIDConflict, Endpoint: c.Route.Path, OutcomeID: l.ID, Label: toJSON(l, true),
			Message: "external_id already names a label of yours with another company, outcome, occurred_at or note; labels are append-only: send the new outcome under a new external_id"}}
	}
	if err != nil {
		return 0, err
	}
	if !created {
		return 0, c.JSON(200, toJSON(l, true))
	}
	return 0, c.JSON(201, toJSON(l, false))
}

// outcomeDoc says what each outcome word means, for the document.
func outcomeDoc() string {
	parts := make([]string, len(Vocabulary))
	for i, o := range Vocabulary {
		parts[i] = fmt.Sprintf("%s (%s, %s)", o.Name, oltp.Polarity(o.Positive), o.Meaning)
	}
	return strings.Join(parts, "; ")
}

// positives are the outcome words that count as a conversion.
func positives() []string {
	var out []string
	for _, o := range Vocabulary {
		if o.Positive {
			out = append(out, o.Name)
		}
	}
	return slices.Clip(out)
}
