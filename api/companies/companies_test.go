package companies_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/planehq/hiringsignal/api"
	"github.com/planehq/hiringsignal/api/companies"
	"github.com/planehq/hiringsignal/internal/storetest"
	"github.com/planehq/hiringsignal/oltp"
	"github.com/planehq/hiringsignal/pipeline"
	"github.com/planehq/hiringsignal/pipeline/normalize"
	"github.com/planehq/hiringsignal/readmodel"
	"github.com/planehq/hiringsignal/readmodel/readmodeltest"
)

type harness struct {
	t     *testing.T
	w     *readmodeltest.World
	st    *readmodel.Store
	pool  *pgxpool.Pool
	srv   *api.Server
	base  string
	clock atomic.Int64 // unix seconds of the handlers' wall clock
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func (h *harness) now() time.Time { return time.Unix(h.clock.Load(), 0).UTC() }

func (h *harness) setNow(t time.Time) { h.clock.Store(t.Unix()) }

func start(t *testing.T, w *readmodeltest.World, freePerDay int) *harness {
	h := &harness{t: t, w: w}
	h.st = readmodel.NewStore(w.CH, quiet(), time.Hour)
	_, err := h.st.Refresh(context.Background(), true)
	require.NoError(t, err)
	h.setNow(h.st.Current().AsOf.Add(time.Hour))
	h.pool = storetest.Postgres(t, "companies")
	h.srv = api.New(api.Config{Listen: "127.0.0.1:0", Log: quiet(), Pool: h.pool, MeteringDir: t.TempDir(), MeteringFlush: 50 * time.Millisecond, MeteringSyncEvery: 20 * time.Millisecond, DemoKey: api.PublicDemoKey})
	companies.Register(h.srv, companies.Deps{Models: h.st, Pool: h.pool, Log: quiet(), Now: h.now, FreeIsHiringPerDay: freePerDay})
	require.NoError(t, h.srv.Start())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = h.srv.Stop(ctx)
	})
	require.NoError(t, h.srv.StoresReady(context.Background()))
	require.Eventually(t, h.srv.AuthListening, 5*time.Second, 10*time.Millisecond)
	h.base = "http://" + h.srv.Addr()
	return h
}

func (h *harness) account(plan string) oltp.NewAccount {
	h.t.Helper()
	a, err := oltp.CreateAccount(context.Background(), h.pool, plan, fmt.Sprintf("%s-%d@example.com", plan, time.Now().UnixNano()))
	require.NoError(h.t, err)
	return a
}

type resp struct {
	status int
	body   []byte
}

func (r resp) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), string(r.body))
	return m
}

func (h *harness) get(path, key string) resp {
	h.t.Helper()
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	res := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(res)
	req.SetRequestURI(h.base + path)
	req.Header.Set("X-API-Key", key)
	require.NoError(h.t, fasthttp.DoTimeout(req, res, 15*time.Second))
	return resp{status: res.StatusCode(), body: append([]byte(nil), res.Body()...)}
}

func (h *harness) getJSON(path, key string, want int) map[string]any {
	h.t.Helper()
	r := h.get(path, key)
	require.Equal(h.t, want, r.status, "%s: %s", path, r.body)
	return r.obj(h.t)
}

func detailMsgs(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m["detail"])
	require.NoError(t, err)
	return string(b)
}

// TestCompanyReads crawls about a hundred days of a world (one cycle every three days) and checks
// every company read against the simulator's truth and the spec's rules.
func TestCompanyReads(t *testing.T) {
	w := readmodeltest.Crawl(t, readmodeltest.Config{Seed: 5, Companies: 80, First: 100, Last: 100 + 24*34, Step: 24})
	h := start(t, w, 3)
	m := h.st.Current()
	paid := h.account("growth")
	free := h.account("free")
	other := h.account("starter")

	var covered, uncovered uint64
	for id := range w.Companies {
		if w.Covered[id] && len(w.Live[id]) > 3 && covered == 0 {
			covered = id
		}
		if !w.Covered[id] && uncovered == 0 {
			uncovered = id
		}
	}
	require.NotZero(t, covered)
	require.NotZero(t, uncovered)
	cpath := func(id uint64, seg string) string { return fmt.Sprintf("/v1/companies/%d/%s", id, seg) }

	t.Run("is-hiring equals the truth for every company", func(t *testing.T) {
		for id := range w.Companies {
			v := h.getJSON(cpath(id, "is-hiring"), paid.Key, 200)
			require.Equal(t, float64(id), v["company_id"])
			if !w.Covered[id] {
				require.Equal(t, "no_ats_signal", v["coverage_status"])
				require.Nil(t, v["is_hiring"])
				require.Nil(t, v["open_req_count"])
				continue
			}
			require.Equal(t, "covered", v["coverage_status"])
			require.Equal(t, float64(len(w.Live[id])), v["open_req_count"])
			require.Equal(t, len(w.Live[id]) > 0, v["is_hiring"])
		}
	})

	t.Run("unknown company is 404", func(t *testing.T) {
		for _, seg := range []string{"is-hiring", "open-reqs", "enrichment", "hiring-pulse", "first-hire", "repost-pain", "ats-migrations", "pre-action-brief"} {
			r := h.get(cpath(999999999, seg), paid.Key)
			require.Equal(t, 404, r.status, seg)
			require.Equal(t, "No company with company_id 999999999", r.obj(t)["detail"])
		}
	})

	t.Run("open-reqs are the deduplicated live reqs with boards", func(t *testing.T) {
		v := h.getJSON(cpath(covered, "open-reqs")+"?limit=200", paid.Key, 200)
		reqs := v["reqs"].([]any)
		require.Equal(t, float64(len(w.Live[covered])), v["total"])
		require.Len(t, reqs, len(w.Live[covered]))
		seen := map[string]bool{}
		for _, x := range reqs {
			r := x.(map[string]any)
			k := r["req_key"].(string)
			require.False(t, seen[k], "one row per req")
			seen[k] = true
			require.Contains(t, w.Live[covered], k)
			require.NotEmpty(t, r["raw_title"])
			require.NotEmpty(t, r["boards"])
			require.Equal(t, float64(covered), r["company_id"])
			if c, ok := r["country"].(string); ok {
				require.Equal(t, normalize.CountryCode(c), r["country_code"])
			} else {
				require.Nil(t, r["country_code"])
			}
			if fn, ok := r["function"].(string); ok {
				name, named := normalize.FunctionName(fn)
				if named {
					require.Equal(t, name, r["function_name"])
				} else {
					require.Nil(t, r["function_name"])
				}
			}
		}
		small := h.getJSON(cpath(covered, "open-reqs")+"?limit=2", paid.Key, 200)
		require.Len(t, small["reqs"], 2)
		require.Equal(t, v["total"], small["total"])
	})

	t.Run("open-reqs filters by function name or id and by country name", func(t *testing.T) {
		all := h.getJSON(cpath(covered, "open-reqs")+"?limit=200", paid.Key, 200)["reqs"].([]any)
		r0 := all[0].(map[string]any)
		fn, _ := r0["function"].(string)
		require.NotEmpty(t, fn)
		byID := h.getJSON(cpath(covered, "open-reqs")+"?limit=200&function="+fn, paid.Key, 200)
		for _, x := range byID["reqs"].([]any) {
			require.Equal(t, fn, x.(map[string]any)["function"])
		}
		require.NotEmpty(t, byID["reqs"])
		if name, ok := normalize.FunctionName(fn); ok {
			ids, _ := normalize.ResolveFunction(name)
			byName := h.getJSON(cpath(covered, "open-reqs")+"?limit=200&function="+url.QueryEscape(strings.ToLower(name)), paid.Key, 200)
			want := 0
			for _, x := range all {
				for _, id := range ids {
					if x.(map[string]any)["function"] == id {
						want++
					}
				}
			}
			require.Equal(t, float64(want), byName["total"])
		}
		bad := h.getJSON(cpath(covered, "open-reqs")+"?function=Basket+Weaving", paid.Key, 422)
		item := bad["detail"].([]any)[0].(map[string]any)
		require.Equal(t, []any{"query", "function"}, item["loc"])
		require.Contains(t, item["msg"], "Engineering")
		require.Len(t, item["ctx"].(map[string]any)["names"], len(normalize.FunctionNames()))
		// first-hire shares the rule.
		h.getJSON(cpath(covered, "first-hire")+"?function=nope", paid.Key, 422)

		country := r0["country"].(string)
		byCountry := h.getJSON(cpath(covered, "open-reqs")+"?limit=200&country="+url.QueryEscape(country), paid.Key, 200)
		for _, x := range byCountry["reqs"].([]any) {
			require.Equal(t, country, x.(map[string]any)["country"])
		}
		require.NotEmpty(t, byCountry["reqs"])
		h.getJSON(cpath(covered, "open-reqs")+"?country=Atlantis", paid.Key, 422)
	})

	t.Run("limit out of range is 422 and the demo key pages at most 5", func(t *testing.T) {
		h.getJSON(cpath(covered, "open-reqs")+"?limit=0", paid.Key, 422)
		h.getJSON(cpath(covered, "open-reqs")+"?limit=201", paid.Key, 422)
		h.getJSON(cpath(covered, "open-reqs")+"?limit=6", api.PublicDemoKey, 422)
		d := h.getJSON(cpath(covered, "open-reqs"), api.PublicDemoKey, 200)
		require.LessOrEqual(t, len(d["reqs"].([]any)), api.DemoPageLimit)
	})

	t.Run("no coverage: null motion everywhere", func(t *testing.T) {
		p := h.getJSON(cpath(uncovered, "hiring-pulse"), paid.Key, 200)
		require.Equal(t, "no_ats_signal", p["coverage_status"])
		for _, f := range []string{"is_hiring", "open_req_count", "active_reqs", "new_roles_30d", "velocity", "direction", "is_surge", "momentum"} {
			require.Contains(t, p, f)
			require.Nil(t, p[f], f)
		}
		o := h.getJSON(cpath(uncovered, "open-reqs"), paid.Key, 200)
		require.Nil(t, o["total"])
		require.Empty(t, o["reqs"])
		require.Nil(t, h.getJSON(cpath(uncovered, "first-hire"), paid.Key, 200)["first_hires"])
		require.Nil(t, h.getJSON(cpath(uncovered, "repost-pain"), paid.Key, 200)["reqs"])
	})

	t.Run("hiring-pulse serves the model's pulse with whole-history momentum", func(t *testing.T) {
		p := h.getJSON(cpath(covered, "hiring-pulse"), paid.Key, 200)
		want, _ := m.Pulse(covered)
		require.Equal(t, float64(*want.OpenReqCount), p["open_req_count"])
		require.Equal(t, *want.Direction, p["direction"])
		mom := p["momentum"].([]any)
		require.Len(t, mom, len(want.Momentum))
		opened := 0
		for _, x := range mom {
			opened += int(x.(map[string]any)["opened"].(float64))
		}
		require.Equal(t, len(w.FirstSeen[covered]), opened, "momentum sums equal every req first seen")
		// Free plans are gated off hiring-pulse (402), paid ones are not.
		require.Equal(t, 402, h.get(cpath(covered, "hiring-pulse"), free.Key).status)
	})

	t.Run("enrichment: firmographics and boards at the freshness floor", func(t *testing.T) {
		co := m.Company(covered)
		pv := h.getJSON(cpath(covered, "enrichment"), paid.Key, 200)
		fv := h.getJSON(cpath(covered, "enrichment"), free.Key, 200)
		require.Equal(t, co.Name, pv["name"])
		require.Equal(t, co.Domain, pv["domain"])
		require.Equal(t, co.HQCountry, pv["hq_country"])
		require.Equal(t, normalize.CountryCode(co.HQCountry), pv["hq_country_code"])
		require.Equal(t, "covered", pv["coverage_status"])
		for _, banned := range []string{"linkedin", "linkedin_url", "employees_on_linkedin"} {
			require.NotContains(t, pv, banned)
		}
		var all, floored []any
		for _, b := range co.Boards {
			all = append(all, b.Board)
			if !b.FirstSeen.After(m.AsOf.Add(-24 * time.Hour)) {
				floored = append(floored, b.Board)
			}
		}
		require.Equal(t, all, pv["boards"])
		if floored == nil {
			floored = []any{}
		}
		require.Equal(t, floored, fv["boards"])
		u := h.getJSON(cpath(uncovered, "enrichment"), paid.Key, 200)
		require.Equal(t, "no_ats_signal", u["coverage_status"])
		require.Empty(t, u["boards"])
	})

	t.Run("first-hire and repost-pain are history-capped on the free plan", func(t *testing.T) {
		cut := m.AsOf.Add(-90 * 24 * time.Hour)
		capped, checked := 0, 0
		free := h.account("free") // the Free plan allows 20 calls a minute: a fresh key per subtest
		for id := range w.Companies {
			if !w.Covered[id] {
				continue
			}
			co := m.Company(id)
			pv := h.getJSON(cpath(id, "first-hire"), paid.Key, 200)
			require.Equal(t, false, pv["history_capped"])
			require.Len(t, pv["first_hires"], len(co.FirstHires))
			for _, x := range pv["first_hires"].([]any) {
				require.Equal(t, readmodel.FirstHireSource, x.(map[string]any)["source_board"])
			}
			rp := h.getJSON(cpath(id, "repost-pain"), paid.Key, 200)
			prev := 1e9
			for _, x := range rp["reqs"].([]any) {
				n := x.(map[string]any)["repost_count"].(float64)
				require.Positive(t, n)
				require.LessOrEqual(t, n, prev, "hardest first")
				prev = n
			}
			want := 0
			for _, f := range co.FirstHires {
				if !f.FirstSeen.Before(cut) {
					want++
				}
			}
			if checked >= 4 || want == len(co.FirstHires) {
				continue
			}
			checked++
			fv := h.getJSON(cpath(id, "first-hire"), free.Key, 200)
			require.Equal(t, true, fv["history_capped"])
			require.Len(t, fv["first_hires"], want)
			capped += len(co.FirstHires) - want
			rf := h.getJSON(cpath(id, "repost-pain"), free.Key, 200)
			require.LessOrEqual(t, rf["total"], rp["total"])
		}
		require.Positive(t, capped, "the crawl is longer than the cap, so the free plan must lose some first hires")
	})

	t.Run("ats-migrations are provenance-wrapped", func(t *testing.T) {
		for id := range w.Companies {
			co := m.Company(id)
			v := h.getJSON(cpath(id, "ats-migrations"), paid.Key, 200)
			if !co.Covered() {
				require.Nil(t, v["migrations"])
				continue
			}
			require.Len(t, v["migrations"], len(co.Migrations))
			for _, x := range v["migrations"].([]any) {
				mg := x.(map[string]any)
				require.NotEqual(t, mg["from_vendor"], mg["to_vendor"])
				oa := mg["occurred_at"].(map[string]any)
				require.Equal(t, "ats_history", oa["source"])
				require.NotEmpty(t, oa["value"])
				require.NotEmpty(t, oa["observed_at"])
			}
		}
	})

	t.Run("pre-action-brief is bounded", func(t *testing.T) {
		v := h.getJSON(cpath(covered, "pre-action-brief"), paid.Key, 200)
		require.LessOrEqual(t, len(v["open_reqs"].([]any)), companies.BriefReqs)
		require.Equal(t, float64(len(w.Live[covered])), v["open_req_total"])
		pulse := v["pulse"].(map[string]any)
		require.LessOrEqual(t, len(pulse["momentum"].([]any)), companies.BriefMomentumWeeks)
		require.LessOrEqual(t, len(v["repost_pain"].([]any)), companies.BriefReposts)
		require.Contains(t, v, "first_hires")
		require.Contains(t, v, "migrations")
		require.Equal(t, 402, h.get(cpath(covered, "pre-action-brief"), free.Key).status)
	})

	t.Run("companies/resolve by domain or name", func(t *testing.T) {
		free := h.account("free")
		co := w.Companies[covered]
		d := h.getJSON("/v1/companies/resolve?domain="+url.QueryEscape("https://www."+co.Domain+"/jobs"), free.Key, 200)
		list := d["companies"].([]any)
		require.Len(t, list, 1)
		got := list[0].(map[string]any)
		require.Equal(t, float64(covered), got["company_id"])
		require.Equal(t, "covered", got["coverage_status"])
		require.Equal(t, normalize.CountryCode(co.HQCountry), got["country_code"])
		require.NotContains(t, got, "is_hiring")
		require.NotContains(t, got, "open_req_count")

		exact := h.getJSON("/v1/companies/resolve?name="+url.QueryEscape(co.Name), free.Key, 200)["companies"].([]any)
		require.Equal(t, float64(covered), exact[0].(map[string]any)["company_id"])
		require.Equal(t, 1.0, exact[0].(map[string]any)["match_confidence"])
		base, _ := normalize.StripLegalSuffix(co.Name)
		loose := h.getJSON("/v1/companies/resolve?name="+url.QueryEscape(base), free.Key, 200)["companies"].([]any)
		require.LessOrEqual(t, len(loose), 5)
		found := false
		for _, x := range loose {
			if x.(map[string]any)["company_id"] == float64(covered) {
				found = true
				require.Equal(t, 0.8, x.(map[string]any)["match_confidence"])
			}
		}
		require.True(t, found)

		u := w.Companies[uncovered]
		un := h.getJSON("/v1/companies/resolve?domain="+u.Domain, free.Key, 200)["companies"].([]any)
		require.Equal(t, "no_ats_signal", un[0].(map[string]any)["coverage_status"])

		none := h.getJSON("/v1/companies/resolve?name=Zzyzx+Nonexistent+Ltd", free.Key, 200)
		require.Equal(t, []any{}, none["companies"])
		both := h.getJSON("/v1/companies/resolve?name=a&domain=b.com", free.Key, 422)
		require.Contains(t, detailMsgs(t, both), "exactly one of domain or name")
		neither := h.getJSON("/v1/companies/resolve", free.Key, 422)
		require.Contains(t, detailMsgs(t, neither), "exactly one of domain or name")
	})

	t.Run("every 200 answers only fields its OpenAPI schema declares", func(t *testing.T) {
		var doc struct {
			Paths map[string]map[string]struct {
				Responses map[string]struct {
					Content map[string]struct {
						Schema map[string]any `json:"schema"`
					} `json:"content"`
				} `json:"responses"`
			} `json:"paths"`
		}
		r := h.get("/openapi.json", "")
		require.Equal(t, 200, r.status)
		require.NoError(t, json.Unmarshal(r.body, &doc))
		check := func(tmpl, path string) {
			sch := doc.Paths[tmpl]["get"].Responses["200"].Content["application/json"].Schema
			props, ok := sch["properties"].(map[string]any)
			require.True(t, ok, "%s documents its 200 body", tmpl)
			for k := range h.getJSON(path, paid.Key, 200) {
				require.Contains(t, props, k, "%s answers %s", tmpl, k)
			}
		}
		for _, seg := range []string{"is-hiring", "open-reqs", "enrichment", "hiring-pulse", "first-hire", "repost-pain", "ats-migrations", "pre-action-brief"} {
			check("/v1/companies/{company_id}/"+seg, cpath(covered, seg))
		}
		check("/v1/companies/resolve", "/v1/companies/resolve?domain="+w.Companies[covered].Domain)
	})

	t.Run("a free account past its cost-to-serve cap gets 202 over_cap", func(t *testing.T) {
		acct := h.account("free")
		for i := 0; i < 3; i++ {
			h.getJSON(cpath(covered, "is-hiring"), acct.Key, 200)
		}
		v := h.getJSON(cpath(covered, "is-hiring"), acct.Key, 202)
		require.Equal(t, "over_cap", v["status"])
		// Paid accounts have no such cap.
		for i := 0; i < 5; i++ {
			h.getJSON(cpath(covered, "is-hiring"), paid.Key, 200)
		}
	})

	t.Run("cold company and max_age answer 202 crawling with a job to poll", func(t *testing.T) {
		co := m.Company(covered)
		h.setNow(co.LastRead.Add(2 * time.Hour))
		v := h.getJSON(cpath(covered, "hiring-pulse")+"?max_age=3600", paid.Key, 202)
		require.Equal(t, "crawling", v["status"])
		job := int64(v["job_id"].(float64))
		require.Positive(t, job)
		again := h.getJSON(cpath(covered, "pre-action-brief")+"?max_age=60", paid.Key, 202)
		require.Equal(t, float64(job), again["job_id"], "one open crawl per company")
		h.getJSON(cpath(covered, "hiring-pulse")+"?max_age=86400", paid.Key, 200)

		h.setNow(co.LastRead.Add(25 * time.Hour))
		cold := h.getJSON(cpath(covered, "is-hiring"), other.Key, 202)
		require.Equal(t, float64(job), cold["job_id"])
		require.Equal(t, float64(job), h.getJSON(cpath(covered, "hiring-pulse"), other.Key, 202)["job_id"], "cold without max_age")
		require.Equal(t, float64(job), h.getJSON(cpath(covered, "pre-action-brief"), other.Key, 202)["job_id"])
		require.Equal(t, 200, h.get(cpath(covered, "hiring-pulse")+"?max_age=2592000", other.Key).status, "max_age wins over the cold rule")
		h.setNow(co.LastRead.Add(time.Hour))

		jobPath := fmt.Sprintf("/v1/crawl-jobs/%d", job)
		j := h.getJSON(jobPath, paid.Key, 200)
		require.Equal(t, "crawling", j["status"])
		require.Nil(t, j["result_url"])
		h.getJSON(jobPath, h.account("growth").Key, 404)
		h.getJSON("/v1/crawl-jobs/99999999", paid.Key, 404)

		// The crawler claims the job and commits a cycle; the job reads done once the model has it.
		claimed, err := oltp.ClaimCrawlJobs(context.Background(), h.pool, 10)
		require.NoError(t, err)
		require.Len(t, claimed, 1)
		require.Equal(t, covered, claimed[0].CompanyID)
		require.Equal(t, w.Companies[covered].Domain, claimed[0].Domain)
		require.Equal(t, covered, pipeline.CompanyID(claimed[0].Domain))
		require.NoError(t, oltp.FinishCrawlJob(context.Background(), h.pool, job, nil))
		require.Equal(t, "crawling", h.getJSON(jobPath, paid.Key, 200)["status"], "done only once the read model serves the crawl")
		w.CrawlAt(t, w.TickAt(claimed[0].StartedAt.UTC()))
		installed, err := h.st.Refresh(context.Background(), false)
		require.NoError(t, err)
		require.True(t, installed)
		done := h.getJSON(jobPath, paid.Key, 200)
		require.Equal(t, "done", done["status"])
		require.Equal(t, fmt.Sprintf("/v1/companies/%d/hiring-pulse", covered), done["result_url"])
		require.Equal(t, "done", h.getJSON(jobPath, other.Key, 200)["status"], "every customer that asked sees the job")
	})
}
