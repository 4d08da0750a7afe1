// Package smoke is `make smoke`: the quickstart's life on a Kubernetes
// cluster, phase by phase, bounded and measured. It installs the provider
// (a Deployment of its image with --fdb-backend=real, as the ServiceAccount
// and ClusterRole of examples/provider), creates the quickstart Cluster
// (examples/cluster.yaml) in a namespace of its own that enforces the
// "restricted" Pod Security Standard, waits until it is Ready, writes a key
// with fdbcli in one of its pods and reads it back in another, scales
// storage down by one, upgrades to another patch release, deletes the
// Cluster and waits until every object of it is gone. Every phase has a
// timeout; the first that fails ends the run, and a Report says for each
// phase how it went, how long it took and what it left: pods, processes,
// events and safety-policy decisions.
//
// In Real mode it runs against a real cluster, where the provider's pod
// reaches the FoundationDB pods and fdbcli runs in them. In Local mode it
// runs against the local kwok cluster of `make run`, where the provider
// runs beside the cluster on the simulator (internal/localrun starts it)
// and pods run no containers: every phase runs as on a real cluster, the
// install phase's Deployment too (its pod runs nothing), except the one
// that needs a container, which says so in the report rather than pass.
package smoke

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-foundationdb/internal/podexec"
	"github.com/crossplane-contrib/provider-foundationdb/internal/scheme"
)

// Mode says what kind of cluster the smoke runs against.
type Mode int

// Modes.
const (
	// Real is a Kubernetes cluster whose pods run containers: the
	// provider runs in it with the real FoundationDB tools, and fdbcli
	// runs in the database's pods.
	Real Mode = iota
	// Local is the local kwok cluster of `make run`, whose pods run no
	// containers; the provider runs beside it on the simulator.
	Local
)

// Install says how the smoke gets the provider onto the cluster.
type Install string

// Ways to install the provider.
const (
	// InstallDeployment installs the CRDs, the ServiceAccount, ClusterRole
	// and binding of examples/provider and a Deployment that runs the
	// provider's image as that ServiceAccount with --fdb-backend=real: a
	// cluster without Crossplane needs nothing else.
	InstallDeployment Install = "deployment"
	// InstallExisting uses a provider installed beforehand, e.g. as a
	// Crossplane package from examples/provider (see README, Installing on
	// a Crossplane cluster): the smoke only waits until its kinds are
	// served.
	InstallExisting Install = "existing"
)

// Timeouts bound each phase that waits.
type Timeouts struct {
	// Install waits for the provider's kinds and its Deployment.
	Install time.Duration
	// Ready waits for the new Cluster to be Ready.
	Ready time.Duration
	// Key bounds each fdbcli command.
	Key time.Duration
	// ScaleDown waits for one storage process group less.
	ScaleDown time.Duration
	// Upgrade waits for the database to run the new version.
	Upgrade time.Duration
	// Delete waits for the Cluster and its objects to go.
	Delete time.Duration
}

// DefaultTimeouts suit a real cluster that pulls the images the first
// time.
func DefaultTimeouts() Timeouts {
	return Timeouts{Install: 5 * time.Minute, Ready: 15 * time.Minute, Key: 2 * time.Minute,
		ScaleDown: 15 * time.Minute, Upgrade: 20 * time.Minute, Delete: 10 * time.Minute}
}

// Options configure a smoke run.
type Options struct {
	// Mode is the kind of cluster.
	Mode Mode
	// Config reaches the cluster's API server as a user who may install
	// the provider, manage the provider's kinds and exec into pods.
	Config *rest.Config
	// Root is the repository root: examples/ and package/crds.
	Root string
	// Install says how the provider gets onto the cluster.
	Install Install
	// ProviderImage is the provider's image (InstallDeployment); in Local
	// mode any name does, nothing pulls it.
	ProviderImage string
	// Namespace the quickstart Cluster goes into; created when missing
	// and labelled to enforce the "restricted" Pod Security Standard.
	Namespace string
	// ClusterName names the Cluster; one of that name must not exist.
	ClusterName string
	// Version the Cluster starts at and UpgradeTo the version it is
	// upgraded to (a patch release of the same major.minor upgrades in
	// place).
	Version, UpgradeTo string
	// ImageRepository is the FoundationDB image repository
	// (spec.forProvider.image.repository); empty keeps the Cluster's
	// default, foundationdb/fdb-kubernetes-monitor.
	ImageRepository string
	// FaultDomainKey overrides the example's node label of fault domains
	// (topology.kubernetes.io/zone) when set, e.g. kubernetes.io/hostname
	// on a cluster with fewer than five zones.
	FaultDomainKey string
	// StorageClass names the storage class of the data volumes; empty
	// keeps the cluster's default.
	StorageClass string
	// Timeouts bound the phases.
	Timeouts Timeouts
	// Poll is how often a wait looks again.
	Poll time.Duration
	// Out receives a line per phase and per change while a phase waits.
	Out io.Writer
	// Exec runs a command in a pod's container (Real mode); nil uses the
	// API server's pods/exec.
	Exec podexec.Exec
}

// Run runs the phases in order, stops at the first that fails, and returns
// the report of every phase (those after a failure as not run) and the
// failure, which names its phase.
func Run(ctx context.Context, o Options) (Report, error) {
	s, err := scheme.New()
	if err != nil {
		return nil, err
	}
	c, err := client.New(o.Config, client.Options{Scheme: s})
	if err != nil {
		return nil, fmt.Errorf("cannot create client: %w", err)
	}
	if o.Exec == nil && o.Mode == Real {
		if o.Exec, err = podexec.New(o.Config); err != nil {
			return nil, err
		}
	}
	return newRunner(c, o).run(ctx)
}

// runner is one smoke run: the client, the options and what the phases
// learn as they go.
type runner struct {
	c    client.Client
	o    Options
	seen *observer
	// storage is the number of storage process groups the Cluster was
	// created with.
	storage int
}

func newRunner(c client.Client, o Options) *runner {
	return &runner{c: c, o: o, seen: newObserver(c, o.Namespace, o.ClusterName)}
}

// phase is one step of the run: do returns a note for the report, or the
// error that fails the phase; skipped phases return errSkipped.
type phase struct {
	name string
	do   func(ctx context.Context) (string, error)
}

func (r *runner) phases() []phase {
	return []phase{
		{"install the provider", r.install},
		{"create the quickstart Cluster", r.create},
		{"wait for Ready", r.waitReady},
		{"write and read a key with fdbcli", r.key},
		{"scale storage down by one", r.scaleDown},
		{fmt.Sprintf("upgrade %s -> %s", r.o.Version, r.o.UpgradeTo), r.upgrade},
		{"delete the Cluster", r.delete},
	}
}

func (r *runner) run(ctx context.Context) (Report, error) {
	phases := r.phases()
	report := make(Report, 0, len(phases))
	var failed error
	for _, p := range phases {
		if failed != nil {
			report = append(report, Result{Phase: p.name, Status: NotRun})
			continue
		}
		fmt.Fprintf(r.o.Out, "==> %s\n", p.name)
		r.seen.start()
		start := time.Now()
		note, err := p.do(ctx)
		res := Result{Phase: p.name, Status: OK, Note: note, Took: time.Since(start)}
		var skip *skipped
		switch {
		case asSkipped(err, &skip):
			res.Status, res.Note = Skipped, skip.Error()
		case err != nil:
			res.Status, res.Note = Failed, err.Error()
			failed = fmt.Errorf("phase %q failed after %s: %w", p.name, res.Took.Round(time.Second), err)
		}
		// Counts are best effort: a phase's outcome never hangs on them.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		res.Counts, _ = r.seen.counts(cctx)
		cancel()
		fmt.Fprintf(r.o.Out, "    %s in %s\n", res.Status, res.Took.Round(100*time.Millisecond))
		report = append(report, res)
	}
	return report, failed
}

// waitFor polls cond every Options.Poll until it holds, fails, or timeout
// passes; each poll also records the policy decisions in sight, and a
// changed description of the state is printed. The error on timeout says
// what was last seen.
func (r *runner) waitFor(ctx context.Context, timeout time.Duration, cond func(ctx context.Context) (bool, string, error)) error {
	start := time.Now()
	var last string
	err := wait.PollUntilContextTimeout(ctx, r.o.Poll, timeout, true, func(ctx context.Context) (bool, error) {
		r.seen.observe(ctx)
		done, why, err := cond(ctx)
		if why != last {
			fmt.Fprintf(r.o.Out, "    [%5s] %s\n", time.Since(start).Round(time.Second), why)
			last = why
		}
		return done, err
	})
	if err != nil && wait.Interrupted(err) {
		return fmt.Errorf("not done within %s; last seen: %s", timeout, last)
	}
	return err
}
