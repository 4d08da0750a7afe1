#!/usr/bin/env bash
# Fails when the generated files (CRDs, deepcopy and method sets, the
# provider's ClusterRole) differ from what `make generate` produces from the
# API types and the RBAC markers. Leaves the regenerated files in place, so
# `git diff` shows what was stale.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sum() { find package/crds apis examples/provider/clusterrole.yaml -name '*.yaml' -o -name 'zz_generated*.go' | sort | xargs sha256sum; }
before=$(sum)
(cd apis && go generate -tags generate ./...)
after=$(sum)
if [ "$before" != "$after" ]; then
  echo "generated files are stale; run 'make generate' and commit the result:" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
echo "generated files are up to date"
