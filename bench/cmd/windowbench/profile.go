package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// profiles writes the optional CPU and allocation profiles of the commit.
type profiles struct {
	cpu, mem string
	cpuFile  *os.File
}

// begin starts the CPU profile and writes the allocation profile the commit's is compared with.
func (p *profiles) begin() error {
	if p.mem != "" {
		if err := writeAllocs(p.mem + ".base"); err != nil {
			return err
		}
	}
	if p.cpu == "" {
		return nil
	}
	f, err := os.Create(p.cpu)
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

// end stops the CPU profile and writes the allocation profile after the commit.
func (p *profiles) end() error {
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		if err := p.cpuFile.Close(); err != nil {
			return fmt.Errorf("cannot write the CPU profile: %w", err)
		}
		p.cpuFile = nil
	}
	if p.mem != "" {
		return writeAllocs(p.mem)
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
