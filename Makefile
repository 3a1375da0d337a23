# sparkglance — see README.md. Every target works from a fresh clone.
GO        ?= go
BIN       := bin/sparkglance
OUT       := out
PKGS      := ./...
# Each fuzz target runs this long in `make fuzz` (its seeds already run in `make test`).
FUZZTIME  ?= 60s
# …and this long inside `make test` (a smoke run on top of the seed corpus).
FUZZSMOKE ?= 3s

# Build information, stamped into github.com/prometheus/common/version: shown
# by `sparkglance --version` and carried by sparkglance_build_info. A VERSION
# file (e.g. in a source tarball without git) wins over git describe.
VERSION    ?= $(shell cat VERSION 2>/dev/null || git describe --tags --always --dirty 2>/dev/null || echo unknown)
REVISION   ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BRANCH     ?= $(shell git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)
BUILD_USER ?= $(shell id -un 2>/dev/null || echo unknown)@$(shell hostname 2>/dev/null || echo unknown)
BUILD_DATE ?= $(shell date -u +%Y%m%d-%H:%M:%S)
VERSION_PKG := github.com/prometheus/common/version
LDFLAGS    := -X $(VERSION_PKG).Version=$(VERSION) -X $(VERSION_PKG).Revision=$(REVISION) \
              -X $(VERSION_PKG).Branch=$(BRANCH) -X $(VERSION_PKG).BuildUser=$(BUILD_USER) \
              -X $(VERSION_PKG).BuildDate=$(BUILD_DATE)

.PHONY: run analyze-demo test e2e scale build lint bench fuzz docs dashboards demo-log clean screenshots

## run: the main job on a built-in default — the exporter on a live simulated Spark application.
run: build
	$(BIN) serve --demo --web.listen-address=127.0.0.1:18090

## analyze-demo: simulate a finished Spark application and analyse its event log once.
analyze-demo: build demo-log
	$(BIN) analyze $(OUT)/demo/app-20261130090000-0001

demo-log: build
	@mkdir -p $(OUT)/demo
	$(BIN) simulate --out $(OUT)/demo/app-20261130090000-0001

build:
	@mkdir -p $(dir $(BIN))
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/sparkglance

## test: formatting, vet, staticcheck, then unit and integration tests (against the real Prometheus,
## promtool, Java… that .ci/run installs) with the race detector, then each fuzz target briefly. No test
## asserts wall-clock speed (that is `make bench`); the long end-to-end runs are `make e2e`.
test: lint
	$(GO) test -race -count=1 -timeout 30m $(PKGS)
	$(MAKE) fuzz FUZZTIME=$(FUZZSMOKE)

# Files behind the e2e build tag: end-to-end runs of half a minute and more
# (Prometheus + Alertmanager delivering the demo's alerts, JVMs burning CPU).
E2E_FILES = $(shell grep -rl --include='*_test.go' '^//go:build e2e' .)

## e2e: the long end-to-end tests (build tag e2e), package by package.
e2e:
	@set -e; for file in $(E2E_FILES); do \
	  tests=$$(grep -o '^func Test[A-Za-z0-9_]*' $$file | cut -c6- | paste -sd'|'); \
	  echo "== ./$$(dirname $${file#./}) ($$tests)"; \
	  $(GO) test -tags e2e -race -count=1 -timeout 20m -run "^($$tests)$$" ./$$(dirname $${file#./}); \
	done

lint:
	@fmt_out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	  if [ -n "$$fmt_out" ]; then echo "gofmt would change:"; echo "$$fmt_out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) vet -tags e2e,scale $(PKGS)
	$(GO) tool staticcheck $(PKGS)
	$(GO) tool staticcheck -tags e2e,scale $(PKGS)

## helm-lint: `helm lint` and `helm template` of deploy/helm/sparkglance over its default values and
## ci/all-values.yaml, through helm's Go packages (no helm binary); every rendered object decoded strictly.
## Also part of `make test`.
.PHONY: helm-lint
helm-lint:
	$(GO) test -count=1 -run '^(TestHelm|TestDeployedFlagsExist$$)' ./deploy/

## docs: regenerate docs/metrics.md, the dashboards, the rule file and the generated manifests from the code.
docs:
	$(GO) run ./cmd/generate/metricsdoc -o docs/metrics.md
	$(GO) run ./cmd/generate/dashboards

dashboards: docs

## screenshots: regenerate docs/images/*.png (report of a real log, its index, the live page of the demo) in headless Chromium.
screenshots:
	SPARKGLANCE_SCREENSHOTS=$(CURDIR)/docs/images $(GO) test -count=1 -timeout 10m -run '^TestLiveGlanceInBrowser$$' ./cmd/sparkglance

## scale: the fleet load test alone (10,000 finished + 200 live applications, 4 shards and one process,
## a real Prometheus), with its figures in the log: docs/scaling.md. About half an hour on two cores, so
## it has its own build tag and is not part of `make e2e`.
scale:
	$(GO) test -tags scale -count=1 -timeout 60m -v -run '^TestScaleTenThousandApps$$' ./internal/scaletest/

## bench: speed, memory and overhead benchmarks, e.g. the safepoint pause a thread dump costs
## (figures go to docs/performance.md). Measures only: nothing here fails on a slow machine.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count=1 -timeout 60m $(PKGS)

## fuzz: every fuzz target for $(FUZZTIME) each.
fuzz:
	@set -e; for file in $$(grep -rl --include='*_test.go' '^func Fuzz' .); do \
	  pkg=./$$(dirname $${file#./}); \
	  for f in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$file | cut -c6-); do \
	    echo "== $$pkg $$f ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10s $$pkg; \
	  done; done

clean:
	rm -rf bin $(OUT)
