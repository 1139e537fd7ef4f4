package sim

import (
	"bytes"
	"encoding/json"
	"hash/crc32"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Handler serves every vendor on its real hostnames and paths (routed by the request's Host,
// see hosts.go), the simulator's own paths on any other host, /robots.txt on every host and the
// /_sim/* control endpoints on every host.
func (w *World) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /greenhouse/v1/boards/{token}/jobs", w.tenantHandler(vGreenhouse, "token"))
	mux.HandleFunc("GET /greenhouse/v1/boards/{token}", func(rw http.ResponseWriter, r *http.Request) {
		w.serveGreenhouseBoard(rw, r, r.PathValue("token"))
	})
	mux.HandleFunc("GET /lever/v0/postings/{site}", w.tenantHandler(vLever, "site"))
	mux.HandleFunc("GET /ashby/posting-api/job-board/{name}", w.tenantHandler(vAshby, "name"))
	mux.HandleFunc("GET /workable/api/v1/widget/accounts/{sub}", w.tenantHandler(vWorkable, "sub"))
	mux.HandleFunc("GET /smartrecruiters/v1/companies/{id}/postings", w.tenantHandler(vSmartRecruiters, "id"))
	mux.HandleFunc("GET /recruitee/{tenant}/api/offers/{$}", w.tenantHandler(vRecruitee, "tenant"))
	mux.HandleFunc("GET /recruitee/{tenant}/api/offers", w.tenantHandler(vRecruitee, "tenant"))
	mux.HandleFunc("GET /personio/{tenant}/xml", w.tenantHandler(vPersonio, "tenant"))
	mux.HandleFunc("GET /teamtailor/{tenant}/jobs.rss", w.tenantHandler(vTeamtailor, "tenant"))
	mux.HandleFunc("GET /bamboohr/{tenant}/careers/list", w.tenantHandler(vBambooHR, "tenant"))
	mux.HandleFunc("GET /breezy/{tenant}/json", w.tenantHandler(vBreezy, "tenant"))
	mux.HandleFunc("GET /pinpoint/{tenant}/postings.json", w.tenantHandler(vPinpoint, "tenant"))
	mux.HandleFunc("GET /join/api/public/companies/{id}/jobs", w.tenantHandler(vJoin, "id"))
	mux.HandleFunc("POST /workday/{dc}/wday/cxs/{company}/{site}/jobs", func(rw http.ResponseWriter, r *http.Request) {
		w.serveTenant(rw, r, vWorkday, r.PathValue("company")+"/"+r.PathValue("dc")+"/"+r.PathValue("site"))
	})
	mux.HandleFunc("GET /icims/{tenant}/jobs/search", w.tenantHandler(vICIMS, "tenant"))
	mux.HandleFunc("GET /jobvite/{company}/search/{$}", w.tenantHandler(vJobvite, "company"))
	mux.HandleFunc("GET /jazzhr/{tenant}/apply", w.tenantHandler(vJazzHR, "tenant"))
	mux.HandleFunc("GET /rippling/api/v2/board/{board}/jobs", w.tenantHandler(vRippling, "board"))
	mux.HandleFunc("GET /boards/{board}/jobs", func(rw http.ResponseWriter, r *http.Request) {
		w.serveBoard(rw, r, boardNamed(r.PathValue("board")))
	})
	mux.HandleFunc("GET /boards/{board}/job/{id}", func(rw http.ResponseWriter, r *http.Request) {
		w.serveJobPage(rw, r, boardNamed(r.PathValue("board")), r.PathValue("id"))
	})
	mux.HandleFunc("GET /aggregator/v1/feed", w.serveAggregator)
	mux.HandleFunc("GET /robots.txt", w.serveRobots)

	mux.HandleFunc("GET /_sim/directory", w.serveDirectory)
	mux.HandleFunc("GET /_sim/truth", w.serveTruth)
	mux.HandleFunc("GET /_sim/discovery", func(rw http.ResponseWriter, r *http.Request) {
		if tick, ok := w.tickParam(rw, r); ok {
			w.writeJSON(rw, r, http.StatusOK, w.DiscoveryTruth(tick))
		}
	})
	mux.HandleFunc("GET /_sim/tick", w.serveTick)
	mux.HandleFunc("POST /_sim/tick", w.servePin)
	mux.HandleFunc("GET /_sim/healthz", func(rw http.ResponseWriter, r *http.Request) {
		w.writeJSON(rw, r, http.StatusOK, map[string]any{"ok": true, "tick": w.CurrentTick()})
	})
	return w.routeHosts(mux)
}

const (
	ctJSON = "application/json; charset=utf-8"
	ctXML  = "application/xml; charset=utf-8"
	ctRSS  = "application/rss+xml; charset=utf-8"
	ctHTML = "text/html; charset=utf-8"
)

// tenantHandler serves vendor v's feed for the tenant named by the path value param.
func (w *World) tenantHandler(v uint8, param string) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		w.serveTenant(rw, r, v, r.PathValue(param))
	}
}

// serveTenant serves vendor v's feed of tenant (from the simulator's path or the real URL): 404
// unless the tenant's company is on v at the served tick.
func (w *World) serveTenant(rw http.ResponseWriter, r *http.Request, v uint8, tenant string) {
	tick := w.CurrentTick()
	idx, ok := w.tenants[v][tenant]
	if !ok || w.companies[idx].vendorAt(tick) != v {
		notFound(rw)
		return
	}
	c := &w.companies[idx]
	w.serveFeed(rw, r, v, c, tick, tenantKey(c, v))
}

// serveFeed serves vendor v's feed of c at tick, faulted as source key ("" for a vendor's demo
// company, never faulted).
func (w *World) serveFeed(rw http.ResponseWriter, r *http.Request, v uint8, c *company, tick int, key string) {
	q := r.URL.Query()
	var render func(b []byte, junk bool) []byte
	ctype := ctJSON
	switch v {
	case vGreenhouse:
		content := q.Get("content") == "true"
		render = func(b []byte, junk bool) []byte { return w.renderGreenhouse(b, c, tick, content, junk) }
	case vLever:
		skip, ok1 := intParam(q.Get("skip"), 0)
		limit, ok2 := intParam(q.Get("limit"), -1)
		if !ok1 || !ok2 || skip < 0 {
			badRequest(rw, "invalid skip or limit")
			return
		}
		render = func(b []byte, junk bool) []byte { return w.renderLever(b, c, tick, skip, limit, junk) }
	case vAshby:
		comp := q.Get("includeCompensation") == "true"
		render = func(b []byte, junk bool) []byte { return w.renderAshby(b, c, tick, comp, junk) }
	case vWorkable:
		details := q.Get("details") == "true"
		render = func(b []byte, junk bool) []byte { return w.renderWorkable(b, c, tick, details, junk) }
	case vSmartRecruiters:
		offset, ok1 := intParam(q.Get("offset"), 0)
		limit, ok2 := intParam(q.Get("limit"), 10)
		if !ok1 || !ok2 || offset < 0 || limit < 1 || limit > 100 {
			badRequest(rw, "invalid offset or limit (limit must be 1-100)")
			return
		}
		render = func(b []byte, junk bool) []byte { return w.renderSmartRecruiters(b, c, tick, offset, limit, junk) }
	case vRecruitee:
		render = func(b []byte, junk bool) []byte { return w.renderRecruitee(b, c, tick, junk) }
	case vPersonio:
		ctype = ctXML
		render = func(b []byte, junk bool) []byte { return w.renderPersonio(b, c, tick, junk) }
	case vTeamtailor:
		offset, ok1 := intParam(q.Get("offset"), 0)
		perPage, ok2 := intParam(q.Get("per_page"), 100)
		if !ok1 || !ok2 || offset < 0 || perPage < 1 {
			badRequest(rw, "invalid offset or per_page")
			return
		}
		ctype = ctRSS
		render = func(b []byte, junk bool) []byte { return w.renderTeamtailor(b, c, tick, offset, perPage, junk) }
	case vBambooHR:
		render = func(b []byte, junk bool) []byte { return w.renderBambooHR(b, c, tick, junk) }
	case vBreezy:
		render = func(b []byte, junk bool) []byte { return w.renderBreezy(b, c, tick, junk) }
	case vPinpoint:
		render = func(b []byte, junk bool) []byte { return w.renderPinpoint(b, c, tick, junk) }
	case vJoin:
		page, ok1 := intParam(q.Get("page"), 1)
		size, ok2 := intParam(q.Get("pageSize"), joinMaxPageSize)
		if !ok1 || !ok2 || page < 1 || size < 1 || size > joinMaxPageSize {
			joinInvalid(rw, !ok2 || size < 1 || size > joinMaxPageSize)
			return
		}
		render = func(b []byte, junk bool) []byte { return w.renderJoin(b, c, tick, page, size, junk) }
	case vWorkday:
		var body struct {
			Limit  *int `json:"limit"`
			Offset *int `json:"offset"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(rw, r.Body, 1<<14)).Decode(&body); err != nil || body.Limit == nil || body.Offset == nil ||
			*body.Limit < 1 || *body.Limit > workdayMaxLimit || *body.Offset < 0 {
			badRequest(rw, "POST {\"appliedFacets\":{},\"limit\":1-20,\"offset\":N,\"searchText\":\"\"}")
			return
		}
		limit, offset := *body.Limit, *body.Offset
		// Workday's postedOn is relative to the day it answers: the world answers at its cycle.
		rw.Header().Set("Date", w.CycleTime(tick).UTC().Format(http.TimeFormat))
		render = func(b []byte, junk bool) []byte { return w.renderWorkday(b, c, tick, offset, limit, junk) }
	case vICIMS:
		pr, ok := intParam(q.Get("pr"), 0)
		if !ok || pr < 0 {
			badRequest(rw, "invalid pr")
			return
		}
		ctype = ctHTML
		render = func(b []byte, junk bool) []byte { return w.renderICIMS(b, c, tick, pr, junk) }
	case vJobvite:
		p, ok := intParam(q.Get("p"), 0)
		if !ok || p < 0 {
			badRequest(rw, "invalid p")
			return
		}
		ctype = ctHTML
		render = func(b []byte, junk bool) []byte { return w.renderJobvite(b, c, tick, p, junk) }
	case vJazzHR:
		ctype = ctHTML
		render = func(b []byte, junk bool) []byte { return w.renderJazzHR(b, c, tick, junk) }
	case vRippling:
		page, ok1 := intParam(q.Get("page"), 0)
		size, ok2 := intParam(q.Get("pageSize"), 20)
		if !ok1 || !ok2 || page < 0 || size < 1 || size > 100 {
			badRequest(rw, "invalid page or pageSize (pageSize must be 1-100)")
			return
		}
		render = func(b []byte, junk bool) []byte { return w.renderRippling(b, c, tick, page, size, junk) }
	}
	w.serveSource(rw, r, tick, key, ctype, render)
}

// serveGreenhouseBoard serves Greenhouse's board endpoint (GET /v1/boards/{token}): the board's
// name and intro while the tenant is on Greenhouse, 404 otherwise. A crawler asks it before
// believing that a board fell empty, so it is never faulted.
func (w *World) serveGreenhouseBoard(rw http.ResponseWriter, r *http.Request, token string) {
	tick := w.CurrentTick()
	idx, ok := w.tenants[vGreenhouse][token]
	if !ok || w.companies[idx].vendorAt(tick) != vGreenhouse {
		notFound(rw)
		return
	}
	w.serveBoardOf(rw, r, &w.companies[idx])
}

// serveBoardOf serves Greenhouse's board endpoint of c.
func (w *World) serveBoardOf(rw http.ResponseWriter, r *http.Request, c *company) {
	name := atsCompanyName(c)
	b := append([]byte(nil), `{"name":`...)
	b = appendStr(b, name)
	b = append(b, `,"content":`...)
	b = appendStr(b, "<p>Join "+name+". We are hiring across our teams; every open role is listed below.</p>")
	b = append(b, '}')
	w.writeBody(rw, r, b, ctJSON)
}

// boardNamed returns the index into boardDefs of the board named name, or -1.
func boardNamed(name string) int {
	for i := range boardDefs {
		if boardDefs[i].name == name {
			return i
		}
	}
	return -1
}

// boardBase is the absolute base URL of board bi's links outside host mode: BaseURL, else the
// request's Host.
func (w *World) boardBase(r *http.Request) string {
	if w.cfg.BaseURL != "" {
		return w.cfg.BaseURL
	}
	return "http://" + r.Host
}

// serveBoard serves page ?page=N of board bi (-1: 404).
func (w *World) serveBoard(rw http.ResponseWriter, r *http.Request, bi int) {
	tick := w.CurrentTick()
	if bi < 0 {
		notFound(rw)
		return
	}
	page, ok := intParam(r.URL.Query().Get("page"), 1)
	if !ok || page < 1 {
		badRequest(rw, "invalid page")
		return
	}
	base := w.boardBase(r)
	w.serveSource(rw, r, tick, w.boardKey(bi), ctHTML, func(b []byte, junk bool) []byte {
		if boardDefs[bi].pages {
			if page > 1 {
				return nil
			}
			return w.renderJobPagesIndex(b, bi, tick, base, junk)
		}
		if page > boardPages(len(w.snapshot(tick).boards[bi])) {
			return nil
		}
		return w.renderJSONLD(b, bi, tick, page, base, junk && page == 1)
	})
}

// serveJobPage serves job page id of board bi (404 unless bi is a job-page board).
func (w *World) serveJobPage(rw http.ResponseWriter, r *http.Request, bi int, id string) {
	tick := w.CurrentTick()
	if bi < 0 || !boardDefs[bi].pages {
		notFound(rw)
		return
	}
	base := w.boardBase(r)
	w.serveSource(rw, r, tick, w.boardKey(bi), ctHTML, func(b []byte, _ bool) []byte {
		return w.renderJobPage(b, bi, tick, id, base)
	})
}

func (w *World) serveAggregator(rw http.ResponseWriter, r *http.Request) {
	tick := w.CurrentTick()
	q := r.URL.Query()
	region := -1
	for i, n := range regionNames {
		if n == q.Get("region") {
			region = i
		}
	}
	if region < 0 {
		notFound(rw)
		return
	}
	offset, ok := parseCursor(q.Get("cursor"))
	if !ok {
		badRequest(rw, "invalid cursor")
		return
	}
	w.serveSource(rw, r, tick, w.aggregatorKey(region), ctJSON, func(b []byte, junk bool) []byte {
		return w.renderAggregator(b, region, tick, offset, junk && offset == 0)
	})
}

// serveSource applies the source's fault for the tick, renders and writes the body. A render
// that returns nil answers 404.
func (w *World) serveSource(rw http.ResponseWriter, r *http.Request, tick int, key, ctype string, render func(b []byte, junk bool) []byte) {
	kind, n := faultNone, 0
	if key != "" {
		kind, n = w.fault(key, tick)
	}
	switch kind {
	case faultVanish:
		notFound(rw)
		return
	case faultSlow:
		if w.cfg.SlowTicks != nil && !w.cfg.SlowTicks(tick) {
			rw.Header().Set("Content-Type", ctJSON)
			rw.WriteHeader(http.StatusGatewayTimeout)
			rw.Write([]byte(`{"error":"gateway timeout"}`))
			return
		}
		t := time.NewTimer(w.cfg.SlowDelay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	case faultServerError:
		if w.attempts.next(tick, r.URL.RequestURI()) <= n {
			rw.Header().Set("Content-Type", ctJSON)
			rw.WriteHeader(http.StatusServiceUnavailable)
			rw.Write([]byte(`{"error":"service unavailable"}`))
			return
		}
	case faultRateLimit:
		if w.attempts.next(tick, r.URL.RequestURI()) == 1 {
			rw.Header().Set("Retry-After", "1")
			rw.Header().Set("Content-Type", ctJSON)
			rw.WriteHeader(http.StatusTooManyRequests)
			rw.Write([]byte(`{"error":"rate limit exceeded"}`))
			return
		}
	}
	bp := w.bufs.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 8<<20 {
			w.bufs.Put(bp)
		}
	}()
	body := render((*bp)[:0], kind == faultMalformedRecord)
	if body == nil {
		notFound(rw)
		return
	}
	*bp = body
	if kind == faultMalformedBody {
		body = truncateBody(body, ctype == ctHTML)
	}
	w.writeBody(rw, r, body, ctype)
}

// truncateBody cuts a body so that it no longer parses: JSON and XML lose their tail; an HTML
// page is cut in the middle of a JSON-LD block, leaving an unterminated script and document.
func truncateBody(b []byte, html bool) []byte {
	if html {
		const tag = `<script type="application/ld+json">`
		if n := bytes.Count(b, []byte(tag)); n > 0 {
			at := 0
			for i := 0; i <= n/2; i++ {
				at += bytes.Index(b[at:], []byte(tag)) + len(tag)
			}
			end := at + bytes.Index(b[at:], []byte("</script>"))
			return b[:at+(end-at)/2]
		}
	}
	return b[:len(b)*3/5]
}

// ETag / conditional requests / gzip.

func newGzipWriter() any {
	z, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return z
}

// etagOf is a strong validator of body: two hardware-accelerated CRC-32s (64 bits).
func (w *World) etagOf(body []byte) string {
	var b [20]byte
	e := append(b[:0], '"')
	e = appendHexUpper(e, uint64(crc32.Checksum(body, w.crc)), 8)
	e = appendHexUpper(e, uint64(crc32.ChecksumIEEE(body)), 8)
	return string(append(e, '"'))
}

// etagMatches implements If-None-Match with weak comparison (W/ prefixes and the -gzip
// representation suffix are ignored).
func etagMatches(header, etag string) bool {
	norm := func(s string) string {
		s = strings.TrimSpace(s)
		s = strings.TrimPrefix(s, "W/")
		s = strings.Trim(s, `"`)
		return strings.TrimSuffix(s, "-gzip")
	}
	want := norm(etag)
	for _, part := range strings.Split(header, ",") {
		p := strings.TrimSpace(part)
		if p == "*" || norm(p) == want {
			return true
		}
	}
	return false
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(enc), "gzip") {
			continue
		}
		_, qv, found := strings.Cut(strings.ReplaceAll(params, " ", ""), "q=")
		if !found {
			return true
		}
		q, err := strconv.ParseFloat(qv, 64)
		return err == nil && q > 0
	}
	return false
}

func (w *World) writeBody(rw http.ResponseWriter, r *http.Request, body []byte, ctype string) {
	h := rw.Header()
	etag := w.etagOf(body)
	h.Set("Vary", "Accept-Encoding")
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, etag) {
		h.Set("ETag", etag)
		rw.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", ctype)
	if !w.cfg.NoGzip && acceptsGzip(r) && len(body) > 256 {
		h.Set("ETag", strings.TrimSuffix(etag, `"`)+`-gzip"`)
		h.Set("Content-Encoding", "gzip")
		rw.WriteHeader(http.StatusOK)
		if r.Method == http.MethodHead {
			return
		}
		z := w.gz.Get().(*gzip.Writer)
		z.Reset(rw)
		z.Write(body)
		z.Close()
		z.Reset(nil)
		w.gz.Put(z)
		return
	}
	h.Set("ETag", etag)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	rw.WriteHeader(http.StatusOK)
	rw.Write(body)
}

func notFound(rw http.ResponseWriter) {
	rw.Header().Set("Content-Type", ctJSON)
	rw.WriteHeader(http.StatusNotFound)
	rw.Write([]byte(`{"error":"not found"}`))
}

// joinInvalid answers a JOIN request whose paging is out of range as the real API does: 422 with
// the parameter it refuses.
func joinInvalid(rw http.ResponseWriter, pageSize bool) {
	rw.Header().Set("Content-Type", ctJSON)
	rw.WriteHeader(http.StatusUnprocessableEntity)
	if pageSize {
		rw.Write([]byte(`[{"param":"pageSize","msg":"Invalid value"}]`))
		return
	}
	rw.Write([]byte(`[{"param":"page","msg":"Invalid value"}]`))
}

func badRequest(rw http.ResponseWriter, msg string) {
	rw.Header().Set("Content-Type", ctJSON)
	rw.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(rw).Encode(map[string]string{"error": msg})
}

// intParam parses an optional integer query parameter.
func intParam(s string, def int) (int, bool) {
	if s == "" {
		return def, true
	}
	v, err := strconv.Atoi(s)
	return v, err == nil
}

// Control endpoints (never faulted).

func (w *World) tickParam(rw http.ResponseWriter, r *http.Request) (int, bool) {
	s := r.URL.Query().Get("tick")
	if s == "" {
		return w.CurrentTick(), true
	}
	t, err := strconv.Atoi(s)
	if err != nil || t < 0 {
		badRequest(rw, "invalid tick")
		return 0, false
	}
	return t, true
}

func (w *World) serveDirectory(rw http.ResponseWriter, r *http.Request) {
	if tick, ok := w.tickParam(rw, r); ok {
		w.writeJSON(rw, r, http.StatusOK, w.Directory(tick))
	}
}

func (w *World) serveTruth(rw http.ResponseWriter, r *http.Request) {
	if tick, ok := w.tickParam(rw, r); ok {
		w.writeJSON(rw, r, http.StatusOK, w.Truth(tick))
	}
}

type tickInfo struct {
	Tick      int       `json:"tick"`
	CycleTime time.Time `json:"cycle_time"`
}

func (w *World) serveTick(rw http.ResponseWriter, r *http.Request) {
	t := w.CurrentTick()
	w.writeJSON(rw, r, http.StatusOK, tickInfo{Tick: t, CycleTime: w.CycleTime(t)})
}

// servePin pins the served tick: POST /_sim/tick?tick=N (or a JSON body {"tick":N}).
func (w *World) servePin(rw http.ResponseWriter, r *http.Request) {
	s := r.URL.Query().Get("tick")
	var t int
	if s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			badRequest(rw, "invalid tick")
			return
		}
		t = v
	} else {
		var body struct {
			Tick *int `json:"tick"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(rw, r.Body, 1<<10)).Decode(&body); err != nil || body.Tick == nil || *body.Tick < 0 {
			badRequest(rw, "tick required: POST /_sim/tick?tick=N")
			return
		}
		t = *body.Tick
	}
	w.Pin(t)
	w.writeJSON(rw, r, http.StatusOK, tickInfo{Tick: t, CycleTime: w.CycleTime(t)})
}

// writeJSON encodes v (gzip-compressed when the client accepts it and r is not nil).
func (w *World) writeJSON(rw http.ResponseWriter, r *http.Request, status int, v any) {
	rw.Header().Set("Content-Type", ctJSON)
	if r != nil && acceptsGzip(r) {
		rw.Header().Set("Content-Encoding", "gzip")
		rw.Header().Set("Vary", "Accept-Encoding")
		rw.WriteHeader(status)
		z := w.gz.Get().(*gzip.Writer)
		z.Reset(rw)
		json.NewEncoder(z).Encode(v)
		z.Close()
		z.Reset(nil)
		w.gz.Put(z)
		return
	}
	rw.WriteHeader(status)
	json.NewEncoder(rw).Encode(v)
}
