# mintlify_exporter build, test and benchmark targets.
GO       ?= go
PKG      := github.com/mintlify-exporter/mintlify_exporter
# VERSION, REVISION and BRANCH default to what git says (scripts/ldflags.sh, which
# scripts/crossbuild.sh uses too: one version string, 0.3.0 for the tag v0.3.0).
VERSION  ?=
REVISION ?=
BRANCH   ?=
LDFLAGS  := $(shell VERSION='$(VERSION)' REVISION='$(REVISION)' BRANCH='$(BRANCH)' ./scripts/ldflags.sh)
# make install puts the binary into $(DESTDIR)$(PREFIX)/bin.
PREFIX   ?= $(HOME)/.local
# FUZZTIME bounds each fuzz target by executions, not seconds: a run cut by
# its deadline can fail with "context deadline exceeded" (a Go fuzzer race)
# though nothing was found. 30000x is 1-3 s per target here (FuzzSanitizeLabel,
# which renders and parses an exposition per input, about 20 s): 50 s for all
# twelve; make fuzz FUZZTIME=1000000x fuzzes longer.
FUZZTIME ?= 30000x

.PHONY: all build install test test-short tools unit lint simulate fuzz cover bench run-demo clean mutate mutate-engine mutate-tool

all: lint build test

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o mintlify_exporter .

## install: make build, then the binary into $(DESTDIR)$(PREFIX)/bin (PREFIX=~/.local by default; PREFIX=/usr/local as root).
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 mintlify_exporter $(DESTDIR)$(PREFIX)/bin/mintlify_exporter

## test: the whole suite (lint: gofmt, vet and staticcheck; unit and end-to-end tests with the race detector, the simulations, short fuzzing).
test: tools lint unit simulate fuzz

## tools: make sure prometheus, promtool, amtool and alertmanager are installed (Debian packages).
tools:
	@./scripts/ensure-tools.sh

# TEST_TIMEOUT bounds each package's test binary (go test -timeout). go
# test's default of 10 minutes is too short for e2e/ on a loaded 2-core CI
# machine (about 7 minutes idle, of which 5 under a real Prometheus); 25m
# still stops a hung test.
TEST_TIMEOUT ?= 25m

## unit: the unit and end-to-end tests with the race detector (TEST_TIMEOUT each package, 25m by default).
unit:
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./...

## simulate: the planner and derived-windows simulations, without the race detector (they skip under it; see docs/dev/design.md).
simulate:
	$(GO) test -count=1 -run 'Simulation' -v ./engine/

## lint: gofmt, go vet and staticcheck (pinned as a tool in go.mod).
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

## generate: render the shipped rules and dashboards from the mixin (go-jsonnet, pinned as a tool in go.mod), and their copies in the Helm chart;
## go test ./mixin/ fails when the files in the repository differ from what this writes.
generate:
	$(GO) tool jsonnet -S mixin/rules.jsonnet > deploy/prometheus/mintlify.rules.yml
	$(GO) tool jsonnet -S mixin/prometheusrule.jsonnet > deploy/kubernetes/prometheusrule.yaml
	$(GO) tool jsonnet -S -m dashboards mixin/dashboards.jsonnet >/dev/null
	# The Helm chart can read only its own files: copies for its PrometheusRule and dashboards ConfigMap.
	$(GO) tool jsonnet -S mixin/rules.jsonnet > charts/mintlify-exporter/files/mintlify.rules.yml
	rm -f charts/mintlify-exporter/files/dashboards/*.json
	$(GO) tool jsonnet -S -m charts/mintlify-exporter/files/dashboards mixin/dashboards.jsonnet >/dev/null

## crossbuild: release archives for linux/darwin amd64+arm64 and windows/amd64 in .tarballs/,
## an SPDX SBOM of each (syft, pinned in tools/syft) and sha256sums.txt over both, reproducibly
## (PLATFORMS=linux/amd64 for one; SYFT=path for another syft); scripts/crossbuild.sh says more.
crossbuild:
	@./scripts/crossbuild.sh

## test-short: the quick check while editing: every package's tests without the slow ones (-short), no race detector.
test-short:
	$(GO) test -short -count=1 ./...

## cover: coverage of every package from the unit tests and from the binary that the tests in e2e/
## run, merged; the counters stay in $(COVERDIR), coverage.txt is for go tool cover. TESTFLAGS=-short for a quick one.
COVERDIR  ?= .cover
TESTFLAGS ?=
cover:
	rm -rf $(COVERDIR) && mkdir -p $(COVERDIR)
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -cover $(TESTFLAGS) ./... -args -test.gocoverdir=$(CURDIR)/$(COVERDIR)
	$(GO) tool covdata percent -i=$(COVERDIR)
	$(GO) tool covdata textfmt -i=$(COVERDIR) -o coverage.txt
	@$(GO) tool cover -func=coverage.txt | tail -1

## mutate: mutation testing (gremlins, pinned in tools/gremlins) of the engine and the packages it shares:
## the scheduler, the budget, the derived windows (package derived), the exposition, health, and the
## orchestration (package engine); each must kill 90 % of its mutants (docs/dev/benchmarks.md has the
## figures and the time). Package engine runs without the simulations (-short: with them every mutant
## takes 35 s) and without engine/schedule, measured on its own. MINTLIFYTEST_PATIENCE cuts the tests'
## real-time deadlines (30 s) to 5 s, so a mutant that hangs the engine fails in seconds. -vet=off: vetting is
## make lint's job, and it cost each mutant's go test 0.45 s of CPU. Not part of make test.
mutate: mutate-tool
	for p in engine/schedule derived budget exposition health; do \
	  GOFLAGS="$(GOFLAGS) -vet=off" MINTLIFYTEST_PATIENCE=5s .tools/bin/gremlins unleash --workers 2 --timeout-coefficient 20 --threshold-efficacy 90 ./$$p || exit 1; done
	$(MUTATE_ENGINE)

## mutate-engine: package engine alone, as make mutate measures it.
mutate-engine: mutate-tool
	$(MUTATE_ENGINE)

MUTATE_ENGINE = GOFLAGS="$(GOFLAGS) -short -vet=off" MINTLIFYTEST_PATIENCE=5s .tools/bin/gremlins unleash --workers 2 --timeout-coefficient 20 --threshold-efficacy 90 \
	-E '^schedule/' ./engine

mutate-tool:
	@mkdir -p .tools/bin
	cd tools/gremlins && $(GO) build -o ../../.tools/bin/gremlins github.com/go-gremlins/gremlins/cmd/gremlins

## fuzz: run every fuzz target for FUZZTIME each.
fuzz:
	@./scripts/fuzz.sh $(FUZZTIME)

## bench: the performance benchmarks (see docs/dev/benchmarks.md).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 6 -timeout 30m ./collector/ ./metricshandler/ ./client/ | tee bench.txt

run-demo:
	$(GO) run . --demo

clean:
	rm -rf mintlify_exporter .tarballs bench.txt coverage.txt $(COVERDIR)
