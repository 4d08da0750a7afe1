package composition

import (
	"bytes"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// Input kind of the function, the input of a Composition step.
const (
	InputAPIVersion = "fdbdatabase.fn.foundationdb.crossplane.io/v1alpha1"
	InputKind       = "Input"
)

// Input is what the platform team fixes for every FDBDatabase of a
// Composition.
type Input struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Version of FoundationDB for new databases.
	Version string `json:"version,omitempty"`
	// ZoneLabel is the node label holding the zone.
	ZoneLabel string `json:"zoneLabel,omitempty"`
	// SafetyPolicies are bound to every database, besides the defaults.
	SafetyPolicies []string `json:"safetyPolicies,omitempty"`
	// BlobStore is where backups go; backupName is set per database.
	BlobStore *v1alpha1.BlobStore `json:"blobStore,omitempty"`
	// TLS is the platform's default issuer and the lifetime of the
	// certificates the function has cert-manager issue.
	TLS TLSDefaults `json:"tls,omitempty"`
	// NetworkPolicy is what every database's NetworkPolicy admits besides
	// what the database names.
	NetworkPolicy NetworkPolicyDefaults `json:"networkPolicy,omitempty"`
}

// Input defaults.
const (
	DefaultVersion   = "7.3.63"
	DefaultZoneLabel = "topology.kubernetes.io/zone"
)

// ParseInput reads a step's input strictly (an unknown field is an error,
// so a typo cannot go unnoticed) and fills in the defaults. No input is all
// defaults.
func ParseInput(s *structpb.Struct) (Input, error) {
	in := Input{}
	if s != nil {
		b, err := s.MarshalJSON()
		if err != nil {
			return in, fmt.Errorf("cannot read function input: %w", err)
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(&in); err != nil {
			return in, fmt.Errorf("cannot read function input: %w", err)
		}
		if in.APIVersion != InputAPIVersion || in.Kind != InputKind {
			return in, fmt.Errorf("cannot read function input: want %s %s, not %s %s", InputAPIVersion, InputKind, in.APIVersion, in.Kind)
		}
	}
	if in.Version == "" {
		in.Version = DefaultVersion
	}
	if in.ZoneLabel == "" {
		in.ZoneLabel = DefaultZoneLabel
	}
	if err := DefaultTLS(&in.TLS); err != nil {
		return in, fmt.Errorf("cannot read function input: %w", err)
	}
	return in, nil
}
