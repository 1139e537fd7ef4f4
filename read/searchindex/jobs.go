package searchindex

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/planehq/hiringsignal/internal/normalize"
)

// Sort orders of jobs/search.
const (
	SortDefault   = ""          // company_id, req_key ascending (the stable default order)
	SortRelevance = "relevance" // relevance descending, then company_id, req_key
	SortRecency   = "recency"   // first_seen descending, then company_id, req_key
)

// Relevance scoring of jobs/search (scores are kept as integers in 1/10000 so paging compares
// them exactly):
//
//   - Each query word (normalize.Tokens) is a term. A term is covered directly (weight 1) when the
//     title holds its stem or one of its other spellings (normalize.Spellings: "ml" is "machine
//     learning"; see words), or through an expansion (normalize.ExpansionWeight, 0.6) when the
//     title holds every stem of one of normalize.Expand(word) — or of Expand of the word and its
//     neighbour ("software developer" → "software engineer"), which covers both words. Expansion
//     goes one hop: the expansions of an expansion are not followed.
//   - A title covering every term scores mean(weights) × (0.85 + 0.15 × min(1, terms/title
//     words)): all-direct matches score 0.85..1 (shorter titles higher); a title with an
//     expansion scores at most (terms − 1 + 0.6)/terms: 0.6 for one term, 0.8 for two, 0.9 for
//     four (coveredCeiling), so from three terms it can rank among the direct matches.
//   - A title of the query's own function (normalize.Classify(q)) that does not cover every term
//     scores 0.25 + 0.25 × covered/terms, below every title match (< 0.5).
//
// Rows rank by that score, whatever covers them; same-function titles always rank last.
// JobQuery.MinRelevance drops rows scoring below it (api/search defaults it to
// DefaultMinRelevance, which keeps the same-function tier out), and JobQuery.Literal turns every
// expansion off: only titles holding each word's own stem.
const (
	relScale        = 10000
	sameFunctionMin = 0.25
	// DefaultMinRelevance is the relevance floor api/search applies when the caller sends none:
	// every title match (direct or expanded, >= 0.51) and none of the same-function tier (< 0.5).
	DefaultMinRelevance = 0.5
)

// JobQuery is one jobs/search page request.
type JobQuery struct {
	Q    string
	Sort string // SortDefault, SortRelevance or SortRecency (the caller resolves the default)
	// MinRelevance (0..1, with Q) drops rows whose relevance is below it, in every sort; 0 keeps
	// every scored row.
	MinRelevance float64
	// Literal (with Q) turns expansion off: a row must hold each word's own stem (no other
	// spellings, no synonyms, no same-function titles).
	Literal bool
	Filter  Filter
	After   *JobCursor // the previous page's last row
	Limit   int
}

// JobHit is one row of jobs/search.
type JobHit struct {
	Req       *Req
	Relevance *float64 // 0..1 when q was given, else nil
	rel       int
}

// JobPage is one page; Next is the cursor of its last row when more rows follow.
type JobPage struct {
	Jobs []JobHit
	Next *JobCursor
}

// JobCursor is the opaque jobs/search cursor: the page's last company_id:req_key, and for a
// sorted page the sort and the row's sort key.
type JobCursor struct {
	CompanyID uint64
	Key       string
	Sort      string
	Rel       int   // relevance × 10000 (SortRelevance)
	FirstSeen int64 // unix seconds (SortRecency)
}

// String encodes the cursor: "company_id:req_key" in the default order,
// "company_id:req_key~r<relevance×10000>" or "company_id:req_key~t<first_seen unix>" when sorted.
func (c JobCursor) String() string {
	s := strconv.FormatUint(c.CompanyID, 10) + ":" + c.Key
	switch c.Sort {
	case SortRelevance:
		s += "~r" + strconv.Itoa(c.Rel)
	case SortRecency:
		s += "~t" + strconv.FormatInt(c.FirstSeen, 10)
	}
	return s
}

// ErrBadCursor is returned for a cursor this service did not issue.
var ErrBadCursor = errors.New("not a jobs/search cursor: pass the next_cursor of the previous page unchanged")

// ParseJobCursor decodes a cursor made by JobCursor.String.
func ParseJobCursor(s string) (JobCursor, error) {
	var c JobCursor
	body, tag, sorted := strings.Cut(s, "~")
	id, key, ok := strings.Cut(body, ":")
	if !ok || key == "" || strings.ContainsAny(key, ":~") {
		return c, ErrBadCursor
	}
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil {
		return c, ErrBadCursor
	}
	c.CompanyID, c.Key = n, key
	if !sorted {
		return c, nil
	}
	if len(tag) < 2 {
		return c, ErrBadCursor
	}
	v, err := strconv.ParseInt(tag[1:], 10, 64)
	if err != nil {
		return c, ErrBadCursor
	}
	switch tag[0] {
	case 'r':
		if v < 0 || v > relScale {
			return c, ErrBadCursor
		}
		c.Sort, c.Rel = SortRelevance, int(v)
	case 't':
		c.Sort, c.FirstSeen = SortRecency, v
	default:
		return c, fmt.Errorf("%w (unknown sort tag)", ErrBadCursor)
	}
	return c, nil
}

type term struct {
	exps [][]uint32 // stem ids of each expansion phrase that can match
}

type scorer struct {
	x       *Index
	words   *words // the direct matches: each word's stem or other spellings
	terms   []term
	pairs   map[int][][]uint32 // i → expansion phrases covering terms i and i+1
	fn      int                // function index of the query's function, -1 none
	present bool
	minRel  int       // rows scoring below it are not rows (at least 1)
	w       []float64 // per-term weights of the title being scored (one query, one goroutine)
}

func (x *Index) newScorer(q string, literal bool, minRelevance float64) *scorer {
	s := &scorer{x: x, fn: -1, pairs: map[int][][]uint32{}, words: x.compileWords(q, !literal),
		minRel: max(1, int(math.Round(minRelevance*relScale)))}
	toks := normalize.Tokens(q)
	if len(toks) == 0 {
		return s
	}
	s.present = true
	phrases := func(word string) [][]uint32 {
		var out [][]uint32
		if literal {
			return nil
		}
		for _, p := range normalize.Expand(word) {
			if ids, ok := x.stemIDsOf(p); ok && len(ids) > 0 {
				out = append(out, ids)
			}
		}
		return out
	}
	for i, tok := range toks {
		s.terms = append(s.terms, term{exps: phrases(tok)})
		if i+1 < len(toks) {
			if ps := phrases(tok + " " + toks[i+1]); len(ps) > 0 {
				s.pairs[i] = ps
			}
		}
	}
	if id, ok := normalize.Classify(q); ok && !literal {
		if i, ok := x.valueID(id, x.byFunction); ok {
			s.fn = int(i)
		}
	}
	return s
}

// candidates walks every ordinal whose title covers every term (directly or by expansion),
// ascending.
func (s *scorer) candidates() postingIter {
	cover := make([][]postingIter, len(s.terms))
	for i, t := range s.terms {
		cover[i] = append(cover[i], s.words.iter(i))
		for _, p := range t.exps {
			cover[i] = append(cover[i], s.x.phraseIter(p))
		}
	}
	for i, ps := range s.pairs {
		for _, p := range ps {
			cover[i] = append(cover[i], s.x.phraseIter(p))
			cover[i+1] = append(cover[i+1], s.x.phraseIter(p))
		}
	}
	all := make([]postingIter, len(cover))
	for i, parts := range cover {
		all[i] = unionOf(parts...)
	}
	return interOf(all...)
}

// direct walks every ordinal whose title covers every word directly (its stem or another
// spelling), ascending.
func (s *scorer) direct() postingIter {
	if s.words.none {
		return emptyIter{}
	}
	all := make([]postingIter, len(s.words.alts))
	for i := range s.words.alts {
		all[i] = s.words.iter(i)
	}
	return interOf(all...)
}

// singleStem is the stem whose posting list is the whole direct tier, when the query is one
// word covered only by its own stem (no other spelling).
func (s *scorer) singleStem() (uint32, bool) {
	w := s.words
	if w.none || len(w.alts) != 1 || len(w.alts[0]) != 1 || len(w.alts[0][0]) != 1 || len(w.pairs) != 0 {
		return 0, false
	}
	return w.alts[0][0][0], true
}

// sameFunction walks every ordinal of the query's function.
func (s *scorer) sameFunction() postingIter {
	if s.fn < 0 {
		return emptyIter{}
	}
	return listOf(s.x.byFunction[s.fn])
}

// Score tiers: every all-direct title scores in [8500, 10000], a title covered with any expansion
// in [5100, coveredCeiling(terms)] (8000 for two terms, 9000 for four), a same-function title in
// [2500, 5000). Relevance pages walk the tiers in order, each title in its own tier only, and stop
// once the page is full with rows above the next tier's ceiling.
type tier struct {
	lo, hi int
	list   func() postingIter
}

// score is the relevance × 10000 of a title (0: not a candidate).
func (s *scorer) score(r *Req) int {
	v, _ := s.scoreTier(r)
	return v
}

// Tiers of a scored title: every word direct, every word covered (some by expansion), the
// query's function.
const (
	tierDirect = 1 + iota
	tierCovered
	tierFunction
)

// coveredCeiling is the highest score a title covered with at least one expansion can reach for
// a query of n terms: every other term direct, the title no longer than the query. It passes the
// direct tier's floor from three terms on, so the tiers are told apart by what covers the title,
// never by the score (a 4-term title with one expansion scores up to 9000: ranked among the
// direct ones, it was dropped by both tiers before).
func coveredCeiling(n int) int {
	if n < 1 {
		return 0
	}
	return int(math.Round((float64(n-1) + normalize.ExpansionWeight) / float64(n) * relScale))
}

// functionCeiling is the highest score a same-function title can reach for a query of n terms:
// every term but one covered (covering them all puts it in a title tier). It stays below 5000, so
// the default relevance floor keeps the whole tier out and its list is never walked.
func functionCeiling(n int) int {
	if n < 1 {
		return 0
	}
	return max(1, int(math.Round((sameFunctionMin+0.25*float64(n-1)/float64(n))*relScale)))
}

// directScores is the score of a title of the direct tier by its word count (index 0 and 1: one
// word; ordWordsMax: that many or more, which the caller scores whole): every term weighs 1, so
// the score is scoreTier's for sum = n. Index 0 is the tier's best.
func (s *scorer) directScores() *[ordWordsMax + 1]int {
	var out [ordWordsMax + 1]int
	n := len(s.terms)
	if n == 0 {
		return &out
	}
	sum := 0.0
	for range n {
		sum++
	}
	for w := range out {
		rel := sum / float64(n) * (0.85 + 0.15*math.Min(1, float64(n)/float64(max(w, 1))))
		out[w] = max(1, int(math.Round(rel*relScale)))
	}
	return &out
}

// scoreTier is score and the tier of the title (0 with a score of 0).
func (s *scorer) scoreTier(r *Req) (int, int) {
	t := r.Title
	n := len(s.terms)
	if cap(s.w) < n {
		s.w = make([]float64, n)
	}
	w := s.w[:n]
	clear(w)
	for i, tm := range s.terms {
		if s.words.covered(i, t) {
			w[i] = 1
			continue
		}
		for _, p := range tm.exps {
			if t.hasAll(p) {
				w[i] = normalize.ExpansionWeight
				break
			}
		}
	}
	for i, ps := range s.pairs {
		for _, p := range ps {
			if t.hasAll(p) {
				w[i] = math.Max(w[i], normalize.ExpansionWeight)
				w[i+1] = math.Max(w[i+1], normalize.ExpansionWeight)
				break
			}
		}
	}
	covered, sum := 0, 0.0
	for _, v := range w {
		if v > 0 {
			covered++
			sum += v
		}
	}
	var rel float64
	tier := tierFunction
	switch {
	case covered == n:
		tier = tierCovered
		if sum == float64(n) {
			tier = tierDirect
		}
		words := t.words
		if words < 1 {
			words = 1
		}
		rel = sum / float64(n) * (0.85 + 0.15*math.Min(1, float64(n)/float64(words)))
	case s.fn >= 0 && int(r.set().functionID) == s.fn:
		rel = sameFunctionMin + 0.25*float64(covered)/float64(n)
	default:
		return 0, 0
	}
	v := int(math.Round(rel * relScale))
	if v < 1 {
		v = 1
	}
	if v < s.minRel {
		return 0, 0
	}
	return v, tier
}

// SearchJobs answers jobs/search: one row per logical req, in the requested order, after the
// cursor.
func (x *Index) SearchJobs(q JobQuery) JobPage {
	var page JobPage
	c := x.compile(&q.Filter)
	defer c.release()
	if c.none || q.Limit <= 0 {
		return page
	}
	sc := x.newScorer(q.Q, q.Literal, q.MinRelevance)
	ckey := int64(-1) // rows after the cursor have 2*ord > ckey
	if q.After != nil {
		p, exact := x.position(q.After.CompanyID, q.After.Key)
		ckey = 2*int64(p) - 1
		if exact {
			ckey = 2 * int64(p)
		}
	}
	hit := func(ord uint32, rel int) JobHit { return JobHit{Req: &x.reqs[ord], rel: rel} }
	var rows []JobHit
	switch {
	case !sc.present && q.Sort != SortRecency:
		var lists []postingIter
		if c.singleCountry >= 0 {
			lists = []postingIter{listOf(x.byCountry[c.singleCountry])}
		}
		x.walk(lists, uint32((ckey+2)/2), func(ord uint32) bool {
			if c.reqAt(ord) {
				rows = append(rows, hit(ord, 0))
			}
			return len(rows) <= q.Limit
		})
	case !sc.present:
		for _, ord := range x.byRecency[x.recencyStart(q.After, ckey):] {
			if c.reqAt(ord) {
				rows = append(rows, hit(ord, 0))
				if len(rows) > q.Limit {
					break
				}
			}
		}
	default:
		less := func(a, b JobHit) bool { // a before b
			if q.Sort == SortRecency {
				if a.Req.FirstSeen != b.Req.FirstSeen {
					return a.Req.FirstSeen > b.Req.FirstSeen
				}
			} else if a.rel != b.rel {
				return a.rel > b.rel
			}
			return a.Req.company < b.Req.company || a.Req.company == b.Req.company && a.Req.Key < b.Req.Key
		}
		after := func(ord uint32, rel int) bool {
			if q.After == nil {
				return true
			}
			r := &x.reqs[ord]
			if q.Sort == SortRecency {
				if r.FirstSeen != q.After.FirstSeen {
					return r.FirstSeen < q.After.FirstSeen
				}
			} else if rel != q.After.Rel {
				return rel < q.After.Rel
			}
			return 2*int64(ord) > ckey
		}
		k := q.Limit + 1
		if q.Sort == SortRecency {
			// Newest first: walk the recency order after the cursor, scoring each title the
			// filter keeps (the filter is the cheaper test).
			for _, ord := range x.byRecency[x.recencyStart(q.After, ckey):] {
				if !c.reqAt(ord) {
					continue
				}
				r := &x.reqs[ord]
				if rel := sc.score(r); rel > 0 {
					rows = append(rows, hit(ord, rel))
					if len(rows) == k {
						break
					}
				}
			}
			break
		}
		// hi bounds a tier's scores (the walk stops once the page is full above it) and lo its
		// floor (a cursor past it skips the tier); a title counts in its own tier only.
		tiers := []tier{{8500, relScale, sc.direct}, {5100, coveredCeiling(len(sc.terms)), sc.candidates}, {1, functionCeiling(len(sc.terms)), sc.sameFunction}}
		insert := func(h JobHit) {
			i := sort.Search(len(rows), func(i int) bool { return less(h, rows[i]) })
			if len(rows) < k {
				rows = append(rows, JobHit{})
			}
			copy(rows[i+1:], rows[i:len(rows)-1])
			rows[i] = h
		}
		for ti, t := range tiers {
			if len(rows) == k && rows[k-1].rel > t.hi || t.hi < sc.minRel {
				break
			}
			if q.After != nil && q.After.Rel < t.lo {
				continue // the whole tier ranks before the cursor
			}
			if ti == 0 {
				// Every term of a direct title weighs 1, so its score is its word count's
				// (directScores). The walk reads each ordinal's flags and set id, and the record
				// only of a req whose score would place it on the page. Rows of one score rank by
				// ordinal, the order of the walk, so once the page is full with the tier's best
				// score nothing later can enter it.
				scores := sc.directScores()
				visit := func(ord uint32) bool {
					w := x.ordFlags[ord] & ordWordsMax
					rel := scores[w]
					if w != ordWordsMax && len(rows) == k && rel <= rows[k-1].rel {
						return rows[k-1].rel < scores[0] // its score cannot place it: not even pre's tests
					}
					if !c.pre(ord) {
						return true
					}
					if w == ordWordsMax {
						rel, _ = sc.scoreTier(&x.reqs[ord]) // that many words or more: scored whole
					}
					if rel < sc.minRel || !after(ord, rel) {
						return true
					}
					if len(rows) == k && rel <= rows[k-1].rel {
						return rows[k-1].rel < scores[0]
					}
					if c.afterPre(ord) {
						insert(hit(ord, rel))
					}
					return true
				}
				stem, single := sc.singleStem()
				if !single {
					each(t.list(), visit)
					continue
				}
				// One posting list: once the page is full, a block of it whose fewest title
				// words score no better than the page's last row holds no req that can enter.
				l, words := x.postings[stem], x.postingWords[stem]
				for i := 0; i < len(l); i++ {
					if i%postingBlock == 0 && len(rows) == k && scores[words[i/postingBlock]] <= rows[k-1].rel {
						i += postingBlock - 1
						continue
					}
					if !visit(l[i]) {
						break
					}
				}
				continue
			}
			each(t.list(), func(ord uint32) bool {
				if !c.reqAt(ord) {
					return true
				}
				r := &x.reqs[ord]
				rel, in := sc.scoreTier(r)
				if in != ti+1 || !after(ord, rel) {
					return true
				}
				if h := hit(ord, rel); len(rows) < k || less(h, rows[k-1]) {
					insert(h)
				}
				return true
			})
		}
	}
	if sc.present {
		rels := make([]float64, len(rows))
		for i := range rows {
			rels[i] = float64(rows[i].rel) / relScale
			rows[i].Relevance = &rels[i]
		}
	}
	if len(rows) > q.Limit {
		rows = rows[:q.Limit]
		last := rows[len(rows)-1]
		page.Next = &JobCursor{CompanyID: last.Req.CompanyID, Key: last.Req.Key, Sort: q.Sort, Rel: last.rel, FirstSeen: last.Req.FirstSeen}
	}
	page.Jobs = rows
	return page
}

// recencyStart is the position in byRecency of the first req after the cursor (0 without one):
// older first_seen, or the same first_seen and 2*ord > ckey.
func (x *Index) recencyStart(after *JobCursor, ckey int64) int {
	if after == nil {
		return 0
	}
	cfs := after.FirstSeen
	return sort.Search(len(x.byRecency), func(i int) bool {
		o := x.byRecency[i]
		fs := x.reqs[o].FirstSeen
		return fs < cfs || fs == cfs && 2*int64(o) > ckey
	})
}
