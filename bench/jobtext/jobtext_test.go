package jobtext

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/planehq/hiringsignal/internal/jobtext"
)

// One op is one posting; the ops cycle through internal/jobtext's ten test postings (English,
// German, French and Spanish; Greenhouse's escaped HTML, Lever and Personio HTML, plain text),
// 1.0 KB of description on average.

type posting struct {
	title, raw string
	doc        []byte // the posting as a Greenhouse-shaped JSON job
}

type ghJob struct {
	ID       int64  `json:"id"`
	Title    string `json:"title"`
	Content  string `json:"content"`
	Location struct {
		Name string `json:"name"`
	} `json:"location"`
	AbsoluteURL string `json:"absolute_url"`
	UpdatedAt   string `json:"updated_at"`
}

func postings(b *testing.B) []posting {
	files, err := filepath.Glob("../../internal/jobtext/testdata/postings/*")
	if err != nil || len(files) == 0 {
		b.Fatalf("cannot find the test postings: %v", err)
	}
	var out []posting
	for i, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		title := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		j := ghJob{ID: int64(4000000 + i), Title: title, Content: string(raw), AbsoluteURL: "https://boards.greenhouse.io/acme/jobs/4000000", UpdatedAt: "2026-11-27T09:00:00-05:00"}
		j.Location.Name = "Remote"
		doc, err := json.Marshal(j)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, posting{title: title, raw: string(raw), doc: doc})
	}
	return out
}

func bytesOf(ps []posting) int64 {
	n := 0
	for _, p := range ps {
		n += len(p.raw)
	}
	return int64(n / len(ps))
}

var sinkS string
var sinkD jobtext.Derived

// BenchmarkPosting/clean_derive is the figure; baseline_json and baseline_lower are the
// baselines: decoding the posting's JSON as a feed sends it, and lower-casing its description.
func BenchmarkPosting(b *testing.B) {
	ps := postings(b)
	b.Run("baseline_json", func(b *testing.B) {
		b.SetBytes(bytesOf(ps))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			var j ghJob
			if err := json.Unmarshal(ps[i%len(ps)].doc, &j); err != nil {
				b.Fatal(err)
			}
			sinkS = j.Content
		}
	})
	b.Run("baseline_lower", func(b *testing.B) {
		b.SetBytes(bytesOf(ps))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			sinkS = strings.ToLower(ps[i%len(ps)].raw)
		}
	})
	b.Run("clean", func(b *testing.B) {
		b.SetBytes(bytesOf(ps))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			sinkS = jobtext.Clean(ps[i%len(ps)].raw, jobtext.DefaultMax)
		}
	})
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = jobtext.Clean(p.raw, jobtext.DefaultMax)
	}
	b.Run("derive", func(b *testing.B) {
		b.SetBytes(bytesOf(ps))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			sinkD = jobtext.Derive(ps[i%len(ps)].title, texts[i%len(ps)])
		}
	})
	b.Run("clean_derive", func(b *testing.B) {
		b.SetBytes(bytesOf(ps))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			p := ps[i%len(ps)]
			sinkD = jobtext.Derive(p.title, jobtext.Clean(p.raw, jobtext.DefaultMax))
		}
	})
}
