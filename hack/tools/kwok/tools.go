//go:build tools

// Package tools pins the kwok commands built by hack/controlplane.sh --all.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
	_ "sigs.k8s.io/kwok/cmd/kwokctl"
)
