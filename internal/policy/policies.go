package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
)

const (
	errParseManifest  = "cannot parse SafetyPolicy manifest"
	errNotPolicy      = "manifest is a %s %s, not a %s"
	errMissingPolicy  = "SafetyPolicy %s is selected by the cluster but does not exist"
	errInactivePolicy = "SafetyPolicy %s is selected by the cluster but cannot exist: %s"
)

// ErrKindInactive says that the SafetyPolicy kind is not active: its CRD is
// not installed or not established, as Crossplane leaves it until a
// ManagedResourceActivationPolicy activates it. No SafetyPolicy object can
// exist then. A source of policies returns it (see AssembleInactive).
var ErrKindInactive = errors.Errorf("the SafetyPolicy kind %s is not active: activate %s with a ManagedResourceActivationPolicy, or install its CRD",
	v1alpha1.SchemeGroupVersion, v1alpha1.SafetyPolicyCRDName)

// FromObject returns the policy of a SafetyPolicy object, keyed by its UID
// and generation (by content when it has no UID).
func FromObject(sp *v1alpha1.SafetyPolicy) Policy {
	if sp.UID == "" {
		return fromContent(sp)
	}
	return Policy{Name: sp.Name, Key: fmt.Sprintf("uid:%s/%d", sp.UID, sp.Generation), Spec: *sp.Spec.DeepCopy()}
}

// ParseManifest parses one SafetyPolicy manifest, YAML or JSON, strictly:
// unknown fields are errors. The policy is keyed by a hash of its content.
func ParseManifest(doc []byte) (Policy, error) {
	sp := &v1alpha1.SafetyPolicy{}
	if err := yaml.UnmarshalStrict(doc, sp); err != nil {
		return Policy{}, errors.Wrap(err, errParseManifest)
	}
	if gvk := sp.GroupVersionKind(); gvk != v1alpha1.SafetyPolicyGroupVersionKind {
		return Policy{}, errors.Errorf(errNotPolicy, sp.APIVersion, sp.Kind, v1alpha1.SafetyPolicyGroupVersionKind)
	}
	return fromContent(sp), nil
}

// ParseBuiltin parses the manifest of a policy built into the provider,
// as ParseManifest does, and marks it built in: reviewed code that ships with
// the provider, whose expressions the engine evaluates without runtime cost
// tracking where their estimated worst-case cost is within the runtime limit
// (see WithBuiltinCosts). Only package defaults calls it; a policy from any
// other source (FromObject, ParseManifest) keeps the runtime limit. Its key
// differs from that of the same manifest parsed by ParseManifest, so the two
// never share a compiled program.
func ParseBuiltin(doc []byte) (Policy, error) {
	p, err := ParseManifest(doc)
	if err != nil {
		return Policy{}, err
	}
	p.Key, p.builtin = "builtin:"+p.Key, true
	return p, nil
}

func fromContent(sp *v1alpha1.SafetyPolicy) Policy {
	// Marshalling a spec of plain fields cannot fail.
	b, _ := json.Marshal(sp.Spec)
	sum := sha256.Sum256(append([]byte(sp.Name+"\n"), b...))
	return Policy{Name: sp.Name, Key: "sha256:" + hex.EncodeToString(sum[:]), Spec: *sp.Spec.DeepCopy()}
}

// Assemble returns the policies in effect for a cluster, sorted by name:
//
//   - every default, unless a SafetyPolicy object of the same name replaces
//     it (for every cluster);
//   - the other SafetyPolicy objects the cluster selects by name, all of
//     them when it selects none;
//   - for a selected name with no object, a policy that denies every action,
//     so that a typo cannot silently drop a guard.
func Assemble(defaults, objects []Policy, selected []string) []Policy {
	return assemble(defaults, objects, selected, func(name string) Policy {
		return absent(name, "missing:"+name, fmt.Sprintf(errMissingPolicy, name))
	})
}

// AssembleInactive returns the policies in effect for a cluster while the
// SafetyPolicy kind is not active (ErrKindInactive), so that no SafetyPolicy
// object exists: every default and, for each other name the cluster
// selects, a policy that denies every action and says that the kind is not
// active. A cluster that selects a policy is held until the kind is
// activated and the policy created, never run without it.
func AssembleInactive(defaults []Policy, selected []string) []Policy {
	return assemble(defaults, nil, selected, func(name string) Policy {
		return absent(name, "inactive:"+name, fmt.Sprintf(errInactivePolicy, name, ErrKindInactive))
	})
}

// assemble is Assemble, with the policy that stands in for a selected name
// without an object made by missing.
func assemble(defaults, objects []Policy, selected []string, missing func(name string) Policy) []Policy {
	byName := make(map[string]Policy, len(defaults)+len(objects))
	for _, p := range defaults {
		byName[p.Name] = p
	}
	isDefault := func(name string) bool {
		return slices.ContainsFunc(defaults, func(p Policy) bool { return p.Name == name })
	}
	for _, o := range objects {
		if isDefault(o.Name) || len(selected) == 0 || slices.Contains(selected, o.Name) {
			byName[o.Name] = o
		}
	}
	for _, name := range selected {
		if _, ok := byName[name]; !ok {
			byName[name] = missing(name)
		}
	}
	out := make([]Policy, 0, len(byName))
	for _, p := range byName {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Policy) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// absent is a policy that stands in for a selected name without an object:
// it applies to every action and denies it, saying why.
func absent(name, key, why string) Policy {
	return Policy{Name: name, Key: key, Spec: v1alpha1.SafetyPolicySpec{Actions: []v1alpha1.ActionType{v1alpha1.ActionAll}}, missing: why}
}

// Static is a fixed list of SafetyPolicy objects, e.g. read from files; it
// is a source of policies for a gate.
type Static []Policy

// List returns the policies.
func (s Static) List(context.Context) ([]Policy, error) { return s, nil }
