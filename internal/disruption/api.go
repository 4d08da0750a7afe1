package disruption

import (
	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// FromAPI is the grant a Cluster's status records; nil when it records
// none.
func FromAPI(g *v1alpha1.DisruptionGrant) *Grant {
	if g == nil {
		return nil
	}
	return &Grant{Domain: g.Domain, Generation: g.Generation, VolatileFirst: g.VolatileFirst, DisruptedOnly: g.DisruptedOnly}
}
