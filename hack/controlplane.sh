#!/usr/bin/env bash
# Builds the control-plane binaries used by tests (kube-apiserver and etcd) from the
# Go module proxy, caches them outside the clone keyed by version, and prints the
# asset directory. Re-running reuses the cache. Progress goes to stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tools="$here/tools"
k8s_version=$(awk '$1=="k8s.io/kubernetes"{print $2; exit}' "$tools/go.mod")
etcd_version=$(awk '$1=="go.etcd.io/etcd/server/v3"{print $2; exit}' "$tools/go.mod")
cache_root=${PROVIDER_FDB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/provider-foundationdb}
assets="$cache_root/controlplane/kubernetes-$k8s_version-etcd-$etcd_version"

build() { # build <name> <package> [ldflags]
  local name=$1 pkg=$2 ldflags=${3:-}
  if [ -x "$assets/$name" ]; then return; fi
  echo "controlplane: building $name ($pkg) into $assets — the first build takes several minutes" >&2
  local start=$SECONDS
  (cd "$tools" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w $ldflags" -o "$assets/$name.tmp" "$pkg")
  mv "$assets/$name.tmp" "$assets/$name"
  echo "controlplane: built $name in $((SECONDS - start))s" >&2
}

mkdir -p "$assets"
build etcd ./etcd
v=k8s.io/component-base/version
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver \
  "-X $v.gitVersion=$k8s_version -X $v.gitMajor=${k8s_version:1:1} -X $v.gitMinor=$(echo "$k8s_version" | cut -d. -f2)"
echo "$assets"
