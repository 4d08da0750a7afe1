#!/usr/bin/env bash
# Builds the Kubernetes binaries this repository runs from the Go module proxy,
# caches them outside the clone keyed by version, and prints where they are.
# Re-running reuses the cache. Progress goes to stderr.
#
#   hack/controlplane.sh        kube-apiserver and etcd (envtest, `make test`);
#                               prints their directory
#   hack/controlplane.sh --all  also kube-controller-manager, kube-scheduler,
#                               kubectl (hack/tools) and kwok, kwokctl
#                               (hack/tools/kwok) for `make run`; prints both
#                               directories as a PATH list
#   hack/controlplane.sh --all --crossplane
#                               also Crossplane core's command, crossplane
#                               (hack/tools/crossplane), for the end-to-end
#                               test; its directory ends the PATH list
#
# The cache is $PROVIDER_FDB_CACHE (default ~/.cache/provider-foundationdb).
set -euo pipefail

all=false
crossplane=false
for arg in "$@"; do
  case "$arg" in
    --all) all=true ;;
    --crossplane) crossplane=true ;;
    *) echo "usage: $0 [--all [--crossplane]]" >&2; exit 2 ;;
  esac
done
if $crossplane && ! $all; then
  echo "usage: $0 [--all [--crossplane]]" >&2; exit 2
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tools="$here/tools"
version_of() { # version_of <module dir> <required module>; either require form
  awk -v m="$2" '$1==m{print $2; exit} $1=="require" && $2==m{print $3; exit}' "$1/go.mod"
}
k8s_version=$(version_of "$tools" k8s.io/kubernetes)
etcd_version=$(version_of "$tools" go.etcd.io/etcd/server/v3)
kwok_version=$(version_of "$tools/kwok" sigs.k8s.io/kwok)
crossplane_version=$(version_of "$tools/crossplane" github.com/crossplane/crossplane/v2)
cache_root=${PROVIDER_FDB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/provider-foundationdb}
assets="$cache_root/controlplane/kubernetes-$k8s_version-etcd-$etcd_version"
kwok_assets="$cache_root/controlplane/kwok-$kwok_version"
crossplane_assets="$cache_root/controlplane/crossplane-$crossplane_version"

v=k8s.io/component-base/version
k8s_ldflags="-X $v.gitVersion=$k8s_version -X $v.gitMajor=$(echo "${k8s_version#v}" | cut -d. -f1) -X $v.gitMinor=$(echo "$k8s_version" | cut -d. -f2)"
c=sigs.k8s.io/kwok/pkg/consts
kwok_ldflags="-X $c.Version=$kwok_version -X $c.KubeVersion=${k8s_version#v}"
crossplane_ldflags="-X github.com/crossplane/crossplane-runtime/v2/pkg/version.version=$crossplane_version"

# name | module dir | output dir | package | ldflags
targets=(
  "etcd|$tools|$assets|./etcd|"
  "kube-apiserver|$tools|$assets|k8s.io/kubernetes/cmd/kube-apiserver|$k8s_ldflags"
)
if $all; then
  targets+=(
    "kube-controller-manager|$tools|$assets|k8s.io/kubernetes/cmd/kube-controller-manager|$k8s_ldflags"
    "kube-scheduler|$tools|$assets|k8s.io/kubernetes/cmd/kube-scheduler|$k8s_ldflags"
    "kubectl|$tools|$assets|k8s.io/kubernetes/cmd/kubectl|$k8s_ldflags"
    "kwok|$tools/kwok|$kwok_assets|sigs.k8s.io/kwok/cmd/kwok|$kwok_ldflags"
    "kwokctl|$tools/kwok|$kwok_assets|sigs.k8s.io/kwok/cmd/kwokctl|$kwok_ldflags"
  )
fi
if $crossplane; then
  targets+=("crossplane|$tools/crossplane|$crossplane_assets|github.com/crossplane/crossplane/v2/cmd/crossplane|$crossplane_ldflags")
fi

missing=()
for t in "${targets[@]}"; do
  IFS='|' read -r name _ out _ _ <<<"$t"
  [ -x "$out/$name" ] || missing+=("$t")
done

step=0
for t in "${missing[@]}"; do
  IFS='|' read -r name module out pkg ldflags <<<"$t"
  step=$((step + 1))
  mkdir -p "$out"
  echo "controlplane: [$step/${#missing[@]}] building $name into $out (from scratch this takes minutes; later runs reuse it)" >&2
  start=$SECONDS
  # A line every 30 s, so a long build does not look stuck.
  (while sleep 30; do echo "controlplane:       still building $name, $((SECONDS - start))s so far" >&2; done) &
  ticker=$!
  rc=0
  (cd "$module" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w $ldflags" -o "$out/$name.tmp" "$pkg") || rc=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  if [ "$rc" -ne 0 ]; then
    echo "controlplane: cannot build $name" >&2
    exit "$rc"
  fi
  mv "$out/$name.tmp" "$out/$name"
  echo "controlplane: built $name in $((SECONDS - start))s" >&2
done

if $crossplane; then
  echo "$assets:$kwok_assets:$crossplane_assets"
elif $all; then
  echo "$assets:$kwok_assets"
else
  echo "$assets"
fi
