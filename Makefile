# hiringsignal: `make run` brings the whole stack up with demo data; `make test` passes the tests.
GO        ?= go
BIN       := bin/hiringsignal
DEB_PKGS  := postgresql clickhouse-server clickhouse-client iso-codes
export PATH := /usr/local/go/bin:$(PATH)

.PHONY: run test deps build stores-up stores-down lint clean

run: deps build
	./$(BIN) dev

test: deps build stores-up
	$(GO) test -race -timeout 20m ./...

build:
	$(GO) build -o $(BIN) ./cmd/hiringsignal

stores-up: build
	./$(BIN) stores up

stores-down: build
	./$(BIN) stores down

# deps installs Debian packages the stack needs, or says exactly what to run.
deps:
	@./scripts/deps.sh $(DEB_PKGS)

lint:
	gofmt -l . | tee /dev/stderr | (! read)
	$(GO) vet ./...

clean:
	rm -rf bin
