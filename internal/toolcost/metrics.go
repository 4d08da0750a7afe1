package toolcost

import "github.com/prometheus/client_golang/prometheus"

// Metrics counts what the wrapped clients' calls cost. It is a
// prometheus.Collector: the caller registers it once, on the provider's
// registry.
type Metrics struct {
	invocations   *prometheus.CounterVec
	toolCPU       prometheus.Counter
	controllerCPU prometheus.Counter
}

// NewMetrics returns counters at zero.
func NewMetrics() *Metrics {
	return &Metrics{
		invocations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fdb_tool_invocations_total",
			Help: "Runs of fdbcli, fdbbackup and fdbrestore, by operation (op, the tool command); with --fdb-backend=sim, the runs the real backend would make.",
		}, []string{"op"}),
		toolCPU: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fdb_tool_cpu_seconds_total",
			Help: "CPU seconds the tool runs spend in the provider's pod; with --fdb-backend=sim, estimated by the tool-cost model (docs/SIMULATOR.md).",
		}),
		controllerCPU: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "fdb_cluster_controller_status_cpu_seconds_total",
			Help: "CPU seconds the databases' cluster controllers spend producing the status documents the provider reads; estimated by the tool-cost model (docs/SIMULATOR.md).",
		}),
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.invocations.Describe(ch)
	m.toolCPU.Describe(ch)
	m.controllerCPU.Describe(ch)
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.invocations.Collect(ch)
	m.toolCPU.Collect(ch)
	m.controllerCPU.Collect(ch)
}

// record counts what one part of op costs; start counts a tool run.
func (m *Metrics) record(op Op, c Cost, start bool) {
	if start {
		m.invocations.WithLabelValues(string(op)).Inc()
	}
	m.toolCPU.Add(c.ToolCPU.Seconds())
	m.controllerCPU.Add(c.ControllerCPU.Seconds())
}
