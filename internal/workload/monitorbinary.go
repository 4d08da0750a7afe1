package workload

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// MonitorBinary is the fdbserver a monitor of release (the version of its
// own image) chooses, when it loads a configuration, for the version the
// configuration names (apple/foundationdb fdbkubernetesmonitor/monitor.go
// readConfiguration): the image's own /usr/bin/fdbserver, else the one the
// sidecar staged for version (BinaryPath). Releases from 7.1.62 on the 7.1
// line and from 7.3.48 on, and every later line, take the image's binary
// for any version of the image's major.minor (IsProtocolCompatible, at
// 7.1.62, 7.1.67, 7.3.48 and 7.3.63), so a patch configured before the
// image changes runs the image's patch; earlier ones only for the image's
// own version (string equality, at 7.1.61 and 7.3.47). An unknown release
// takes the earlier rule.
func MonitorBinary(release, version string) string {
	if version == release || protocolRuleMonitor(release) && fdb.ProtocolCompatible(version, release) {
		return imageBinaryPath
	}
	return BinaryPath(version)
}

// ImageBinary reports whether binary is the image's own fdbserver, whose
// version is its image's, not the configuration's.
func ImageBinary(binary string) bool { return binary == imageBinaryPath }

// protocolRuleMonitor reports whether the monitor of release chooses the
// image's binary by protocol compatibility (MonitorBinary).
func protocolRuleMonitor(release string) bool {
	v, err := fdb.ParseVersion(release)
	if err != nil {
		return false
	}
	first := fdb.Version{Major: 7, Minor: 3, Patch: 48}
	if v.Major == 7 && v.Minor == 1 {
		first = fdb.Version{Major: 7, Minor: 1, Patch: 62}
	}
	return !v.Less(first)
}

// MonitorComparesConfigurations reports whether the monitor of release
// accepts a configuration only when it differs from the one it runs
// (acceptConfiguration at 7.1.62 and 7.3.48 on): an equal one leaves its
// last configuration time as it was. Earlier releases take every
// configuration they read as new (at 7.1.61 and 7.3.47).
func MonitorComparesConfigurations(release string) bool { return protocolRuleMonitor(release) }

// MountedMonitorConfigFile is the content of the monitor's configuration
// file the kubelet writes into pod p's ConfigMap volume from the cluster's
// ConfigMap (data): the key the volume projects as the file, as it is;
// false when the pod projects no such key or the ConfigMap holds none (an
// optional volume then has no such file). MountedMonitorConfig is it
// decoded.
func MountedMonitorConfigFile(p *corev1.Pod, data map[string]string) (string, bool) {
	for _, v := range p.Spec.Volumes {
		if v.Name != configVolume || v.ConfigMap == nil {
			continue
		}
		for _, item := range v.ConfigMap.Items {
			if raw, ok := data[item.Key]; ok && item.Path == monitorConfigFile {
				return raw, true
			}
		}
	}
	return "", false
}
