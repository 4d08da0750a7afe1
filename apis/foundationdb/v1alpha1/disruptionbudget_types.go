package v1alpha1

// PodDisruptionBudgetSettings tune the PodDisruptionBudget every Cluster
// has in its target namespace: it lets the eviction API (kubectl drain, a
// cluster autoscaler scaling nodes down) take one of the Cluster's process
// pods at a time, and only while all the others are Ready, so that a drain
// never takes down more than one fault domain's pods at once and waits
// until the pod it evicted runs again.
type PodDisruptionBudgetSettings struct {
	// Disabled writes no PodDisruptionBudget and deletes the one written
	// before: for a platform that keeps budgets of its own (the eviction
	// API refuses to evict a pod that two budgets select).
	// +optional
	Disabled bool `json:"disabled,omitempty"`
}

// DisruptionBudgetObservation is what the Cluster's PodDisruptionBudget
// said when the Cluster last read it.
type DisruptionBudgetObservation struct {
	// DisruptionsAllowed is how many pods the eviction API may take now:
	// 0 while one of the Cluster's pods is not Ready, and a drain waits.
	DisruptionsAllowed int32 `json:"disruptionsAllowed"`
	// CurrentHealthy is how many of the Cluster's pods are Ready.
	CurrentHealthy int32 `json:"currentHealthy"`
	// DesiredHealthy is how many must stay Ready.
	DesiredHealthy int32 `json:"desiredHealthy"`
}

// DisruptionBudgetEnabled reports whether the Cluster wants its
// PodDisruptionBudget.
func (p ClusterParameters) DisruptionBudgetEnabled() bool {
	return p.PodDisruptionBudget == nil || !p.PodDisruptionBudget.Disabled
}
