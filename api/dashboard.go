package api

import (
	"time"

	"github.com/planehq/hiringsignal/oltp"
)

// Quota status words of the dashboard: green below 80% of the daily quota, amber from 80%
// (the expansion nudge), red when spent.
const (
	StatusGreen = "green"
	StatusAmber = "amber"
	StatusRed   = "red"
	nudgeAt     = 0.8
)

type dashKey struct {
	KeyID   int64   `json:"key_id"`
	Display string  `json:"display"`
	Used    int64   `json:"used"`
	Quota   *int64  `json:"quota"`
	Status  string  `json:"status"`
	Reset   *string `json:"reset"`
}

type freeTier struct {
	ChangesAllowance   int64 `json:"changes_allowance"`
	ChangesUsed        int64 `json:"changes_used"`
	ChangesWallReached bool  `json:"changes_wall_reached"`
	WatchesAllowance   int64 `json:"watches_allowance"`
	WatchesUsed        int64 `json:"watches_used"`
}

type dashboardResponse struct {
	AccountID               int64            `json:"account_id"`
	Tier                    string           `json:"tier"`
	TierName                string           `json:"tier_name"`
	AccountStatus           string           `json:"account_status"`
	Paused                  bool             `json:"paused"`
	Keys                    []dashKey        `json:"keys"`
	SpendCap                spendCapJSON     `json:"spend_cap"`
	UpgradePrompt           *quotaDetail     `json:"upgrade_prompt"`
	ExpansionNudgeTriggered bool             `json:"expansion_nudge_triggered"`
	FreeTier                *freeTier        `json:"free_tier"`
	BlockedDeliveries       map[string]int64 `json:"blocked_deliveries"`
}

type spendCapJSON struct {
	AccountUsed    int64  `json:"account_used"`
	AccountSoftCap *int64 `json:"account_soft_cap"`
	AccountHardCap *int64 `json:"account_hard_cap"`
	Status         string `json:"status"`
	Reset          string `json:"reset"`
}

func startOfDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

func startOfMonth(t time.Time) time.Time {
	y, m, _ := t.UTC().Date()
	return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
}

// dashboard: per-key quota use today (from the usage ledger), spend-cap status this billing
// month, the upgrade prompt and expansion nudge, the free-tier allowance and blocked deliveries.
func (s *Server) dashboard(c *Call) (int, error) {
	if err := s.FlushUsage(c.Context()); err != nil {
		s.log.Warn("dashboard read before this instance's metering reached Postgres", "err", err)
	}
	now := s.now()
	e := c.entry.auth
	plan := c.Caller.Plan()
	day, month := startOfDay(now), startOfMonth(now)
	keys, err := oltp.ListKeys(c.Context(), s.pool, c.Caller.CustomerID)
	if err != nil {
		return 0, Internal(err)
	}
	calls, err := oltp.CallsSince(c.Context(), s.pool, c.Caller.CustomerID, day)
	if err != nil {
		return 0, Internal(err)
	}
	units, _, err := oltp.MonthUnits(c.Context(), s.pool, c.Caller.AccountID)
	if err != nil {
		return 0, Internal(err)
	}
	out := dashboardResponse{AccountID: e.AccountID, Tier: e.Tier, TierName: plan.Name, AccountStatus: e.AccountStatus, Paused: e.Paused,
		Keys: []dashKey{}, BlockedDeliveries: map[string]int64{"wall_blocked": 0, "cap_blocked": 0}}
	dayReset := rfc3339(day.Add(24 * time.Hour))
	var quota *int64
	if plan.DailyQuota != nil {
		q := int64(*plan.DailyQuota)
		quota = &q
	}
	var worst *dashKey
	for _, k := range keys {
		if k.RevokedAt != nil {
			continue
		}
		dk := dashKey{KeyID: k.KeyID, Display: k.Display, Used: calls[k.KeyID], Quota: quota, Status: StatusGreen, Reset: dayReset}
		if quota != nil {
			switch {
			case dk.Used >= *quota:
				dk.Status = StatusRed
			case float64(dk.Used) >= nudgeAt*float64(*quota):
				dk.Status = StatusAmber
			}
		}
		if dk.Status != StatusGreen {
			out.ExpansionNudgeTriggered = true
		}
		out.Keys = append(out.Keys, dk)
		if dk.Status == StatusRed && worst == nil {
			worst = &out.Keys[len(out.Keys)-1]
		}
	}
	out.SpendCap = spendCapJSON{AccountUsed: units, AccountSoftCap: e.SoftCapUnits, AccountHardCap: e.HardCapUnits, Status: "ok", Reset: *rfc3339(nextMonth(now))}
	switch {
	case e.HardCapUnits != nil && units >= *e.HardCapUnits:
		out.SpendCap.Status = "hard_cap_reached"
		out.UpgradePrompt = &quotaDetail{Reason: ReasonSpendCapExceeded, Quota: quotaState{Limit: *e.HardCapUnits, Used: units, Reset: rfc3339(nextMonth(now))},
			Endpoint: c.Route.Path, Message: "the account reached its hard spend cap: billable routes answer 402 until the month turns or the cap is raised"}
	case e.SoftCapUnits != nil && units >= *e.SoftCapUnits:
		out.SpendCap.Status = "soft_cap_reached"
	}
	if e.SoftCapUnits != nil && float64(units) >= nudgeAt*float64(*e.SoftCapUnits) {
		out.ExpansionNudgeTriggered = true
	}
	if out.UpgradePrompt == nil && worst != nil {
		out.UpgradePrompt = &quotaDetail{Reason: ReasonQuotaExceeded, Quota: quotaState{Limit: *quota, Used: worst.Used, Reset: dayReset},
			Endpoint: c.Route.Path, Message: "a key spent its daily call quota: upgrade for a larger quota"}
	}
	if out.UpgradePrompt != nil {
		l := s.links(c)
		out.UpgradePrompt.UpgradeURL, out.UpgradePrompt.PurchaseURL = l.Upgrade, l.Purchase
	}
	wall, capped, err := s.push.BlockedDeliveries(c.Context(), c.Caller.CustomerID, month)
	if err != nil {
		return 0, Internal(err)
	}
	out.BlockedDeliveries["wall_blocked"], out.BlockedDeliveries["cap_blocked"] = wall, capped
	if e.Tier == "tier_0" {
		delivered, err := oltp.UnitsSince(c.Context(), s.pool, c.Caller.CustomerID, oltp.MeterDeliveredChange, month)
		if err != nil {
			return 0, Internal(err)
		}
		watches, err := s.push.LiveWatches(c.Context(), c.Caller.CustomerID)
		if err != nil {
			return 0, Internal(err)
		}
		out.FreeTier = &freeTier{ChangesAllowance: int64(plan.Fires), ChangesUsed: delivered, ChangesWallReached: delivered >= int64(plan.Fires),
			WatchesAllowance: int64(plan.Watches), WatchesUsed: watches}
	}
	return 0, c.JSON(200, out)
}
