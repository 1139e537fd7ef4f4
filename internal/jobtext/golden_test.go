package jobtext

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// The golden outputs: Clean and Derive over a corpus of descriptions as the crawl reads them
// (testdata/corpus.jsonl.gz: the simulator's feeds in every vendor's markup, the captured vendor
// payloads and the test postings; written by bench/jobtext's TestWriteCorpus, since this leaf
// may import neither the simulator nor the adapters) and the fuzz seeds, held in
// testdata/golden.jsonl.gz. A change to Clean or Derive that should not change what they answer
// (a faster reading) must leave every line as it is; one that should is reviewed in the diff of
// the outputs it changes and written again with
//
//	go test -run TestGolden ./internal/jobtext -args -update-golden

var updateGolden = flag.Bool("update-golden", false, "write testdata/golden.jsonl.gz from the current outputs")

const (
	corpusFile = "testdata/corpus.jsonl.gz"
	goldenFile = "testdata/golden.jsonl.gz"
)

// goldenCase is one title and raw description of the corpus.
type goldenCase struct {
	Source string `json:"source"`
	Title  string `json:"title"`
	Raw    string `json:"raw"`
}

// goldenOut is what Clean and Derive answer for one case: Clean's text at the crawl's bound (16
// KiB, as pipeline's describe asks), unbounded and at two short bounds that cut inside the text
// (hashes), Derive over the title and the crawl's clean text (in full), and Derive over the raw
// description as it came (hash of its JSON: markup read as text).
type goldenOut struct {
	Source    string  `json:"source"`
	Clean     string  `json:"clean"`     // hash of Clean(raw, 16 KiB)
	CleanAll  string  `json:"clean_all"` // hash of Clean(raw, 0)
	Clean600  string  `json:"clean_600"` // hash of Clean(raw, 600)
	Clean150  string  `json:"clean_150"` // hash of Clean(raw, 150)
	Derived   Derived `json:"derived"`   // Derive(title, Clean(raw, 16 KiB))
	Untitled  string  `json:"untitled"`  // hash of Derive("", Clean(raw, 16 KiB))
	RawDerive string  `json:"raw"`       // hash of Derive(title, raw)
}

func goldenHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:12])
}

func derivedHash(t *testing.T, d Derived) string {
	b, err := json.Marshal(d)
	require.NoError(t, err)
	return goldenHash(string(b))
}

// goldenCases reads the corpus and appends the fuzz seeds.
func goldenCases(t testing.TB) []goldenCase {
	f, err := os.Open(corpusFile)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	var cases []goldenCase
	dec := json.NewDecoder(zr)
	for dec.More() {
		var c goldenCase
		require.NoError(t, dec.Decode(&c))
		cases = append(cases, c)
	}
	require.Greater(t, len(cases), 1000, "the corpus is the simulator's feeds and the captured payloads")
	for i, s := range cleanSeeds {
		cases = append(cases, goldenCase{Source: fmt.Sprintf("cleanSeeds[%d]", i), Raw: s})
	}
	for i, s := range deriveSeeds {
		cases = append(cases, goldenCase{Source: fmt.Sprintf("deriveSeeds[%d]", i), Title: s[0], Raw: s[1]})
	}
	return cases
}

func goldenOf(t *testing.T, c goldenCase) goldenOut {
	const crawlMax = 16 << 10 // analytics.MaxDescription
	text := Clean(c.Raw, crawlMax)
	return goldenOut{
		Source:    c.Source,
		Clean:     goldenHash(text),
		CleanAll:  goldenHash(Clean(c.Raw, 0)),
		Clean600:  goldenHash(Clean(c.Raw, 600)),
		Clean150:  goldenHash(Clean(c.Raw, 150)),
		Derived:   Derive(c.Title, text),
		Untitled:  derivedHash(t, Derive("", text)),
		RawDerive: derivedHash(t, Derive(c.Title, c.Raw)),
	}
}

// TestGolden holds Clean and Derive to the outputs recorded for the corpus, line by line.
func TestGolden(t *testing.T) {
	t.Parallel()
	cases := goldenCases(t)
	if *updateGolden {
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		require.NoError(t, err)
		enc := json.NewEncoder(zw)
		enc.SetEscapeHTML(false)
		for _, c := range cases {
			require.NoError(t, enc.Encode(goldenOf(t, c)))
		}
		require.NoError(t, zw.Close())
		require.NoError(t, os.WriteFile(goldenFile, buf.Bytes(), 0o644))
		return
	}
	f, err := os.Open(goldenFile)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	i := 0
	for ; sc.Scan(); i++ {
		require.Less(t, i, len(cases), "the golden outputs have more lines than the corpus has cases")
		var want goldenOut
		require.NoError(t, json.Unmarshal(sc.Bytes(), &want))
		require.Equal(t, want, goldenOf(t, cases[i]), "case %d (%s, %q)", i, cases[i].Source, cases[i].Title)
	}
	require.NoError(t, sc.Err())
	require.Equal(t, len(cases), i, "every case of the corpus has its golden outputs")
}
