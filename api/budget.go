package api

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/oltp"
)

// Daily creation budgets (oltp.Budgets): every route that creates a key, a webhook endpoint, a
// watch or a quickstart (packages account, webhooks, watches, onboarding) answers a creation past
// its budget the same way, with BudgetRefusal, declared by BudgetDetailSchema and explained by
// BudgetDoc.

// ReasonCreationBudget is the reason of the 409 of a creation past its daily budget.
const ReasonCreationBudget = "creation_budget_exhausted"

// BudgetConflict is the detail of that 409.
type BudgetConflict struct {
	Reason     string `json:"reason"`
	Message    string `json:"message"`
	Endpoint   string `json:"endpoint"`
	Budget     string `json:"budget"`
	Limit      int    `json:"limit"`
	RetryAfter int64  `json:"retry_after"`
}

// BudgetRefusal is the answer to err when it is an *oltp.BudgetError: 409 creation_budget_exhausted
// with budget, limit and retry_after, and a Retry-After header of the same seconds. Nil for any
// other err.
func BudgetRefusal(c *Call, err error) error {
	var b *oltp.BudgetError
	if !errors.As(err, &b) {
		return nil
	}
	secs := max(int64(math.Ceil(b.RetryAfter.Seconds())), 1)
	return &Error{Status: fasthttp.StatusConflict, Headers: map[string]string{"Retry-After": strconv.FormatInt(secs, 10)},
		Detail: BudgetConflict{Reason: ReasonCreationBudget, Message: b.Error(), Endpoint: c.Route.Path, Budget: b.Budget, Limit: b.Limit, RetryAfter: secs}}
}

// BudgetDetailSchema is the detail of the 409 creation_budget_exhausted of a route whose
// creations spend budgets (oltp.BudgetKeys, ...).
func BudgetDetailSchema(budgets ...string) map[string]any {
	return Object(map[string]any{
		"reason": Enum(ReasonCreationBudget), "message": Type("string"), "endpoint": Type("string"),
		"budget":      map[string]any{"type": "string", "enum": budgets, "description": "what the exhausted budget counts"},
		"limit":       map[string]any{"type": "integer", "minimum": 1, "description": "creations of that kind allowed in any 24 hours"},
		"retry_after": map[string]any{"type": "integer", "minimum": 1, "description": "seconds until one more fits (also the Retry-After header)"},
	})
}

// BudgetConflictSchema is the 409 body of a route whose only 409 is creation_budget_exhausted.
func BudgetConflictSchema(budgets ...string) map[string]any {
	return Object(map[string]any{"detail": BudgetDetailSchema(budgets...)})
}

// budgetWords say, for BudgetDoc, what each budget counts and whose it is.
var budgetWords = map[string]string{
	oltp.BudgetKeys:        "keys (issued or minted by a rotation) per customer",
	oltp.BudgetEndpoints:   "new webhook endpoints per customer (registering a url already registered creates none)",
	oltp.BudgetWatches:     "watches per account (POST /v1/watches and quickstarts)",
	oltp.BudgetQuickstarts: "quickstarts of a webhook_url not quickstarted before per customer",
}

// BudgetDoc states, for a route's summary, the budgets in force that its creations spend.
func BudgetDoc(b oltp.Budgets, budgets ...string) string {
	parts := make([]string, len(budgets))
	for i, what := range budgets {
		parts[i] = fmt.Sprintf("%d %s", b.Limit(what), budgetWords[what])
	}
	return fmt.Sprintf("Creation budget: at most %s in any 24 hours, revoked, deleted and canceled ones included; past it 409 %s "+
		"with budget, limit and retry_after (and a Retry-After header) saying when one more fits, and nothing is written",
		strings.Join(parts, ", "), ReasonCreationBudget)
}
