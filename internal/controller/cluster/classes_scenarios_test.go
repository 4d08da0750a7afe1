package cluster_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/fdb"
)

// TestRoleClassGroups: a Cluster with groups of the commit_proxy and
// coordinator classes comes up with the commit proxies on the first and
// the coordinators on the second, which serve nothing else.
func TestRoleClassGroups(t *testing.T) {
	start(t)
	ctx := context.Background()
	h.Flow(true)
	cr := tripleCluster(namespace(t, "role-classes"))
	cr.Spec.ForProvider.ProcessCounts.CommitProxy = 2
	cr.Spec.ForProvider.ProcessCounts.Coordinator = 5
	createReady(t, cr)
	db := h.Sim(t, cr)
	eventually(t, 60*time.Second, "commit proxies on commit_proxy groups, coordinators on coordinator groups", func() (bool, string) {
		st, err := db.Status(ctx)
		if err != nil {
			return false, err.Error()
		}
		var wrong []string
		for id, p := range st.Cluster.Processes {
			var roles []string
			for _, r := range p.Roles {
				roles = append(roles, r.Role)
			}
			switch {
			case p.ClassType == string(v1alpha1.ProcessClassCoordinator) && !slices.Equal(roles, []string{fdb.RoleCoordinator}):
				wrong = append(wrong, fmt.Sprintf("%s (coordinator class) serves %v", id, roles))
			case p.ClassType != string(v1alpha1.ProcessClassCoordinator) && slices.Contains(roles, fdb.RoleCoordinator):
				wrong = append(wrong, fmt.Sprintf("%s (%s) is a coordinator", id, p.ClassType))
			case slices.Contains(roles, fdb.RoleCommitProxy) != (p.ClassType == string(v1alpha1.ProcessClassCommitProxy)):
				wrong = append(wrong, fmt.Sprintf("%s (%s) serves %v", id, p.ClassType, roles))
			}
		}
		slices.Sort(wrong)
		return len(wrong) == 0, strings.Join(wrong, "; ")
	})
	if v := db.Check(); len(v) != 0 {
		t.Errorf("the simulator reports %v", v)
	}
}
