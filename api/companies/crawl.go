package companies

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/read/readmodel"
)

// crawling is the 202 answer of a cold company: the job to poll.
type crawling struct {
	JobID     int64  `json:"job_id"`
	Status    string `json:"status"` // crawling
	CompanyID uint64 `json:"company_id"`
	JobURL    string `json:"job_url"`
	Message   string `json:"message"`
}

// crawl joins (or enqueues) an on-demand crawl of co for the caller and answers 202 crawling. A
// job of co queued or finished within Deps.CrawlFloor is joined, so demanding fresh data on every
// call (max_age=0) costs at most one crawl of the company per floor.
func (h *handlers) crawl(c *api.Call, co *readmodel.Company, why string) (int, error) {
	if h.d.Pool == nil {
		return 0, api.Unavailable("On-demand crawling", errors.New("no Postgres pool"))
	}
	if over, err := h.pastDemoCrawls(c, co); over || err != nil {
		return 0, err
	}
	id, err := oltp.RequestCrawl(c.Context(), h.d.Pool, c.Caller.CustomerID, co.ID, co.Domain, h.d.CrawlFloor)
	if err != nil {
		return 0, err
	}
	// A 202 crawling (max_age, or a cold company) is forced-fresh: the chain meters it as one call
	// with no units (docs/decisions.md). A 202 over_cap (above) queued nothing and is not.
	c.ForcedFresh()
	return 0, c.JSON(202, crawling{JobID: id, Status: "crawling", CompanyID: co.ID, JobURL: "/v1/crawl-jobs/" + strconv.FormatInt(id, 10),
		Message: why + "; poll job_url until status is done, then read result_url"})
}

// cold reports whether co's data is too old to answer is-hiring: its sources were never read by
// a committed cycle, or (with ATS or board coverage) not within ColdAfter of the wall clock.
func (h *handlers) cold(co *readmodel.Company) bool {
	if co.LastRead().IsZero() {
		return true
	}
	return h.d.ColdAfter > 0 && co.Covered() && h.d.Now().Sub(co.LastRead()) > h.d.ColdAfter
}

// staleFor reports whether co's latest read is older than maxAge seconds (max_age on
// hiring-pulse and pre-action-brief). A company without coverage has nothing to crawl: never stale
// once read.
func (h *handlers) staleFor(co *readmodel.Company, maxAge int64) bool {
	if co.LastRead().IsZero() {
		return true
	}
	return co.Covered() && h.d.Now().Sub(co.LastRead()) > time.Duration(maxAge)*time.Second
}

// overCap is the 202 answer of a free account past its cost-to-serve cap on is-hiring.
type overCap struct {
	Status    string    `json:"status"` // over_cap
	CompanyID uint64    `json:"company_id"`
	Limit     int       `json:"limit"`
	Reset     time.Time `json:"reset"`
	Message   string    `json:"message"`
}

// pastCostCap counts one is-hiring read against a free account's daily cost-to-serve cap and
// reports whether the cap was already spent (then the read is answered 202 over_cap). Paid plans
// and the demo key (limited per IP instead) have no such cap.
func (h *handlers) pastCostCap(c *api.Call, co *readmodel.Company) (bool, error) {
	limit := h.d.FreeIsHiringPerDay
	if limit < 0 || c.Caller.Demo || c.Caller.Keyless || c.Caller.Plan().Plan != "free" || h.d.Pool == nil {
		return false, nil
	}
	now := h.d.Now().UTC()
	day := now.Truncate(24 * time.Hour)
	reset := day.Add(24 * time.Hour)
	scope := "cost:is_hiring:" + strconv.FormatInt(c.Caller.AccountID, 10)
	granted, _, err := oltp.RateWindows{Pool: h.d.Pool}.Lease(c.Context(), scope, day.Unix(), reset.Unix(), 1, int64(limit))
	if err != nil {
		return false, err
	}
	if granted > 0 {
		return false, nil
	}
	return true, c.JSON(202, overCap{Status: "over_cap", CompanyID: co.ID, Limit: limit, Reset: reset,
		Message: fmt.Sprintf("the Free plan serves %d is-hiring reads per UTC day; this one is not served (and not billed). Retry after reset or upgrade.", limit)})
}

// pastDemoCrawls counts one on-demand crawl of the public demo key against its daily bounds
// (per client address, and every address together) and reports whether one was already spent:
// then the read is answered 202 over_cap and nothing is queued. Without them anyone could queue
// a crawl of every company once per crawl floor (max_age=0), keyless, ahead of paying customers'
// crawls. Other callers are not bounded here (their calls are metered and limited per key).
func (h *handlers) pastDemoCrawls(c *api.Call, co *readmodel.Company) (bool, error) {
	if !c.Caller.Demo {
		return false, nil
	}
	now := h.d.Now().UTC()
	day := now.Truncate(24 * time.Hour)
	reset := day.Add(24 * time.Hour)
	w := oltp.RateWindows{Pool: h.d.Pool}
	for _, b := range []struct {
		scope string
		limit int
		whose string
	}{{"demo:crawl:ip:" + c.Caller.IP, h.d.DemoCrawlsPerDay, "from this address"}, {"demo:crawl:all", h.d.DemoCrawlsInAll, "from every address together"}} {
		if b.limit < 0 {
			continue
		}
		granted, _, err := w.Lease(c.Context(), b.scope, day.Unix(), reset.Unix(), 1, int64(b.limit))
		if err != nil {
			return false, err
		}
		if granted == 0 {
			return true, c.JSON(202, overCap{Status: "over_cap", CompanyID: co.ID, Limit: b.limit, Reset: reset,
				Message: fmt.Sprintf("the public demo key queues at most %d on-demand crawls per UTC day %s; this read needs one and is not served. "+
					"Retry after reset, or sign up for a key of your own.", b.limit, b.whose)})
		}
	}
	return false, nil
}

// crawlJobView is GET /v1/crawl-jobs/{job_id}.
type crawlJobView struct {
	JobID       int64      `json:"job_id"`
	CompanyID   uint64     `json:"company_id"`
	Status      string     `json:"status"` // crawling, done or failed
	RequestedAt time.Time  `json:"requested_at"`
	FinishedAt  *time.Time `json:"finished_at"`
	ResultURL   *string    `json:"result_url"`
	Error       *string    `json:"error"` // failed: a public message (oltp.CrawlFailedMessage), never the crawler's error
}

func crawlJobSchema() map[string]any {
	requested := api.DateTime()
	requested["description"] = "when the caller first asked for this job (a job is shared by every customer asking for the company)"
	failed := api.Nullable(api.Type("string"))
	failed["description"] = "on a failed job: " + oltp.CrawlFailedMessage
	return api.Object(map[string]any{"job_id": api.Type("integer"), "company_id": api.Type("integer"), "status": api.Enum("crawling", "done", "failed"),
		"requested_at": requested, "finished_at": api.Nullable(api.DateTime()), "result_url": api.Nullable(api.Type("string")), "error": failed})
}

// crawlJob answers a crawl job of the caller's customer (another customer's id is 404 like a
// missing one). A finished job reads done only once the read model serves the crawl's cycle, so
// result_url never shows older data than the job fetched.
func (h *handlers) crawlJob(c *api.Call) (int, error) {
	id, _ := c.Int("job_id")
	if h.d.Pool == nil {
		return 0, api.Unavailable("On-demand crawling", errors.New("no Postgres pool"))
	}
	j, err := oltp.GetCrawlJobFor(c.Context(), h.d.Pool, c.Caller.CustomerID, id)
	if errors.Is(err, oltp.ErrCrawlJobNotFound) {
		return 0, api.NotFound(fmt.Sprintf("No crawl job with job_id %d", id))
	}
	if err != nil {
		return 0, err
	}
	v := crawlJobView{JobID: j.JobID, CompanyID: j.CompanyID, Status: "crawling", RequestedAt: j.RequestedAt.UTC()}
	switch j.Status {
	case oltp.CrawlFailed:
		msg := oltp.CrawlFailedMessage // never the crawler's own error text
		v.Status, v.FinishedAt, v.Error = "failed", utc(j.FinishedAt), &msg
	case oltp.CrawlDone:
		co := h.d.Snapshots.Current().Model.Company(j.CompanyID)
		if co == nil || j.StartedAt == nil || !co.LastRead().Before(j.StartedAt.UTC().Truncate(time.Second)) {
			u := fmt.Sprintf("/v1/companies/%d/hiring-pulse", j.CompanyID)
			v.Status, v.FinishedAt, v.ResultURL = "done", utc(j.FinishedAt), &u
		}
	}
	return 0, c.JSON(200, v)
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
