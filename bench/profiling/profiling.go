// Package profiling writes the optional CPU and allocation profiles a benchmark takes around the
// part it measures (Profiles.Begin and End), for `go tool pprof`. It is used by the bench
// commands only and touches nothing of the product.
package profiling

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Profiles writes the optional CPU and allocation profiles of the measured part: CPU to CPU, and
// allocations to Mem (after) and Mem.base (before). Empty paths take no profile.
type Profiles struct {
	CPU, Mem string
	cpuFile  *os.File
}

// Begin starts the CPU profile and writes the allocation profile the measured part's is compared
// with.
func (p *Profiles) Begin() error {
	if p.Mem != "" {
		if err := writeAllocs(p.Mem + ".base"); err != nil {
			return err
		}
	}
	if p.CPU == "" {
		return nil
	}
	f, err := os.Create(p.CPU)
	if err != nil {
		return fmt.Errorf("cannot create the CPU profile (change --cpuprofile): %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("cannot start the CPU profile: %w", err)
	}
	p.cpuFile = f
	return nil
}

// End stops the CPU profile and writes the allocation profile after the measured part.
func (p *Profiles) End() error {
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		if err := p.cpuFile.Close(); err != nil {
			return fmt.Errorf("cannot write the CPU profile: %w", err)
		}
		p.cpuFile = nil
	}
	if p.Mem != "" {
		return writeAllocs(p.Mem)
	}
	return nil
}

func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("cannot create the allocation profile (change --memprofile): %w", err)
	}
	runtime.GC() // the profile's in-use figures as of now
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("cannot write the allocation profile: %w", err)
	}
	return f.Close()
}
