package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// modulePackages is every package of the module as `go list -deps` sees it, test files aside.
func modulePackages(t *testing.T) []Package {
	t.Helper()
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	require.NoError(t, err, "cannot find the module root with `go list -m`")
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps,Dir,GoFiles,Error", "./...")
	cmd.Dir = strings.TrimSpace(string(root))
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("go list failed: %v\n%s", err, ee.Stderr)
	}
	require.NoError(t, err)
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			Package
			Dir     string
			GoFiles []string
			Error   *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		require.Nil(t, p.Error, "go list cannot load %s", p.ImportPath)
		// go test caches a result by the files the test itself opens or stats, and go list reads
		// them in another process: stat each so that an edited import reruns the check.
		for _, f := range append([]string{"."}, p.GoFiles...) { // "." : a file added or removed
			_, err := os.Stat(filepath.Join(p.Dir, f))
			require.NoError(t, err)
		}
		pkgs = append(pkgs, p.Package)
	}
	require.Greater(t, len(pkgs), 40, "go list found too few packages to be this module")
	return pkgs
}

func TestTheModuleKeepsItsLayers(t *testing.T) {
	t.Parallel()
	bad := Check(modulePackages(t))
	require.Empty(t, bad, "the layers are broken:\n%s", strings.Join(bad, "\n"))
}

// A planted import against the grain fails the check: each row adds one edge to the module's
// real graph and names the sentence it must produce.
func TestAPlantedBadImportFails(t *testing.T) {
	t.Parallel()
	graph := modulePackages(t)
	for _, tc := range []struct{ from, to, want string }{
		{"oltp", "api", "oltp (store) imports api (api)"},
		{"internal/normalize", "pipeline", "internal/normalize (leaf) imports pipeline (crawl)"},
		{"pipeline", "read/snapshot", "pipeline (crawl) imports read/snapshot (read)"},
		{"read/searchindex", "push/notifier", "read/searchindex (read) imports push/notifier (push)"},
		{"sim", "oltp", "sim (sim) imports oltp (store)"},
		{"api/watches", "api/webhooks", "api/watches imports api/webhooks: a handler package imports no other handler"},
		{"api/search", "internal/testkit/storetest", "api/search (api) imports internal/testkit/storetest (testkit)"},
		{"push/dispatch", Fasthttp, "push/dispatch (push) links " + Fasthttp},
	} {
		t.Run(tc.from+"->"+tc.to, func(t *testing.T) {
			pkgs := make([]Package, len(graph))
			copy(pkgs, graph)
			found := false
			for i, p := range pkgs {
				if p.ImportPath != Module+"/"+tc.from {
					continue
				}
				found = true
				to := tc.to
				if !strings.Contains(to, ".") {
					to = Module + "/" + to
				}
				pkgs[i].Imports = append(append([]string{}, p.Imports...), to)
				pkgs[i].Deps = append(append([]string{}, p.Deps...), to)
			}
			require.True(t, found, "%s is not a package of the module", tc.from)
			bad := Check(pkgs)
			require.NotEmpty(t, bad)
			require.Condition(t, func() bool {
				for _, b := range bad {
					if strings.Contains(b, tc.want) {
						return true
					}
				}
				return false
			}, "want a finding containing %q, got %q", tc.want, bad)
		})
	}
}

func TestEveryRootFolderIsInALayer(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"newroot is in no layer: place its root folder in internal/layers.LayerOf"},
		Check([]Package{{ImportPath: Module + "/newroot"}}))
}
