#!/usr/bin/env bash
# Prints the directory of Crossplane core's CRDs (XRDs, Compositions,
# Functions, ...), from the Go module github.com/crossplane/crossplane/v2
# pinned in hack/tools/crossplane/go.mod, downloaded once through the Go
# module proxy into the module cache. The composition tests install them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/tools/crossplane"
go mod download github.com/crossplane/crossplane/v2
echo "$(go list -m -f '{{.Dir}}' github.com/crossplane/crossplane/v2)/cluster/crds"
