package outcomes

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/intent"
)

var retentionDoc = fmt.Sprintf("Labels are append-only (no route edits or deletes one: a correction is a new label), kept %d days after occurred_at (retained_until) and then deleted. "+
	"A label is only ever served to its own customer; every customer's labels feed the shared intent score as counts only",
	int(oltp.OutcomeRetention.Hours()/24))

var budgetDoc = fmt.Sprintf("A customer appends at most %d labels in any 24 hours: past it a new label is 409 %s with retry_after (and Retry-After) saying when one more fits, and nothing is written (a replayed external_id still answers 200). "+
	"In the shared score and the counts a customer's labels count at most %d per company (its newest), and the model counts at most %d of a customer's labels in all (its newest), "+
	"so one customer moves the score as one customer however much it labels",
	oltp.MaxLabelsPerDay, ReasonLabelBudget, oltp.MaxVotesPerCompany, oltp.MaxVotesPerCustomer)

var scoreDoc = fmt.Sprintf("The calibrated probability (0..1, 4 decimals) that a sales touch on this company converts (an outcome of %s), "+
	"from a logistic regression over the company's hiring pulse (%s) fitted on every customer's labels of the last %d days and calibrated by Platt scaling on out-of-fold predictions. "+
	"Null, never a made-up number, when coverage is below min_coverage (%.3f: open_req_count, active_reqs, new_roles_30d and velocity must be known; a company with no ATS or board signal has coverage 0) "+
	"or when fewer than %d labels (%d of each polarity) of scorable companies exist across customers; score_status says which",
	strings.Join(positives(), " or "), strings.Join(intent.Inputs, ", "), int(TrainingWindow.Hours()/24), intent.MinCoverage, intent.MinTrainingLabels, intent.MinClassLabels)

// Routes are the outcome, intent and attribution routes with their handlers over d.
func Routes(d Deps) []*api.Route {
	h := newHandlers(d)
	company := api.Param{Name: "company_id", In: "path", Type: "integer", Required: true, Min: new(int64(1)),
		Description: "the company (company_id of company reads and searches)"}
	return []*api.Route{
		{Name: "companies.outcomes", Method: "POST", Path: "/v1/companies/{company_id}/outcomes", Tag: "outcomes", Scope: api.ScopeWrite,
			Summary: "Append a conversion outcome to your own labels of this company (201). Re-sending an external_id you already used with the same company, outcome, note " +
				"(and occurred_at, when sent) answers the stored label with 200 and replayed true, writing nothing; with anything else it is 409 " + ReasonExternalIDConflict + ". " +
				retentionDoc + ". " + budgetDoc + ". 404 for a company_id naming no company. Not billable",
			Params: []api.Param{company},
			Body: &api.Body{Required: true, Fields: []api.Field{
				{Name: "outcome", Type: "string", Required: true, Enum: Names(), Description: "what happened: " + outcomeDoc()},
				{Name: "occurred_at", Type: "string", Schema: map[string]any{"type": "string", "format": "date-time",
					"description": fmt.Sprintf("when it happened (RFC 3339); default: when the label is written. At most %s after the server's clock and at most %d days before it", MaxFuture, int(oltp.OutcomeRetention.Hours()/24))}},
				{Name: "external_id", Type: "string", Schema: map[string]any{"type": "string", "minLength": 1, "maxLength": MaxExternalID, "pattern": api.PrintableASCII,
					"description": "your CRM's id of the activity or deal: re-sending it is idempotent (per customer)"}},
				{Name: "note", Type: "string", Schema: map[string]any{"type": "string", "maxLength": MaxNote, "description": "free text for yourself; only ever served back to you"}},
			}},
			Statuses: []int{200, 201, 404, 409}, Response: labelSchema(), ErrorBodies: map[int]map[string]any{409: conflictSchema()}, Handler: h.append},
		{Name: "companies.intent", Method: "GET", Path: "/v1/companies/{company_id}/intent", Tag: "companies", Scope: api.ScopeRead, Meter: api.MeterCall,
			Summary: "The calibrated intent score of a company, computed live from every customer's outcome labels and the company's hiring motion: " + scoreDoc +
				". label_count, positive_count and negative_count count every customer's retained labels of the company, at most " + strconv.Itoa(oltp.MaxVotesPerCompany) + " of each customer (its newest). Metered as a company read (a call, no units)",
			Params: []api.Param{company}, Statuses: []int{200, 404}, Response: intentSchema(), Handler: h.intent},
		{Name: "attribution", Method: "GET", Path: "/v1/attribution", Tag: "outcomes", Scope: api.ScopeRead,
			Summary: fmt.Sprintf("Your outcome labels joined to the signals delivered to you: each label of a company to which one of your endpoints accepted a watch delivery (2xx) "+
				"at or before the outcome, newest label first, with those deliveries' count and dates; a label of a company never signalled to you before it is absent. "+
				"attributed_14d counts labels whose company got an accepted delivery in the %d days before the outcome. Only your own labels and deliveries. Not billable",
				int(oltp.AttributionWindow.Hours()/24)),
			Params: []api.Param{
				{Name: "cursor", In: "query", Type: "integer", Min: new(int64(1)), Description: "the previous page's next_cursor (the outcome_id of its last label): older labels. Omit for the newest"},
				{Name: "limit", In: "query", Type: "integer", Min: new(int64(1)), Max: new(int64(PageMax)), Default: int64(DefaultLimit),
					Description: fmt.Sprintf("labels per page, 1..%d (default %d); out of range is 422, never truncated", PageMax, DefaultLimit)},
			},
			Statuses: []int{200}, Response: attributionSchema(), Handler: h.attribution},
	}
}

func labelProps() map[string]any {
	return map[string]any{
		"outcome_id":  map[string]any{"type": "integer", "description": "the label's id"},
		"company_id":  api.Type("integer"),
		"outcome":     map[string]any{"type": "string", "enum": Names(), "description": outcomeDoc()},
		"polarity":    api.Enum(oltp.PolarityPositive, oltp.PolarityNegative),
		"occurred_at": api.DateTime(),
		"external_id": map[string]any{"type": []any{"string", "null"}, "description": "as sent; null when none was"},
		"note":        map[string]any{"type": []any{"string", "null"}},
		"created_at":  api.DateTime(),
		"retained_until": map[string]any{"type": "string", "format": "date-time",
			"description": fmt.Sprintf("occurred_at + %d days: the label is deleted after it", int(oltp.OutcomeRetention.Hours()/24))},
	}
}

func labelSchema() map[string]any {
	p := labelProps()
	p["replayed"] = map[string]any{"type": "boolean", "description": "true when external_id named a label already stored (200): nothing was written"}
	return api.Closed(p)
}

func conflictSchema() map[string]any {
	return api.Closed(map[string]any{"detail": map[string]any{"oneOf": []any{
		api.Closed(map[string]any{
			"reason": api.Enum(ReasonExternalIDConflict), "message": api.Type("string"), "endpoint": api.Type("string"),
			"outcome_id": map[string]any{"type": "integer", "description": "the stored label external_id names"},
			"label":      labelSchema(),
		}),
		api.Closed(map[string]any{
			"reason": api.Enum(ReasonLabelBudget), "message": api.Type("string"), "endpoint": api.Type("string"),
			"limit":       map[string]any{"type": "integer", "description": "labels a customer may append in any 24 hours"},
			"retry_after": map[string]any{"type": "integer", "minimum": 1, "description": "seconds until one more label fits (also the Retry-After header)"},
		}),
	}}})
}

func intentSchema() map[string]any {
	return api.Closed(map[string]any{
		"company_id": api.Type("integer"),
		"score":      map[string]any{"type": []any{"number", "null"}, "minimum": 0, "maximum": 1, "description": scoreDoc},
		"score_status": map[string]any{"type": "string", "enum": []string{StatusScored, StatusInsufficientCoverage, StatusInsufficientLabels},
			"description": "scored; insufficient_coverage (coverage below min_coverage: the company's motion is not known well enough); insufficient_labels (too few labels across customers to fit the model)"},
		"coverage": map[string]any{"type": "number", "minimum": 0, "maximum": 1,
			"description": "the share of the score's motion inputs (" + strings.Join(intent.Inputs, ", ") + ") the read model knows for the company (3 decimals); 0 with no ATS or board signal"},
		"min_coverage":   map[string]any{"type": "number", "description": "the coverage below which score is null"},
		"label_count":    map[string]any{"type": "integer", "description": "every customer's retained labels of this company"},
		"positive_count": map[string]any{"type": "integer", "description": "of them, outcomes " + strings.Join(positives(), " or ")},
		"negative_count": api.Type("integer"),
		"model_labels":   map[string]any{"type": "integer", "description": "the labels (all customers, training window, scorable companies) the model in use was fitted on; 0 when none is"},
		"motion_as_of":   map[string]any{"type": []any{"string", "null"}, "format": "date-time", "description": "the latest crawl of the company the pulse comes from; null with no ATS or board signal"},
		"as_of":          map[string]any{"type": "string", "format": "date-time", "description": "the latest committed crawl cycle this answer reflects (the pulse is as of it)"},
	})
}

func attributionSchema() map[string]any {
	row := labelProps()
	row["signals"] = map[string]any{"type": "integer", "minimum": 1, "description": "watch deliveries of this company your endpoints accepted at or before occurred_at"}
	row["signals_14d"] = map[string]any{"type": "integer", "description": "of them, accepted in the 14 days before occurred_at"}
	row["first_signal_at"] = api.DateTime()
	row["last_signal_at"] = map[string]any{"type": "string", "format": "date-time", "description": "the latest accepted delivery at or before occurred_at"}
	row["last_delivery_id"] = map[string]any{"type": "integer", "description": "that delivery (GET /v1/webhook-deliveries/{delivery_id})"}
	row["attributed"] = map[string]any{"type": "boolean", "description": "last_signal_at is within the 14 days before occurred_at"}
	count := api.Closed(map[string]any{"labels": api.Type("integer"), "attributed_14d": api.Type("integer")})
	return api.Closed(map[string]any{
		"labels": map[string]any{"type": "array", "items": api.Closed(row), "maxItems": PageMax, "description": "newest label first (descending outcome_id)"},
		"next_cursor": map[string]any{"type": []any{"integer", "null"},
			"description": "send as cursor for the next page while has_more; null on the last page"},
		"has_more":         api.Type("boolean"),
		"signalled_labels": map[string]any{"type": "integer", "description": "all your labels that have a signal before them (every page)"},
		"attributed_14d":   map[string]any{"type": "integer", "description": "of them, labels whose company got an accepted delivery in the 14 days before the outcome"},
		"by_outcome": map[string]any{"type": "object", "additionalProperties": count, "propertyNames": map[string]any{"enum": Names()},
			"description": "signalled_labels and attributed_14d per outcome (outcomes with none are absent)"},
		"window_days": map[string]any{"type": "integer", "description": "the attribution window in days (14)"},
	})
}
