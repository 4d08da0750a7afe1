// Package manifest reads Kubernetes manifests from YAML files and applies
// them server-side: the CRDs, examples, compositions and the provider's
// permissions that `make run` and the tests install.
package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// fieldOwner is the field manager of everything a run applies.
const fieldOwner = "provider-foundationdb"

// Read reads the objects of YAML files, keeping those whose kind is
// in kinds (all when kinds is empty), in file order.
func Read(files []string, kinds ...string) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("cannot read manifest: %w", err)
		}
		d := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := d.Decode(&u.Object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("cannot decode %s: %w", f, err)
			}
			if len(u.Object) == 0 || !wanted(u.GetKind(), kinds) {
				continue
			}
			objs = append(objs, u)
		}
	}
	return objs, nil
}

func wanted(kind string, kinds []string) bool {
	if len(kinds) == 0 {
		return true
	}
	for _, k := range kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// Apply server-side applies objects, in order; opts come on top of taking
// ownership of every field (client.DryRunAll validates without persisting).
func Apply(ctx context.Context, c client.Client, objs []*unstructured.Unstructured, opts ...client.ApplyOption) error {
	opts = append([]client.ApplyOption{client.FieldOwner(fieldOwner), client.ForceOwnership}, opts...)
	for _, o := range objs {
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(o), opts...); err != nil {
			return fmt.Errorf("cannot apply %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return nil
}

// InstallProviderRBAC applies the provider's ServiceAccount, ClusterRole and
// ClusterRoleBinding from the install manifests in dir (examples/provider),
// with the ServiceAccount's namespace, and returns the user name the API
// server knows that ServiceAccount by: a client that impersonates it has
// exactly the provider's permissions.
func InstallProviderRBAC(ctx context.Context, c client.Client, dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("cannot find the provider's install manifests in %s", dir)
	}
	objs, err := Read(files, "ServiceAccount", "ClusterRole", "ClusterRoleBinding")
	if err != nil {
		return "", err
	}
	var sa []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "ServiceAccount" {
			sa = append(sa, o)
		}
	}
	if len(sa) != 1 {
		return "", fmt.Errorf("cannot find the provider's ServiceAccount: %s has %d", dir, len(sa))
	}
	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	ns.SetName(sa[0].GetNamespace())
	if err := Apply(ctx, c, append([]*unstructured.Unstructured{ns}, objs...)); err != nil {
		return "", err
	}
	// The user name of a ServiceAccount, as the API server authenticates
	// its tokens.
	return "system:serviceaccount:" + sa[0].GetNamespace() + ":" + sa[0].GetName(), nil
}

// InstallCRDs applies every CRD in dir and waits until the API server serves
// them.
func InstallCRDs(ctx context.Context, c client.Client, dir string) error {
	crds, err := ReadCRDs(dir)
	if err != nil {
		return err
	}
	return ApplyCRDs(ctx, c, crds)
}

// ReadCRDs reads every CRD in dir.
func ReadCRDs(dir string) ([]*unstructured.Unstructured, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("cannot find CRDs in %s", dir)
	}
	return Read(files, "CustomResourceDefinition")
}

// ApplyCRDs applies crds and waits until the API server serves them.
func ApplyCRDs(ctx context.Context, c client.Client, crds []*unstructured.Unstructured) error {
	if err := Apply(ctx, c, crds); err != nil {
		return err
	}
	for _, u := range crds {
		if err := WaitEstablished(ctx, c, u.GetName()); err != nil {
			return err
		}
	}
	return nil
}

// WaitEstablished waits up to a minute until the API server serves a CRD.
func WaitEstablished(ctx context.Context, c client.Client, name string) error {
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return false, nil //nolint:nilerr // not there yet: poll again
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("cannot establish CRD %s: %w", name, err)
	}
	return nil
}

// WaitServed waits up to timeout until c finds kind gvk: a CRD can be
// Established a moment before discovery serves its kind, and a client's
// REST mapper learns of the kind only then.
func WaitServed(ctx context.Context, c client.Client, gvk schema.GroupVersionKind, timeout time.Duration) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		last = c.List(ctx, list, client.Limit(1))
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("cannot find kind %s: %w (last: %v)", gvk, err, last)
	}
	return nil
}

// configKinds are the kinds of a provider package that Crossplane's package
// manager installs as CRDs: every other becomes a ManagedResourceDefinition.
var configKinds = []string{"ProviderConfig", "ClusterProviderConfig", "ProviderConfigUsage", "ClusterProviderConfigUsage"}

// AsPackage splits a provider package's CRDs as Crossplane v2's package
// manager installs them (its custom-to-managed resource conversion, on by
// default): the ProviderConfig kinds stay CRDs; each other CRD becomes a
// ManagedResourceDefinition of the same name and spec, inactive — no CRD,
// so no API — until a ManagedResourceActivationPolicy names it.
func AsPackage(crds []*unstructured.Unstructured) (kept, mrds []*unstructured.Unstructured, err error) {
	for _, crd := range crds {
		kind, _, err := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		if err != nil || kind == "" {
			return nil, nil, fmt.Errorf("cannot read the kind of CRD %s: spec.names.kind is missing", crd.GetName())
		}
		if slices.Contains(configKinds, kind) {
			kept = append(kept, crd)
			continue
		}
		spec, _, _ := unstructured.NestedMap(crd.Object, "spec")
		spec["state"] = "Inactive"
		mrd := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
		mrd.SetAPIVersion("apiextensions.crossplane.io/v1alpha1")
		mrd.SetKind("ManagedResourceDefinition")
		mrd.SetName(crd.GetName())
		mrds = append(mrds, mrd)
	}
	return kept, mrds, nil
}
