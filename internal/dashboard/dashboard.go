// Package dashboard builds the Grafana dashboard of the provider and its
// databases as code (grafana-foundation-sdk), from the metrics the provider
// exports: the database figures of internal/dbmetrics and the provider's
// own counters. `make generate` writes it to
// examples/dashboard/foundationdb.json; its test holds every panel's query
// to the metrics the provider exports.
package dashboard

//lint:file-ignore SA1019 the dashboard is the classic JSON model, which Grafana's import and file provisioning take; schema v2 is a Kubernetes-style resource.

import (
	"encoding/json"
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/statetimeline"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"

	m "github.com/crossplane-contrib/provider-foundationdb/internal/dbmetrics"
)

// UID is the dashboard's uid in Grafana.
const UID = "provider-foundationdb"

// The provider's own counters the dashboard graphs (not database figures).
const (
	PolicyDecisions  = "fdb_policy_decisions_total"
	ToolInvocations  = "fdb_tool_invocations_total"
	Reconciles       = "controller_runtime_reconcile_total"
	ReconcileErrors  = "controller_runtime_reconcile_errors_total"
	datasourceName   = "datasource"
	selector         = `{namespace=~"$namespace", cluster=~"$cluster"}`
	perCluster       = "{{namespace}}/{{cluster}}"
	defaultPanelSpan = 8
)

// JSON is the dashboard as Grafana imports it.
func JSON() ([]byte, error) {
	d, err := Build()
	if err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("cannot encode the dashboard: %w", err)
	}
	return append(out, '\n'), nil
}

// Build returns the dashboard.
func Build() (dashboard.Dashboard, error) {
	b := dashboard.NewDashboardBuilder("FoundationDB on Crossplane").
		Uid(UID).
		Description("The databases provider-foundationdb runs and what the provider does with them.").
		Tags([]string{"foundationdb", "crossplane"}).
		Refresh("30s").
		Time("now-3h", "now").
		Timezone(common.TimeZoneBrowser).
		WithVariable(dashboard.NewDatasourceVariableBuilder(datasourceName).Label("Data source").Type("prometheus")).
		WithVariable(labelVariable("namespace", m.StatusUp.Name, "")).
		WithVariable(labelVariable("cluster", m.StatusUp.Name, `namespace=~"$namespace"`))

	b.WithRow(dashboard.NewRowBuilder("Health"))
	b.WithPanel(statPanel("Status read", "0: the provider could not read the database status in its last pass", m.StatusUp.Name+selector))
	b.WithPanel(statPanel("Available", "", m.Available.Name+selector))
	b.WithPanel(statPanel("Healthy", "As the database reports it", m.Healthy.Name+selector))
	b.WithPanel(statPanel("Fault tolerance below desired", "Zones short of the redundancy mode's fault tolerance, as the safety policies see it",
		m.DesiredFaultTolerance.Name+selector+" - on(namespace, cluster) "+m.FaultTolerance.Name+selector))
	b.WithPanel(series("Fault tolerance (zones)", "",
		query(m.FaultTolerance.Name+selector, perCluster+" policies"),
		query(m.DesiredFaultTolerance.Name+selector, perCluster+" desired"),
		query(m.FaultToleranceData.Name+selector, perCluster+" data"),
		query(m.FaultToleranceAvailability.Name+selector, perCluster+" availability")))
	b.WithPanel(states("Data distribution", query(m.DataState.Name+selector+" == 1", perCluster+" {{name}}")))
	b.WithPanel(series("Fewest replicas left", "", query(m.MinReplicasRemaining.Name+selector, perCluster)))

	b.WithRow(dashboard.NewRowBuilder("Data"))
	b.WithPanel(series("Moving data", "bytes",
		query(m.MovingInFlight.Name+selector, perCluster+" in flight"),
		query(m.MovingInQueue.Name+selector, perCluster+" queued")))
	b.WithPanel(series("Stored (key-value bytes)", "bytes", query(m.KVSize.Name+selector, perCluster)))
	b.WithPanel(series("Exclusions", "",
		query(m.Excluded.Name+selector, perCluster+" {{state}}")))
	b.WithPanel(series("Data left on excluded servers", "bytes", query(m.ExcludedStored.Name+selector, perCluster)))

	b.WithRow(dashboard.NewRowBuilder("Recoveries and processes"))
	b.WithPanel(states("Recovery state", query(m.RecoveryState.Name+selector+" == 1", perCluster+" {{name}}")))
	b.WithPanel(series("Since the last recovery", "s", query("time() - "+m.LastRecovery.Name+selector, perCluster)))
	b.WithPanel(series("Recovery generation", "", query(m.Generation.Name+selector, perCluster),
		query(m.ActiveGenerations.Name+selector, perCluster+" active generations")))
	b.WithPanel(series("Processes", "", query(m.Processes.Name+selector, perCluster+" {{class}} {{state}}")))
	b.WithPanel(series("Degraded processes", "", query(m.Degraded.Name+selector, perCluster)))
	b.WithPanel(series("Process groups", "",
		query(m.ProcessGroups.Name+selector, perCluster+" {{class}}"),
		query(m.ProcessGroupsRemoving.Name+selector, perCluster+" removing")))
	b.WithPanel(series("Coordinator quorum reachable", "", query(m.QuorumOK.Name+selector, perCluster)))
	b.WithPanel(states("Global lock", query(m.GlobalLockHolder.Name+selector+" == 1", perCluster+" {{holder}}")))

	b.WithRow(dashboard.NewRowBuilder("Backup and restore"))
	b.WithPanel(series("Backup running", "", query(m.BackupRunning.Name+selector, perCluster+" {{tag}}"),
		query(m.BackupRestorab.Name+selector, perCluster+" {{tag}} restorable"),
		query(m.BackupPaused.Name+selector, perCluster+" paused")))
	b.WithPanel(series("Restorable lag", "s", query(m.BackupLag.Name+selector, perCluster+" {{tag}}")))
	b.WithPanel(series("Restore progress", "percentunit", query(m.RestoreDone.Name+selector, perCluster+" {{restore}}"),
		query(m.RestoreRunning.Name+selector, perCluster+" {{restore}} running")))

	b.WithRow(dashboard.NewRowBuilder("Provider"))
	b.WithPanel(series("Safety-policy decisions", "ops",
		query("sum by (action, result) (rate("+PolicyDecisions+"[$__rate_interval]))", "{{action}} {{result}}")))
	b.WithPanel(series("Reconciles", "ops",
		query("sum by (controller, result) (rate("+Reconciles+"[$__rate_interval]))", "{{controller}} {{result}}"),
		query("sum by (controller) (rate("+ReconcileErrors+"[$__rate_interval]))", "{{controller}} errors")))
	b.WithPanel(series("FoundationDB tool runs", "ops",
		query("sum by (op) (rate("+ToolInvocations+"[$__rate_interval]))", "{{op}}")))
	d, err := b.Build()
	if err != nil {
		return dashboard.Dashboard{}, fmt.Errorf("cannot build the dashboard: %w", err)
	}
	return d, nil
}

// labelVariable is a template variable over the values of label on metric,
// all of them by default.
func labelVariable(label, metric, matchers string) *dashboard.QueryVariableBuilder {
	q := fmt.Sprintf("label_values(%s{%s}, %s)", metric, matchers, label)
	return dashboard.NewQueryVariableBuilder(label).
		Label(label).
		Datasource(datasource()).
		Query(dashboard.StringOrMap{String: &q}).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Multi(true).
		IncludeAll(true).
		AllValue(".*")
}

func datasource() common.DataSourceRef {
	t, uid := "prometheus", "${"+datasourceName+"}"
	return common.DataSourceRef{Type: &t, Uid: &uid}
}

func query(expr, legend string) *prometheus.DataqueryBuilder {
	return prometheus.NewDataqueryBuilder().Expr(expr).LegendFormat(legend).Datasource(datasource())
}

func series(title, unit string, queries ...*prometheus.DataqueryBuilder) *timeseries.PanelBuilder {
	p := timeseries.NewPanelBuilder().Title(title).Datasource(datasource()).Span(defaultPanelSpan).Height(8)
	if unit != "" {
		p.Unit(unit)
	}
	for _, q := range queries {
		p.WithTarget(q)
	}
	return p
}

func states(title string, q *prometheus.DataqueryBuilder) *statetimeline.PanelBuilder {
	return statetimeline.NewPanelBuilder().Title(title).Datasource(datasource()).Span(defaultPanelSpan).Height(8).
		ShowValue(common.VisibilityModeNever).MergeValues(true).WithTarget(q)
}

func statPanel(title, description, expr string) *stat.PanelBuilder {
	p := stat.NewPanelBuilder().Title(title).Datasource(datasource()).Span(6).Height(4).
		WithTarget(query(expr, perCluster))
	if description != "" {
		p.Description(description)
	}
	return p
}
