//go:build tools

// Package tools pins Crossplane core's command, which hack/controlplane.sh
// --crossplane builds for the end-to-end test.
package tools

import (
	_ "github.com/crossplane/crossplane/v2/cmd/crossplane"
)
