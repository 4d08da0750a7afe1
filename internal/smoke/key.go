package smoke

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-foundationdb/internal/workload"
)

// fdbcliTimeout is fdbcli's own --timeout for each command, in seconds,
// so that a database that does not answer fails the command rather than
// hang until the phase's timeout.
const fdbcliTimeout = "30"

// fdbcli is the command line that runs commands, separated by ';', with
// fdbcli in a pod's main container: fdbcli finds the cluster file through
// FDB_CLUSTER_FILE, which the provider sets there.
func fdbcli(commands ...string) []string {
	return []string{"fdbcli", "--timeout", fdbcliTimeout, "--exec", strings.Join(commands, "; ")}
}

// smokeKey returns a key of this run and a random value, made of letters,
// digits, '-' and '/' only: they need no quoting for fdbcli's tokenizer and
// fdbcli prints them as they are.
func smokeKey(now time.Time) (key, value string, err error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("cannot make a value: %w", err)
	}
	return "provider-foundationdb-smoke/" + now.UTC().Format("20060102-150405"), hex.EncodeToString(b), nil
}

// committed reports whether fdbcli's output says a write committed
// ("Committed (<version>)", fdbcli/fdbcli.actor.cpp at 7.1.67 and 7.3.63).
func committed(out string) bool { return strings.Contains(out, "Committed (") }

// valueOf is the value fdbcli's get printed for key: "`<key>' is
// `<value>'", or "`<key>': not found" (fdbcli/fdbcli.actor.cpp at 7.1.67
// and 7.3.63); ok is false when the output holds neither.
func valueOf(out, key string) (value string, found, ok bool) {
	prefix := "`" + key + "' is `"
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, prefix) && strings.HasSuffix(l, "'"):
			return strings.TrimSuffix(strings.TrimPrefix(l, prefix), "'"), true, true
		case l == "`"+key+"': not found":
			return "", false, true
		}
	}
	return "", false, false
}

// targets are the Cluster's running pods whose main container has
// FDB_CLUSTER_FILE set, by name.
func (r *runner) targets(ctx context.Context) ([]corev1.Pod, string, error) {
	pods, err := r.seen.pods(ctx)
	if err != nil {
		return nil, "", err
	}
	var out []corev1.Pod
	var clusterFile string
	for _, p := range pods {
		main := workload.MainContainer(&p)
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil || main == nil {
			continue
		}
		if i := slices.IndexFunc(main.Env, func(e corev1.EnvVar) bool { return e.Name == "FDB_CLUSTER_FILE" && e.Value != "" }); i >= 0 {
			out = append(out, p)
			clusterFile = main.Env[i].Value
		}
	}
	slices.SortFunc(out, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out, clusterFile, nil
}

// key writes a key with fdbcli in the main container of one of the
// Cluster's pods, reads it in another's (the same when there is only
// one) and clears it there. On a local cluster, whose pods run no
// containers, it finds the pods and says what it would run, and is
// skipped.
func (r *runner) key(ctx context.Context) (string, error) {
	pods, clusterFile, err := r.targets(ctx)
	if err != nil {
		return "", err
	}
	if len(pods) == 0 {
		return "", fmt.Errorf("no running pod of Cluster %s has a main container with FDB_CLUSTER_FILE set", r.o.ClusterName)
	}
	writer, reader := pods[0].Name, pods[len(pods)-1].Name
	key, value, err := smokeKey(time.Now())
	if err != nil {
		return "", err
	}
	write := fdbcli("writemode on", "set "+key+" "+value)
	read := fdbcli("get "+key, "writemode on", "clear "+key)
	if r.o.Mode == Local {
		return "", &skipped{fmt.Sprintf("kwok pods run no containers: would run %q in pod %s and %q in pod %s (container %s, FDB_CLUSTER_FILE=%s)",
			write, writer, read, reader, workload.MainContainer(&pods[0]).Name, clusterFile)}
	}
	container := workload.MainContainer(&pods[0]).Name
	run := func(pod string, command []string) (string, error) {
		cctx, cancel := context.WithTimeout(ctx, r.o.Timeouts.Key)
		defer cancel()
		stdout, stderr, err := r.o.Exec(cctx, r.o.Namespace, pod, container, command, nil)
		if err != nil {
			return "", fmt.Errorf("%q in pod %s: %w; stdout %q, stderr %q", command, pod, err, stdout, stderr)
		}
		return stdout, nil
	}
	out, err := run(writer, write)
	if err != nil {
		return "", err
	}
	if !committed(out) {
		return "", fmt.Errorf("fdbcli in pod %s did not commit %s: %q", writer, key, out)
	}
	out, err = run(reader, read)
	if err != nil {
		return "", err
	}
	got, found, ok := valueOf(out, key)
	switch {
	case !ok:
		return "", fmt.Errorf("fdbcli in pod %s printed no value of %s: %q", reader, key, out)
	case !found:
		return "", fmt.Errorf("fdbcli in pod %s does not find %s, written in pod %s", reader, key, writer)
	case got != value:
		return "", fmt.Errorf("fdbcli in pod %s reads %s as %q, written in pod %s as %q", reader, key, got, writer, value)
	case !committed(out):
		return "", fmt.Errorf("fdbcli in pod %s did not commit clearing %s: %q", reader, key, out)
	}
	return fmt.Sprintf("wrote %s in pod %s, read it back in pod %s and cleared it", key, writer, reader), nil
}
