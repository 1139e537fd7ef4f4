package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/planehq/hiringsignal/analytics"
)

// Read statuses of a source in one window. Only StatusOK makes a source read: every other
// status leaves the reqs it carried unknown, never closed.
const (
	StatusOK         = "ok"
	StatusFailed     = "failed"
	StatusBlocked    = "blocked"       // robots.txt did not allow the read
	StatusNotFetched = "not_fetched"   // no read this window (workers behind, source cooling down)
	StatusSuspect    = "suspect_empty" // answered with far fewer reqs than it carried (guardDrops)
	// StatusPartial is a chain of pages read in part in its window, going on in the next from
	// where it stopped (ReadSegment, ChainPlace): the reqs on its pages read count as seen, and
	// none of its reqs closes until a read reaches the chain's end.
	StatusPartial = "partial"
)

// SourceRead is what a crawl worker learned of one source in one window: the fetch, parse and
// normalize half of a cycle, stored so that one committer can decide the window's events from
// the reads of every worker. Full holds the sightings of the pages parsed; Unchanged the
// (req, posting) pairs of pages the source answered as unchanged (304 or the same body), whose
// attributes the committer takes from the ledger. Pages, Postings and Malformed are what the read
// read in its window, which the window's cycles row counts: of a chain of pages carried across
// windows (read in parts), the pages this window read and the postings on them, while its
// sightings are those of the whole chain so far (each window's read counts them as seen).
type SourceRead struct {
	SourceKey string
	Tick      uint32
	ReadAt    time.Time
	Status    string
	Reason    string
	Pages     int
	Postings  int
	Malformed int
	// RefetchOf is set on the read of a refetch a worker made in the window after a read whose
	// postings fell far below the source's last (MassDrop): that first read's time. The committer
	// takes it as the later read that confirms a drop, or clears it (guardDrops).
	RefetchOf time.Time
	Full      []observation
	Unchanged []cachedObs

	packed []byte // Encode's bytes, decoded when the read is committed (ReadCodec.Defer)
	codec  *ReadCodec
}

// wire forms: short keys, since a window's reads are stored whole.
type wireObs struct {
	C  uint64  `json:"c"`
	K  string  `json:"k"`
	TK string  `json:"tk,omitempty"`
	RT string  `json:"rt,omitempty"`
	T  string  `json:"t,omitempty"`
	F  string  `json:"f,omitempty"`
	CO string  `json:"co,omitempty"`
	L  string  `json:"l,omitempty"`
	SI string  `json:"si"`
	B  string  `json:"b,omitempty"`
	ST string  `json:"st,omitempty"`
	U  string  `json:"u,omitempty"`
	RI string  `json:"ri,omitempty"`
	P  int64   `json:"p,omitempty"` // posted at, unix seconds; 0 none
	S  bool    `json:"s,omitempty"`
	LO float64 `json:"lo,omitempty"`
	HI float64 `json:"hi,omitempty"`
	SD bool    `json:"sd,omitempty"`
	// The posting's facts, read by the worker (every posting: which reqs will have an event is
	// the committer's to know). Absent when not read.
	FX *wireFacts `json:"fx,omitempty"`
}

// wireFacts is analytics.Facts on the wire; technology kinds as a string of digits.
type wireFacts struct {
	T  []string             `json:"t,omitempty"`
	TK string               `json:"tk,omitempty"`
	S  string               `json:"s,omitempty"`
	E  string               `json:"e,omitempty"`
	W  string               `json:"w,omitempty"`
	RC []string             `json:"rc,omitempty"`
	Y  *uint8               `json:"y,omitempty"`
	V  *bool                `json:"v,omitempty"`
	P  *analytics.StatedPay `json:"p,omitempty"`
	H  uint64               `json:"h,omitempty"`
}

func wireFactsOf(f *analytics.Facts) *wireFacts {
	if f == nil {
		return nil
	}
	kinds := make([]byte, len(f.TechKinds))
	for i, k := range f.TechKinds {
		kinds[i] = '0' + k
	}
	return &wireFacts{T: f.Technologies, TK: string(kinds), S: f.Seniority, E: f.EmploymentType, W: f.WorkplaceType, RC: f.RemoteCountries,
		Y: f.YearsMin, V: f.Visa, P: f.StatedPay, H: f.DescriptionHash}
}

func (w *wireFacts) facts() *analytics.Facts {
	if w == nil {
		return nil
	}
	f := &analytics.Facts{Technologies: w.T, Seniority: w.S, EmploymentType: w.E, WorkplaceType: w.W, RemoteCountries: w.RC,
		YearsMin: w.Y, Visa: w.V, StatedPay: w.P, DescriptionHash: w.H}
	if len(w.T) > 0 {
		f.TechKinds = make([]uint8, len(w.T))
		for i := 0; i < len(w.TK) && i < len(w.T); i++ {
			if k := w.TK[i] - '0'; k <= analytics.TechNiceToHave {
				f.TechKinds[i] = k
			}
		}
	}
	return f
}

type wireRead struct {
	Full      []wireObs   `json:"full,omitempty"`
	Unchanged [][2]string `json:"unchanged,omitempty"`
}

// ReadCodec compresses and restores the sightings of SourceReads for storage. It is safe for
// concurrent use; make one per process.
type ReadCodec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

// NewReadCodec makes a ReadCodec.
func NewReadCodec() *ReadCodec {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	dec, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(256<<20))
	return &ReadCodec{enc: enc, dec: dec}
}

// Encode renders the sightings of r (Full and Unchanged) as compressed bytes for storage.
func (c *ReadCodec) Encode(r *SourceRead) ([]byte, error) {
	w := wireRead{Full: make([]wireObs, len(r.Full))}
	for i := range r.Full {
		o := &r.Full[i]
		wo := wireObs{C: o.companyID, K: o.reqKey, TK: o.titleKey, RT: o.rawTitle, T: o.title, F: o.function, CO: o.country,
			L: o.location, SI: o.sourceID, B: o.board, ST: o.sourceType, U: o.url, RI: o.reqID, S: o.salary, LO: o.salLo, HI: o.salHi,
			SD: o.salaryDropped, FX: wireFactsOf(o.facts)}
		if !o.postedAt.IsZero() {
			wo.P = o.postedAt.Unix()
		}
		w.Full[i] = wo
	}
	for _, u := range r.Unchanged {
		w.Unchanged = append(w.Unchanged, [2]string{u.reqKey, u.sourceID})
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(&w); err != nil {
		return nil, fmt.Errorf("cannot encode the reads of %s: %w", r.SourceKey, err)
	}
	return c.enc.EncodeAll(buf.Bytes(), nil), nil
}

// Join is the sightings of a chain of pages read in parts (each part Encode's bytes, in the
// chain's order) as the read of the whole chain: Encode's bytes of every part's sightings, and
// how many postings each part holds (in the parts' order).
func (c *ReadCodec) Join(key string, parts [][]byte) ([]byte, []int, error) {
	var all wireRead
	postings := make([]int, len(parts))
	for i, b := range parts {
		w, err := c.decodeWire(key, b)
		if err != nil {
			return nil, nil, err
		}
		all.Full = append(all.Full, w.Full...)
		all.Unchanged = append(all.Unchanged, w.Unchanged...)
		postings[i] = len(w.Full) + len(w.Unchanged)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(&all); err != nil {
		return nil, nil, fmt.Errorf("cannot encode the reads of %s: %w", key, err)
	}
	return c.enc.EncodeAll(buf.Bytes(), nil), postings, nil
}

func (c *ReadCodec) decodeWire(key string, b []byte) (wireRead, error) {
	var w wireRead
	raw, err := c.dec.DecodeAll(b, nil)
	if err != nil {
		return w, fmt.Errorf("cannot decompress the reads of %s: %w", key, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&w); err != nil && err != io.EOF {
		return w, fmt.Errorf("cannot decode the reads of %s: %w", key, err)
	}
	return w, nil
}

// Decode fills r's Full and Unchanged from Encode's bytes (r.SourceKey names their source).
func (c *ReadCodec) Decode(r *SourceRead, b []byte) error {
	w, err := c.decodeWire(r.SourceKey, b)
	if err != nil {
		return err
	}
	r.Full = make([]observation, len(w.Full))
	for i, wo := range w.Full {
		o := observation{companyID: wo.C, reqKey: wo.K, titleKey: wo.TK, rawTitle: wo.RT, title: wo.T, function: wo.F, country: wo.CO,
			location: wo.L, sourceKey: r.SourceKey, sourceID: wo.SI, board: wo.B, sourceType: wo.ST, url: wo.U, reqID: wo.RI,
			salary: wo.S, salLo: wo.LO, salHi: wo.HI, salaryDropped: wo.SD, facts: wo.FX.facts()}
		if wo.P != 0 {
			o.postedAt = time.Unix(wo.P, 0).UTC()
		}
		r.Full[i] = o
	}
	r.Unchanged = make([]cachedObs, len(w.Unchanged))
	for i, u := range w.Unchanged {
		r.Unchanged[i] = cachedObs{reqKey: u[0], sourceID: u[1]}
	}
	return nil
}

// Defer keeps b, Encode's bytes for r, for CommitReads to decode when it reaches r, instead of
// decoding them now: decoded, a window's reads take about 7 times their stored size in heap (946
// MiB for the 142 MB of a 100,000-company window), all of it held for the whole commit; packed,
// each is decoded, merged into the window's reqs and dropped in turn. A read that does not decode
// fails the commit before anything is written.
func (c *ReadCodec) Defer(r *SourceRead, b []byte) { r.packed, r.codec = b, c }

// sightings is r's Full and Unchanged, decoded from its packed bytes when it has them (r is left
// as it is, so a commit that is retried decodes them again).
func (r *SourceRead) sightings() ([]observation, []cachedObs, error) {
	if r.packed == nil {
		return r.Full, r.Unchanged, nil
	}
	d := SourceRead{SourceKey: r.SourceKey}
	if err := r.codec.Decode(&d, r.packed); err != nil {
		return nil, nil, err
	}
	return d.Full, d.Unchanged, nil
}
