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

.PHONY: run analyze-demo test e2e scale build lint bench fuzz fuzz-smoke docs dashboards demo-log clean screenshots \
        crossbuild image image-rootfs release

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

# Image and release archives are built as the Prometheus projects' promu does:
# static (CGO_ENABLED=0), version-stamped binaries cross-built into
# $(BUILD_DIR)/<os>-<arch>/, which the Dockerfile and the archives only copy.
BUILD_DIR   ?= .build
PLATFORMS   ?= $(shell $(GO) env GOOS)/$(shell $(GO) env GOARCH)
IMAGE_REPO  ?= ghcr.io/sparkglance/sparkglance
# The Kubernetes manifests and the compose file name this tag (`make docs`
# pins them to the VERSION file), never "latest".
IMAGE_TAG   ?= $(VERSION)
IMAGE_ARCH  ?= $(shell $(GO) env GOARCH)
CA_BUNDLE   ?= /etc/ssl/certs/ca-certificates.crt
# podman builds without a daemon; docker otherwise.
CONTAINER_ENGINE ?= $(shell command -v podman 2>/dev/null || command -v docker 2>/dev/null)
# make image's smoke run gives podman this configuration: hosts whose kernel refuses podman's default rlimits
# ("error setting rlimit type 7") cannot run a container without it (deploy/README.md). PODMAN_CONF= uses the host's.
PODMAN_CONF ?= $(CURDIR)/deploy/podman/containers.conf
RELEASE_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
RELEASE_DIR ?= .tarballs

## crossbuild: static, version-stamped binaries for $(PLATFORMS) into $(BUILD_DIR)/<os>-<arch>/.
crossbuild:
	@set -e; for platform in $(PLATFORMS); do \
	  os=$${platform%/*}; arch=$${platform#*/}; \
	  echo ">> building $(BUILD_DIR)/$$os-$$arch/sparkglance"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' \
	    -o $(BUILD_DIR)/$$os-$$arch/sparkglance ./cmd/sparkglance; \
	done

## image-rootfs: the few files a scratch image needs (CA bundle, passwd, group, /tmp) into $(BUILD_DIR)/rootfs.
image-rootfs:
	@test -r $(CA_BUNDLE) || { echo "no CA bundle at $(CA_BUNDLE) (install ca-certificates or set CA_BUNDLE)"; exit 1; }
	@mkdir -p $(BUILD_DIR)/rootfs/etc/ssl/certs $(BUILD_DIR)/rootfs/tmp
	cp $(CA_BUNDLE) $(BUILD_DIR)/rootfs/etc/ssl/certs/ca-certificates.crt
	printf 'root:x:0:0:root:/:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' > $(BUILD_DIR)/rootfs/etc/passwd
	printf 'root:x:0:\nnobody:x:65534:\n' > $(BUILD_DIR)/rootfs/etc/group
	chmod 1777 $(BUILD_DIR)/rootfs/tmp

## image: the container image $(IMAGE_REPO):$(IMAGE_TAG) for linux/$(IMAGE_ARCH), with podman if present, else docker; then runs its --version.
image:
	@test -n "$(CONTAINER_ENGINE)" || { echo "make image needs podman or docker"; exit 1; }
	@test "$(BUILD_DIR)" = .build || { echo "the Dockerfile copies from .build/: leave BUILD_DIR alone for make image"; exit 1; }
	$(MAKE) crossbuild PLATFORMS=linux/$(IMAGE_ARCH)
	$(MAKE) image-rootfs
	$(CONTAINER_ENGINE) build --platform linux/$(IMAGE_ARCH) --build-arg TARGETARCH=$(IMAGE_ARCH) \
	  --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) \
	  --build-arg CREATED=$(shell date -u +%Y-%m-%dT%H:%M:%SZ) \
	  -t $(IMAGE_REPO):$(IMAGE_TAG) -f Dockerfile .
	@echo ">> smoke run: $(IMAGE_REPO):$(IMAGE_TAG) --version"
	$(if $(and $(PODMAN_CONF),$(findstring podman,$(notdir $(CONTAINER_ENGINE)))),CONTAINERS_CONF=$(PODMAN_CONF) )$(CONTAINER_ENGINE) run --rm $(IMAGE_REPO):$(IMAGE_TAG) --version

## release: sparkglance-<version>.<os>-<arch>.tar.gz for $(RELEASE_PLATFORMS) and sha256sums.txt in $(RELEASE_DIR).
release:
	$(MAKE) crossbuild PLATFORMS="$(RELEASE_PLATFORMS)"
	@set -e; mkdir -p $(RELEASE_DIR); stage=$(BUILD_DIR)/tarballs; rm -rf $$stage; \
	for platform in $(RELEASE_PLATFORMS); do \
	  os=$${platform%/*}; arch=$${platform#*/}; name=sparkglance-$(VERSION).$$os-$$arch; \
	  mkdir -p $$stage/$$name/dashboards $$stage/$$name/alerts; \
	  cp $(BUILD_DIR)/$$os-$$arch/sparkglance LICENSE README.md $$stage/$$name/; \
	  cp dashboards/*.json $$stage/$$name/dashboards/; \
	  cp alerts/sparkglance-rules.yml alerts/sparkglance-otlp-rules.yml $$stage/$$name/alerts/; \
	  echo ">> $(RELEASE_DIR)/$$name.tar.gz"; \
	  tar -czf $(RELEASE_DIR)/$$name.tar.gz -C $$stage $$name; \
	done; \
	rm -rf $$stage; \
	cd $(RELEASE_DIR) && if command -v sha256sum >/dev/null; then sha256sum sparkglance-$(VERSION).*.tar.gz; \
	  else shasum -a 256 sparkglance-$(VERSION).*.tar.gz; fi > sha256sums.txt

## test: formatting, vet, staticcheck, then unit and integration tests (against the real Prometheus,
## promtool, Java… that .ci/run installs) with the race detector, then each fuzz target briefly. No test
## asserts wall-clock speed (that is `make bench`); the long end-to-end runs are `make e2e`. Each step
## says what it does before it starts: on a busy machine a step can take minutes.
test: lint
	@echo ">> go test -race: $$($(GO) list $(PKGS) | wc -l) packages, one per core at a time; a line per package as it ends"
	$(GO) test -race -count=1 -timeout 30m $(PKGS)
	@$(MAKE) --no-print-directory fuzz-smoke

# Files behind the e2e build tag: end-to-end runs of half a minute and more
# (Prometheus + Alertmanager delivering the demo's alerts, JVMs burning CPU).
E2E_FILES = $(shell grep -rl --include='*_test.go' '^//go:build e2e' .)

## e2e: the long end-to-end tests (build tag e2e), package by package, after building the test-only
## tools (Prometheus 3, the OpenTelemetry Collector: tools/build.sh, cached) they run.
e2e:
	nice tools/build.sh
	@set -e; for file in $(E2E_FILES); do \
	  tests=$$(grep -o '^func Test[A-Za-z0-9_]*' $$file | cut -c6- | paste -sd'|'); \
	  echo "== ./$$(dirname $${file#./}) ($$tests)"; \
	  $(GO) test -tags e2e -race -count=1 -timeout 20m -run "^($$tests)$$" ./$$(dirname $${file#./}); \
	done

## lint: gofmt, then go vet and staticcheck once over every file, the e2e and scale test files
## included (no file is built only without those tags, so one pass covers the default build too).
lint:
	@echo ">> gofmt"
	@fmt_out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	  if [ -n "$$fmt_out" ]; then echo "gofmt would change:"; echo "$$fmt_out"; exit 1; fi
	@if grep -rlq --include='*.go' '^//go:build.*!\(e2e\|scale\)' .; then \
	  echo "a file is built only without the e2e or scale tag: lint must vet both builds"; exit 1; fi
	@echo ">> go vet -tags e2e,scale (downloads the modules first on a fresh machine)"
	$(GO) vet -tags e2e,scale $(PKGS)
	@echo ">> staticcheck -tags e2e,scale"
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

## screenshots: regenerate docs/images/*.png (report of a real log, its index, the live page of the demo, a comparison, the workload pages) in headless Chromium.
screenshots:
	SPARKGLANCE_SCREENSHOTS=$(CURDIR)/docs/images $(GO) test -count=1 -timeout 10m -run '^(TestLiveGlanceInBrowser|TestComparePageInBrowser)$$' ./cmd/sparkglance
	SPARKGLANCE_SCREENSHOTS=$(CURDIR)/docs/images $(GO) test -count=1 -timeout 5m -run '^TestWorkloadPagesInBrowser$$' ./internal/glanceweb

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
	@$(MAKE) --no-print-directory fuzz-smoke FUZZSMOKE=$(FUZZTIME)

# The fuzz targets, each package's test binary built once (with the
# fuzzing instrumentation) and run for each of its targets in the package's
# directory (its testdata corpus), with go test's cache directory for the
# generated corpus.
# FUZZ_DIRS narrows the search, e.g. FUZZ_DIRS=./internal/sparklog.
FUZZ_BIN  ?= $(BUILD_DIR)/fuzz
FUZZ_DIRS ?= .
fuzz-smoke:
	@set -e; files=$$(grep -rl --include='*_test.go' '^func Fuzz' $(FUZZ_DIRS) | sort); \
	pkgs=$$(for f in $$files; do dirname $$f; done | sort -u); \
	echo ">> fuzz: $$(grep -h '^func Fuzz' $$files | wc -l) targets in $$(echo $$pkgs | wc -w) packages, $(FUZZSMOKE) each"; \
	mkdir -p $(FUZZ_BIN); cache=$$($(GO) env GOCACHE)/fuzz; root=$$(pwd); \
	for pkg in $$pkgs; do \
	  bin=$$root/$(FUZZ_BIN)/$$(echo $${pkg#./} | tr / _).test; \
	  echo "== $$pkg: building its test binary"; \
	  $(GO) test -c -fuzz=. -o $$bin $$pkg; \
	  for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$pkg/*_test.go | cut -c6-); do \
	    echo "== $$pkg $$f ($(FUZZSMOKE))"; \
	    modpath=$$($(GO) list $$pkg); \
	    (cd $$pkg && $$bin -test.run='^$$' -test.fuzz="^$$f$$" -test.fuzztime=$(FUZZSMOKE) \
	      -test.fuzzminimizetime=10s -test.fuzzcachedir=$$cache/$$modpath); \
	  done; done

clean:
	rm -rf bin $(OUT) $(BUILD_DIR) $(RELEASE_DIR)
