// Package metering holds the Go benchmarks of the metering write-ahead log (metering.Log): one
// metered call's Append in each durability mode, beside the baseline of a plain write(2) of a
// record of the same size. It owns no production code and must not be imported.
package metering
