// Command smoke is `make smoke`: the quickstart's life on a real
// Kubernetes cluster — install the provider with --fdb-backend=real,
// create the quickstart Cluster, wait for Ready, write and read a key with
// fdbcli in its pods, scale storage down by one, upgrade to another patch
// release, delete it — with a table of each phase's time and counts (see
// internal/smoke). It exits 1 on the first phase that fails, naming it.
//
//	smoke --kubeconfig FILE --provider-image IMAGE [flags]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/crossplane-contrib/provider-foundationdb/internal/smoke"
)

func main() {
	o := smoke.Options{Mode: smoke.Real, Root: ".", Timeouts: smoke.DefaultTimeouts(), Poll: 2 * time.Second, Out: os.Stdout}
	var kubeconfig, install string
	fs := flag.NewFlagSet("smoke", flag.ExitOnError)
	fs.StringVar(&kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "The kubeconfig of the cluster (its current context); its user installs the provider, manages its kinds and execs into pods.")
	fs.StringVar(&install, "install", string(smoke.InstallDeployment), "How the provider gets onto the cluster: deployment (the CRDs, examples/provider's ServiceAccount and ClusterRole, and a Deployment of --provider-image) or existing (installed beforehand, e.g. as a Crossplane package).")
	fs.StringVar(&o.ProviderImage, "provider-image", "", "The provider's image (cluster/images/provider-foundationdb), with --install=deployment.")
	fs.StringVar(&o.ImageRepository, "fdb-image-repository", "", "The FoundationDB image repository (spec.forProvider.image.repository): an fdb-kubernetes-monitor image tagged with each version; empty keeps foundationdb/fdb-kubernetes-monitor.")
	fs.StringVar(&o.Version, "version", "7.3.63", "The FoundationDB version the Cluster starts at.")
	fs.StringVar(&o.UpgradeTo, "upgrade-to", "7.3.69", "The FoundationDB version the Cluster upgrades to.")
	fs.StringVar(&o.Namespace, "namespace", "fdb-smoke", "The namespace of the Cluster; created when missing, and labelled to enforce the restricted Pod Security Standard.")
	fs.StringVar(&o.ClusterName, "cluster-name", "quickstart", "The name of the Cluster; one of that name must not exist.")
	fs.StringVar(&o.FaultDomainKey, "fault-domain-key", "", "The node label of fault domains; empty keeps the example's topology.kubernetes.io/zone (five zones), kubernetes.io/hostname needs five nodes.")
	fs.StringVar(&o.StorageClass, "storage-class", "", "The storage class of the data volumes; empty keeps the cluster's default.")
	fs.DurationVar(&o.Timeouts.Install, "install-timeout", o.Timeouts.Install, "How long the provider may take to be available and serve its kinds.")
	fs.DurationVar(&o.Timeouts.Ready, "ready-timeout", o.Timeouts.Ready, "How long the new Cluster may take to be Ready.")
	fs.DurationVar(&o.Timeouts.Key, "key-timeout", o.Timeouts.Key, "How long each fdbcli command in a pod may take.")
	fs.DurationVar(&o.Timeouts.ScaleDown, "scale-down-timeout", o.Timeouts.ScaleDown, "How long scaling storage down by one may take.")
	fs.DurationVar(&o.Timeouts.Upgrade, "upgrade-timeout", o.Timeouts.Upgrade, "How long the upgrade may take.")
	fs.DurationVar(&o.Timeouts.Delete, "delete-timeout", o.Timeouts.Delete, "How long the Cluster and its objects may take to go.")
	_ = fs.Parse(os.Args[1:])
	o.Install = smoke.Install(install)

	switch {
	case kubeconfig == "":
		usage("no kubeconfig: set KUBECONFIG or --kubeconfig to the cluster's")
	case o.Install == smoke.InstallDeployment && o.ProviderImage == "":
		usage("no provider image: set --provider-image (make smoke PROVIDER_IMAGE=...), or --install=existing for a provider installed beforehand")
	case o.Install != smoke.InstallDeployment && o.Install != smoke.InstallExisting:
		usage(fmt.Sprintf("--install must be %s or %s, not %q", smoke.InstallDeployment, smoke.InstallExisting, install))
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		usage("cannot load kubeconfig: " + err.Error())
	}
	o.Config = cfg

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	report, err := smoke.Run(ctx, o)
	fmt.Println()
	if werr := report.Write(os.Stdout); werr != nil {
		fmt.Fprintln(os.Stderr, "smoke: cannot print the report:", werr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "smoke:", err)
		os.Exit(1)
	}
}

// usage says what is wrong with the command line and exits 2.
func usage(msg string) {
	fmt.Fprintln(os.Stderr, "smoke:", msg)
	os.Exit(2)
}
