# provider-foundationdb — see README.md. Two commands matter to a newcomer:
#   make run    the whole product on one machine (arrives with a later issue)
#   make test   everything CI runs
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
GO ?= go

.PHONY: all build generate check-generated vet test test-unit bench controlplane run clean

all: build

build: ## Build the provider and the fdbpolicy CLI into bin/.
	$(GO) build -o bin/ ./cmd/...

generate: ## Regenerate deepcopy methods, method sets and CRDs from apis/.
	cd apis && $(GO) generate -tags generate ./...

check-generated: ## Fail when generated files are stale.
	hack/check-generated.sh

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

controlplane: ## Build (or reuse) kube-apiserver and etcd; prints their directory.
	@hack/controlplane.sh

test: vet check-generated ## Unit and integration tests on a real API server.
	@assets=$$(hack/controlplane.sh); \
	echo "control plane: $$assets"; \
	KUBEBUILDER_ASSETS=$$assets FDB_REQUIRE_CONTROLPLANE=1 \
	  $(GO) test -count=1 -json ./... | $(GO) run ./hack/testsummary

test-unit: ## Tests that need no control plane (the others skip).
	$(GO) test ./...

bench: ## Go benchmarks with figures.
	$(GO) test -run '^$$' -bench . -benchmem ./...

run: ## The local control plane, provider, simulator and an example cluster.
	@echo "make run arrives with issue 7 (local control plane + provider + simulator); not available yet." >&2; exit 1

clean:
	rm -rf bin
