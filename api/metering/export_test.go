package metering

import "os"

// WithFaults returns cfg with the disk paths replaced for fault injection (nil keeps the os
// function).
func WithFaults(cfg Config, sync func(*os.File) error, rename func(oldpath, newpath string) error, read func(string) ([]byte, error)) Config {
	cfg.syncFile, cfg.renameFile, cfg.readFile = sync, rename, read
	return cfg
}

// AppendFrame exposes the frame encoder to the tests that write segments by hand.
func AppendFrame(buf []byte, rec Record) ([]byte, error) { return appendFrame(buf, rec) }
