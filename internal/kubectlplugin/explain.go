package kubectlplugin

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	apiv1alpha1 "github.com/crossplane-contrib/provider-foundationdb/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/defaults"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy/suite"
)

func newExplainCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "explain CLUSTER [ACTION [TARGET...]]",
		Short: "Decide a Cluster's action here, on the facts its status records, and show how",
		Long: `Decide the Cluster's action (the one its last decision was on, or ACTION
on TARGETs, e.g. Exclude storage-3) with the safety policies in force: the
defaults and this cluster's SafetyPolicies, as the Cluster selects them. The
facts are those the provider recorded in the Cluster's and its groups'
status; what no status records (data in flight, whether a group drained)
is as a decision without a status sees it. Prints each policy's
evaluation and, for a denial the clock alone ends, when it would be
allowed.`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: o.completeClusters,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.explain(cmd.Context(), args[0], args[1:])
		},
	}
	o.addOutputFlag(cmd, false)
	return cmd
}

// Explanation is what explain prints with -o yaml or json.
type Explanation struct {
	Decision policy.Decision `json:"decision"`
	// AllowedAt is when the clock alone would allow a denied action.
	AllowedAt string `json:"allowedAt,omitempty"`
	// Unobserved is true when the Cluster's last reconcile read no status:
	// the provider denies actions that need one (provider/status-observed).
	Unobserved bool `json:"unobserved,omitempty"`
	// Unrecorded are the input fields no status records.
	Unrecorded []string `json:"unrecorded"`
}

func (o *Options) explain(ctx context.Context, name string, action []string) error {
	c, cr, err := o.cluster(ctx, name)
	if err != nil {
		return err
	}
	a, err := actionToExplain(cr, action)
	if err != nil {
		return err
	}
	groups, err := groupsOf(ctx, c, cr)
	if err != nil {
		return err
	}
	now := o.now()
	in, err := policy.Recorded(cr, groups, now, a)
	if err != nil {
		return fmt.Errorf("cannot build the input of the decision: %w", err)
	}
	r, err := runner(ctx, c)
	if err != nil {
		return err
	}
	x := Explanation{Decision: r.Decide(ctx, now, in), Unobserved: !in.Observed && a.RequiresStatus(), Unrecorded: policy.Unrecorded}
	if x.Decision.Result == policy.ResultDenied {
		if after, ok := r.AllowedAfter(ctx, now, in); ok {
			x.AllowedAt = stamp(now.Add(after), now)
		}
	}
	return o.print(result{v: x, text: func(w io.Writer) {
		suite.PrintTrace(w, x.Decision)
		if x.AllowedAt != "" {
			fmt.Fprintf(w, "\nALLOWED AT: %s if nothing but the clock changes\n", x.AllowedAt)
		}
		if x.Unobserved {
			fmt.Fprintln(w, "\nThe Cluster's last reconcile read no database status: the provider denies this action (provider/status-observed) until one does.")
		}
		fmt.Fprintf(w, "\nFacts from the recorded status; no status records %s.\n", strings.Join(x.Unrecorded, ", "))
	}})
}

// actionToExplain is the action args name (TYPE TARGET...), else the one
// the Cluster's last decision was on.
func actionToExplain(cr *v1alpha1.Cluster, args []string) (policy.Action, error) {
	if len(args) > 0 {
		return policy.Action{Type: apiv1alpha1.ActionType(args[0]), Targets: args[1:]}, nil
	}
	d := cr.Status.AtProvider.LastPolicyDecision
	if d == nil {
		return policy.Action{}, fmt.Errorf("the Cluster %s recorded no decision: name an action, e.g. Exclude storage-3", cr.GetName())
	}
	return policy.Action{Type: apiv1alpha1.ActionType(d.Action), Targets: d.Targets}, nil
}

// runner decides with the default policies and the cluster's
// SafetyPolicies: the defaults alone where the kind is not installed.
func runner(ctx context.Context, c client.Client) (*suite.Runner, error) {
	d, err := defaults.Policies()
	if err != nil {
		return nil, err
	}
	list := &apiv1alpha1.SafetyPolicyList{}
	err = c.List(ctx, list)
	if err != nil && !meta.IsNoMatchError(err) && !kerrors.IsNotFound(err) {
		return nil, fmt.Errorf("cannot list SafetyPolicies: %w", err)
	}
	objects := make([]policy.Policy, 0, len(list.Items))
	for i := range list.Items {
		objects = append(objects, policy.FromObject(&list.Items[i]))
	}
	return suite.NewRunner(d, objects)
}

func newPolicyCommand(o *Options) *cobra.Command {
	cmd := &cobra.Command{Use: "policy", Short: "Safety policies as code"}
	cmd.AddCommand(&cobra.Command{
		Use:   "test DIR...",
		Short: "Run the PolicyTest files of each directory; no cluster needed",
		Long: `Run the PolicyTest files of each directory against the default policies and
the directory's SafetyPolicy manifests (as fdbpolicy test does). Exits 1
when a test fails.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			d, err := defaults.Policies()
			if err != nil {
				return err
			}
			failed, err := suite.TestDirs(cmd.Context(), d, dirs, o.Streams.Out)
			if err != nil {
				return err
			}
			if failed > 0 {
				return &ExitError{Code: 1}
			}
			return nil
		},
	})
	return cmd
}
