package metering

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/planehq/hiringsignal/api/metering"
	"github.com/planehq/hiringsignal/oltp"
)

// The segments never reach Postgres here (no pool): the benchmarks measure what a metered call
// pays before its answer leaves. Run with -cpu 1,2 and parallel goroutines to see group commit.

func record() metering.Record {
	return metering.Record{CustomerID: "cus_01J9Z4", AccountID: 17, KeyID: 42, Method: "GET",
		Route: "/v1/companies/{company_id}/is-hiring", MeterClass: oltp.MeterCall, Calls: 1, OccurredAt: time.Now().UTC()}
}

func benchAppend(b *testing.B, syncEvery time.Duration) {
	l := metering.New(metering.Config{Dir: b.TempDir(), SegmentRecords: 1 << 16, FlushInterval: time.Hour, SyncEvery: syncEvery})
	if err := l.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer l.Stop(context.Background()) //nolint:errcheck
	rec := record()
	b.SetParallelism(32) // 32 × GOMAXPROCS concurrent callers, as under load
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := l.Append(context.Background(), rec); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	if w := l.Writes(); w > 0 {
		b.ReportMetric(float64(b.N)/float64(w), "calls/write")
	}
}

// BenchmarkAppendRelaxed is the default (--metering-fsync-interval 20ms).
func BenchmarkAppendRelaxed(b *testing.B) { benchAppend(b, 20*time.Millisecond) }

// BenchmarkAppendStrict waits for the group-committed fsync (--metering-fsync-interval 0).
func BenchmarkAppendStrict(b *testing.B) { benchAppend(b, 0) }

// BenchmarkBaselineWrite is the baseline: one write(2) per call of an 81-byte frame (the size of
// record()'s frame) under no lock, to an O_APPEND file, with the same parallelism.
func BenchmarkBaselineWrite(b *testing.B) {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "plain"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	frame := make([]byte, 81)
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := f.Write(frame); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
