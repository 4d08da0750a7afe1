package workload

import (
	"encoding/json"
	"reflect"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Annotations fdb-kubernetes-monitor writes to and reads from its own pod
// (apple/foundationdb fdbkubernetesmonitor/api/annotations.go and
// kubernetes.go, at 7.1.67 and 7.3.63).
const (
	// AnnotationCurrentConfiguration is the configuration file the pod's
	// monitor loaded last, as it read it (its bytes): the monitor writes it
	// after every load it accepts. A configuration it refused (its binary
	// is not staged, a variable is not set) leaves the annotation as it was.
	AnnotationCurrentConfiguration = "foundationdb.org/launcher-current-configuration"
	// AnnotationOutdatedConfigMap makes the monitor read its configuration
	// file again: on every update of its pod while the annotation holds a
	// Unix time (seconds) later than the monitor's last accepted load. A
	// monitor that refused a file reads it again only then, or when the
	// file changes.
	AnnotationOutdatedConfigMap = "foundationdb.org/outdated-config-map-seen"
)

// LoadedMonitorConfig is the monitor configuration pod p's monitor reports
// it loaded last (AnnotationCurrentConfiguration), decoded as the monitor
// decodes its file; false when the pod reports none or it does not decode.
func LoadedMonitorConfig(p *corev1.Pod) (MonitorConfig, bool) {
	raw, ok := p.Annotations[AnnotationCurrentConfiguration]
	if !ok {
		return MonitorConfig{}, false
	}
	var m MonitorConfig
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return MonitorConfig{}, false
	}
	return m, true
}

// ConfigurationLoaded reports whether pod p's monitor reports that it runs
// the configuration the cluster's ConfigMap (data) holds for it: the one it
// reports loaded decodes to the one the pod mounts (MountedMonitorConfig),
// compared as decoded, as the FoundationDB operator compares them. A pod
// that mounts none, or reports none, has not loaded it.
func ConfigurationLoaded(p *corev1.Pod, data map[string]string) bool {
	want, ok := MountedMonitorConfig(p, data)
	if !ok {
		return false
	}
	got, ok := LoadedMonitorConfig(p)
	return ok && reflect.DeepEqual(normalized(got), normalized(want))
}

// normalized is m with runServers unset when true, which the monitor reads
// alike.
func normalized(m MonitorConfig) MonitorConfig {
	if m.RunServers != nil && *m.RunServers {
		m.RunServers = nil
	}
	return m
}

// ReloadRequested is the time pod p last asked its monitor to read its
// configuration again (AnnotationOutdatedConfigMap); false without one.
func ReloadRequested(p *corev1.Pod) (time.Time, bool) {
	s, ok := p.Annotations[AnnotationOutdatedConfigMap]
	if !ok {
		return time.Time{}, false
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(sec, 0), true
}

// ReloadAnnotation is the value of AnnotationOutdatedConfigMap that asks a
// monitor to read its configuration again, at time now.
func ReloadAnnotation(now time.Time) string { return strconv.FormatInt(now.Unix(), 10) }
