// Package version holds the provider's version, set at build time with
// -ldflags "-X github.com/crossplane-contrib/provider-foundationdb/internal/version.Version=v0.1.0",
// and the FoundationDB release lines the provider administers.
package version

// Version of the provider.
var Version = "v0.0.0-dev"

// FoundationDBLines are the FoundationDB release lines (major.minor) the
// provider administers, oldest first. The provider image
// (cluster/images/provider-foundationdb) carries the fdbcli, fdbbackup and
// fdbrestore of each line in $FDB_BINARY_DIR/<major.minor>/, where the
// connector looks for the tools of the version a cluster runs, and a client
// library that reaches a database of each line: the newest line's as the
// primary library, every older line's in the multi-version client's
// external client directory. The image's layout test holds its Dockerfile
// to this list; a version of any other line has no tools in the image.
var FoundationDBLines = []string{"7.1", "7.3"}

// MinimumPatch is, for each line of FoundationDBLines, the first patch
// release the provider accepts (the Cluster CRD's version rules are held to
// it by apis/admission_test.go). It is the first fdb-kubernetes-monitor
// release of the line that runs its image's /usr/bin/fdbserver for every
// version protocol-compatible with the image's own (readConfiguration in
// apple/foundationdb fdbkubernetesmonitor/monitor.go, 7.1.62 and 7.3.48).
// Earlier monitors (7.1.61, 7.3.47 and before) take /usr/bin/fdbserver only
// when the configured version equals the image's exactly and otherwise look
// for the binary in the shared directory. The provider's upgrades are made
// for the later rule (a patch release rolls the pods onto its image), and
// the simulator (workload.MonitorBinary) models both, so that the earlier
// one shows where it differs.
var MinimumPatch = map[string]int{"7.1": 62, "7.3": 48}
