package composition

import (
	"fmt"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/crossplane/function-sdk-go/resource"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
)

// Topologies an FDBDatabase may ask for.
const (
	TopologySingle        = "single"
	TopologyMultiRegion   = "multi-region"
	TopologyThreeDataHall = "three-data-hall"
)

// Regions of a multi-region FDBDatabase.
const (
	RegionPrimary = "primary"
	RegionRemote  = "remote"
)

// Site is one data center of a multi-region FDBDatabase, or one data hall
// of a three-data-hall one: each is a Cluster, in the Kubernetes cluster
// its ProviderConfig names.
type Site struct {
	// ID is the data center's or data hall's ID.
	ID string `json:"id"`
	// Region is primary or remote (multi-region).
	Region string `json:"region,omitempty"`
	// Satellite makes the data center hold transaction logs only, for
	// its region's main data center (multi-region).
	Satellite bool `json:"satellite,omitempty"`
	// ProviderConfigRef names the Kubernetes cluster the site runs in;
	// the FDBDatabase's when unset.
	ProviderConfigRef *xpv2.ProviderConfigReference `json:"providerConfigRef,omitempty"`
}

// Member is one Cluster of a database of several.
type Member struct {
	// Name is the composed resource's name.
	Name    resource.Name
	Cluster *v1alpha1.Cluster
}

// ValidateSites checks the sites of a topology, naming the field at fault:
// multi-region needs one main data center in each of the primary and the
// remote region, three-data-hall three halls; IDs are unique.
func ValidateSites(topology string, sites []Site) error {
	seen := map[string]bool{}
	for i, s := range sites {
		if s.ID == "" || seen[s.ID] {
			return fmt.Errorf("spec.sites[%d].id: %q is empty or used twice", i, s.ID)
		}
		seen[s.ID] = true
	}
	switch topology {
	case "", TopologySingle:
		if len(sites) > 0 {
			return fmt.Errorf("spec.sites: a single-site database has none, topology %q", topology)
		}
	case TopologyMultiRegion:
		mains := map[string]int{}
		for i, s := range sites {
			if s.Region != RegionPrimary && s.Region != RegionRemote {
				return fmt.Errorf("spec.sites[%d].region: %q is neither %s nor %s", i, s.Region, RegionPrimary, RegionRemote)
			}
			if !s.Satellite {
				mains[s.Region]++
			}
		}
		if mains[RegionPrimary] != 1 || mains[RegionRemote] != 1 {
			return fmt.Errorf("spec.sites: multi-region needs exactly one main (not satellite) data center in each region, has %d primary and %d remote", mains[RegionPrimary], mains[RegionRemote])
		}
	case TopologyThreeDataHall:
		if len(sites) != 3 {
			return fmt.Errorf("spec.sites: three-data-hall needs three data halls, has %d", len(sites))
		}
	default:
		return fmt.Errorf("spec.topology: %q is not %s, %s or %s", topology, TopologySingle, TopologyMultiRegion, TopologyThreeDataHall)
	}
	return nil
}

// Members turns the database's first Cluster, composed by Compose, into
// one per site: the first (the primary's main data center, or the first
// hall) makes the database; the others join it by seed, its connection
// string, and are composed only once it is known. Satellites run
// transaction logs only. Without sites the first Cluster is the only one.
func Members(first *v1alpha1.Cluster, p Parameters, seed string) []Member {
	if len(p.Sites) == 0 {
		return []Member{{Name: ResourceCluster, Cluster: first}}
	}
	sites := ordered(p)
	regions := regionsOf(sites)
	var out []Member
	for i, s := range sites {
		c := first.DeepCopy()
		c.SetName(siteClusterName(first.GetName(), s))
		if s.ProviderConfigRef != nil {
			c.Spec.ProviderConfigReference = s.ProviderConfigRef
		}
		fp := &c.Spec.ForProvider
		switch p.Topology {
		case TopologyMultiRegion:
			fp.DataCenter = s.ID
			fp.DatabaseConfiguration.Regions, fp.DatabaseConfiguration.UsableRegions = regions, 2
			if s.Satellite {
				fp.ProcessCounts = v1alpha1.ProcessCounts{Log: fp.ProcessCounts.Log}
			}
		case TopologyThreeDataHall:
			fp.DataHall = s.ID
			fp.DatabaseConfiguration.RedundancyMode = v1alpha1.RedundancyThreeDataHall
		}
		name := ResourceCluster
		if i > 0 {
			if seed == "" {
				continue
			}
			fp.SeedConnectionString = seed
			c.Spec.WriteConnectionSecretToReference = nil
			name = resource.Name(string(ResourceCluster) + "-" + s.ID)
		}
		out = append(out, Member{Name: name, Cluster: c})
	}
	return out
}

// siteClusterName is the name of the Cluster of site s of database name.
func siteClusterName(name string, s Site) string { return name + "-" + s.ID }

// clusterNames are the names of every Cluster of database name: its own
// without sites, else one per site.
func clusterNames(name string, sites []Site) []string {
	if len(sites) == 0 {
		return []string{name}
	}
	out := make([]string, 0, len(sites))
	for _, s := range sites {
		out = append(out, siteClusterName(name, s))
	}
	return out
}

// ordered returns the sites with the one that makes the database first:
// the primary's main data center, or the first hall.
func ordered(p Parameters) []Site {
	out := make([]Site, 0, len(p.Sites))
	for _, s := range p.Sites {
		if p.Topology != TopologyMultiRegion || s.Region == RegionPrimary && !s.Satellite {
			out = append(out, s)
			break
		}
	}
	for _, s := range p.Sites {
		if s.ID != out[0].ID {
			out = append(out, s)
		}
	}
	return out
}

// regionsOf is the region configuration of a multi-region database: the
// primary region at priority 1, the remote at 0, satellites at 1 beside
// their main data center, each with one_satellite_double.
func regionsOf(sites []Site) []v1alpha1.Region {
	var out []v1alpha1.Region
	for _, region := range []string{RegionPrimary, RegionRemote} {
		r := v1alpha1.Region{}
		priority := 0
		if region == RegionPrimary {
			priority = 1
		}
		for _, s := range sites {
			if s.Region != region {
				continue
			}
			dc := v1alpha1.RegionDataCenter{ID: s.ID, Priority: priority, Satellite: s.Satellite}
			if s.Satellite {
				dc.Priority, r.SatelliteRedundancyMode = 1, "one_satellite_double"
				r.DataCenters = append(r.DataCenters, dc)
				continue
			}
			r.DataCenters = append([]v1alpha1.RegionDataCenter{dc}, r.DataCenters...)
		}
		out = append(out, r)
	}
	return out
}
