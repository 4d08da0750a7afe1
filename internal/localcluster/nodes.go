package localcluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Node labels and annotations.
const (
	// ZoneLabel carries a node's zone; the provider spreads process groups
	// over its values.
	ZoneLabel = "topology.kubernetes.io/zone"
	// kwokNodeAnnotation marks the nodes the kwok controller manages: it
	// keeps them Ready and runs their pods (Running, with an IP).
	kwokNodeAnnotation = "kwok.x-k8s.io/node"
)

// Zones names n zones zone-a, zone-b, ...
func Zones(n int) []string {
	zones := make([]string, n)
	for i := range zones {
		zones[i] = fmt.Sprintf("zone-%c", 'a'+i)
	}
	return zones
}

// Node is the fake node number i of a zone (index zi in the zone list). Its
// pod CIDR is its own, so every pod gets a distinct IP.
func Node(zone string, zi, i int) *corev1.Node {
	name := fmt.Sprintf("node-%s-%d", zone, i)
	capacity := corev1.ResourceList{
		// Room for the requests of the 80 pods a node takes in the fleet
		// benchmark (a core and 4 GiB per storage process).
		corev1.ResourceCPU:    resource.MustParse("128"),
		corev1.ResourceMemory: resource.MustParse("1Ti"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	cidr := fmt.Sprintf("10.%d.%d.0/24", 100+zi, i)
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				ZoneLabel:                     zone,
				"kubernetes.io/hostname":      name,
				"kubernetes.io/os":            "linux",
				"kubernetes.io/arch":          "amd64",
				"node-role.kubernetes.io/fdb": "",
			},
			Annotations: map[string]string{kwokNodeAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"},
		},
		Spec:   corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

// CreateNodes creates perZone fake nodes in each zone; nodes that exist
// already are kept.
func CreateNodes(ctx context.Context, c client.Client, zones []string, perZone int) error {
	for zi, z := range zones {
		for i := 0; i < perZone; i++ {
			n := Node(z, zi, i)
			if err := c.Create(ctx, n); client.IgnoreAlreadyExists(err) != nil {
				return fmt.Errorf("cannot create node %s: %w", n.Name, err)
			}
		}
	}
	return nil
}
