# hiringsignal: `make run` brings the whole stack up with demo data; `make test` passes the tests.
GO        ?= go
BIN       := bin/hiringsignal
DEB_PKGS  := postgresql clickhouse-server clickhouse-client iso-codes
# only the tests need these: the /docs test renders the reference in headless Chromium
TEST_DEB_PKGS := chromium
# only the local replicated ClickHouse needs zookeeper (make cluster-up; it pulls in a JRE), and
# the cluster's end-to-end test haproxy (make test-cluster-e2e)
CLUSTER_DEB_PKGS := zookeeper haproxy
export PATH := /usr/local/go/bin:$(PATH)
# The toolchain go.mod names (a patch release with the standard library's security fixes) is
# fetched from the Go module proxy when the installed go is older.
export GOTOOLCHAIN := auto

GOLANGCI  := bin/golangci-lint
GOLANGCI_VERSION := v2.15.0

.PHONY: help run test race-free-check fuzz deps test-deps build stores-up stores-down test-stores-up test-stores-down cluster-up cluster-down test-cluster test-cluster-e2e lint vulncheck clean mcp-check

# help lists the targets with the text after each `##`.
help: ## list the targets
	@awk -F':.*## ' '/^[a-z][a-z-]*:.*## / { printf "  %-17s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

# HS_* variables reach dev from the environment: HS_CYCLE_EVERY=20s make run runs one 3-hour
# cycle every 20 s (push in one minute; README "Push in one minute").
run: deps build ## bring up the whole stack with demo data; prints a key and example calls
	./$(BIN) dev

# go test starts the packages' test binaries in the order they are named (three at a time,
# scripts/test.sh): the longest are named first, so that they run beside the many short ones
# instead of after them (./... then adds every other package once, in its usual order). Longest
# first, as measured under -race (bench/README.md, "make test").
TEST_FIRST := ./pipeline/sources ./pipeline ./api/search ./api ./api/companies ./read/readmodel \
	./api/outcomes ./cmd/hiringsignal ./analytics ./api/agent ./sim

# make test runs on stores of its own, apart from make run's (its demo data is never touched): a
# private Postgres and ClickHouse on ports of their own (TEST_PG_PORT, TEST_CH_PORT,
# TEST_CH_HTTP_PORT) whose data lives in memory (TEST_RUN_DIR, under /dev/shm): test data is thrown
# away, and on this machine's disk a ClickHouse insert of the ledger's width costs about 15 times
# the CPU it costs in memory (docs/decisions.md, "Tests and fuzzing"). HS_POSTGRES_URL and
# HS_CLICKHOUSE_ADDR, both set, name servers to use instead.
TEST_RUN_DIR      ?= $(if $(wildcard /dev/shm),/dev/shm/hiringsignal-test-$(shell printf %s "$(CURDIR)" | sha1sum | cut -c1-10),$(CURDIR)/.run-test)
TEST_PG_PORT      ?= 55442
TEST_CH_PORT      ?= 59010
TEST_CH_HTTP_PORT ?= 58133
TEST_STORES_FLAGS := --run-dir $(TEST_RUN_DIR) --pg-port $(TEST_PG_PORT) --clickhouse-port $(TEST_CH_PORT) --clickhouse-http-port $(TEST_CH_HTTP_PORT)
ifneq ($(and $(HS_POSTGRES_URL),$(HS_CLICKHOUSE_ADDR)),)
TEST_ENV :=
else
TEST_ENV := HS_POSTGRES_URL='postgres://postgres@127.0.0.1:$(TEST_PG_PORT)/hiringsignal?sslmode=disable' HS_CLICKHOUSE_ADDR=127.0.0.1:$(TEST_CH_PORT)
endif

# The whole-world tests named in RACE_FREE run once, without the race detector, after the -race
# pass that skips them (the file says why and which). Each name must be a test of its package only:
# a name that matched in another package would be skipped there and never run.
RACE_FREE      := scripts/race-free-tests
RACE_FREE_RE   := ^($(shell awk '!/^\#/ && NF { print $$2 }' $(RACE_FREE) | paste -sd'|' -))$$
RACE_FREE_PKGS := $(shell awk '!/^\#/ && NF { print $$1 }' $(RACE_FREE) | sort -u)

test: deps test-deps build test-stores-up race-free-check ## the tests under -race, beside them a 2 s fuzz of every target and the whole-world tests without -race, then the MCP client check
	$(TEST_ENV) GO='$(GO)' RACE_FREE_RE='$(RACE_FREE_RE)' RACE_FREE_PKGS='$(RACE_FREE_PKGS)' \
		TEST_FIRST='$(TEST_FIRST)' FUZZTIME=2s FUZZ_WORKERS=1 ./scripts/test.sh

race-free-check: ## check that each test scripts/race-free-tests names is a test of its package only
	@awk '!/^#/ && NF' $(RACE_FREE) | while read -r pkg name; do \
		found=$$(grep -rl --include='*_test.go' "^func $$name(" . | xargs -r -n1 dirname | sort -u | paste -sd' ' -); \
		[ "$$found" = "$$pkg" ] || { echo "$(RACE_FREE): $$name must be a test of $$pkg only; found in: $${found:-no package}"; exit 1; }; \
	done

test-stores-up: build ## start the test stores (in memory, ports of their own), unless HS_POSTGRES_URL and HS_CLICKHOUSE_ADDR are set
	@if [ -n "$$HS_POSTGRES_URL" ] && [ -n "$$HS_CLICKHOUSE_ADDR" ]; then \
		echo "using HS_POSTGRES_URL and HS_CLICKHOUSE_ADDR; no test stores started"; \
	else ./$(BIN) stores up $(TEST_STORES_FLAGS); fi

test-stores-down: build ## stop the test stores
	./$(BIN) stores down $(TEST_STORES_FLAGS)

# mcp-check runs an independent MCP client (the TypeScript SDK's, from npm) against /mcp of a
# `serve` it starts: tools/list and tools/call (node and npm from Debian's packages when missing).
mcp-check: deps build stores-up ## an independent MCP client (the TypeScript SDK) against /mcp of a fresh serve
	./scripts/mcp-check.sh

# fuzz runs every fuzz target longer than make test does (FUZZTIME=10m make fuzz for more).
fuzz: ## every fuzz target for FUZZTIME (default 60s)
	FUZZTIME=$${FUZZTIME:-60s} ./scripts/fuzz.sh

build: ## the binary, bin/hiringsignal
	$(GO) build -o $(BIN) ./cmd/hiringsignal

# With HS_POSTGRES_URL and HS_CLICKHOUSE_ADDR both set the tests use those servers: no private ones.
stores-up: build ## start this checkout's private Postgres and ClickHouse (or use HS_POSTGRES_URL and HS_CLICKHOUSE_ADDR)
	@if [ -n "$$HS_POSTGRES_URL" ] && [ -n "$$HS_CLICKHOUSE_ADDR" ]; then \
		echo "using HS_POSTGRES_URL and HS_CLICKHOUSE_ADDR; no private stores started"; \
	else ./$(BIN) stores up; fi

stores-down: build ## stop them
	./$(BIN) stores down

# A replicated ClickHouse on loopback (docs/deployment.md): ZooKeeper and two clickhouse-server
# replicas of cluster hs, one shard, data under .run/cluster (ports 62181, 62001-62022; `bin/hiringsignal
# cluster --help` moves them). For tests and trying the layout, not for data.
cluster-up: deps build ## start the local replicated ClickHouse (ZooKeeper + two replicas)
	@./scripts/deps.sh $(CLUSTER_DEB_PKGS)
	./$(BIN) cluster up

cluster-down: build ## stop it
	./$(BIN) cluster down

# The replicated layout's tests (skipped without HS_CLICKHOUSE_CLUSTER, which this sets): migrations
# on the cluster, commits through one replica read through the other, a lagging replica.
test-cluster: cluster-up ## the replicated-ClickHouse tests against the local cluster
	HS_CLICKHOUSE_CLUSTER=$$(./$(BIN) cluster addrs) $(GO) test -count=1 -run Cluster ./analytics/

# The cluster end to end (docs/deployment.md), not in `make test`: its own ZooKeeper, two ClickHouse
# replicas, a Postgres primary and its streaming standby, the simulator, two crawl processes, two
# serve behind haproxy and a webhook receiver, all on loopback; it kills a crawl process, the
# notifier's holder, a replica and the primary along the way, then compares with a single-node run
# on the private stores. A few minutes on 2 cores.
test-cluster-e2e: deps build stores-up ## the cluster end to end on loopback, against a single-node run (a few minutes)
	@./scripts/deps.sh $(CLUSTER_DEB_PKGS)
	HS_CLUSTER_E2E=1 $(GO) test -count=1 -timeout 20m -run TestClusterEndToEnd -v ./cmd/hiringsignal/

# deps installs Debian packages the stack needs, or says exactly what to run; test-deps those
# only the tests need (make run does not wait for them).
deps: ## install the Debian packages the stack needs
	@./scripts/deps.sh $(DEB_PKGS)

test-deps: ## install the Debian packages only the tests need
	@./scripts/deps.sh $(TEST_DEB_PKGS)

lint: $(GOLANGCI) ## gofmt, go vet, golangci-lint and govulncheck
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "$$out"; echo 'gofmt: these files are not formatted; run gofmt -w on them'; exit 1; fi
	$(GO) vet ./...
	$(GOLANGCI) run ./...
	./scripts/vulncheck.sh

# vulncheck runs govulncheck against a vulnerability database built from the pinned
# golang.org/x/vulndb module (scripts/vulncheck.sh says why).
vulncheck: ## govulncheck over the module
	./scripts/vulncheck.sh

# golangci-lint is built from the Go module proxy into bin/ (a pinned version).
$(GOLANGCI):
	GOBIN=$(CURDIR)/bin $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)

clean: ## remove bin/
	rm -rf bin
