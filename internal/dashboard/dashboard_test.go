package dashboard

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-foundationdb/internal/dbmetrics"
)

// generated is where `make generate` writes the dashboard.
const generated = "../../examples/dashboard/foundationdb.json"

func TestMetricNames(t *testing.T) {
	cases := map[string]struct {
		expr string
		want []string
	}{
		"Selector":   {expr: `fdb_database_available{namespace=~"$namespace", cluster=~"$cluster"}`, want: []string{"fdb_database_available"}},
		"Comparison": {expr: `fdb_cluster_data_state{cluster="a"} == 1`, want: []string{"fdb_cluster_data_state"}},
		"Function":   {expr: `time() - fdb_provider_last_recovery_timestamp_seconds{}`, want: []string{"fdb_provider_last_recovery_timestamp_seconds"}},
		"Aggregation": {expr: `sum by (action, result) (rate(fdb_policy_decisions_total[$__rate_interval]))`,
			want: []string{"fdb_policy_decisions_total"}},
		"Matching": {expr: `a{x="y"} - on(namespace, cluster) b{x="y"}`, want: []string{"a", "b"}},
		"Variable": {expr: `label_values(fdb_provider_status_up{namespace=~"$namespace"}, cluster)`, want: []string{"fdb_provider_status_up"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, MetricNames(tc.expr)); diff != "" {
				t.Errorf("MetricNames(%q): -want +got:\n%s", tc.expr, diff)
			}
		})
	}
}

// TestQueriesNameExportedMetrics holds every query of the dashboard to the
// metrics the provider exports, and every database metric to a panel that
// shows it. The quickstart test (internal/localrun) holds the same queries
// to what a running provider's /metrics serves.
func TestQueriesNameExportedMetrics(t *testing.T) {
	d, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	exported := []string{PolicyDecisions, ToolInvocations, Reconciles, ReconcileErrors}
	for _, m := range dbmetrics.All {
		exported = append(exported, m.Name)
	}
	var graphed []string
	for _, q := range Queries(d) {
		names := MetricNames(q)
		if len(names) == 0 {
			t.Errorf("query %q names no metric", q)
		}
		for _, n := range names {
			if !slices.Contains(exported, n) {
				t.Errorf("query %q names %s, which the provider does not export", q, n)
			}
			graphed = append(graphed, n)
		}
	}
	for _, m := range dbmetrics.All {
		if !slices.Contains(graphed, m.Name) {
			t.Errorf("no panel shows %s", m.Name)
		}
	}
}

// TestGeneratedIsCurrent holds examples/dashboard to the code.
func TestGeneratedIsCurrent(t *testing.T) {
	want, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(generated)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run make generate", generated)
	}
}
