// Package plans holds the price list of spec section 8: tiers, quotas, rate limits, caps and
// bundles, and what the spec leaves open about them (billing.go): each allowance's period and what
// happens past it, the unit price of every meter class, what a bundle's credits are, the overflow
// modes past the delivered-changes allowance, and how a month's bill is computed from its usage.
// It is the one place these numbers live; it must not read or write any store.
package plans

import "sync"

// Tier is one plan of spec 8.1.
type Tier struct {
	ID            string // tier_0..tier_3, or "enterprise" (tier_id null in pricing)
	Name          string
	Plan          string // free, trial, starter, growth, enterprise
	MonthlyAmount *float64
	Sellable      bool
	DailyQuota    *int // calls per UTC day (per key lineage); nil = unlimited
	PerMinute     int  // calls per 60-second window; 0 = not listed
	HardCapUnits  *int
	SoftCapUnits  *int
	Watches       int // live-watch allowance; 0 with HasBundle=false means no bundle
	Fires         int // delivered changes per billing month (calendar month, UTC)
	// Credits are the units of source rows, change units and watch units (CreditClasses) the
	// monthly amount includes per billing month; past them each unit is charged (Tier.Bill).
	// Unspent credits expire when the month turns.
	Credits         int
	HasBundle       bool
	GatedEndpoints  []string
	FreshnessFloorS int // seconds a req must have been observed before a read serves it
	// AccountKeys is the account ceiling in keys' worth of the per-key limits: all keys of one
	// account together draw at most AccountKeys times the per-key calls per 60 s and the per-key
	// daily quota, so minting keys does not multiply what an account draws. 0 = no ceiling.
	AccountKeys int
}

func f(v float64) *float64 { return &v }
func i(v int) *int         { return &v }

var freeGated = []string{
	"is-hiring", "open-reqs", "enrichment", "reqs/search", "jobs/search", "first-hire", "repost-pain",
	"ats-migrations", "role-demand", "/v1/events", "POST /v1/watches", "connector/enrich",
}

func paidGated() []string {
	return append(append([]string{}, freeGated...), "hiring-pulse", "pre-action-brief")
}

// All returns the tiers in price order. The slice is freshly built: callers may keep it.
func All() []Tier {
	return []Tier{
		{ID: "tier_0", Name: "Free", Plan: "free", MonthlyAmount: f(0.0), DailyQuota: i(100), PerMinute: 20, AccountKeys: 1,
			HardCapUnits: i(10000), SoftCapUnits: i(8000), Watches: 3, Fires: 50, Credits: 0, HasBundle: true,
			GatedEndpoints: append([]string{}, freeGated...), FreshnessFloorS: 24 * 3600},
		{ID: "tier_1", Name: "Trial", Plan: "trial", MonthlyAmount: f(0.01), DailyQuota: i(10000), PerMinute: 100, AccountKeys: 1,
			HardCapUnits: i(10000), SoftCapUnits: i(8000), GatedEndpoints: paidGated(), FreshnessFloorS: 0},
		{ID: "tier_2", Name: "Starter", Plan: "starter", MonthlyAmount: f(49.0), Sellable: true, DailyQuota: i(50000), PerMinute: 500, AccountKeys: 5,
			HardCapUnits: i(25000), SoftCapUnits: i(20000), Watches: 5, Fires: 250, Credits: 1000, HasBundle: true,
			GatedEndpoints: paidGated(), FreshnessFloorS: 0},
		{ID: "tier_3", Name: "Growth", Plan: "growth", MonthlyAmount: f(199.0), Sellable: true, DailyQuota: i(200000), PerMinute: 2000, AccountKeys: 5,
			HardCapUnits: i(100000), SoftCapUnits: i(80000), Watches: 25, Fires: 1500, Credits: 5000, HasBundle: true,
			GatedEndpoints: paidGated(), FreshnessFloorS: 0},
		{ID: "enterprise", Name: "Enterprise", Plan: "enterprise", AccountKeys: 5, GatedEndpoints: paidGated(), FreshnessFloorS: 0},
	}
}

// table is the price list built once for lookups on the request path; it is never modified.
// ByID and ByPlan hand out copies whose slices and pointers the caller must treat as read-only
// (All builds a fresh list for callers that need to change one).
var table = sync.OnceValue(All)

// ByPlan finds a tier by plan name (free, trial, starter, growth, enterprise).
func ByPlan(plan string) (Tier, bool) {
	for _, t := range table() {
		if t.Plan == plan {
			return t, true
		}
	}
	return Tier{}, false
}

// ByID finds a tier by id (tier_0..tier_3, enterprise).
func ByID(id string) (Tier, bool) {
	for _, t := range table() {
		if t.ID == id {
			return t, true
		}
	}
	return Tier{}, false
}

// Live-watch allowances of the plans without a bundle (spec 8.1 shows none for Trial and
// Enterprise): a Trial evaluates push on as many watches as Starter sells; Enterprise gets four
// times Growth's.
const (
	TrialLiveWatches      = 5
	EnterpriseLiveWatches = 100
)

// LiveWatchAllowance is how many watches an account on the tier may have live at once: the
// bundle's watches (Free 3, Starter 5, Growth 25), TrialLiveWatches or EnterpriseLiveWatches.
func (t Tier) LiveWatchAllowance() int {
	switch {
	case t.HasBundle:
		return t.Watches
	case t.Plan == "trial":
		return TrialLiveWatches
	case t.Plan == "enterprise":
		return EnterpriseLiveWatches
	}
	return 0
}

// TrialDeliveredChanges is the monthly delivered-changes allowance of a Trial (spec 8.1 lists
// none for Trial and Enterprise): a Trial evaluates push with Starter's allowance, as it has
// Starter's live watches (TrialLiveWatches); Enterprise has no wall, only its spend cap.
const TrialDeliveredChanges = 250

// DeliveredChangeAllowance is how many watch deliveries an account on the tier tierID may be
// admitted per billing month (the wall); limited is false when there is no such wall
// (Enterprise). An unknown tier has an allowance of 0 (fail closed).
func DeliveredChangeAllowance(tierID string) (allowance int64, limited bool) {
	t, ok := ByID(tierID)
	switch {
	case !ok:
		return 0, true
	case t.HasBundle:
		return int64(t.Fires), true
	case t.Plan == "trial":
		return TrialDeliveredChanges, true
	}
	return 0, false
}

// KeylessPerMinute is the per-IP limit of calls without a key and of the demo key.
const KeylessPerMinute = 60

// WindowSeconds is the rate-limit window.
const WindowSeconds = 60

// SourcePricePerUnit is the USD price of one weighted unit (a sourced company row, weight 1).
const SourcePricePerUnit = 0.1
