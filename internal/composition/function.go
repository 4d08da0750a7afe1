package composition

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/fieldpath"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/crossplane/function-sdk-go/request"
	"github.com/crossplane/function-sdk-go/resource"
	"github.com/crossplane/function-sdk-go/resource/composed"
	"github.com/crossplane/function-sdk-go/response"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// Names of the composed resources and of the required nodes.
const (
	ResourceCluster = resource.Name("cluster")
	ResourceBackup  = resource.Name("backup")
	ResourceUsage   = resource.Name("backup-uses-cluster")
	// ResourceCertificate and ResourceClientCertificate are cert-manager's
	// Certificates of the processes and of the clients.
	ResourceCertificate       = resource.Name("certificate")
	ResourceClientCertificate = resource.Name("client-certificate")
	RequiredNodes             = "nodes"
)

// Function is the composition function: Crossplane calls RunFunction once
// per reconcile of an FDBDatabase.
type Function struct {
	fnv1.UnimplementedFunctionRunnerServiceServer
}

// toComposed converts a typed object to a composed resource with the
// Kubernetes JSON conventions (omitempty leaves out zero numbers, which the
// CRDs' defaults then fill in) and without what is not the function's to
// say: status and the creation timestamp.
func toComposed(o any) (*composed.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, err
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	return composed.From(&unstructured.Unstructured{Object: m})
}

// nodeRequirement asks Crossplane for every node, to count the zones.
func nodeRequirement() *fnv1.Requirements {
	return &fnv1.Requirements{Resources: map[string]*fnv1.ResourceSelector{
		RequiredNodes: {ApiVersion: "v1", Kind: "Node", Match: &fnv1.ResourceSelector_MatchLabels{MatchLabels: &fnv1.MatchLabels{}}},
	}}
}

// RunFunction composes an FDBDatabase. Problems with the request are fatal
// results in the response, as Crossplane expects, not errors.
func (f *Function) RunFunction(_ context.Context, req *fnv1.RunFunctionRequest) (*fnv1.RunFunctionResponse, error) {
	rsp := response.To(req, response.DefaultTTL)
	rsp.Requirements = nodeRequirement()
	nodes, fetched, err := request.GetRequiredResource(req, RequiredNodes)
	if err != nil {
		response.Fatal(rsp, fmt.Errorf("cannot read nodes: %w", err))
		return rsp, nil
	}
	if !fetched {
		// Crossplane fetches the nodes and calls again.
		return rsp, nil
	}
	if err := f.compose(req, rsp, nodes); err != nil {
		response.Fatal(rsp, err)
	}
	return rsp, nil
}

func (f *Function) compose(req *fnv1.RunFunctionRequest, rsp *fnv1.RunFunctionResponse, nodes []resource.Required) error {
	in, err := ParseInput(req.GetInput())
	if err != nil {
		return err
	}
	xr, err := request.GetObservedCompositeResource(req)
	if err != nil {
		return fmt.Errorf("cannot read the composite resource: %w", err)
	}
	var p Parameters
	if err := xr.Resource.GetValueInto("spec", &p); err != nil {
		return fmt.Errorf("cannot read the composite resource's spec: %w", err)
	}
	if p.Size == "" {
		p.Size = SizeSmall
	}
	if err := ValidateSites(p.Topology, p.Sites); err != nil {
		return err
	}
	if err := ValidateTLS(p.TLS, in.TLS); err != nil {
		return err
	}
	if err := ValidateNetworkPolicy(p.NetworkPolicy); err != nil {
		return err
	}
	sh, err := ShapeOf(p.Size)
	if err != nil {
		return err
	}
	observed, err := request.GetObservedComposedResources(req)
	if err != nil {
		return fmt.Errorf("cannot read the composed resources: %w", err)
	}
	running, err := runningRedundancy(observed)
	if err != nil {
		return err
	}
	if err := keepsTLS(observed, p.TLS); err != nil {
		return err
	}
	zones := CountZones(nodes, in.ZoneLabel)
	mode, warning := v1alpha1.RedundancyThreeDataHall, ""
	if p.Topology != TopologyThreeDataHall {
		if mode, warning, err = ChooseRedundancy(p.Redundancy, zones, running); err != nil {
			return err
		}
	}
	if warning != "" {
		response.Warning(rsp, errors.New(warning)).TargetComposite()
	}
	if p.Backup.Enabled && in.BlobStore == nil {
		return fmt.Errorf("cannot compose a backup: the Composition's function input has no blobStore")
	}
	db := Compose(xr.Resource.GetNamespace(), xr.Resource.GetName(), p, in, mode, sh)

	desired, err := request.GetDesiredComposedResources(req)
	if err != nil {
		return fmt.Errorf("cannot read the desired resources: %w", err)
	}
	// The first Cluster makes the database; the others join it once its
	// connection string is known.
	seed, _ := observedClusterString(observed, "status.atProvider.connectionString")
	members := Members(db.Cluster, p, seed)
	objs := map[resource.Name]any{}
	for _, m := range members {
		objs[m.Name] = m.Cluster
	}
	if db.Backup != nil {
		db.Backup.Spec.ForProvider.ClusterRef.Name = members[0].Cluster.GetName()
		db.Usage = usage(db.Usage.GetNamespace(), db.Usage.GetName(), members[0].Cluster, db.Backup)
		objs[ResourceBackup], objs[ResourceUsage] = db.Backup, db.Usage
	}
	if db.Certificate != nil {
		objs[ResourceCertificate], objs[ResourceClientCertificate] = db.Certificate, db.ClientCertificate
	}
	for name, o := range objs {
		cd, err := toComposed(o)
		if err != nil {
			return fmt.Errorf("cannot compose %s: %w", name, err)
		}
		// The Usage only orders deletion: the database does not wait for
		// it (nor for Crossplane's usage controller, which runs only with
		// its webhooks).
		dc := &resource.DesiredComposed{Resource: cd, Ready: resource.ReadyFalse}
		if oc, ok := observed[name]; name == ResourceUsage || (ok && oc.Resource.GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue) {
			dc.Ready = resource.ReadyTrue
		}
		desired[name] = dc
	}
	if err := response.SetDesiredComposedResources(rsp, desired); err != nil {
		return fmt.Errorf("cannot set the desired resources: %w", err)
	}

	dxr, err := request.GetDesiredCompositeResource(req)
	if err != nil {
		return fmt.Errorf("cannot read the desired composite resource: %w", err)
	}
	status := map[string]any{
		"status.redundancy":        string(mode),
		"status.clusterFileSecret": SecretName(xr.Resource.GetName()),
	}
	if zones >= 0 {
		status["status.zones"] = int64(zones)
	}
	if t := db.Cluster.Spec.ForProvider.TLS; t != nil {
		status["status.tls.enabled"] = db.Cluster.Spec.ForProvider.TLSEnabled()
		status["status.tls.secretName"] = t.SecretName
		status["status.tls.clientSecretName"] = cmp.Or(t.ClientSecretName, t.SecretName)
		if db.Certificate != nil {
			status["status.tls.issuer"] = db.Certificate.Spec.IssuerRef.String()
		}
	}
	for path, v := range status {
		if err := dxr.Resource.SetValue(path, v); err != nil {
			return fmt.Errorf("cannot set %s: %w", path, err)
		}
	}
	if err := response.SetDesiredCompositeResource(rsp, dxr); err != nil {
		return fmt.Errorf("cannot set the desired composite resource: %w", err)
	}
	response.Normalf(rsp, "composed a %s %s database over %d zones, %d of %d Clusters (backup %t, tls %t, networkPolicy %t)", p.Size, mode, zones, len(members), max(len(p.Sites), 1), p.Backup.Enabled, db.Cluster.Spec.ForProvider.TLSEnabled(), db.Cluster.Spec.ForProvider.NetworkPolicyEnabled())
	return nil
}

// keepsTLS refuses to compose a database without tls whose Cluster has
// tls settings: its pods need the certificates for as long as any process
// or coordinator speaks TLS, so the Cluster keeps them once set (its CRD
// refuses to drop them) and the way back to plain text is
// spec.tls.enabled false.
func keepsTLS(observed map[resource.Name]resource.ObservedComposed, t *TLSParameters) error {
	oc, ok := observed[ResourceCluster]
	if !ok || t != nil {
		return nil
	}
	if _, err := oc.Resource.GetValue("spec.forProvider.tls"); err == nil {
		return errors.New("spec.tls: cannot be removed once the database has it; set spec.tls.enabled to false to run the database in plain text")
	}
	return nil
}

// runningRedundancy is the redundancy mode of the observed Cluster, "" when
// there is none yet or it does not say.
func runningRedundancy(observed map[resource.Name]resource.ObservedComposed) (v1alpha1.RedundancyMode, error) {
	mode, err := observedClusterString(observed, "spec.forProvider.databaseConfiguration.redundancyMode")
	return v1alpha1.RedundancyMode(mode), err
}

// observedClusterString is the string at path of the observed (first)
// Cluster; "" when there is none yet or it does not say.
func observedClusterString(observed map[resource.Name]resource.ObservedComposed, path string) (string, error) {
	oc, ok := observed[ResourceCluster]
	if !ok {
		return "", nil
	}
	v, err := oc.Resource.GetString(path)
	if err != nil && !fieldpath.IsNotFound(err) {
		return "", fmt.Errorf("cannot read the observed Cluster: %w", err)
	}
	return v, nil
}

// CountZones counts the distinct values of the zone label over the nodes;
// -1 when there are no nodes at all (they are not visible).
func CountZones(nodes []resource.Required, label string) int {
	if len(nodes) == 0 {
		return -1
	}
	zones := map[string]bool{}
	for _, n := range nodes {
		if z := n.Resource.GetLabels()[label]; z != "" {
			zones[z] = true
		}
	}
	return len(zones)
}
