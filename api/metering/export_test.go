package metering

import "os"

// WithFaults returns cfg with the disk paths replaced for fault injection (nil keeps the os
// function).
func WithFaults(cfg Config, sync func(*os.File) error, rename func(oldpath, newpath string) error, read func(string) ([]byte, error)) Config {
	cfg.syncFile, cfg.renameFile, cfg.readFile = sync, rename, read
	return cfg
}

// WithWrites returns cfg with every write of frames to a segment going through write (counting
// writes, failing them).
func WithWrites(cfg Config, write func(f *os.File, b []byte) (int, error)) Config {
	cfg.writeFile = write
	return cfg
}

// AppendFrame exposes the frame encoder to the tests that write segments by hand.
func AppendFrame(buf []byte, rec Record) ([]byte, error) { return appendFrame(buf, rec) }

// MaxBatchBytes is the bound on the frames one group write carries (relaxed mode).
const MaxBatchBytes = maxBatchBytes

// PendingFrames is how many frames wait in the relaxed mode's pending batch for the write under
// way to end.
func PendingFrames(l *Log) int {
	r := &l.relaxed
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending == nil {
		return 0
	}
	return r.pending.n
}
