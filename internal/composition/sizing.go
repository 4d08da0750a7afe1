// Package composition is the composition function behind the FDBDatabase
// self-service API (examples/composition): from an FDBDatabase's size,
// redundancy, deletion protection, backup switch and target ProviderConfig
// it composes a FoundationDB Cluster (with its cluster-file Secret and its
// NetworkPolicy, networkpolicy.go), the safety policies bound to it,
// optionally a Backup, and, for a database
// with TLS whose certificates cert-manager issues, the cert-manager
// Certificates of its processes and clients (tls.go). It chooses the
// redundancy from the number of zones the nodes span when asked to, never
// below what the database runs, and marks what it composed ready once the
// provider says so.
package composition

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// Size is a t-shirt size of a database.
type Size string

// Sizes.
const (
	SizeSmall  Size = "small"
	SizeMedium Size = "medium"
	SizeLarge  Size = "large"
)

// Shape is what a size means.
type Shape struct {
	Counts               v1alpha1.ProcessCounts
	StorageServersPerPod int
	VolumeSize           resource.Quantity
	BackupAgents         int
}

// shapes are the process counts and volumes of each size. Every size has
// enough stateful process groups for five coordinators in five zones.
var shapes = map[Size]Shape{
	SizeSmall:  {Counts: v1alpha1.ProcessCounts{Storage: 3, Log: 4, Stateless: 2}, StorageServersPerPod: 1, VolumeSize: resource.MustParse("16Gi"), BackupAgents: 1},
	SizeMedium: {Counts: v1alpha1.ProcessCounts{Storage: 6, Log: 4, Stateless: 4}, StorageServersPerPod: 1, VolumeSize: resource.MustParse("128Gi"), BackupAgents: 2},
	SizeLarge:  {Counts: v1alpha1.ProcessCounts{Storage: 12, Log: 6, Stateless: 8}, StorageServersPerPod: 2, VolumeSize: resource.MustParse("512Gi"), BackupAgents: 4},
}

// ShapeOf returns the shape of a size.
func ShapeOf(s Size) (Shape, error) {
	sh, ok := shapes[s]
	if !ok {
		return Shape{}, fmt.Errorf("cannot size database: unknown size %q, want small, medium or large", s)
	}
	return sh, nil
}

// RedundancyAuto asks the function to choose the redundancy from the zones.
const RedundancyAuto = "auto"

// zonesNeeded is how many zones each redundancy mode needs: the provider
// puts every coordinator in its own zone (1, 3 and 5 coordinators).
var zonesNeeded = []struct {
	mode  v1alpha1.RedundancyMode
	zones int
}{
	{v1alpha1.RedundancyTriple, 5},
	{v1alpha1.RedundancyDouble, 3},
	{v1alpha1.RedundancySingle, 1},
}

// faultTolerance ranks the redundancy modes by how many zones they survive
// losing.
var faultTolerance = map[v1alpha1.RedundancyMode]int{
	v1alpha1.RedundancySingle:        0,
	v1alpha1.RedundancyDouble:        1,
	v1alpha1.RedundancyTriple:        2,
	v1alpha1.RedundancyThreeDataHall: 2,
}

// ChooseRedundancy returns the redundancy mode for a request ("auto" or "",
// single, double, triple) given the number of zones the nodes of this
// cluster span (negative when no node is visible) and the mode the composed
// Cluster runs ("" when there is none yet).
//
// Auto takes the most redundant mode the zones allow, but never less than
// the Cluster runs: nodes of a zone that are gone for a while (drained,
// replaced) must not lower the database's fault tolerance, so the running
// mode is kept and the warning says why. Raising it is automatic; lowering
// it takes an explicit mode.
//
// An explicit mode is taken as asked, since the database may go to another
// cluster through its ProviderConfig; when this cluster's zones are too few
// for it, the warning says so. Whether a lower explicit mode may be applied
// is the provider's safety policies' to decide.
func ChooseRedundancy(requested string, zones int, running v1alpha1.RedundancyMode) (mode v1alpha1.RedundancyMode, warning string, err error) {
	if requested == "" || requested == RedundancyAuto {
		if zones < 0 {
			return "", "", fmt.Errorf("cannot choose redundancy: no nodes are visible; set spec.redundancy")
		}
		for _, z := range zonesNeeded {
			if zones < z.zones {
				continue
			}
			if r, ok := faultTolerance[running]; ok && r > faultTolerance[z.mode] {
				warning = fmt.Sprintf("redundancy auto: the nodes of this cluster span %d zones, enough for %s, but the database runs %s; keeping %s (set spec.redundancy to %s to lower it)", zones, z.mode, running, running, z.mode)
				return running, warning, nil
			}
			return z.mode, "", nil
		}
		return "", "", fmt.Errorf("cannot choose redundancy: no node has a zone label")
	}
	for _, z := range zonesNeeded {
		if string(z.mode) != requested {
			continue
		}
		if zones >= 0 && zones < z.zones {
			warning = fmt.Sprintf("redundancy %s needs %d zones and the nodes of this cluster span %d: the database will not become ready here", requested, z.zones, zones)
		}
		return z.mode, warning, nil
	}
	return "", "", fmt.Errorf("cannot use redundancy %q: want auto, single, double or triple", requested)
}
