package localrun

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/crossplane-contrib/provider-foundationdb/internal/localcluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/defaults"
)

var nextSteps = template.Must(template.New("next").Parse(`
The quickstart Cluster {{.Namespace}}/{{.Cluster}} is Ready: five coordinators in five zones, simulated by the provider.

Try, in another terminal:
  export KUBECONFIG={{.Kubeconfig}}
  export PATH={{.Path}}:$PATH   # kubectl, built from source like the rest
  kubectl get foundationdb                      # Clusters, ProcessGroups, Backups, Restores
  kubectl get pods -o wide -L topology.kubernetes.io/zone
  kubectl get secret {{.Secret}} -o jsonpath='{.data.clusterFile}' | base64 -d   # the cluster file applications mount

Scale storage down from 5 to 3 and watch the exclusion wait on the safety policy (this terminal shows each decision):
  kubectl patch cluster {{.Cluster}} --type merge -p '{"spec":{"forProvider":{"processCounts":{"storage":3}}}}'
  kubectl get cluster {{.Cluster}} -o jsonpath='{.status.atProvider.lastPolicyDecision}'
The default policies allow an exclusion only {{.Exclude}} s and an inclusion only {{.Include}} s after the last recovery,
so the removal takes minutes.
To go faster, lower the thresholds for this cluster:
  kubectl patch cluster {{.Cluster}} --type merge -p '{"spec":{"forProvider":{"safety":{"params":{"minSecondsSinceRecoveryForExclude":10,"minSecondsSinceRecoveryForInclude":30}}}}}'
Ask why it waits, with the rule, the threshold and when the clock alone allows it (kubectl-foundationdb is in {{.Bin}}):
  export PATH={{.Bin}}:$PATH
  kubectl foundationdb analyze            # exits 1 while a Cluster is not Healthy
  kubectl foundationdb explain {{.Cluster}}   # the policies' evaluation of its next step
The databases' metrics (fault tolerance, data movement, exclusions, progress) and the provider's:
  curl -s http://{{.Metrics}}/metrics | grep '^fdb_'
  (a Grafana dashboard of them: examples/dashboard/foundationdb.json)
{{with .Node}}
Fail a node: {{.Name}} runs {{.Pods}}. kwok turns it NotReady and keeps it so until you heal it
(this terminal shows the node, the pods still on it and what the Cluster does):
  {{.Fail}}   # NotReady
  kubectl get nodes -L topology.kubernetes.io/zone
  kubectl get pods -o wide -L topology.kubernetes.io/zone
  {{.Heal}}        # Ready again
{{end}}
Logs: provider {{.ProviderLog}}; control plane {{.ClusterLogs}}
Ctrl-C stops everything this run started.
`))

// NextSteps prints what to try once the quickstart is Ready.
func (r *Run) NextSteps(ctx context.Context, w io.Writer) error {
	// The node to fail is one that runs a storage pod; without one, the
	// rest is still worth printing.
	var node any
	if name, pods, err := r.NodeToFail(ctx); err == nil {
		node = map[string]string{
			"Name": name, "Pods": strings.Join(pods, ", "),
			"Fail": localcluster.FailCommand(name), "Heal": localcluster.HealCommand(name),
		}
	}
	return nextSteps.Execute(w, map[string]any{
		"Node":        node,
		"Namespace":   Namespace,
		"Cluster":     ClusterName,
		"Secret":      ClusterName + "-fdb",
		"Kubeconfig":  r.Kubeconfig(),
		"Path":        strings.Join(r.cluster.Binaries.Dirs(), string(filepath.ListSeparator)),
		"Exclude":     defaultParam("fdb-exclusion", "minSecondsSinceRecoveryForExclude"),
		"Include":     defaultParam("fdb-inclusion", "minSecondsSinceRecoveryForInclude"),
		"ProviderLog": r.ProviderLog(),
		"Bin":         absolute(filepath.Join(r.opts.Root, "bin")),
		"Metrics":     r.opts.MetricsAddress,
		"ClusterLogs": filepath.Join(r.cluster.Dir(), "logs"),
	})
}

// defaultParam is a parameter of a built-in policy, as the next steps quote
// it; "?" if it cannot be read.
func defaultParam(policyName, key string) any {
	ps, err := defaults.Policies()
	if err != nil {
		return "?"
	}
	for _, p := range ps {
		if p.Name != policyName {
			continue
		}
		params, err := policy.DecodeParams(p.Spec.Params)
		if err != nil || params[key] == nil {
			return "?"
		}
		return params[key]
	}
	return "?"
}

// absolute is path made absolute, as given when it cannot be.
func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
