package jobtext

import (
	"syscall"
	"testing"
	"time"
)

var (
	benchText    string
	benchDerived Derived
)

// BenchmarkCorpus describes the golden corpus's postings as the crawl does, one posting an op:
// Derive(title, Clean(raw, 16 KiB)) (clean_derive), and each half alone. Bytes are the raw
// description's. Besides ns/op it reports cpu-ns/op, the process's CPU time (user and system,
// the garbage collector's included) over the ops: on a shared machine wall time is the load's,
// CPU time the code's. bench/README.md ("Posting text") has the figures.
func BenchmarkCorpus(b *testing.B) {
	var cases []goldenCase
	for _, c := range goldenCases(b) {
		if len(c.Raw) > 200 { // the corpus's descriptions, not the fuzz seeds
			cases = append(cases, c)
		}
	}
	n := 0
	for _, c := range cases {
		n += len(c.Raw)
	}
	per := int64(n / len(cases))
	const crawlMax = 16 << 10
	run := func(b *testing.B, op func(c *goldenCase, i int)) {
		b.SetBytes(per)
		b.ReportAllocs()
		var cpu0 time.Duration
		i := 0
		for ; b.Loop(); i++ {
			if i == 0 {
				cpu0 = cpuTime()
			}
			op(&cases[i%len(cases)], i%len(cases))
		}
		if i > 1 {
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(i-1), "cpu-ns/op")
		}
	}
	b.Run("clean_derive", func(b *testing.B) {
		run(b, func(c *goldenCase, _ int) { benchDerived = Derive(c.Title, Clean(c.Raw, crawlMax)) })
	})
	b.Run("clean", func(b *testing.B) {
		run(b, func(c *goldenCase, _ int) { benchText = Clean(c.Raw, crawlMax) })
	})
	texts := make([]string, len(cases))
	for i, c := range cases {
		texts[i] = Clean(c.Raw, crawlMax)
	}
	b.Run("derive", func(b *testing.B) {
		run(b, func(c *goldenCase, i int) { benchDerived = Derive(c.Title, texts[i]) })
	})
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
