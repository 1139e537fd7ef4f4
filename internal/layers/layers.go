// Package layers states the module's layers and checks an import graph against them. Its test
// runs the check over `go list -deps` of the whole module, so CI fails on an import against the
// grain.
//
// The layers, from the bottom:
//
//   - leaf: internal/* (the vocabulary, a posting's text, plans, payload, problem, lifecycle,
//     migrate, keys, signing, secrets, egress, flags, the dev stack). A leaf imports other leaves
//     only.
//   - store: oltp (Postgres) and analytics (ClickHouse). A store imports leaves only.
//   - crawl (pipeline), read (read/*) and push (push/*) import stores and leaves; push may also
//     import read (a watch is matched with the read side's criteria); crawl imports neither read
//     nor push, and read does not import push.
//   - api (api and api/*) imports read, push, stores and leaves. Its handler packages
//     (api/<name>, all but the framework's own parts listed in apiShared) never import one
//     another: what two handlers share lives in api.
//   - cmd imports every layer but the test kits, bench imports every layer; only they (and the
//     test kits) import the API.
//   - sim (the simulator) imports leaves only.
//   - testkit (internal/testkit/*) may import anything and is imported only from tests and bench.
//
// Outside api, cmd, bench and the test kits no package links github.com/valyala/fasthttp.
//
// It owns the rule and nothing else: it imports nothing of the product and must not.
package layers

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Module is the module path every product package starts with.
const Module = "github.com/planehq/hiringsignal"

// Fasthttp is the one HTTP server library only the API may link.
const Fasthttp = "github.com/valyala/fasthttp"

// Package is one package of the graph: its path and what it imports.
type Package struct {
	ImportPath string
	Imports    []string // imports of its non-test files
	Deps       []string // everything its non-test files link, transitively
}

// Layer names.
const (
	Leaf    = "leaf"
	Store   = "store"
	Crawl   = "crawl"
	Read    = "read"
	Push    = "push"
	API     = "api"
	Cmd     = "cmd"
	Bench   = "bench"
	Sim     = "sim"
	Testkit = "testkit"
)

// allowed lists the layers each layer may import (its own layer included where listed).
var allowed = map[string][]string{
	Leaf:    {Leaf},
	Store:   {Leaf, Store},
	Crawl:   {Leaf, Store, Crawl},
	Read:    {Leaf, Store, Read},
	Push:    {Leaf, Store, Read, Push},
	API:     {Leaf, Store, Read, Push, API},
	Cmd:     {Leaf, Store, Crawl, Read, Push, API, Sim, Cmd},
	Bench:   {Leaf, Store, Crawl, Read, Push, API, Sim, Bench, Testkit},
	Sim:     {Leaf, Sim},
	Testkit: {Leaf, Store, Crawl, Read, Push, API, Sim, Testkit},
}

// apiShared are the packages under api/ that are parts of the framework, not handlers: handlers
// may import them.
var apiShared = map[string]bool{"api": true, "api/admission": true, "api/metering": true, "api/reqrow": true}

// LayerOf is the layer of rel (a package path relative to Module), or "" for a path outside every
// layer (then Check reports it: a new root folder must be placed in a layer first).
func LayerOf(rel string) string {
	first, _, _ := strings.Cut(rel, "/")
	switch {
	case rel == "internal/testkit" || strings.HasPrefix(rel, "internal/testkit/"):
		return Testkit
	case first == "internal":
		return Leaf
	case first == "oltp" || first == "analytics":
		return Store
	case first == "pipeline":
		return Crawl
	case first == "read":
		return Read
	case first == "push":
		return Push
	case first == "api":
		return API
	case first == "cmd":
		return Cmd
	case first == "bench":
		return Bench
	case first == "sim":
		return Sim
	}
	return ""
}

// handler is the handler package rel belongs to (api/<name>), or "" when rel is not in one.
func handler(rel string) string {
	parts := strings.SplitN(rel, "/", 3)
	if len(parts) < 2 || parts[0] != "api" || apiShared[parts[0]+"/"+parts[1]] {
		return ""
	}
	return parts[0] + "/" + parts[1]
}

// Check returns every way pkgs break the layers, one sentence each, sorted; none when they hold.
func Check(pkgs []Package) []string {
	var bad []string
	for _, p := range pkgs {
		rel, ok := relative(p.ImportPath)
		if !ok {
			continue
		}
		layer := LayerOf(rel)
		if layer == "" {
			bad = append(bad, fmt.Sprintf("%s is in no layer: place its root folder in internal/layers.LayerOf", rel))
			continue
		}
		for _, imp := range p.Imports {
			irel, ok := relative(imp)
			if !ok || irel == rel {
				continue
			}
			il := LayerOf(irel)
			if !slices.Contains(allowed[layer], il) {
				bad = append(bad, fmt.Sprintf("%s (%s) imports %s (%s): a %s package may import only %s",
					rel, layer, irel, il, layer, strings.Join(allowed[layer], ", ")))
				continue
			}
			if h, ih := handler(rel), handler(irel); h != "" && ih != "" && h != ih {
				bad = append(bad, fmt.Sprintf("%s imports %s: a handler package imports no other handler; move what they share into api", rel, irel))
			}
		}
		if layer != API && layer != Cmd && layer != Bench && layer != Testkit && slices.Contains(p.Deps, Fasthttp) {
			bad = append(bad, fmt.Sprintf("%s (%s) links %s: only the API serves HTTP with it; find the import that pulls it in with `go list -deps ./%s`", rel, layer, Fasthttp, rel))
		}
	}
	sort.Strings(bad)
	return bad
}

func relative(path string) (string, bool) {
	if path == Module {
		return "", false
	}
	rel, ok := strings.CutPrefix(path, Module+"/")
	return rel, ok
}
