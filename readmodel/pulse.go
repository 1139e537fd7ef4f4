// Package readmodel holds the in-memory read model of the company reads: companies, their reqs
// and their hiring pulse, rebuilt from the committed ClickHouse ledger whenever a crawl cycle
// commits and swapped in atomically. Reads never wait on ClickHouse.
//
// It reads ClickHouse through the analytics package only; it must not write any store or serve
// HTTP (handlers live in the api packages).
package readmodel

import "time"

// Pulse is a company's hiring pulse, shared by hiring-pulse, reqs/search (per company) and
// reqs/qualified include_pulse. Motion fields are pointers: null when the company has no
// observable ATS or board coverage (coverage_status no_ats_signal) — unknown is never zero.
type Pulse struct {
	CompanyID      uint64         `json:"company_id"`
	CoverageStatus string         `json:"coverage_status"` // covered, board_only or no_ats_signal
	IsHiring       *bool          `json:"is_hiring"`
	OpenReqCount   *int           `json:"open_req_count"`
	ActiveReqs     *int           `json:"active_reqs"`
	NewRoles30d    *int           `json:"new_roles_30d"`
	Velocity       *float64       `json:"velocity"`  // reqs first observed per week, trailing 4 weeks
	Direction      *string        `json:"direction"` // accelerating, steady or decelerating
	IsSurge        *bool          `json:"is_surge"`
	Momentum       []MomentumWeek `json:"momentum"` // weekly buckets, oldest first, whole history
	MotionAsOf     *time.Time     `json:"motion_as_of"`
}

// MomentumWeek is one weekly bucket of the company's publication flow.
type MomentumWeek struct {
	BucketStart time.Time `json:"bucket_start"`
	Opened      int       `json:"opened"`
	Reposted    int       `json:"reposted"`
	Closed      int       `json:"closed"`
}
