package fdb

import "slices"

// OnOtherPatch reports whether one of processes reports a version of
// version's protocol (its major.minor) but another patch release: it runs
// a binary a restart does not change. fdb-kubernetes-monitor runs its
// image's own fdbserver for every version of the image's protocol
// (apple/foundationdb fdbkubernetesmonitor/monitor.go readConfiguration,
// 7.1.62 and later, 7.3.48 and later), so only a pod on an image of the
// new patch runs it. A process that reports no version is no evidence.
func OnOtherPatch(processes []Process, version string) bool {
	return slices.ContainsFunc(processes, func(p Process) bool {
		return p.Version != "" && p.Version != version && ProtocolCompatible(p.Version, version)
	})
}
