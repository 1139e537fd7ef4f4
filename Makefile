# hiringsignal: `make run` brings the whole stack up with demo data; `make test` passes the tests.
GO        ?= go
BIN       := bin/hiringsignal
DEB_PKGS  := postgresql clickhouse-server clickhouse-client iso-codes
# only the tests need these: the /docs test renders the reference in headless Chromium
TEST_DEB_PKGS := chromium
export PATH := /usr/local/go/bin:$(PATH)

GOLANGCI  := bin/golangci-lint
GOLANGCI_VERSION := v2.15.0

.PHONY: run test fuzz deps test-deps build stores-up stores-down lint clean mcp-check

# HS_* variables reach dev from the environment: HS_CYCLE_EVERY=20s make run runs one 3-hour
# cycle every 20 s (push in one minute; README "Push in one minute").
run: deps build
	./$(BIN) dev

test: deps test-deps build stores-up
	$(GO) test -race -timeout 20m ./...
	FUZZTIME=2s ./scripts/fuzz.sh
	./scripts/mcp-check.sh

# mcp-check runs an independent MCP client (the TypeScript SDK's, from npm) against /mcp of a
# `serve` it starts: tools/list and tools/call (node and npm from Debian's packages when missing).
mcp-check: deps build stores-up
	./scripts/mcp-check.sh

# fuzz runs every fuzz target longer than make test does (FUZZTIME=10m make fuzz for more).
fuzz:
	FUZZTIME=$${FUZZTIME:-60s} ./scripts/fuzz.sh

build:
	$(GO) build -o $(BIN) ./cmd/hiringsignal

# With HS_POSTGRES_URL and HS_CLICKHOUSE_ADDR both set the tests use those servers: no private ones.
stores-up: build
	@if [ -n "$$HS_POSTGRES_URL" ] && [ -n "$$HS_CLICKHOUSE_ADDR" ]; then \
		echo "using HS_POSTGRES_URL and HS_CLICKHOUSE_ADDR; no private stores started"; \
	else ./$(BIN) stores up; fi

stores-down: build
	./$(BIN) stores down

# deps installs Debian packages the stack needs, or says exactly what to run; test-deps those
# only the tests need (make run does not wait for them).
deps:
	@./scripts/deps.sh $(DEB_PKGS)

test-deps:
	@./scripts/deps.sh $(TEST_DEB_PKGS)

lint: $(GOLANGCI)
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "$$out"; echo 'gofmt: these files are not formatted; run gofmt -w on them'; exit 1; fi
	$(GO) vet ./...
	$(GOLANGCI) run ./...

# golangci-lint is built from the Go module proxy into bin/ (a pinned version).
$(GOLANGCI):
	GOBIN=$(CURDIR)/bin $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)

clean:
	rm -rf bin
