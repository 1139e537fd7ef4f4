package apitest

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"testing"
)

// Shared is a fixture built once per test binary, lazily, by the first test that asks for it:
// running one test alone builds only what that test uses. Its cleanups (tb.Cleanup and
// tb.TempDir inside build) run when every test of the package has finished, in Main. A build
// that fails fails the test that ran it and every later Get. build must not keep tb: it reports
// to the test that happened to build the fixture, which ends before the fixture does.
//
//	var world = apitest.NewShared("world", func(tb testing.TB) *fixture { ... })
//
//	func TestX(t *testing.T) { f := world.Get(t); ... }
type Shared[T any] struct {
	name  string
	build func(tb testing.TB) T
	once  sync.Once
	ok    bool
	v     T
}

// NewShared returns a fixture built by build (name appears in failures and storetest schema
// names).
func NewShared[T any](name string, build func(tb testing.TB) T) *Shared[T] {
	return &Shared[T]{name: name, build: build}
}

// Get returns the fixture, building it on first use. Safe from parallel tests.
func (s *Shared[T]) Get(tb testing.TB) T {
	tb.Helper()
	if !inMain.Load() {
		tb.Fatalf("apitest: shared fixture %q needs the package's TestMain to call apitest.Main:\n\tfunc TestMain(m *testing.M) { apitest.Main(m) }", s.name)
	}
	s.once.Do(func() {
		s.v = s.build(&packageTB{TB: tb, name: s.name})
		s.ok = true
	})
	if !s.ok {
		tb.Fatalf("apitest: shared fixture %q failed to build (see the first test that used it)", s.name)
	}
	return s.v
}

var (
	inMain   atomic.Bool
	mu       sync.Mutex
	cleanups []func()
)

// Main runs the package's tests, then the shared fixtures' cleanups (last registered first),
// and exits. Call it from TestMain.
func Main(m *testing.M) {
	inMain.Store(true)
	code := m.Run()
	mu.Lock()
	fs := cleanups
	cleanups = nil
	mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
	os.Exit(code)
}

func addCleanup(f func()) {
	mu.Lock()
	defer mu.Unlock()
	cleanups = append(cleanups, f)
}

// packageTB is the testing.TB a shared fixture is built with: failures and logs go to the test
// building it; cleanups and temporary directories last until Main ends.
type packageTB struct {
	testing.TB
	name string
}

func (p *packageTB) Name() string { return p.name }

func (p *packageTB) Cleanup(f func()) { addCleanup(f) }

func (p *packageTB) Context() context.Context { return context.Background() }

func (p *packageTB) TempDir() string {
	p.Helper()
	dir, err := os.MkdirTemp("", "apitest-"+p.name+"-")
	if err != nil {
		p.Fatalf("apitest: cannot make a temporary directory: %v", err)
	}
	addCleanup(func() { os.RemoveAll(dir) })
	return dir
}
