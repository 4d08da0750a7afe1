// Package kubectlplugin is `kubectl foundationdb`: it says why a database
// waits (analyze), and writes only what the provider already honours (an
// annotation, a spec field, a cordon), so that every step it asks for still
// passes the safety policies. The kubeconfig flags, -n and shell completion
// follow kubectl's (k8s.io/cli-runtime, cobra).
package kubectlplugin

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/crossplane-contrib/provider-foundationdb/internal/scheme"
)

// Output formats of -o.
const (
	OutputText  = "text"
	OutputTable = "table"
	OutputYAML  = "yaml"
	OutputJSON  = "json"
)

// ExitError is an exit code other than 0 with nothing to print: analyze's
// "something needs a person".
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit code %d", e.Code) }

// Options are what every command shares.
type Options struct {
	Streams genericiooptions.IOStreams
	Flags   *genericclioptions.ConfigFlags
	Clock   clock.PassiveClock
	// Output is -o.
	Output string
}

// NewCommand returns the plugin's root command. name is how it is invoked:
// "kubectl foundationdb" as a kubectl plugin; clk tells the time.
func NewCommand(name string, streams genericiooptions.IOStreams, clk clock.PassiveClock) *cobra.Command {
	o := &Options{Streams: streams, Flags: genericclioptions.NewConfigFlags(true), Clock: clk}
	root := &cobra.Command{
		Use:   name,
		Short: "Operate FoundationDB databases run by provider-foundationdb",
		Long: `Operate FoundationDB databases run by provider-foundationdb.

Every command that changes something writes only what the provider honours
(an annotation, a spec field, a cordon): the provider still passes each step
through the safety policies, and says here why one waits.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	o.Flags.AddFlags(root.PersistentFlags())
	root.AddCommand(newAnalyzeCommand(o), newExplainCommand(o), newReplaceCommand(o), newRestartCommand(o), newCordonCommand(o), newDrillCommand(o), newExecCommand(o), newPolicyCommand(o))
	return root
}

// client is a client of the cluster the kubeconfig flags name.
func (o *Options) client() (client.Client, error) {
	cfg, err := o.Flags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("cannot load the kubeconfig: %w", err)
	}
	s, err := scheme.New()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return nil, fmt.Errorf("cannot create a client: %w", err)
	}
	return c, nil
}

// namespace is -n, else the kubeconfig context's namespace.
func (o *Options) namespace() (string, error) {
	ns, _, err := o.Flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", fmt.Errorf("cannot tell the namespace: %w", err)
	}
	return ns, nil
}

// addOutputFlag adds -o with the formats a command prints: text, yaml and
// json, and table for a command that prints one.
func (o *Options) addOutputFlag(cmd *cobra.Command, table bool) {
	formats := []string{OutputText, OutputYAML, OutputJSON}
	if table {
		formats = []string{OutputText, OutputTable, OutputYAML, OutputJSON}
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", OutputText, "Output format: "+strings.Join(formats, ", ")+".")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// A result is what a command prints: v as yaml or json, text as text,
// table (nil for a command without one) as a table.
type result struct {
	v     any
	text  func(io.Writer)
	table func() *metav1.Table
}

// print writes r as -o says.
func (o *Options) print(r result) error {
	switch o.Output {
	case OutputText, "":
		r.text(o.Streams.Out)
		return nil
	case OutputYAML:
		out, err := yaml.Marshal(r.v)
		if err != nil {
			return err
		}
		_, err = o.Streams.Out.Write(out)
		return err
	case OutputJSON:
		out, err := json.MarshalIndent(r.v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(o.Streams.Out, string(out))
		return err
	case OutputTable:
		if r.table != nil {
			return printers.NewTablePrinter(printers.PrintOptions{}).PrintObj(r.table(), o.Streams.Out)
		}
	}
	want := "text, yaml or json"
	if r.table != nil {
		want = "text, table, yaml or json"
	}
	return fmt.Errorf("unknown output format %q: want %s", o.Output, want)
}

// now is the time the command runs at.
func (o *Options) now() time.Time { return o.Clock.Now() }
