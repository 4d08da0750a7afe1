# provider-foundationdb — see README.md. Two commands matter to a newcomer:
#   make run    the whole product on one machine; Ctrl-C stops it
#   make test   everything CI runs
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
GO ?= go

.PHONY: all build generate check-generated vet test chaos test-unit bench bench-fleet controlplane run stop smoke clean

all: build

build: ## Build the provider and the fdbpolicy CLI into bin/.
	$(GO) build -o bin/ ./cmd/...

generate: ## Regenerate deepcopy methods, method sets and CRDs from apis/, and the provider's ClusterRole from the RBAC markers.
	cd apis && $(GO) generate -tags generate ./...

check-generated: ## Fail when generated files are stale.
	hack/check-generated.sh

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

controlplane: ## Build (or reuse) every control-plane binary; prints their directories.
	@hack/controlplane.sh --all

# Integration tests need kube-apiserver and etcd (envtest), the local cluster
# of `make run` (the quickstart test), Crossplane's CRDs (the composition
# test) and Crossplane core's command (the end-to-end lane, internal/e2e);
# they fail rather than skip when any is missing.
test: vet check-generated ## Unit and integration tests on a real API server, the local cluster and Crossplane.
	@path=$$(hack/controlplane.sh --all --crossplane); crds=$$(hack/crossplane.sh); \
	echo "control plane: $$path"; echo "crossplane CRDs: $$crds"; \
	KUBEBUILDER_ASSETS=$${path%%:*} FDB_LOCALRUN_PATH=$$path CROSSPLANE_CRDS=$$crds FDB_REQUIRE_CONTROLPLANE=1 \
	  $(GO) tool gotestsum --format pkgname --format-icons text --raw-command -- $(GO) test -json -count=1 -timeout 50m ./...

SEEDS ?=
FIRST ?= 1
PARALLEL ?= 1
# When the code (every file but docs/, *.md and the tests of packages other
# than internal/chaos, which its test binary never links) has no changes, each whole
# block of a hundred seeds is summed up in a ledger keyed by the code,
# docs/chaos-ledger/<key>.jsonl, which is committed: a budget cut short (a
# session's end) runs on where it stopped when run again on the same code,
# in this sitting or a later one, and sums up every seed. GOGC=400 (for the
# harness and its control planes) saves about a sixth of a seed's CPU.
chaos: ## Fault-injection harness: SEEDS seeds from FIRST, PARALLEL at once (CHAOS_SEED=n replays one, CHAOS_WORKLOAD=name on that workload, CHAOS_TRACE=1 prints traces); summary, violations and their seeds.
	@path=$$(hack/controlplane.sh); ledger=; \
	if [ -z "$$(git status --porcelain | grep -v -P '^.. (docs/|.*\.md$$|(?!internal/chaos/).*_test\.go$$)' || true)" ]; then \
	  ledger=$$(pwd)/docs/chaos-ledger/$$(git ls-tree -r HEAD | grep -v -P '\t(docs/|.*\.md$$|(?!internal/chaos/).*_test\.go$$)' | git hash-object --stdin).jsonl; \
	else echo "the code has changes: no ledger, every seed runs"; fi; \
	GOGC=$${GOGC:-400} KUBEBUILDER_ASSETS=$${path%%:*} FDB_REQUIRE_CONTROLPLANE=1 CHAOS_SEEDS=$(SEEDS) CHAOS_FIRST=$(FIRST) CHAOS_PARALLEL=$(PARALLEL) CHAOS_LEDGER=$$ledger \
	  $(GO) test -count=1 -timeout 0 -v -run '^TestChaos$$' ./internal/chaos

test-unit: ## Tests that need no control plane (the others skip).
	$(GO) test ./...

bench: ## Go benchmarks with figures (the controllers' on a real API server, e.g. BenchmarkRollouts).
	@path=$$(hack/controlplane.sh); \
	KUBEBUILDER_ASSETS=$${path%%:*} $(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...

FLEET ?= .
# Each fleet size starts its own local cluster and provider, as `make run`
# does; FLEET selects sizes by regular expression, e.g. FLEET='N=(10|50)$'.
bench-fleet: ## The fleet benchmark (BenchmarkFleet): N quickstart Clusters and one more on the local cluster; figures in docs/PERFORMANCE.md.
	@path=$$(hack/controlplane.sh --all); \
	KUBEBUILDER_ASSETS=$${path%%:*} FDB_LOCALRUN_PATH=$$path \
	  $(GO) test -run '^$$' -bench 'BenchmarkFleet/$(FLEET)' -benchtime 1x -timeout 0 ./internal/localrun

run: ## The local cluster, the provider on the simulator and the quickstart; Ctrl-C stops all of it.
	@path=$$(hack/controlplane.sh --all); \
	$(GO) build -o bin/localrun ./hack/localrun; \
	$(GO) build -o bin/ ./cmd/kubectl-foundationdb; \
	exec bin/localrun run --bin-path "$$path"

stop: ## Stop whatever a killed `make run` left running.
	@path=$$(hack/controlplane.sh --all); \
	$(GO) build -o bin/localrun ./hack/localrun; \
	bin/localrun stop --bin-path "$$path"

PROVIDER_IMAGE ?=
FDB_IMAGE ?=
FDB_VERSION ?= 7.3.63
FDB_UPGRADE_TO ?= 7.3.69
SMOKE_FLAGS ?=
# Not for the local cluster (its local mode is TestSmokeLocal in `make
# test`): a real one, whose pods run containers. KUBECONFIG names it;
# PROVIDER_IMAGE is the provider's image (cluster/images/provider-foundationdb),
# FDB_IMAGE an fdb-kubernetes-monitor repository with both versions (empty:
# foundationdb/fdb-kubernetes-monitor); SMOKE_FLAGS adds flags of hack/smoke,
# e.g. --install=existing or --fault-domain-key=kubernetes.io/hostname.
smoke: ## On a real cluster (KUBECONFIG): install the provider (--fdb-backend=real), then the quickstart's life — Ready, a key through fdbcli, scale-down, patch upgrade, deletion — with a table of times and counts.
	@$(GO) build -o bin/smoke ./hack/smoke; \
	exec bin/smoke --provider-image "$(PROVIDER_IMAGE)" --fdb-image-repository "$(FDB_IMAGE)" \
	  --version "$(FDB_VERSION)" --upgrade-to "$(FDB_UPGRADE_TO)" $(SMOKE_FLAGS)

clean:
	rm -rf bin
