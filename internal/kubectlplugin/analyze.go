package kubectlplugin

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-foundationdb/apis/foundationdb/v1alpha1"
	"github.com/crossplane-contrib/provider-foundationdb/internal/controller/cluster"
	"github.com/crossplane-contrib/provider-foundationdb/internal/policy"
)

// Verdicts of a Report, best first.
const (
	// VerdictHealthy: Ready, up to date, every group ready, nothing waits.
	VerdictHealthy = "Healthy"
	// VerdictWorking: a step is under way and nothing denies it.
	VerdictWorking = "Working"
	// VerdictWaiting: a safety policy denies a step; the Report says which
	// rule, why and, when the clock alone ends the wait, until when.
	VerdictWaiting = "Waiting"
	// VerdictUnavailable: the Cluster is not Ready.
	VerdictUnavailable = "Unavailable"
)

// A Report is what analyze says of one Cluster: its health, what it does or
// waits for and why, and its groups that need a look.
type Report struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Verdict   string `json:"verdict"`
	// Health is what the Cluster's last status read recorded.
	Health Health `json:"health"`
	// Doing is the step the provider took last, or why it waits without a
	// policy's denial; "" when up to date or waiting on a denial.
	Doing string `json:"doing,omitempty"`
	// Waiting are the denied decisions in force: the Cluster's and its
	// groups'.
	Waiting []Wait `json:"waiting,omitempty"`
	// NotReady are the groups that are not ready, and why.
	NotReady []GroupTrouble `json:"notReady,omitempty"`
	// Removals are the groups being removed.
	Removals []Removal `json:"removals,omitempty"`
	// Disruption is the fault domain that may disrupt its pods now.
	Disruption *v1alpha1.DisruptionGrant `json:"disruption,omitempty"`
	// GlobalLock is the global lock as the Cluster last saw it held.
	GlobalLock *v1alpha1.GlobalLockObservation `json:"globalLock,omitempty"`
	// Operations are the long operations under way and how far each got.
	Operations []v1alpha1.OperationProgress `json:"operations,omitempty"`
	// Drill is the fault drill under way; nil when none is.
	Drill *v1alpha1.DrillObservation `json:"drill,omitempty"`
}

// Health is a Cluster's recorded health.
type Health struct {
	Ready                 bool         `json:"ready"`
	ReadyMessage          string       `json:"readyMessage,omitempty"`
	Available             bool         `json:"available"`
	FaultTolerance        int          `json:"faultTolerance"`
	DesiredFaultTolerance int          `json:"desiredFaultTolerance"`
	RecoveryState         string       `json:"recoveryState,omitempty"`
	LastRecovery          *metav1.Time `json:"lastRecovery,omitempty"`
	RunningVersion        string       `json:"runningVersion,omitempty"`
}

// A Wait is a denied decision in force on a resource of the Cluster.
type Wait struct {
	// Resource is Cluster/<name> or ProcessGroup/<id>.
	Resource string `json:"resource"`
	v1alpha1.PolicyDecision
}

// A GroupTrouble is a group that is not ready and why, as its conditions
// say.
type GroupTrouble struct {
	ID    string `json:"id"`
	Class string `json:"class"`
	Why   string `json:"why"`
}

// A Removal is a group being removed and how far its removal got.
type Removal struct {
	ID    string       `json:"id"`
	Class string       `json:"class"`
	Since *metav1.Time `json:"since,omitempty"`
	// ExcludedSince is when its exclusion began; nil until excluded.
	ExcludedSince *metav1.Time `json:"excludedSince,omitempty"`
	// Roles are the roles its processes still serve: a group that serves
	// none has drained.
	Roles []string `json:"roles,omitempty"`
	// Stuck is true once the removal has taken longer than stuckAfter.
	Stuck bool `json:"stuck,omitempty"`
	// BytesLeft of BytesAtExclusion are what its storage servers still
	// hold; DrainedBy is when they will hold none at the rate they have
	// drained since the exclusion, nil before they drained any.
	BytesLeft        int64        `json:"bytesLeft,omitempty"`
	BytesAtExclusion int64        `json:"bytesAtExclusion,omitempty"`
	DrainedBy        *metav1.Time `json:"drainedBy,omitempty"`
}

// stuckAfter is how long a removal may take before analyze calls it stuck:
// draining a storage server of a few hundred GiB takes tens of minutes.
const stuckAfter = 2 * time.Hour

// Analyze reports on Cluster cr and its groups at now.
func Analyze(cr *v1alpha1.Cluster, groups []v1alpha1.ProcessGroup, now time.Time) Report {
	at := cr.Status.AtProvider
	ready := cr.GetCondition(xpv2.TypeReady)
	r := Report{
		Namespace: cr.GetNamespace(), Name: cr.GetName(),
		Health: Health{
			Ready: ready.Status == corev1.ConditionTrue, ReadyMessage: ready.Message,
			Available: at.Health.Available, FaultTolerance: at.Health.FaultTolerance,
			DesiredFaultTolerance: int(policy.DesiredFaultTolerance(string(cr.Spec.ForProvider.DatabaseConfiguration.RedundancyMode))),
			RecoveryState:         at.Health.RecoveryState, LastRecovery: at.Health.LastRecoveryTime, RunningVersion: at.RunningVersion,
		},
		Disruption: at.Disruption, GlobalLock: at.GlobalLock, Operations: at.Operations,
	}
	if d := at.Drill; d != nil && !d.Ended {
		r.Drill = d
	}
	// The step's message says what it did once it ran: while its denial is
	// in force, the wait says what it would do instead.
	upToDate := cr.GetCondition(xpv2.TypeUpToDate)
	if w, ok := waiting(upToDate, at.LastPolicyDecision); ok {
		r.Waiting = append(r.Waiting, Wait{Resource: "Cluster/" + cr.GetName(), PolicyDecision: w})
	} else if upToDate.Status == corev1.ConditionFalse {
		r.Doing = upToDate.Message
	}
	slices.SortFunc(groups, func(a, b v1alpha1.ProcessGroup) int { return cmp.Compare(a.ID(), b.ID()) })
	for i := range groups {
		pg := &groups[i]
		if w, ok := waiting(pg.GetCondition(xpv2.TypeSynced), pg.Status.AtProvider.LastPolicyDecision); ok {
			r.Waiting = append(r.Waiting, Wait{Resource: "ProcessGroup/" + pg.ID(), PolicyDecision: w})
		}
		class := string(pg.Spec.ForProvider.ProcessClass)
		if why := cluster.Trouble(pg); why != "" {
			r.NotReady = append(r.NotReady, GroupTrouble{ID: pg.ID(), Class: class, Why: why})
		}
		if pg.GetDeletionTimestamp() != nil || pg.Replacing() {
			r.Removals = append(r.Removals, removal(pg, class, now))
		}
	}
	r.Verdict = verdict(r)
	return r
}

// waiting is decision d when it denied and is in force: the resource's
// condition c (UpToDate of a Cluster, Synced of a group) says its step has
// not happened.
func waiting(c xpv2.Condition, d *v1alpha1.PolicyDecision) (v1alpha1.PolicyDecision, bool) {
	if d == nil || d.Result != string(policy.ResultDenied) || c.Status != corev1.ConditionFalse {
		return v1alpha1.PolicyDecision{}, false
	}
	return *d, true
}

func removal(pg *v1alpha1.ProcessGroup, class string, now time.Time) Removal {
	at := pg.Status.AtProvider
	rm := Removal{ID: pg.ID(), Class: class, Since: at.RemovalTime, Roles: at.Roles}
	if rm.Since == nil {
		rm.Since = pg.GetDeletionTimestamp()
	}
	if at.Excluded {
		rm.ExcludedSince = at.ExclusionTime
	}
	if p := at.ExclusionProgress; p != nil {
		rm.BytesLeft, rm.BytesAtExclusion = p.BytesLeft, p.BytesAtExclusion
		rm.DrainedBy = drainedBy(p, at.ExclusionTime)
	}
	rm.Stuck = rm.Since != nil && now.Sub(rm.Since.Time) > stuckAfter
	return rm
}

// drainedBy is when an exclusion that moved p.BytesAtExclusion - p.BytesLeft
// bytes between since and p.ObservedAt moves the rest at that rate; nil
// before it moved any, or once it moved all.
func drainedBy(p *v1alpha1.ExclusionProgress, since *metav1.Time) *metav1.Time {
	moved := p.BytesAtExclusion - p.BytesLeft
	if since == nil || moved <= 0 || p.BytesLeft <= 0 {
		return nil
	}
	elapsed := p.ObservedAt.Sub(since.Time)
	if elapsed <= 0 {
		return nil
	}
	left := time.Duration(float64(elapsed) * float64(p.BytesLeft) / float64(moved))
	return &metav1.Time{Time: p.ObservedAt.Add(left).Truncate(time.Second)}
}

func verdict(r Report) string {
	switch {
	case !r.Health.Ready:
		return VerdictUnavailable
	case len(r.Waiting) > 0:
		return VerdictWaiting
	case r.Doing != "" || len(r.NotReady) > 0 || len(r.Removals) > 0 || len(r.Operations) > 0 || r.Drill != nil:
		return VerdictWorking
	}
	return VerdictHealthy
}

// NeedsAttention reports whether r is anything but healthy: what analyze's
// exit code says.
func (r Report) NeedsAttention() bool { return r.Verdict != VerdictHealthy }

// printText writes reports for a person, one block per Cluster.
func printText(w io.Writer, reports []Report, now time.Time) {
	for i, r := range reports {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s/%s: %s\n", r.Namespace, r.Name, r.Verdict)
		h := r.Health
		fmt.Fprintf(w, "  health: %s, fault tolerance %d of %d desired", availability(h), h.FaultTolerance, h.DesiredFaultTolerance)
		if h.RecoveryState != "" {
			fmt.Fprintf(w, ", recovery %s", h.RecoveryState)
		}
		if h.LastRecovery != nil {
			fmt.Fprintf(w, ", last recovery %s", stamp(h.LastRecovery.Time, now))
		}
		fmt.Fprintln(w)
		if !h.Ready && h.ReadyMessage != "" {
			fmt.Fprintf(w, "  not ready: %s\n", h.ReadyMessage)
		}
		if r.Doing != "" {
			fmt.Fprintf(w, "  doing: %s\n", r.Doing)
		}
		for _, wt := range r.Waiting {
			fmt.Fprintf(w, "  waiting (%s): %s\n", wt.Resource, wt.Message)
			fmt.Fprintf(w, "    rule %s, denied since %s", wt.Rule, stamp(wt.Time.Time, now))
			if wt.AllowedAt != nil {
				fmt.Fprintf(w, "; allowed at %s if nothing else changes", stamp(wt.AllowedAt.Time, now))
			}
			fmt.Fprintln(w)
		}
		for _, g := range r.NotReady {
			fmt.Fprintf(w, "  group %s (%s) not ready: %s\n", g.ID, g.Class, g.Why)
		}
		for _, rm := range r.Removals {
			fmt.Fprintf(w, "  removing %s (%s)%s", rm.ID, rm.Class, since(rm.Since, now))
			switch {
			case rm.ExcludedSince != nil && len(rm.Roles) > 0:
				fmt.Fprintf(w, ": excluded%s, still serves %s", since(rm.ExcludedSince, now), strings.Join(rm.Roles, ", "))
				if rm.BytesAtExclusion > 0 {
					fmt.Fprintf(w, ", %s of %s left", byteSize(rm.BytesLeft), byteSize(rm.BytesAtExclusion))
				}
				if rm.DrainedBy != nil {
					fmt.Fprintf(w, ", drained by about %s", stamp(rm.DrainedBy.Time, now))
				}
			case rm.ExcludedSince != nil:
				fmt.Fprintf(w, ": excluded%s, drained", since(rm.ExcludedSince, now))
			default:
				fmt.Fprint(w, ": not excluded yet")
			}
			if rm.Stuck {
				fmt.Fprintf(w, " (stuck: longer than %s)", stuckAfter)
			}
			fmt.Fprintln(w)
		}
		for _, op := range r.Operations {
			fmt.Fprintf(w, "  %s%s\n", operation(op), since(&op.Since, now))
		}
		if d := r.Drill; d != nil {
			fmt.Fprintf(w, "  drill %s: %s in %s%s, until %s\n", d.Name, d.Fault, strings.Join(d.ProcessGroups, ", "), since(&d.Started, now), stamp(d.Ends.Time, now))
		}
		if d := r.Disruption; d != nil {
			fmt.Fprintf(w, "  disruption grant: %s%s\n", d.Domain, since(&d.Since, now))
		}
		if l := r.GlobalLock; l != nil {
			fmt.Fprintf(w, "  global lock: held by %s until %s\n", l.Holder, stamp(l.Until.Time, now))
		}
	}
}

// table is one row per report: a fleet at a glance.
func table(reports []Report) *metav1.Table {
	t := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{
		{Name: "Namespace", Type: "string"}, {Name: "Name", Type: "string"}, {Name: "Verdict", Type: "string"},
		{Name: "Available", Type: "boolean"}, {Name: "Fault Tolerance", Type: "string"},
		{Name: "Waiting", Type: "string", Description: "the rules of the denied decisions in force"},
		{Name: "Operations", Type: "string"}, {Name: "Drill", Type: "string"},
	}}
	for _, r := range reports {
		var rules, ops []string
		for _, w := range r.Waiting {
			rules = append(rules, w.Rule)
		}
		for _, op := range r.Operations {
			ops = append(ops, fmt.Sprintf("%s %d/%d", op.Operation, op.Done, op.Total))
		}
		drill := ""
		if r.Drill != nil {
			drill = fmt.Sprintf("%s %s", r.Drill.Name, r.Drill.Fault)
		}
		t.Rows = append(t.Rows, metav1.TableRow{Cells: []any{
			r.Namespace, r.Name, r.Verdict, r.Health.Available,
			fmt.Sprintf("%d/%d", r.Health.FaultTolerance, r.Health.DesiredFaultTolerance),
			orNone(strings.Join(slices.Compact(rules), ",")), orNone(strings.Join(ops, ",")), orNone(drill),
		}})
	}
	return t
}

// orNone is s, or "<none>" as kubectl prints an empty cell.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// operation says how far op got: n of m done, a restore's in percent.
func operation(op v1alpha1.OperationProgress) string {
	switch {
	case op.Operation == v1alpha1.OperationRestore:
		return fmt.Sprintf("Restore %s: %d%% done", op.Target, op.Done)
	case op.Target != "":
		return fmt.Sprintf("%s to %s: %d of %d done", op.Operation, op.Target, op.Done, op.Total)
	}
	return fmt.Sprintf("%s: %d of %d done", op.Operation, op.Done, op.Total)
}

func availability(h Health) string {
	if h.Available {
		return "available"
	}
	return "unavailable"
}

func since(t *metav1.Time, now time.Time) string {
	if t == nil {
		return ""
	}
	return " since " + stamp(t.Time, now)
}

// stamp is t in RFC 3339 with how far from now it is: "2026-11-30T10:00:00Z
// (8m12s ago)", "(in 3m0s)".
func stamp(t, now time.Time) string {
	d := now.Sub(t).Round(time.Second)
	rel := d.String() + " ago"
	if d < 0 {
		rel = "in " + (-d).String()
	}
	return fmt.Sprintf("%s (%s)", t.UTC().Format(time.RFC3339), rel)
}

func newAnalyzeCommand(o *Options) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "analyze [CLUSTER...]",
		Short: "Say of each Cluster how it is, what it does or waits for and why",
		Long: `Say of each Cluster (all in the namespace when none is named) how it is,
what it does or waits for and why: the safety-policy decision in force with
its rule, message and, when the clock alone ends the wait, when it will be
allowed; the groups that are not ready and why; removals and how far their
exclusion got; the disruption grant and the global lock.

Exits 1 when any Cluster is not Healthy (Working, Waiting or Unavailable),
so that scripts and CI can wait on it.`,
		ValidArgsFunction: o.completeClusters,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.analyze(cmd.Context(), args, all)
		},
	}
	cmd.Flags().BoolVarP(&all, "all-namespaces", "A", false, "Analyze the Clusters of every namespace.")
	o.addOutputFlag(cmd, true)
	return cmd
}

func (o *Options) analyze(ctx context.Context, names []string, all bool) error {
	c, err := o.client()
	if err != nil {
		return err
	}
	clusters, err := o.clusters(ctx, c, names, all)
	if err != nil {
		return err
	}
	now := o.now()
	reports := make([]Report, 0, len(clusters))
	for i := range clusters {
		cr := &clusters[i]
		groups, err := groupsOf(ctx, c, cr)
		if err != nil {
			return err
		}
		reports = append(reports, Analyze(cr, groups, now))
	}
	if err := o.print(result{v: reports, text: func(w io.Writer) {
		if len(reports) == 0 {
			fmt.Fprintln(w, "no Clusters")
		}
		printText(w, reports, now)
	}, table: func() *metav1.Table { return table(reports) }}); err != nil {
		return err
	}
	if slices.ContainsFunc(reports, Report.NeedsAttention) {
		return &ExitError{Code: 1}
	}
	return nil
}

// byteSize is n in the largest binary unit that keeps it at 1 or more.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
