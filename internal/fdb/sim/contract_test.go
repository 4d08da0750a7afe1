package sim_test

import (
	"testing"

	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb/fdbtest"
)

func TestContract(t *testing.T) {
	fdbtest.RunContract(t, func(_ *testing.T, c *fdbtest.Cluster) fdb.Client { return c.Sim })
}
