package cluster

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// configurationLoadTimeout is how long a restart waits for a pod's monitor
// to report that it loaded the configuration the ConfigMap holds for it,
// counted from when its ProcessGroup first found it reporting another
// (IncorrectConfigMap). The kubelet delivers a changed ConfigMap within a
// sync period (a minute) and its cache's time to live, and a monitor that
// refused its file is asked again after that (the ProcessGroup's reload
// request); one that has not loaded it ten minutes on will not soon.
const configurationLoadTimeout = 10 * time.Minute

// A process restarts on the configuration its pod's monitor loaded last,
// not the one the ConfigMap holds: the kubelet delivers a changed ConfigMap
// to the pod up to a sync period later, and a monitor refuses a
// configuration whose fdbserver its pod has not staged. The monitor reports
// the configuration it loaded in an annotation of its pod
// (workload.AnnotationCurrentConfiguration), which the FoundationDB operator
// also reads before it restarts a pod's processes. So no restart — an
// upgrade's kill, a bounce for new command lines — is taken before every
// pod whose processes report says it runs the configuration the ConfigMap
// holds for it, as read from the pods in this reconcile; a pod that has not
// said so for configurationLoadTimeout no longer holds it back, and the
// restart names it.

// unconfirmed are the groups whose pod runs, on a Ready node, processes
// that report in this reconcile's status, while its monitor does not report
// loading the configuration the ConfigMap holds for it
// (workload.ConfigurationLoaded): those that may still (waiting) and those
// whose ProcessGroup found them so for configurationLoadTimeout (overdue),
// each by pod name, sorted.
func (o *observation) unconfirmed(cr *v1alpha1.Cluster) (waiting, overdue []string) {
	if o.status == nil || o.configMap == nil {
		return nil, nil
	}
	reporting := o.reporting()
	for i := range o.groups {
		pg := &o.groups[i]
		id := groupID(pg)
		pod := o.pods[workload.PodName(cr, id)]
		if pod == nil || pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodRunning || reporting[id] == 0 ||
			workload.ConfigurationLoaded(pod, o.configMap) {
			continue
		}
		if since, ok := pg.Status.AtProvider.ConditionSince(v1alpha1.IncorrectConfigMap); ok && o.now.Sub(since) >= configurationLoadTimeout {
			overdue = append(overdue, pod.Name)
			continue
		}
		waiting = append(waiting, pod.Name)
	}
	slices.Sort(waiting)
	slices.Sort(overdue)
	return waiting, overdue
}

// afterLoad is restart, a kill, once no monitor whose processes report is
// waiting to load its configuration (see unconfirmed); nil before, when
// loadingStep says why. Overdue pods are named in its message and action.
// A step that restarts nothing is returned as it is.
func (o *observation) afterLoad(cr *v1alpha1.Cluster, restart *clusterStep) *clusterStep {
	if restart == nil || restart.Kind != kindBounce {
		return restart
	}
	waiting, overdue := o.unconfirmed(cr)
	switch {
	case len(waiting) > 0:
		return nil
	case len(overdue) > 0:
		restart.Message += fmt.Sprintf("; the monitors of %s did not report loading the ConfigMap's configuration within %s, and their processes restart on the one they loaded",
			strings.Join(overdue, ", "), configurationLoadTimeout)
		if restart.Action.Details == nil {
			restart.Action.Details = map[string]any{}
		}
		restart.Action.Details[policy.DetailUnconfirmedPods] = overdue
	}
	return restart
}

// loadingStep waits while a restart (upgradeStep, bounceStep) waits for
// monitors to load the configuration the ConfigMap holds for them.
func loadingStep(cr *v1alpha1.Cluster, o *observation) *clusterStep {
	kill := upgradeKill(cr, o)
	if kill == nil || kill.Kind != kindBounce {
		kill = bounceKill(cr, o)
	}
	if kill == nil {
		return nil
	}
	waiting, _ := o.unconfirmed(cr)
	if len(waiting) == 0 {
		return nil
	}
	return wait("waiting for the monitors of pods %s to report loading the configuration the ConfigMap holds for them before their processes restart (at most %s each)",
		strings.Join(waiting, ", "), configurationLoadTimeout)
}
