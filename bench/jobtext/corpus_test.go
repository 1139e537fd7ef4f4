package jobtext

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planehq/hiringsignal/pipeline/ats"
	"github.com/planehq/hiringsignal/sim"
)

// The golden corpus of internal/jobtext (testdata/corpus.jsonl.gz, read by its TestGolden):
// descriptions as the crawl reads them, title and raw description of each posting. It is
// written here because internal/jobtext, a leaf, may import neither the simulator nor the
// adapters: go test -run TestWriteCorpus -write-corpus ./bench/jobtext writes it again (and the
// golden outputs must then be written again too, by internal/jobtext's -update-golden, on a
// commit whose outputs are known good).
//
// What it holds: every distinct description the simulator's feeds carry for a small world at
// one tick, read from its pages by the production adapters (every vendor's field and markup:
// HTML, entity-escaped HTML, plain text, sections), a bounded number per vendor; the
// descriptions of the captured vendor payloads (pipeline/ats/testdata,
// cmd/hiringsignal/testdata/payloads), read the same way; and internal/jobtext's test
// postings.

var writeCorpus = flag.Bool("write-corpus", false, "write internal/jobtext/testdata/corpus.jsonl.gz")

const corpusPath = "../../internal/jobtext/testdata/corpus.jsonl.gz"

// corpusRecord is one line of the corpus.
type corpusRecord struct {
	Source string `json:"source"` // vendor or file it was read from
	Title  string `json:"title"`
	Raw    string `json:"raw"`
}

// perVendor bounds the simulator's descriptions kept per vendor, so the corpus stays a few
// hundred KB compressed.
const perVendor = 160

func TestWriteCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("writes the golden corpus only with -write-corpus")
	}
	seen := map[string]bool{}
	var recs []corpusRecord
	add := func(source, title, raw string) bool {
		k := title + "\x00" + raw
		if raw == "" || seen[k] {
			return false
		}
		seen[k] = true
		recs = append(recs, corpusRecord{Source: source, Title: title, Raw: raw})
		return true
	}

	// internal/jobtext's test postings.
	files, err := filepath.Glob("../../internal/jobtext/testdata/postings/*")
	require.NoError(t, err)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		add("postings/"+filepath.Base(f), strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)), string(raw))
	}

	// The captured payloads, read by their adapters.
	for _, dir := range []string{"../../pipeline/ats/testdata", "../../cmd/hiringsignal/testdata/payloads"} {
		files, err := filepath.Glob(filepath.Join(dir, "*"))
		require.NoError(t, err)
		sort.Strings(files)
		for _, f := range files {
			vendor, _, _ := strings.Cut(filepath.Base(f), "_")
			a, ok := ats.For(vendor)
			if !ok {
				continue
			}
			body, err := os.ReadFile(f)
			require.NoError(t, err)
			page, err := a.Parse(body, "https://example.com/x")
			if err != nil {
				continue // a page of another shape (JOIN's company page)
			}
			for _, p := range page.Postings {
				add(filepath.Base(dir)+"/"+filepath.Base(f), p.Title, p.Description)
			}
		}
	}

	// The simulator's feeds: a small world served on loopback, every page of every source.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	world := sim.New(sim.Config{Seed: 7, Companies: 400, BaseURL: base, NoGzip: true})
	srv := &http.Server{Handler: world.Handler()}
	go srv.Serve(ln) //nolint:errcheck
	defer srv.Close()
	const tick = 900
	world.Pin(tick)
	kept := map[string]int{}
	for _, src := range world.Directory(tick).Sources {
		a, ok := ats.For(src.Vendor)
		if !ok {
			continue
		}
		for url, pages := src.URL, 0; url != "" && pages < 50 && kept[src.Vendor] < perVendor; pages++ {
			body := fetchPage(t, a, url)
			page, err := a.Parse(body, url)
			require.NoError(t, err, url)
			for _, p := range page.Postings {
				if kept[src.Vendor] < perVendor && add(src.Vendor, p.Title, p.Description) {
					kept[src.Vendor]++
				}
			}
			url = page.NextURL
		}
	}
	t.Logf("kept per vendor: %v", kept)

	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	require.NoError(t, err)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	raw := 0
	for _, r := range recs {
		require.NoError(t, enc.Encode(r))
		raw += len(r.Raw)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(corpusPath, buf.Bytes(), 0o644))
	t.Logf("%d texts, %d bytes of descriptions, %d bytes compressed", len(recs), raw, buf.Len())
}

// fetchPage reads one page as the adapter asks for it (Workday's list is a POST).
func fetchPage(t *testing.T, a ats.Adapter, url string) []byte {
	method, body, ctype := http.MethodGet, []byte(nil), ""
	if r, ok := a.(ats.Requester); ok {
		method, body, ctype = r.Request(url)
	}
	req, err := http.NewRequest(method, strings.SplitN(url, "#", 2)[0], bytes.NewReader(body))
	require.NoError(t, err)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}
